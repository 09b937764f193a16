//! Links the `gclab` program with `link/run-code.ld`, which lays out the
//! code a run executes in one piece (See Note [A run's code laid out
//! together]).
//!
//! Note [A run's code laid out together]
//! ----------------------------------------
//! A run's peak resident set size counts the program's code as well as
//! its heap, and GHC's figure does the same for its program. The kernel
//! maps a file's pages around each page fault together (`fault_around_bytes`,
//! 64 KiB: the whole aligned window, where the file is in the page cache),
//! so the code resident is not what ran but every window that holds some
//! of it. `gclab` is one program with all its tools (sweeps, reports,
//! plots, eventlog readers, a command-line parser), and the ~850 functions
//! a run executes (0.2 MB of them in one run of binary-trees, 0.7 MB
//! across every collector and workload) lay spread through its 3.3 MB of
//! code: a run of binary-trees mapped 2.0-2.3 MB of it, where GHC's
//! program maps 1 MB in all. Peak RSS over
//! `experiments/peers-peak-memory.toml` read 1.043x GHC's, while the heap
//! itself read 1.012x.
//!
//! The linker script puts those functions first, in their own output
//! section ahead of `.text` (`INSERT BEFORE`, so the default layout stays
//! otherwise), each from the start of a cache line. Without that, where
//! a function's hot loop fell against cache lines and the decoded-uop
//! cache's windows was left to the order of the list: binary-trees 19's
//! mutator ran 1.09x slower (1.07-1.11 over 5 rounds) with the first list
//! and 1.01x with every function so aligned (7 rounds; its code the same
//! instructions at other addresses; See the placement entries in
//! docs/performance.md). `scripts/layout-run-code` writes the script from
//! callgrind runs of every collector on every workload and of each
//! output; a function it does not name still works, it only lies
//! elsewhere. Its patterns leave
//! out the compiler's hashes where the name stays unique, so the script
//! matches a new build; `tests/layout.rs` checks that the functions of
//! the copying loop land inside the section. Measured with the packing of
//! relocations below (`gclab run binary-trees 4`, `/usr/bin/time -f %M`,
//! three runs): 3.3-3.6 MB of peak RSS instead of 4.7-4.9 MB, against
//! GHC's 3.6-3.8 MB; at binary-trees 18, 0.9 MB of code resident instead
//! of 2.0. Over the peak-memory sweep, peak RSS went from 1.043x GHC's to
//! 1.022x [0.996, 1.048].
//!
//! The same goes for the dynamic relocations: a position-independent
//! program's pointers in read-only data are fixed up at start-up from a
//! table that the loader reads whole, 127 KB of `.rela.dyn` here. Packed
//! (`-z pack-relative-relocs`, `DT_RELR`) it takes 5 KB. Only a C library
//! from glibc 2.36 on can load such a program, so it is packed only when
//! built on such a machine for itself.
//!
//! Only the `gclab` program is linked so: test and bench binaries need not
//! pay the linker the extra patterns. GNU ld and LLD (rustc's default
//! linker on x86-64 Linux) both read the script; other targets skip it.

fn main() {
    let script = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("link/run-code.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    println!("cargo:rustc-link-arg-bin=gclab=-Wl,-T,{}", script.display());
    if packed_relocations_load_here() {
        println!("cargo:rustc-link-arg-bin=gclab=-Wl,-z,pack-relative-relocs");
    }
}

/// Can the program be linked with packed relative relocations (`DT_RELR`)?
/// Only if it is built for this machine and this machine's C library
/// (glibc 2.36 or later) can load them: the program would not start on
/// an older one (See Note [A run's code laid out together]).
fn packed_relocations_load_here() -> bool {
    if std::env::var("HOST").ok() != std::env::var("TARGET").ok() {
        return false;
    }
    let Ok(out) = std::process::Command::new("getconf").arg("GNU_LIBC_VERSION").output() else { return false };
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.trim().strip_prefix("glibc ").unwrap_or("");
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}

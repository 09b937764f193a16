//! How the heap's memory comes from and goes back to the OS:
//! `--disable-delayed-os-memory-return` (GHC's), `--huge-pages` and
//! `--no-pretouch` (gclab's).

use super::flag::Flag;
use crate::mblock::MemoryReturn;

pub(super) const FLAGS: &[Flag] = &[
    Flag {
        prefix: "--disable-delayed-os-memory-return",
        exact: true,
        syntax: "--disable-delayed-os-memory-return",
        help: &["Give freed memory back to the OS at once", "(MADV_DONTNEED), so the RSS shows it; by default the kernel takes", "it back lazily (MADV_FREE), which is cheaper"],
        set: |f, _, _| {
            f.memory_return = MemoryReturn::Eager;
            Ok(())
        },
    },
    Flag {
        prefix: "--huge-pages",
        exact: true,
        syntax: "--huge-pages",
        help: &["(gclab) Back the heap with 2 MiB transparent huge pages", "(megablocks mapped in aligned pairs, MADV_HUGEPAGE)"],
        set: |f, _, _| {
            f.huge_pages = true;
            Ok(())
        },
    },
    Flag {
        prefix: "--no-pretouch",
        exact: true,
        syntax: "--no-pretouch",
        help: &["(gclab) Fault the heap's fresh memory in where it is first written", "(as GHC does), not ahead on a thread of its own"],
        set: |f, _, _| {
            f.pretouch = false;
            Ok(())
        },
    },
];

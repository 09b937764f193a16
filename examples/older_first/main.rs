//! A researcher's own `gclab` with one more collector, `older-first`
//! (the third walkthrough of `docs/adding-a-collector.md`).
//!
//! ```sh
//! cargo run --release --example older_first -- run --collector older-first lru 50000 1000000 128 +RTS -s
//! ```

mod collector;

fn main() -> std::process::ExitCode {
    let mut registry = gclab_collectors::Registry::builtin();
    registry.register(collector::OLDER_FIRST).expect("older-first is a new name");
    gclab::cli::main_with(registry)
}

//! A researcher's own `gclab`: the whole command line (`run`, `list`,
//! `sweep`, `report`, ...) with one more collector, `full-copy`.
//!
//! ```sh
//! cargo run --release --example full_copy -- run --collector full-copy gcbench 14 +RTS -s
//! ```

mod collector;

fn main() -> std::process::ExitCode {
    let mut registry = gclab_collectors::Registry::builtin();
    registry.register(collector::FULL_COPY).expect("full-copy is a new name");
    gclab::cli::main_with(registry)
}

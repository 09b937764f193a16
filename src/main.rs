//! The `gclab` command, with the built-in collectors (See `gclab::cli`).

fn main() -> std::process::ExitCode {
    gclab::cli::main_with(gclab_collectors::Registry::builtin())
}

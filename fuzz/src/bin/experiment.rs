//! The experiment TOML loader: any text as an experiment file.
fn main() {
    let registry = gclab_collectors::Registry::builtin();
    afl::fuzz!(|data: &[u8]| {
        if let Ok(text) = std::str::from_utf8(data) {
            let _ = gclab_experiments::experiment::Experiment::parse(std::path::Path::new("fuzz.toml"), text, &registry);
        }
    });
}

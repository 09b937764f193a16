//! The `+RTS` flag parser: any text, split into flags as a shell would.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Ok(text) = std::str::from_utf8(data) {
            let args: Vec<String> = text.split_whitespace().map(String::from).collect();
            let _ = gclab_core::RtsFlags::from_env_and_args(None, &args);
        }
    });
}

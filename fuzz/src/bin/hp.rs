//! The `.hp` reader: any text as a heap profile.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Ok(text) = std::str::from_utf8(data) {
            let _ = gclab_heap_traverse::hp_file::parse(text);
        }
    });
}

//! gclab-lang's front end: any text as a Haskell program, lexed, laid
//! out, parsed, desugared and lowered (not run: a program may loop).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Ok(text) = std::str::from_utf8(data) {
            let _ = gclab_lang::compile(&[("fuzz.hs".to_string(), text.to_string())]);
        }
    });
}

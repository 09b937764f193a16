//! Every GHC peer program parses.
#[test]
fn the_peers_parse() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../peers/ghc");
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "hs") {
            let src = std::fs::read_to_string(&p).unwrap();
            if let Err(e) = gclab_lang::syntax::parse::parse_module(&src) {
                panic!("{}:{}: {}", p.display(), e.line, e.message);
            }
        }
    }
}

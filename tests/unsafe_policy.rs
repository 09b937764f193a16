//! The project's rule for `unsafe`: only core and the collectors have it,
//! and every unsafe block, fn and impl there says why it is sound in a
//! `// SAFETY:` comment next to it: in the comment lines (and attributes)
//! right above it, on its own line, or, for a fn, at the top of its body.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Lines that use `unsafe` as a keyword (not in a comment).
fn unsafe_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let code = l.split("//").next().unwrap_or("");
            ["unsafe {", "unsafe impl", "unsafe fn", "unsafe extern"].iter().any(|k| code.contains(k))
        })
        .map(|(i, _)| i)
        .collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn unsafe_lives_only_in_core_and_the_collectors() {
    for dir in ["src", "heap-traverse/src", "workloads/src", "tests", "benches"] {
        for file in rust_files(&root().join(dir)) {
            if file.ends_with("unsafe_policy.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let found = unsafe_lines(&text);
            assert!(found.is_empty(), "{}: unsafe outside core and the collectors, line(s) {:?}", file.display(), found.iter().map(|i| i + 1).collect::<Vec<_>>());
        }
    }
}

#[test]
fn every_unsafe_in_core_and_the_collectors_says_why() {
    let mut missing = Vec::new();
    let mut count = 0;
    for dir in ["core/src", "collectors/src"] {
        for file in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for i in unsafe_lines(&text) {
                count += 1;
                let before = lines[..=i]
                    .iter()
                    .rev()
                    .enumerate()
                    .take_while(|(k, l)| *k == 0 || l.trim_start().starts_with("//") || l.trim_start().starts_with("#["))
                    .any(|(_, l)| l.contains("SAFETY:"));
                let body_top = lines[i..(i + 4).min(lines.len())].iter().any(|l| l.contains("SAFETY:"));
                if !before && !body_top {
                    missing.push(format!("{}:{}: {}", file.display(), i + 1, lines[i].trim()));
                }
            }
        }
    }
    assert!(count > 50, "only {count} unsafe sites found: is the scan looking at the right files?");
    assert!(missing.is_empty(), "unsafe without a // SAFETY: comment:\n{}", missing.join("\n"));
}

/// A safe function that hands out `&mut` to heap metadata it does not own
/// (from `&self`, or with a `'static` lifetime) lets safe code alias it:
/// such functions must be `unsafe fn` with their contract.
#[test]
fn no_safe_function_hands_out_aliasable_mut() {
    let mut found = Vec::new();
    let mut checked = 0;
    for dir in ["core/src", "collectors/src"] {
        for file in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if !code.contains("fn ") || !code.contains("->") {
                    continue;
                }
                let (args, ret) = code.split_once("->").unwrap();
                let aliasable = ret.contains("&'static mut") || (args.contains("(&self") && ret.trim_start().starts_with("&mut"));
                if aliasable {
                    checked += 1;
                    if !code.contains("unsafe fn") {
                        found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(checked >= 3, "only {checked} functions returning aliasable &mut found: is the scan looking at the right files?");
    assert!(found.is_empty(), "safe functions handing out aliasable &mut:\n{}", found.join("\n"));
}

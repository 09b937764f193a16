//! The architecture stays as `docs/design.md` draws it: in every crate the
//! modules form layers (no circle of imports larger than
//! `LARGEST_CIRCLE`, at the top of each crate and inside every folder
//! module), and no source file grows past `LONGEST_FILE` lines.
//!
//! A module depends on another when its source names it: `crate::x` (or
//! `use crate::{x, ..}`) at the top of a crate, `super::x` or
//! `crate::path::x` inside a folder module. Unit tests (`mod tests`) are
//! left out, as they may reach anywhere. This is the measure the
//! architecture issue was filed with.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The largest circle of modules that import each other, in any crate or
/// folder module.
const LARGEST_CIRCLE: usize = 3;

/// The most lines a source file may have.
const LONGEST_FILE: usize = 700;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate's `src` directory in the workspace (the root's too).
fn crate_sources() -> Vec<PathBuf> {
    let mut dirs = vec![root().join("src")];
    for entry in std::fs::read_dir(root()).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("Cargo.toml").is_file() && dir.join("src").is_dir() && dir.file_name() != Some("fuzz".as_ref()) {
            dirs.push(dir.join("src"));
        }
    }
    dirs
}

/// A source file without comments and unit tests.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text,
    };
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The identifiers that follow each occurrence of `prefix` (`crate::`,
/// `super::`), and those inside `prefix{...}` groups.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(inner.split(',').filter_map(|item| item.trim().split("::").next()).map(|s| s.trim().to_string()));
        } else {
            names.insert(rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect());
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// The modules directly inside `dir` (a crate's `src`, or a folder
/// module): name -> the files that make it up.
fn modules_in(dir: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            modules.insert(name, rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") && !["lib", "main", "mod"].contains(&name.as_str()) {
            modules.insert(name, vec![path]);
        }
    }
    modules
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The import graph of the modules in `dir`: a module names a sibling as
/// `crate::<path>::x` (`path`: where `dir` is in its crate) or, from a
/// file directly inside a folder module, `super::x`.
fn graph(dir: &Path, path: &str) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules_in(dir);
    let mut edges = BTreeMap::new();
    for (name, files) in &modules {
        let mut deps = BTreeSet::new();
        for file in files {
            let code = code_of(file);
            deps.extend(names_after(&code, &format!("crate::{path}")));
            if !path.is_empty() && file.parent() == Some(dir) {
                deps.extend(names_after(&code, "super::"));
            }
        }
        deps.retain(|d| d != name && modules.contains_key(d));
        edges.insert(name.clone(), deps);
    }
    edges
}

/// The largest strongly connected component of `edges` (Tarjan's).
fn largest_circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        largest: Vec<String>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            for w in &self.edges[v] {
                if !self.index.contains_key(w.as_str()) {
                    self.visit(w);
                    let lw = self.low[w.as_str()];
                    self.low.insert(v, self.low[v].min(lw));
                } else if self.stack.contains(&w.as_str()) {
                    let iw = self.index[w.as_str()];
                    self.low.insert(v, self.low[v].min(iw));
                }
            }
            if self.low[v] == self.index[v] {
                let at = self.stack.iter().rposition(|x| *x == v).unwrap();
                let component: Vec<String> = self.stack.drain(at..).map(str::to_string).collect();
                if component.len() > self.largest.len() {
                    self.largest = component;
                }
            }
        }
    }
    let mut t = Tarjan { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), largest: Vec::new() };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.largest
}

/// Every folder module under `dir`, with its path in the crate.
fn folder_modules(dir: &Path, path: &str, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let sub = entry.unwrap().path();
        if sub.is_dir() {
            let name = sub.file_name().unwrap().to_string_lossy().into_owned();
            let inner = format!("{path}{name}::");
            out.push((sub.clone(), inner.clone()));
            folder_modules(&sub, &inner, out);
        }
    }
}

#[test]
fn modules_form_layers_in_every_crate() {
    let mut circles = Vec::new();
    for src in crate_sources() {
        let mut places = vec![(src.clone(), String::new())];
        folder_modules(&src, "", &mut places);
        for (dir, path) in places {
            let circle = largest_circle(&graph(&dir, &path));
            if circle.len() > LARGEST_CIRCLE {
                circles.push(format!("{}: {} modules import each other: {}", dir.display(), circle.len(), circle.join(" ")));
            }
        }
    }
    assert!(circles.is_empty(), "import circles of more than {LARGEST_CIRCLE} modules (See the layers in docs/design.md):\n{}", circles.join("\n"));
}

#[test]
fn the_measure_sees_a_circle() {
    // The test above must be able to fail: a circle of four, in words.
    let edges: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("e", "a")]
        .iter()
        .map(|(from, to)| (from.to_string(), BTreeSet::from([to.to_string()])))
        .collect();
    let mut circle = largest_circle(&edges);
    circle.sort();
    assert_eq!(circle, ["a", "b", "c", "d"]);
    assert_eq!(names_after("use crate::{heap::Heap, stats};\nlet x = crate::sync::go();", "crate::"), BTreeSet::from(["heap".to_string(), "stats".to_string(), "sync".to_string()]));
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let mut long = Vec::new();
    let mut dirs = crate_sources();
    dirs.extend(["tests", "benches", "examples"].iter().map(|d| root().join(d)).filter(|d| d.is_dir()));
    for dir in dirs {
        for file in rust_files(&dir) {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > LONGEST_FILE {
                long.push(format!("{}: {lines} lines", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "source files over {LONGEST_FILE} lines (split them by concern):\n{}", long.join("\n"));
}

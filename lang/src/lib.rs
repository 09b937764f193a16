//! gclab-lang: a lazy functional language, a subset of Haskell 2010,
//! evaluated on gclab's heap.

pub mod syntax;

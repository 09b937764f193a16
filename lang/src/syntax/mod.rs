//! The front end's syntax: the lexer, the layout rule, the abstract
//! syntax and the parser.

pub mod ast;
pub mod layout;
pub mod lex;
pub mod parse;

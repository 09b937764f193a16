//! The lexer: source text to tokens with their lines and columns (Haskell
//! 2010's lexical syntax: identifiers, qualified names, operators,
//! numeric, character and string literals, nested comments). Pragmas
//! (`{-# ... #-}`) are comments; the layout rule works on the columns
//! kept here (See `layout`).

use std::fmt;

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A variable identifier, possibly qualified (`x`, `M.x`).
    VarId(String),
    /// A constructor identifier, possibly qualified (`Just`, `M.T`).
    ConId(String),
    /// A variable operator (`+`, `M.<>`).
    VarSym(String),
    /// A constructor operator (`:+`).
    ConSym(String),
    /// An integer literal.
    Integer(num_bigint::BigInt),
    /// A floating literal.
    Float(f64),
    /// A character literal.
    Char(char),
    /// A string literal.
    Str(String),
    /// A reserved word or reserved operator, or special character.
    Key(&'static str),
    /// The end of the input.
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::VarId(s) | Tok::ConId(s) | Tok::VarSym(s) | Tok::ConSym(s) => write!(f, "`{s}'"),
            Tok::Integer(n) => write!(f, "`{n}'"),
            Tok::Float(x) => write!(f, "`{x}'"),
            Tok::Char(c) => write!(f, "{c:?}"),
            Tok::Str(s) => write!(f, "{s:?}"),
            Tok::Key(k) => write!(f, "`{k}'"),
            Tok::Eof => f.write_str("the end of the file"),
        }
    }
}

/// A token and where it starts (1-based line and column).
#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
    pub col: u32,
    /// The first token on its line.
    pub first_on_line: bool,
}

/// An error in the source, with its line.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub line: u32,
    pub message: String,
}

const RESERVED_WORDS: &[&str] = &[
    "case", "class", "data", "default", "deriving", "do", "else", "foreign", "if", "import", "in", "infix", "infixl", "infixr", "instance", "let", "module", "newtype", "of", "then", "type", "where", "_",
];
const RESERVED_OPS: &[&str] = &["..", ":", "::", "=", "\\", "|", "<-", "->", "@", "~", "=>"];
const SPECIAL: &[&str] = &["(", ")", ",", ";", "[", "]", "`", "{", "}"];

fn is_symbol(c: char) -> bool {
    "!#$%&*+./<=>?@\\^|-~:".contains(c)
}

fn keyword(s: &str) -> Option<&'static str> {
    RESERVED_WORDS.iter().chain(RESERVED_OPS).chain(SPECIAL).find(|k| **k == s).copied()
}

/// Tokenise `src`.
pub fn lex(src: &str) -> Result<Vec<Token>, SyntaxError> {
    let mut lx = Lexer { chars: src.chars().collect(), pos: 0, line: 1, col: 1, last_line: 0, out: Vec::new() };
    lx.run()?;
    Ok(lx.out)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: u32,
    col: u32,
    last_line: u32,
    out: Vec<Token>,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    fn bump(&mut self) -> char {
        let c = self.chars[self.pos];
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else if c == '\t' {
            self.col = ((self.col - 1) / 8 + 1) * 8 + 1;
        } else {
            self.col += 1;
        }
        c
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError { line: self.line, message: message.into() })
    }

    fn push(&mut self, tok: Tok, line: u32, col: u32) {
        let first_on_line = line != self.last_line;
        self.last_line = line;
        self.out.push(Token { tok, line, col, first_on_line });
    }

    fn run(&mut self) -> Result<(), SyntaxError> {
        loop {
            self.skip_space_and_comments()?;
            let (line, col) = (self.line, self.col);
            let Some(c) = self.peek(0) else {
                self.out.push(Token { tok: Tok::Eof, line: line + 1, col: 0, first_on_line: true });
                return Ok(());
            };
            let tok = if c.is_ascii_digit() {
                self.number()?
            } else if c.is_alphabetic() || c == '_' {
                self.name()
            } else if c == '\'' {
                self.char_lit()?
            } else if c == '"' {
                self.string_lit()?
            } else if SPECIAL.contains(&c.to_string().as_str()) {
                self.bump();
                Tok::Key(keyword(&c.to_string()).expect("special"))
            } else if is_symbol(c) {
                self.operator(String::new())
            } else {
                return self.err(format!("unexpected character {c:?}"));
            };
            self.push(tok, line, col);
        }
    }

    fn skip_space_and_comments(&mut self) -> Result<(), SyntaxError> {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('-'), Some('-')) => {
                    // `--` then more dashes starts a comment unless a symbol follows.
                    let mut k = 2;
                    while self.peek(k) == Some('-') {
                        k += 1;
                    }
                    if self.peek(k).is_some_and(is_symbol) {
                        return Ok(());
                    }
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                (Some('{'), Some('-')) => self.block_comment()?,
                _ => return Ok(()),
            }
        }
    }

    fn block_comment(&mut self) -> Result<(), SyntaxError> {
        let start = self.line;
        self.bump();
        self.bump();
        let mut depth = 1;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (None, _) => return Err(SyntaxError { line: start, message: "a `{-' comment is never closed".into() }),
                (Some('{'), Some('-')) => {
                    self.bump();
                    self.bump();
                    depth += 1;
                }
                (Some('-'), Some('}')) => {
                    self.bump();
                    self.bump();
                    depth -= 1;
                }
                _ => {
                    self.bump();
                }
            }
        }
        Ok(())
    }

    fn ident_chars(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek(0).filter(|c| c.is_alphanumeric() || *c == '_' || *c == '\'') {
            s.push(c);
            self.bump();
        }
        s
    }

    /// An identifier, a qualified name or a qualified operator.
    fn name(&mut self) -> Tok {
        let mut qual = String::new();
        loop {
            let part = self.ident_chars();
            let is_con = part.chars().next().is_some_and(|c| c.is_uppercase());
            if is_con && self.peek(0) == Some('.') {
                let next = self.peek(1);
                if next.is_some_and(|c| c.is_alphabetic() || c == '_') {
                    qual.push_str(&part);
                    qual.push('.');
                    self.bump();
                    continue;
                }
                if next.is_some_and(is_symbol) {
                    qual.push_str(&part);
                    qual.push('.');
                    self.bump();
                    return self.operator(qual);
                }
            }
            let full = format!("{qual}{part}");
            if is_con {
                return Tok::ConId(full);
            }
            if qual.is_empty() {
                if let Some(k) = keyword(&part) {
                    return Tok::Key(k);
                }
            }
            return Tok::VarId(full);
        }
    }

    fn operator(&mut self, qual: String) -> Tok {
        let mut s = String::new();
        while let Some(c) = self.peek(0).filter(|c| is_symbol(*c)) {
            s.push(c);
            self.bump();
        }
        if qual.is_empty() {
            if let Some(k) = RESERVED_OPS.iter().find(|k| **k == s) {
                return Tok::Key(k);
            }
        }
        let full = format!("{qual}{s}");
        if s.starts_with(':') {
            Tok::ConSym(full)
        } else {
            Tok::VarSym(full)
        }
    }

    fn digits(&mut self, radix: u32) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek(0).filter(|c| c.is_digit(radix) || *c == '_') {
            if c != '_' {
                s.push(c);
            }
            self.bump();
        }
        s
    }

    fn number(&mut self) -> Result<Tok, SyntaxError> {
        if self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X' | 'o' | 'O' | 'b' | 'B')) && self.peek(2).is_some_and(|c| c.is_ascii_hexdigit()) {
            self.bump();
            let radix = match self.bump() {
                'x' | 'X' => 16,
                'o' | 'O' => 8,
                _ => 2,
            };
            let d = self.digits(radix);
            return Ok(Tok::Integer(num_bigint::BigInt::parse_bytes(d.as_bytes(), radix).expect("digits")));
        }
        let int = self.digits(10);
        let mut float = false;
        let mut text = int.clone();
        if self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
            text.push('.');
            text.push_str(&self.digits(10));
            float = true;
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let sign = matches!(self.peek(1), Some('+' | '-'));
            let d = if sign { self.peek(2) } else { self.peek(1) };
            if d.is_some_and(|c| c.is_ascii_digit()) {
                text.push(self.bump());
                if sign {
                    text.push(self.bump());
                }
                text.push_str(&self.digits(10));
                float = true;
            }
        }
        if float {
            return text.parse().map(Tok::Float).or_else(|_| self.err(format!("bad number `{text}'")));
        }
        Ok(Tok::Integer(int.parse().expect("digits")))
    }

    fn escape(&mut self) -> Result<Option<char>, SyntaxError> {
        let c = match self.peek(0) {
            Some(c) => c,
            None => return self.err("a literal ends inside an escape"),
        };
        let simple = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '"' => Some('"'),
            '0' if !self.peek(1).is_some_and(|d| d.is_ascii_digit()) => Some('\0'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '&' => {
                self.bump();
                return Ok(None);
            }
            _ => None,
        };
        if let Some(ch) = simple {
            self.bump();
            return Ok(Some(ch));
        }
        if c.is_ascii_digit() || c == 'x' || c == 'o' {
            let radix = match c {
                'x' => {
                    self.bump();
                    16
                }
                'o' => {
                    self.bump();
                    8
                }
                _ => 10,
            };
            let d = self.digits(radix);
            let n = u32::from_str_radix(&d, radix).ok().and_then(char::from_u32);
            return n.map(Some).map_or_else(|| self.err(format!("bad character escape `\\{d}'")), Ok);
        }
        if c.is_whitespace() {
            // A string gap: `\   \`.
            while self.peek(0).is_some_and(|c| c.is_whitespace()) {
                self.bump();
            }
            if self.peek(0) == Some('\\') {
                self.bump();
                return Ok(None);
            }
            return self.err("a string gap must end with `\\'");
        }
        for (name, ch) in [("NUL", '\0'), ("DEL", '\x7f'), ("ESC", '\x1b'), ("SOH", '\x01'), ("LF", '\n'), ("CR", '\r'), ("HT", '\t'), ("SP", ' ')] {
            if self.chars[self.pos..].starts_with(&name.chars().collect::<Vec<_>>()) {
                for _ in 0..name.len() {
                    self.bump();
                }
                return Ok(Some(ch));
            }
        }
        if c == '^' {
            self.bump();
            let ch = self.bump();
            return Ok(char::from_u32(ch as u32 - '@' as u32));
        }
        self.err(format!("unknown escape `\\{c}'"))
    }

    fn char_lit(&mut self) -> Result<Tok, SyntaxError> {
        self.bump();
        let c = match self.peek(0) {
            Some('\\') => {
                self.bump();
                match self.escape()? {
                    Some(c) => c,
                    None => return self.err("`\\&' is not a character"),
                }
            }
            Some(c) if c != '\'' && c != '\n' => {
                self.bump();
                c
            }
            _ => return self.err("an empty character literal"),
        };
        if self.peek(0) != Some('\'') {
            return self.err("a character literal must end with `''");
        }
        self.bump();
        Ok(Tok::Char(c))
    }

    fn string_lit(&mut self) -> Result<Tok, SyntaxError> {
        let start = self.line;
        self.bump();
        let mut s = String::new();
        loop {
            match self.peek(0) {
                None | Some('\n') => return Err(SyntaxError { line: start, message: "a string literal is never closed".into() }),
                Some('"') => {
                    self.bump();
                    return Ok(Tok::Str(s));
                }
                Some('\\') => {
                    self.bump();
                    if let Some(c) = self.escape()? {
                        s.push(c);
                    }
                }
                Some(c) => {
                    self.bump();
                    s.push(c);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn names_operators_and_literals() {
        assert_eq!(
            toks("f x = M.g (x+1) `div` 2 -- c\n"),
            vec![
                Tok::VarId("f".into()),
                Tok::VarId("x".into()),
                Tok::Key("="),
                Tok::VarId("M.g".into()),
                Tok::Key("("),
                Tok::VarId("x".into()),
                Tok::VarSym("+".into()),
                Tok::Integer(1.into()),
                Tok::Key(")"),
                Tok::Key("`"),
                Tok::VarId("div".into()),
                Tok::Key("`"),
                Tok::Integer(2.into()),
                Tok::Eof
            ]
        );
        assert_eq!(toks("0xff 1.5e3 'a' \"b\\n\" x' :+ ->"), vec![
            Tok::Integer(255.into()),
            Tok::Float(1500.0),
            Tok::Char('a'),
            Tok::Str("b\n".into()),
            Tok::VarId("x'".into()),
            Tok::ConSym(":+".into()),
            Tok::Key("->"),
            Tok::Eof
        ]);
        assert_eq!(toks("{- a {- nested -} -} x {-# INLINE x #-}"), vec![Tok::VarId("x".into()), Tok::Eof]);
        assert_eq!(toks("-->"), vec![Tok::VarSym("-->".into()), Tok::Eof]);
    }

    #[test]
    fn a_bad_literal_names_its_line() {
        assert_eq!(lex("x\n\"abc").unwrap_err().line, 2);
        assert!(lex("'ab'").is_err());
    }
}

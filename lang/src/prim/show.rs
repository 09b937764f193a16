//! `show` of numbers and characters, digit for digit as GHC's `base`
//! writes them (the shortest digits that read back, GHC's choice between
//! fixed and exponent notation, its character escapes).

use super::num::Num;

/// `show` of an atomic value (no parentheses: `showsPrec` adds them).
pub fn show_num(n: &Num) -> String {
    match n {
        Num::Int(x) => x.to_string(),
        Num::Word(x) => x.to_string(),
        Num::Integer(x) => x.to_string(),
        Num::Small(x) => x.to_string(),
        Num::Double(x) => show_double(*x),
        Num::Char(c) => {
            if *c == '\'' {
                "'\\''".into()
            } else {
                let mut s = String::from("'");
                escape(*c, None, &mut s);
                s.push('\'');
                s
            }
        }
    }
}

/// GHC's `show :: Double -> String`.
pub fn show_double(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if x < 0.0 || (x == 0.0 && x.is_sign_negative()) {
        return format!("-{}", show_double(-x));
    }
    let (digits, e) = float_digits(x);
    if !(0..=7).contains(&e) {
        let (d, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        return format!("{d}.{rest}e{}", e - 1);
    }
    if e == 0 {
        return format!("0.{digits}");
    }
    let e = e as usize;
    let (int, frac) = if digits.len() <= e { (format!("{digits}{}", "0".repeat(e - digits.len())), String::new()) } else { (digits[..e].to_string(), digits[e..].to_string()) };
    format!("{int}.{}", if frac.is_empty() { "0".into() } else { frac })
}

/// The shortest digits of `x > 0` and `e` with `x = 0.digits * 10^e`
/// (GHC's `floatToDigits 10`).
fn float_digits(x: f64) -> (String, i32) {
    if x == 0.0 {
        return ("0".into(), 0);
    }
    let s = format!("{x:e}");
    let (mant, exp) = s.split_once('e').expect("{:e} has an exponent");
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    (digits.to_string(), exp.parse::<i32>().expect("an exponent") + 1)
}

const ASCII: [&str; 33] = [
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v", "f", "r", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US", "SP",
];

/// `c` as `showLitChar` writes it; `next` is the character after it in
/// a string (a numeric escape before a digit takes `\&`).
pub fn escape(c: char, next: Option<char>, out: &mut String) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\x7f' => out.push_str("\\DEL"),
        c if (c as u32) > 0x7f => {
            out.push('\\');
            out.push_str(&(c as u32).to_string());
            if next.is_some_and(|n| n.is_ascii_digit()) {
                out.push_str("\\&");
            }
        }
        c if c >= ' ' => out.push(c),
        c => {
            out.push('\\');
            out.push_str(ASCII[c as usize]);
            if c == '\x0e' && next == Some('H') {
                out.push_str("\\&");
            }
        }
    }
}

/// A character inside a string literal: `"` escaped, `'` not.
pub fn escape_in_string(c: char, next: Option<char>) -> String {
    let mut s = String::new();
    if c == '"' {
        s.push_str("\\\"");
    } else {
        escape(c, next, &mut s);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_as_ghc_shows_them() {
        for (x, s) in [(0.1, "0.1"), (1.0, "1.0"), (0.0, "0.0"), (0.01, "1.0e-2"), (1.0e7, "1.0e7"), (1234567.0, "1234567.0"), (5.4321, "5.4321"), (-2.5, "-2.5"), (1.5e-10, "1.5e-10"), (123456789.123, "1.23456789123e8"), (100.0, "100.0")] {
            assert_eq!(show_double(x), s, "{x}");
        }
    }

    #[test]
    fn characters_as_ghc_shows_them() {
        assert_eq!(show_num(&Num::Char('a')), "'a'");
        assert_eq!(show_num(&Num::Char('\n')), "'\\n'");
        assert_eq!(show_num(&Num::Char('\'')), "'\\''");
        assert_eq!(show_num(&Num::Char('\u{1}')), "'\\SOH'");
        assert_eq!(escape_in_string('"', None), "\\\"");
        assert_eq!(escape_in_string('\u{e9}', Some('1')), "\\233\\&");
    }
}

//! Moving values between the heap and Rust: numbers out of and into
//! their objects (a big `Integer`'s limbs in a byte array), strings to
//! and from lists of `Char`, and a program's result read back for tests.

use super::tables::*;
use super::{Machine, Res, Stop, RET};
use crate::desugar::builtin;
use crate::prim::num::Num;
use crate::term::Literal;
use gclab_core::ClosureType;
use num_bigint::{BigInt, Sign};
use num_traits::ToPrimitive;

/// A value read back whole (for tests and `gclab-lang`'s callers).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Num(Num),
    Con(String, Vec<Value>),
    Function,
}

impl Machine<'_, '_> {
    /// The number in slot `s` (evaluated).
    pub(super) fn num(&mut self, s: usize) -> Res<Num> {
        // The first word is read with the header (every table below that
        // uses it has one).
        let (info, first) = self.f.info_and_word(s);
        let w = || first.expect("a boxed number has its word") as u64;
        if let Some(v) = static_int(info) {
            return Ok(Num::Int(v));
        }
        if let Some(c) = static_char(info) {
            return Ok(Num::Char(char::from_u32(c).expect("a static Char is below 256")));
        }
        Ok(match info.tag() {
            T_INT if std::ptr::eq(info, &INT_INFO) => Num::Int(w() as i64),
            T_WORD if std::ptr::eq(info, &WORD_INFO) => Num::Word(w()),
            T_DOUBLE if std::ptr::eq(info, &DOUBLE_INFO) => Num::Double(f64::from_bits(w())),
            T_CHAR if std::ptr::eq(info, &CHAR_INFO) => Num::Char(char::from_u32(w() as u32).unwrap_or('\u{fffd}')),
            T_INTEGER if std::ptr::eq(info, &INTEGER_INFO) => Num::Small(w() as i64),
            T_BIGNAT_POS | T_BIGNAT_NEG if info.closure_type == ClosureType::Constr && info.ptrs == 1 => {
                let h = self.f.get(s);
                let digits: Vec<u64> = {
                    let mut m = self.f.mutator();
                    let bytes = m.field(h, 0);
                    let limbs = m.byte_array_len(bytes) / 8;
                    (0..limbs).map(|i| m.byte_array_read(bytes, i)).collect()
                };
                self.f.truncate_roots(h);
                let sign = if info.tag() == T_BIGNAT_NEG { Sign::Minus } else { Sign::Plus };
                Num::integer(BigInt::from_biguint(sign, num_bigint::BigUint::from_slice(&u64s_to_u32s(&digits))))
            }
            _ => return Err(Stop::Error(format!("expected a number, found {}", info.name))),
        })
    }

    /// Allocate the number `n` into slot `dst`.
    pub(super) fn set_num(&mut self, dst: usize, n: &Num) -> Res<()> {
        let (info, word): (&'static gclab_core::InfoTable, u64) = match n {
            Num::Int(x) => (&INT_INFO, *x as u64),
            Num::Word(x) => (&WORD_INFO, *x),
            Num::Double(x) => (&DOUBLE_INFO, x.to_bits()),
            Num::Char(c) => (&CHAR_INFO, *c as u64),
            Num::Small(x) => (&INTEGER_INFO, *x as u64),
            Num::Integer(x) => match x.to_i64() {
                Some(v) => (&INTEGER_INFO, v as u64),
                None => return self.set_big(dst, x),
            },
        };
        self.set_word(dst, info, word)
    }

    /// Allocate a number of one word, of table `info`, into slot `dst`.
    #[inline(always)]
    pub(super) fn set_word(&mut self, dst: usize, info: &'static gclab_core::InfoTable, word: u64) -> Res<()> {
        let r = self.f.alloc(dst, info, &[], &[word as usize]);
        self.grow(r)
    }

    fn set_big(&mut self, dst: usize, x: &BigInt) -> Res<()> {
        let (sign, mag) = x.to_u64_digits();
        let bytes = {
            let mut m = self.f.mutator();
            let bytes = m.new_byte_array(mag.len() * 8);
            for (i, d) in mag.iter().enumerate() {
                m.byte_array_write(bytes, i, *d);
            }
            bytes
        };
        let info = if sign == Sign::Minus { &BIG_NEG_INFO } else { &BIG_POS_INFO };
        let tmp = self.f.depth();
        let r = self.f.push(bytes);
        self.grow(r)?;
        self.f.truncate_roots(bytes);
        let r = self.f.alloc(dst, info, &[tmp], &[]);
        self.grow(r)?;
        if dst != tmp {
            self.f.pop_to(tmp);
        }
        Ok(())
    }

    /// A literal's object into slot `dst`.
    pub(super) fn literal(&mut self, dst: usize, lit: &Literal) -> Res<()> {
        let n = match lit {
            Literal::Integer(x) => Num::integer(x.clone()),
            Literal::Int(x) => Num::Int(*x),
            Literal::Word(x) => Num::Word(*x),
            Literal::Double(x) => Num::Double(*x),
            Literal::Char(c) => Num::Char(*c),
        };
        self.set_num(dst, &n)
    }

    /// Slot `dst` := the list of `Char` spelling `text`.
    pub(super) fn string_to(&mut self, dst: usize, text: &str) -> Res<()> {
        let acc = self.reserve(2)?;
        self.set_con(acc, builtin::NIL);
        for c in text.chars().rev() {
            self.set_num(acc + 1, &Num::Char(c))?;
            let r = self.f.alloc(acc, self.tables.cons[builtin::CONS as usize], &[acc + 1, acc], &[]);
            self.grow(r)?;
        }
        self.f.copy(dst, acc);
        self.f.pop_to(acc);
        Ok(())
    }

    /// Slot `dst` := the list of the strings `texts` (`getArgs`).
    pub(super) fn strings_to(&mut self, dst: usize, texts: &[String]) -> Res<()> {
        let acc = self.reserve(2)?;
        self.set_con(acc, builtin::NIL);
        for t in texts.iter().rev() {
            self.string_to(acc + 1, t)?;
            let r = self.f.alloc(acc, self.tables.cons[builtin::CONS as usize], &[acc + 1, acc], &[]);
            self.grow(r)?;
        }
        self.f.copy(dst, acc);
        self.f.pop_to(acc);
        Ok(())
    }

    /// The text of a fully evaluated list of `Char` in slot `s` (the
    /// library forces it first: See `lib/Prelude.hs`'s `forceString`).
    pub(super) fn text(&mut self, s: usize) -> Res<String> {
        let mut out = String::new();
        let cur = self.reserve(2)?;
        self.f.copy(cur, s);
        loop {
            let info = self.f.info(cur);
            if info.tag() != builtin::CONS || info.closure_type != ClosureType::Constr {
                break;
            }
            self.f.field(cur + 1, cur, 0);
            match self.num(cur + 1)? {
                Num::Char(c) => out.push(c),
                other => return Err(Stop::Error(format!("expected a Char, found {other:?}"))),
            }
            self.f.field(cur, cur, 1);
        }
        self.f.pop_to(cur);
        Ok(out)
    }

    /// The value in the return register, read back whole (evaluated
    /// parts only: a thunk reads as a function).
    pub fn result(&mut self) -> Value {
        self.read_value(RET, 0)
    }

    fn read_value(&mut self, s: usize, depth: usize) -> Value {
        let info = self.f.info(s);
        if let Ok(n) = self.num(s) {
            return Value::Num(n);
        }
        match info.closure_type {
            ClosureType::ConstrStatic => Value::Con(info.name.to_string(), Vec::new()),
            ClosureType::Constr if depth < 10_000 => {
                let tmp = self.reserve(1).expect("room to read a value");
                let mut fields = Vec::new();
                for k in 0..info.ptrs as usize {
                    self.f.field(tmp, s, k);
                    fields.push(self.read_value(tmp, depth + 1));
                }
                self.f.pop_to(tmp);
                Value::Con(info.name.to_string(), fields)
            }
            _ => Value::Function,
        }
    }
}

fn u64s_to_u32s(d: &[u64]) -> Vec<u32> {
    d.iter().flat_map(|x| [*x as u32, (*x >> 32) as u32]).collect()
}

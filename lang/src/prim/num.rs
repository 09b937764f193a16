//! Numbers as the primitives see them, and their arithmetic.
//!
//! Note [Numbers typed at run time]
//! ----------------------------------------
//! GHC type-checks every program before gclab runs it, so the evaluator
//! does not infer types: it resolves `Num`, `Integral`, `Fractional` and
//! `Enum` on the values it meets. A number object says its type (`I#`,
//! `W64#`, `D#`, `C#`, and `Integer`'s small and big forms, each with its
//! own info table). An integer literal is an `Integer` (its type when
//! nothing else fixes it, by Haskell's defaulting); an `Integer` meeting
//! an `Int`, a `Word64` or a `Double` in one operation takes that type,
//! since the type checker has already made both the same type; and a
//! signature or annotation whose type is `Int`, `Word64`, `Double` or
//! `Integer` converts at that boundary (See `desugar::bind`). The cost is
//! a few tests per operation; the alternative, type inference with class
//! dictionaries as GHC's `-O0` passes them, is a type checker the size of
//! the rest of the front end. What is lost: a literal used only at `Int`
//! without a signature on its way is computed as an `Integer` (the same
//! value unless it overflows `Int`), and `show` of such a value prints
//! the same digits.

use num_bigint::BigInt;
use num_integer::Integer as _;
use num_traits::{Signed, ToPrimitive, Zero};

/// A number or character, read out of its object.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    Int(i64),
    Word(u64),
    Double(f64),
    /// An `Integer` that fits a word (the common case, kept off the
    /// allocator: See `Num::normal`).
    Small(i64),
    Integer(BigInt),
    Char(char),
}

impl Num {
    /// An `Integer` in its small form when it fits.
    pub fn integer(x: BigInt) -> Num {
        match x.to_i64() {
            Some(v) => Num::Small(v),
            None => Num::Integer(x),
        }
    }
}

/// An operation the types of its arguments do not allow.
#[derive(Debug, Clone, PartialEq)]
pub struct NumError(pub String);

type R = Result<Num, NumError>;

/// The two numbers at one type (See Note [Numbers typed at run time]).
fn unify(a: Num, b: Num) -> Result<(Num, Num), NumError> {
    use Num::*;
    Ok(match (a, b) {
        (Small(x), Small(y)) => (Small(x), Small(y)),
        (Small(x), Int(y)) => (Int(x), Int(y)),
        (Int(x), Small(y)) => (Int(x), Int(y)),
        (Small(x), Word(y)) => (Word(x as u64), Word(y)),
        (Word(x), Small(y)) => (Word(x), Word(y as u64)),
        (Small(x), Double(y)) => (Double(x as f64), Double(y)),
        (Double(x), Small(y)) => (Double(x), Double(y as f64)),
        (Small(x), b) => return unify(Integer(BigInt::from(x)), b),
        (a, Small(y)) => return unify(a, Integer(BigInt::from(y))),
        (Integer(x), Int(y)) => (Int(wrap_i64(&x)), Int(y)),
        (Int(x), Integer(y)) => (Int(x), Int(wrap_i64(&y))),
        (Integer(x), Word(y)) => (Word(wrap_i64(&x) as u64), Word(y)),
        (Word(x), Integer(y)) => (Word(x), Word(wrap_i64(&y) as u64)),
        (Integer(x), Double(y)) => (Double(x.to_f64().unwrap_or(f64::NAN)), Double(y)),
        (Double(x), Integer(y)) => (Double(x), Double(y.to_f64().unwrap_or(f64::NAN))),
        (Int(x), Word(y)) => (Word(x as u64), Word(y)),
        (Word(x), Int(y)) => (Word(x), Word(y as u64)),
        (Int(x), Double(y)) => (Double(x as f64), Double(y)),
        (Double(x), Int(y)) => (Double(x), Double(y as f64)),
        (a, b) => (a, b),
    })
}

/// The low 64 bits of an integer, as `fromInteger` at `Int` takes them.
pub fn wrap_i64(x: &BigInt) -> i64 {
    match x.to_i64() {
        Some(v) => v,
        None => {
            let m: BigInt = x.mod_floor(&(BigInt::from(1u8) << 64));
            m.to_u64().unwrap_or(0) as i64
        }
    }
}

fn mismatch(op: &str, a: &Num, b: &Num) -> NumError {
    NumError(format!("{op}: cannot combine {a:?} and {b:?}"))
}

/// `+`, `-`, `*`.
pub fn arith(op: char, a: Num, b: Num) -> R {
    use Num::*;
    Ok(match unify(a, b)? {
        (Int(x), Int(y)) => Int(match op {
            '+' => x.wrapping_add(y),
            '-' => x.wrapping_sub(y),
            _ => x.wrapping_mul(y),
        }),
        (Word(x), Word(y)) => Word(match op {
            '+' => x.wrapping_add(y),
            '-' => x.wrapping_sub(y),
            _ => x.wrapping_mul(y),
        }),
        (Double(x), Double(y)) => Double(match op {
            '+' => x + y,
            '-' => x - y,
            _ => x * y,
        }),
        (Small(x), Small(y)) => {
            let r = match op {
                '+' => x.checked_add(y),
                '-' => x.checked_sub(y),
                _ => x.checked_mul(y),
            };
            match r {
                Some(v) => Small(v),
                None => return arith(op, Integer(BigInt::from(x)), Integer(BigInt::from(y))),
            }
        }
        (Integer(x), Integer(y)) => Num::integer(match op {
            '+' => x + y,
            '-' => x - y,
            _ => x * y,
        }),
        (a, b) => return Err(mismatch(&op.to_string(), &a, &b)),
    })
}

/// `quot`, `rem`, `div`, `mod`.
pub fn integral(op: &str, a: Num, b: Num) -> R {
    use Num::*;
    let (a, b) = unify(a, b)?;
    let zero = match &b {
        Int(0) | Word(0) | Small(0) => true,
        Integer(y) => y.is_zero(),
        _ => false,
    };
    if zero {
        return Err(NumError("divide by zero".into()));
    }
    Ok(match (a, b) {
        // GHC's `Integral Int`: `rem` and `mod` by -1 are 0, `quot` and
        // `div` of `minBound` by -1 overflow (the machine's division traps).
        (Int(_), Int(-1)) if op == "rem" || op == "mod" => Int(0),
        (Int(i64::MIN), Int(-1)) => return Err(NumError("arithmetic overflow".into())),
        (Int(x), Int(y)) => Int(match op {
            "quot" => x / y,
            "rem" => x % y,
            "div" => num_integer::Integer::div_floor(&x, &y),
            _ => num_integer::Integer::mod_floor(&x, &y),
        }),
        (Word(x), Word(y)) => Word(if op == "quot" || op == "div" { x / y } else { x % y }),
        (Small(x), Small(y)) if !(x == i64::MIN && y == -1) => Small(match op {
            "quot" => x / y,
            "rem" => x % y,
            "div" => num_integer::Integer::div_floor(&x, &y),
            _ => num_integer::Integer::mod_floor(&x, &y),
        }),
        (Small(x), Small(y)) => return integral(op, Integer(BigInt::from(x)), Integer(BigInt::from(y))),
        (Integer(x), Integer(y)) => Num::integer(match op {
            "quot" => &x / &y,
            "rem" => &x % &y,
            "div" => num_integer::Integer::div_floor(&x, &y),
            _ => num_integer::Integer::mod_floor(&x, &y),
        }),
        (a, b) => return Err(mismatch(op, &a, &b)),
    })
}

/// `/`: always at `Double` (the only `Fractional` type of the subset).
pub fn divide(a: Num, b: Num) -> R {
    Ok(Num::Double(to_f64(&a)? / to_f64(&b)?))
}

pub fn to_f64(a: &Num) -> Result<f64, NumError> {
    Ok(match a {
        Num::Int(x) => *x as f64,
        Num::Word(x) => *x as f64,
        Num::Double(x) => *x,
        Num::Integer(x) => x.to_f64().unwrap_or(f64::NAN),
        Num::Small(x) => *x as f64,
        Num::Char(_) => return Err(NumError("a Char is not a number".into())),
    })
}

pub fn to_integer(a: &Num) -> BigInt {
    match a {
        Num::Int(x) => BigInt::from(*x),
        Num::Word(x) => BigInt::from(*x),
        Num::Double(x) => BigInt::from(*x as i64),
        Num::Integer(x) => x.clone(),
        Num::Small(x) => BigInt::from(*x),
        Num::Char(c) => BigInt::from(*c as u32),
    }
}

pub fn negate(a: Num) -> R {
    arith('-', zero_like(&a), a)
}

fn zero_like(a: &Num) -> Num {
    match a {
        Num::Int(_) => Num::Int(0),
        Num::Word(_) => Num::Word(0),
        Num::Double(_) => Num::Double(0.0),
        _ => Num::Small(0),
    }
}

pub fn abs(a: Num) -> R {
    Ok(match a {
        Num::Int(x) => Num::Int(x.wrapping_abs()),
        Num::Double(x) => Num::Double(x.abs()),
        Num::Integer(x) => Num::integer(x.abs()),
        Num::Small(x) => Num::integer(BigInt::from(x).abs()),
        other => other,
    })
}

pub fn signum(a: Num) -> R {
    Ok(match a {
        Num::Int(x) => Num::Int(x.signum()),
        Num::Word(x) => Num::Word(u64::from(x != 0)),
        Num::Double(x) => Num::Double(if x > 0.0 { 1.0 } else if x < 0.0 { -1.0 } else { x }),
        Num::Integer(x) => Num::integer(x.signum()),
        Num::Small(x) => Num::Small(x.signum()),
        c => c,
    })
}

/// `compare`.
pub fn compare(a: Num, b: Num) -> Result<std::cmp::Ordering, NumError> {
    use Num::*;
    Ok(match unify(a, b)? {
        (Int(x), Int(y)) => x.cmp(&y),
        (Word(x), Word(y)) => x.cmp(&y),
        (Double(x), Double(y)) => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Greater),
        (Integer(x), Integer(y)) => x.cmp(&y),
        (Small(x), Small(y)) => x.cmp(&y),
        (Char(x), Char(y)) => x.cmp(&y),
        (a, b) => return Err(mismatch("compare", &a, &b)),
    })
}

/// Bitwise operations (`Data.Bits`).
pub fn bits(op: &str, a: Num, b: Num) -> R {
    use Num::*;
    if op == "shiftL" || op == "shiftR" {
        let n = match b {
            Int(n) | Small(n) => n,
            Integer(n) => wrap_i64(&n),
            Word(n) => n as i64,
            other => return Err(mismatch(op, &a, &other)),
        };
        return Ok(match a {
            Int(x) => Int(if n >= 64 { if op == "shiftR" && x < 0 { -1 } else { 0 } } else if op == "shiftL" { x << n } else { x >> n }),
            Word(x) => Word(if n >= 64 { 0 } else if op == "shiftL" { x << n } else { x >> n }),
            Integer(x) => Num::integer(if op == "shiftL" { x << n as usize } else { x >> n as usize }),
            Small(x) => Num::integer(if op == "shiftL" { BigInt::from(x) << n as usize } else { BigInt::from(x) >> n as usize }),
            other => return Err(mismatch(op, &other, &Int(n))),
        });
    }
    Ok(match unify(a, b)? {
        (Small(x), Small(y)) => Small(match op {
            "and" => x & y,
            "or" => x | y,
            _ => x ^ y,
        }),
        (Int(x), Int(y)) => Int(match op {
            "and" => x & y,
            "or" => x | y,
            _ => x ^ y,
        }),
        (Word(x), Word(y)) => Word(match op {
            "and" => x & y,
            "or" => x | y,
            _ => x ^ y,
        }),
        (Integer(x), Integer(y)) => Num::integer(match op {
            "and" => x & y,
            "or" => x | y,
            _ => x ^ y,
        }),
        (a, b) => return Err(mismatch(op, &a, &b)),
    })
}

/// `x ^ n` is in the library; this is `**` at `Double`.
pub fn pow(a: Num, b: Num) -> R {
    Ok(Num::Double(to_f64(&a)?.powf(to_f64(&b)?)))
}

/// Conversions named by signatures and `fromIntegral`'s targets.
pub fn convert(to: &str, a: Num) -> R {
    Ok(match (to, a) {
        ("Int", Num::Small(x)) => Num::Int(x),
        ("Word64", Num::Small(x)) => Num::Word(x as u64),
        ("Integer", Num::Small(x)) => Num::Small(x),
        ("Int", Num::Int(x)) => Num::Int(x),
        ("Int", Num::Word(x)) => Num::Int(x as i64),
        ("Int", Num::Integer(x)) => Num::Int(wrap_i64(&x)),
        ("Int", Num::Double(x)) => Num::Int(x as i64),
        ("Word64", Num::Int(x)) => Num::Word(x as u64),
        ("Word64", Num::Word(x)) => Num::Word(x),
        ("Word64", Num::Integer(x)) => Num::Word(wrap_i64(&x) as u64),
        ("Double", a) => Num::Double(to_f64(&a)?),
        ("Integer", a) => Num::integer(to_integer(&a)),
        (_, a) => return Err(NumError(format!("cannot convert {a:?} to {to}"))),
    })
}

/// `truncate`, `round` (to even), `floor`, `ceiling`: an `Integer`.
pub fn rounding(op: &str, a: Num) -> R {
    let x = match a {
        Num::Double(x) => x,
        other => return Ok(other),
    };
    let r = match op {
        "truncate" => x.trunc(),
        "floor" => x.floor(),
        "ceiling" => x.ceil(),
        _ => {
            let r = x.round();
            if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
                r - x.signum()
            } else {
                r
            }
        }
    };
    Ok(Num::integer(num_bigint::BigInt::from(r as i128)))
}

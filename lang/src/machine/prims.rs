//! The primitives' implementations: each reads its evaluated arguments
//! from their slots and leaves its result in the return register (or
//! enters a value it picked out, such as a field or an array element).

use super::tables::{is_char, Kind, DOUBLE_INFO, INT_INFO, NUM_BASE, PAP_BASE};
use super::{Machine, Next, Res, Stop, RET};
use crate::desugar::builtin;
use crate::prim::num::{self, Num, NumError};
use crate::prim::{show, CharClass, FloatFn, Prim};
use gclab_core::ClosureType;
use std::cmp::Ordering;

fn err(e: NumError) -> Stop {
    Stop::Error(e.0)
}

impl Machine<'_, '_> {
    pub(super) fn prim(&mut self, p: Prim, a: &[usize]) -> Res<Next> {
        match p {
            Prim::Add | Prim::Sub | Prim::Mul => {
                let op = match p {
                    Prim::Add => '+',
                    Prim::Sub => '-',
                    _ => '*',
                };
                let (x, y) = (self.num(a[0])?, self.num(a[1])?);
                self.ret_num(num::arith(op, x, y).map_err(err)?)
            }
            Prim::Quot | Prim::Rem | Prim::Div | Prim::Mod => {
                let op = match p {
                    Prim::Quot => "quot",
                    Prim::Rem => "rem",
                    Prim::Div => "div",
                    _ => "mod",
                };
                let (x, y) = (self.num(a[0])?, self.num(a[1])?);
                self.ret_num(num::integral(op, x, y).map_err(err)?)
            }
            Prim::Divide => {
                let (x, y) = (self.num(a[0])?, self.num(a[1])?);
                self.ret_num(num::divide(x, y).map_err(err)?)
            }
            Prim::Pow => {
                let (x, y) = (self.num(a[0])?, self.num(a[1])?);
                self.ret_num(num::pow(x, y).map_err(err)?)
            }
            Prim::Negate => {
                let x = self.num(a[0])?;
                self.ret_num(num::negate(x).map_err(err)?)
            }
            Prim::Abs => {
                let x = self.num(a[0])?;
                self.ret_num(num::abs(x).map_err(err)?)
            }
            Prim::Signum => {
                let x = self.num(a[0])?;
                self.ret_num(num::signum(x).map_err(err)?)
            }
            Prim::Eq | Prim::Ne | Prim::Lt | Prim::Le | Prim::Compare => {
                if self.constructor(a[0]).is_some() {
                    return self.compare_values(p, a);
                }
                let (x, y) = (self.num(a[0])?, self.num(a[1])?);
                let o = num::compare(x, y).map_err(err)?;
                self.ret_con(comparison_con(p, o))
            }
            Prim::ToInt | Prim::ToInteger | Prim::ToDouble | Prim::ToWord64 => {
                let to = match p {
                    Prim::ToInt => "Int",
                    Prim::ToInteger => "Integer",
                    Prim::ToDouble => "Double",
                    _ => "Word64",
                };
                let x = self.num(a[0])?;
                let already = matches!((&x, to), (Num::Int(_), "Int") | (Num::Word(_), "Word64") | (Num::Double(_), "Double") | (Num::Integer(_) | Num::Small(_), "Integer"));
                if already {
                    self.f.copy(RET, a[0]);
                    return Ok(Next::Return);
                }
                self.ret_num(num::convert(to, x).map_err(err)?)
            }
            Prim::Truncate | Prim::Round | Prim::Floor | Prim::Ceiling => {
                let op = match p {
                    Prim::Truncate => "truncate",
                    Prim::Round => "round",
                    Prim::Floor => "floor",
                    _ => "ceiling",
                };
                let x = self.num(a[0])?;
                self.ret_num(num::rounding(op, x).map_err(err)?)
            }
            Prim::Float(f) => {
                let x = num::to_f64(&self.num(a[0])?).map_err(err)?;
                let y = match f {
                    FloatFn::Sqrt => x.sqrt(),
                    FloatFn::Exp => x.exp(),
                    FloatFn::Log => x.ln(),
                    FloatFn::Sin => x.sin(),
                    FloatFn::Cos => x.cos(),
                    FloatFn::Tan => x.tan(),
                    FloatFn::Atan => x.atan(),
                };
                self.ret_num(Num::Double(y))
            }
            Prim::And | Prim::Or | Prim::Xor | Prim::ShiftL | Prim::ShiftR => {
                let op = match p {
                    Prim::And => "and",
                    Prim::Or => "or",
                    Prim::Xor => "xor",
                    Prim::ShiftL => "shiftL",
                    _ => "shiftR",
                };
                let (x, y) = (self.num(a[0])?, self.num(a[1])?);
                self.ret_num(num::bits(op, x, y).map_err(err)?)
            }
            Prim::Complement => {
                let r = match self.num(a[0])? {
                    Num::Int(x) => Num::Int(!x),
                    Num::Word(x) => Num::Word(!x),
                    Num::Integer(x) => Num::integer(-x - 1),
                    Num::Small(x) => Num::Small(!x),
                    other => return Err(Stop::Error(format!("complement of {other:?}"))),
                };
                self.ret_num(r)
            }
            Prim::PopCount => {
                let r = match self.num(a[0])? {
                    Num::Int(x) => x.count_ones(),
                    Num::Word(x) => x.count_ones(),
                    Num::Integer(x) => num::wrap_i64(&x).count_ones(),
                    Num::Small(x) => x.count_ones(),
                    other => return Err(Stop::Error(format!("popCount of {other:?}"))),
                };
                self.ret_num(Num::Int(r as i64))
            }
            Prim::Ord => match self.num(a[0])? {
                Num::Char(c) => self.ret_num(Num::Int(c as i64)),
                other => Err(Stop::Error(format!("ord of {other:?}"))),
            },
            Prim::Chr => {
                let n = num::wrap_i64(&num::to_integer(&self.num(a[0])?));
                let c = u32::try_from(n).ok().and_then(char::from_u32).ok_or_else(|| Stop::Error(format!("Prelude.chr: bad argument: {n}")))?;
                self.ret_num(Num::Char(c))
            }
            Prim::CharIs(class) => {
                let c = self.char_arg(a[0])?;
                let b = match class {
                    CharClass::Digit => c.is_ascii_digit(),
                    CharClass::Space => c.is_whitespace(),
                    CharClass::Alpha => c.is_alphabetic(),
                    CharClass::Upper => c.is_uppercase(),
                    CharClass::Lower => c.is_lowercase(),
                    CharClass::AlphaNum => c.is_alphanumeric(),
                };
                self.ret_con(bool_con(b))
            }
            Prim::ToUpper | Prim::ToLower => {
                let c = self.char_arg(a[0])?;
                let d = if p == Prim::ToUpper { c.to_uppercase().next() } else { c.to_lowercase().next() };
                self.ret_num(Num::Char(d.unwrap_or(c)))
            }
            Prim::Show => {
                let n = self.num(a[0])?;
                let text = show::show_num(&n);
                self.string_to(RET, &text)?;
                Ok(Next::Return)
            }
            Prim::ShowInString => {
                let c = self.char_arg(a[0])?;
                let text = show::escape_in_string(c, None);
                self.string_to(RET, &text)?;
                Ok(Next::Return)
            }
            Prim::Read => {
                let text = self.text(a[0])?;
                let t = text.trim();
                let n = if let Ok(i) = t.parse::<num_bigint::BigInt>() {
                    Num::integer(i)
                } else if let Ok(x) = t.parse::<f64>() {
                    Num::Double(x)
                } else {
                    return Err(Stop::Error("Prelude.read: no parse".into()));
                };
                self.ret_num(n)
            }
            Prim::IsFrac => {
                let frac = std::ptr::eq(self.f.info(a[0]), &DOUBLE_INFO);
                self.ret_con(bool_con(frac))
            }
            Prim::Kind => {
                let info = self.f.info(a[0]);
                let k = match info.closure_type {
                    ClosureType::Constr | ClosureType::BoxedWord | ClosureType::ConstrStatic if info.tag() >= NUM_BASE && info.tag() < PAP_BASE => {
                        if is_char(info) {
                            Kind::Char
                        } else {
                            Kind::Num
                        }
                    }
                    ClosureType::Constr | ClosureType::ConstrStatic => Kind::Con,
                    ClosureType::Fun => Kind::Fun,
                    _ => Kind::Other,
                };
                let c = self.tables.kinds[k as usize];
                self.ret_con(c)
            }
            Prim::SameCon => {
                let (x, y) = (self.f.info(a[0]), self.f.info(a[1]));
                self.ret_con(bool_con(std::ptr::eq(x, y)))
            }
            Prim::Arity => {
                let n = self.f.info(a[0]).ptrs as i64;
                self.ret_small(n)
            }
            Prim::Field => {
                let i = self.int_arg(a[1])? as usize;
                self.f.field(RET, a[0], i);
                self.enter(RET)
            }
            Prim::ConIndex | Prim::ConCount | Prim::ConPrec => {
                let c = self.con_of(a[0])?;
                let info = &self.code.cons[c as usize];
                let v = match p {
                    Prim::ConIndex => info.index as i64,
                    Prim::ConCount => info.siblings.len() as i64,
                    _ => info.infix_prec.map_or(-1, i64::from),
                };
                self.ret_small(v)
            }
            Prim::ConAt => {
                let c = self.con_of(a[0])?;
                let i = self.int_arg(a[1])?;
                let sib = &self.code.cons[c as usize].siblings;
                let target = usize::try_from(i).ok().and_then(|i| sib.get(i)).copied();
                match target {
                    Some(t) if self.code.cons[t as usize].arity == 0 => self.ret_con(t),
                    _ => Err(Stop::Error(format!("Prelude.Enum.toEnum: bad argument {i} for {}", self.code.cons[c as usize].type_name))),
                }
            }
            Prim::ConName => {
                let c = self.con_of(a[0])?;
                let name = self.code.cons[c as usize].name.clone();
                self.string_to(RET, &name)?;
                Ok(Next::Return)
            }
            Prim::Label => {
                let c = self.con_of(a[0])?;
                let i = self.int_arg(a[1])? as usize;
                let label = self.code.cons[c as usize].labels.get(i).cloned().unwrap_or_default();
                self.string_to(RET, &label)?;
                Ok(Next::Return)
            }
            Prim::Seq => self.enter(a[1]),
            Prim::NewRef => {
                let h = self.f.get(a[0]);
                let r = self.f.mutator().new_mut_var(h);
                self.f.set(RET, r);
                self.f.truncate_roots(h);
                Ok(Next::Return)
            }
            Prim::ReadRef => {
                let h = self.f.get(a[0]);
                let v = self.f.mutator().read_mut_var(h);
                self.f.set(RET, v);
                self.f.truncate_roots(h);
                self.ret_io_res()
            }
            Prim::WriteRef => {
                let r = self.f.get(a[0]);
                let v = self.f.get(a[1]);
                self.f.mutator().write_mut_var(r, v);
                self.f.truncate_roots(r);
                self.ret_con(builtin::UNIT)
            }
            Prim::NewArr => {
                let n = self.int_arg(a[0])?;
                let n = usize::try_from(n).map_err(|_| Stop::Error(format!("an array of {n} elements")))?;
                let init = self.f.get(a[1]);
                let arr = self.f.mutator().new_array(n, init);
                self.f.set(RET, arr);
                self.f.truncate_roots(init);
                Ok(Next::Return)
            }
            Prim::ReadArr | Prim::ReadArrIO => {
                let i = self.index_arg(a[0], a[1])?;
                let arr = self.f.get(a[0]);
                let v = self.f.mutator().array_get(arr, i);
                self.f.set(RET, v);
                self.f.truncate_roots(arr);
                if p == Prim::ReadArrIO {
                    self.ret_io_res()
                } else {
                    self.enter(RET)
                }
            }
            Prim::WriteArr => {
                let i = self.index_arg(a[0], a[1])?;
                let arr = self.f.get(a[0]);
                let v = self.f.get(a[2]);
                self.f.mutator().array_set(arr, i, v);
                self.f.truncate_roots(arr);
                self.ret_con(builtin::UNIT)
            }
            Prim::ArrLen => {
                let arr = self.f.get(a[0]);
                let n = self.f.mutator().array_len(arr);
                self.f.truncate_roots(arr);
                self.ret_num(Num::Int(n as i64))
            }
            Prim::Freeze => {
                let arr = self.f.get(a[0]);
                self.f.mutator().freeze_array(arr);
                self.f.truncate_roots(arr);
                self.f.copy(RET, a[0]);
                Ok(Next::Return)
            }
            Prim::CopyArr => {
                let arr = self.f.get(a[0]);
                let copy = {
                    // One loan of the mutator for the whole copy: the stack
                    // is pinned again once, after it.
                    let mut m = self.f.mutator();
                    let n = m.array_len(arr);
                    let copy = m.new_array(n, arr);
                    for i in 0..n {
                        let v = m.array_get(arr, i);
                        m.array_set(copy, i, v);
                        m.truncate(v.index());
                    }
                    copy
                };
                self.f.set(RET, copy);
                self.f.truncate_roots(arr);
                Ok(Next::Return)
            }
            Prim::PutChar => {
                let c = self.char_arg(a[0])?;
                let mut buf = [0u8; 4];
                self.out.write_all(c.encode_utf8(&mut buf).as_bytes()).map_err(|e| Stop::Output(e.to_string()))?;
                self.ret_con(builtin::UNIT)
            }
            Prim::GetArgs => {
                let args = self.args.clone();
                self.strings_to(RET, &args)?;
                Ok(Next::Return)
            }
            Prim::Error => {
                let text = self.text(a[0])?;
                Err(Stop::Error(text))
            }
            Prim::PerformGc => {
                self.f.mutator().perform_gc(true);
                self.ret_con(builtin::UNIT)
            }
        }
    }

    /// The constructor number of the value in slot `s`, if it is a
    /// constructed value (a number's box is not).
    pub(super) fn constructor(&self, s: usize) -> Option<u32> {
        let info = self.f.info(s);
        let constructed = matches!(info.closure_type, ClosureType::Constr | ClosureType::ConstrStatic) && info.tag() < NUM_BASE;
        constructed.then(|| info.tag())
    }

    /// Two constructors compared: a tail call of the library's
    /// `eqCon`, `neCon`, `ltCon`, `leCon` or `cmpCon`, which compares
    /// their fields.
    pub(super) fn compare_constructors(&mut self, p: Prim, a: &[usize]) -> Res<Next> {
        let g = match p {
            Prim::Eq => self.tables.compare_globals[0],
            Prim::Ne => self.tables.compare_globals[4],
            Prim::Lt => self.tables.compare_globals[1],
            Prim::Le => self.tables.compare_globals[2],
            _ => self.tables.compare_globals[3],
        };
        let at = self.f.depth();
        for &s in a {
            let r = self.f.push_slot(s);
            self.grow(r)?;
        }
        self.f.copy(RET, super::GLOBALS + g as usize);
        self.apply(at, 2)
    }

    /// Return an `Int` describing a value (an arity, a constructor's
    /// index): a static one when small, as GHC's INTLIKE closures, so
    /// that derived instances do not allocate for their bookkeeping.
    fn ret_small(&mut self, v: i64) -> Res<Next> {
        if let Some(obj) = INT_INFO.shared_box(v as usize) {
            self.f.set_static(RET, obj);
            return Ok(Next::Return);
        }
        self.ret_num(Num::Int(v))
    }

    fn ret_num(&mut self, n: Num) -> Res<Next> {
        self.set_num(RET, &n)?;
        Ok(Next::Return)
    }

    /// Return `IORes` of the value in the return register.
    fn ret_io_res(&mut self) -> Res<Next> {
        let r = self.f.alloc(RET, self.tables.cons[builtin::IORES as usize], &[RET], &[]);
        self.grow(r)?;
        Ok(Next::Return)
    }

    pub(super) fn ret_con(&mut self, c: u32) -> Res<Next> {
        self.set_con(RET, c);
        Ok(Next::Return)
    }

    fn char_arg(&mut self, s: usize) -> Res<char> {
        match self.num(s)? {
            Num::Char(c) => Ok(c),
            other => Err(Stop::Error(format!("expected a Char, found {other:?}"))),
        }
    }

    fn int_arg(&mut self, s: usize) -> Res<i64> {
        match self.num(s)? {
            Num::Int(x) => Ok(x),
            Num::Word(x) => Ok(x as i64),
            Num::Integer(x) => Ok(num::wrap_i64(&x)),
            Num::Small(x) => Ok(x),
            other => Err(Stop::Error(format!("expected an integer, found {other:?}"))),
        }
    }

    /// An index into the array in slot `arr`, checked.
    fn index_arg(&mut self, arr: usize, i: usize) -> Res<usize> {
        let i = self.int_arg(i)?;
        let h = self.f.get(arr);
        let n = self.f.mutator().array_len(h);
        self.f.truncate_roots(h);
        usize::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| Stop::Error(format!("Ix{{Int}}.index: Index ({i}) out of range ((0,{}))", n as i64 - 1)))
    }

    /// The constructor number of the (evaluated) value in slot `s`.
    fn con_of(&mut self, s: usize) -> Res<u32> {
        self.constructor(s).ok_or_else(|| Stop::Error(format!("expected a constructor, found {}", self.f.info(s).name)))
    }
}

/// The constructor a comparison primitive returns for the ordering `o`
/// of its operands.
pub(super) fn comparison_con(p: Prim, o: Ordering) -> u32 {
    match p {
        Prim::Eq => bool_con(o == Ordering::Equal),
        Prim::Ne => bool_con(o != Ordering::Equal),
        Prim::Lt => bool_con(o == Ordering::Less),
        Prim::Le => bool_con(o != Ordering::Greater),
        _ => match o {
            Ordering::Less => builtin::LT,
            Ordering::Equal => builtin::EQ,
            Ordering::Greater => builtin::GT,
        },
    }
}

fn bool_con(b: bool) -> u32 {
    if b {
        builtin::TRUE
    } else {
        builtin::FALSE
    }
}

//! Entering values and applying functions: the eval/apply half of the
//! machine (GHC's `stg_ap_*` and thunk entry). A function is applied to
//! exactly its arity's arguments; fewer make a partial application (a
//! PAP object: the function and the arguments so far), more make a call
//! with an application of the rest pending.

use super::tables::PAP_BASE;
use super::{Cont, Machine, Next, Res, Stop, RET};
use crate::ir::CodeId;
use gclab_core::info::NULL_OBJECT;
use gclab_core::ClosureType;

impl Machine<'_, '_> {
    /// Evaluate the object in slot `s` (in tail position: the current
    /// frame is no longer needed) and return its value.
    pub(super) fn enter(&mut self, s: usize) -> Res<Next> {
        let info = self.f.info(s);
        match info.closure_type {
            ClosureType::Thunk => {
                let base = self.protected();
                let code = &self.code.codes[info.tag() as usize];
                let (free, frame, body, native_call) = (code.free as usize, code.frame as usize, code.body, code.native_call);
                let bh = self.tables.blackhole(info.payload_words().max(1));
                let r = self.f.enter_thunk(base, s, free, frame, bh);
                let t = self.grow(r)?;
                let fp = t + 1;
                self.push_cont(Cont::Update { slot: t })?;
                self.fp = fp;
                self.frame_top = fp + frame;
                match native_call {
                    // Its free variables are the function's arguments.
                    Some(c) => self.native(c, None),
                    None => Ok(Next::Eval(body)),
                }
            }
            ClosureType::Selector => {
                let base = self.protected();
                let r = self.f.pop_and_push(base, s);
                let t = self.grow(r)?;
                // The selectee, read before black-holing (a field-logging
                // barrier deletes the thunk's fields).
                self.f.field(RET, t, 0);
                let bh = self.tables.blackhole(1);
                self.f.blackhole(t, bh);
                self.push_cont(Cont::Update { slot: t })?;
                self.push_cont(Cont::Select { field: info.selector_field() })?;
                self.enter(RET)
            }
            ClosureType::Blackhole => Err(Stop::Loop),
            _ => {
                if s != RET {
                    self.f.copy(RET, s);
                }
                Ok(Next::Return)
            }
        }
    }

    /// Apply the function in the return register to the `n` arguments
    /// at the top of the stack, from slot `at`.
    pub(super) fn apply(&mut self, at: usize, n: usize) -> Res<Next> {
        if n == 0 {
            self.f.pop_to(at);
            return self.enter(RET);
        }
        let info = self.f.info(RET);
        match info.closure_type {
            ClosureType::Fun if info.tag() >= PAP_BASE => {
                // Unpack: the PAP's arguments, then these.
                let k = (info.tag() - PAP_BASE) as usize;
                let first = self.reserve(k + n)?;
                for j in 0..k {
                    self.f.field(first + j, RET, j + 1);
                }
                for j in 0..n {
                    self.f.copy(first + k + j, at + j);
                }
                self.f.slide(first, at, k + n);
                self.f.field(RET, RET, 0);
                self.apply(at, k + n)
            }
            ClosureType::Fun => {
                let arity = self.code.codes[info.tag() as usize].arity as usize;
                if n == arity {
                    self.call(at, n)
                } else if n < arity {
                    let pap = self.tables.pap(n);
                    // The function, then the arguments.
                    let r = self.f.alloc_with(RET, pap, n + 1, |j| if j == 0 { RET } else { at + j - 1 }, &[]);
                    self.grow(r)?;
                    self.f.pop_to(at);
                    Ok(Next::Return)
                } else {
                    // The extra arguments below the call's frame, pending.
                    let extra = n - arity;
                    let base = self.protected();
                    let tmp = self.reserve(n)?;
                    for j in 0..extra {
                        self.f.copy(tmp + j, at + arity + j);
                    }
                    for j in 0..arity {
                        self.f.copy(tmp + extra + j, at + j);
                    }
                    self.f.slide(tmp, base, n);
                    self.push_cont(Cont::Apply { at: base, n: extra })?;
                    self.call(base + extra, arity)
                }
            }
            ClosureType::Thunk | ClosureType::Selector | ClosureType::Blackhole => {
                self.push_cont(Cont::Apply { at, n })?;
                self.enter(RET)
            }
            _ => Err(Stop::Error(format!("{} applied to {n} arguments: not a function", info.name))),
        }
    }

    /// Call the function in the return register with exactly its arity's
    /// arguments, at the top of the stack from `at`: its frame goes where
    /// the pending continuations end (a tail call drops its caller's).
    #[inline(always)]
    fn call(&mut self, at: usize, n: usize) -> Res<Next> {
        let c = self.f.info(RET).tag();
        let code = &self.code.codes[c as usize];
        let (free, frame, body) = (code.free as usize, code.frame as usize, code.body);
        if let Some(native) = code.native {
            self.open_frame(at, n, native.frame as usize)?;
            return self.native(c, None);
        }
        let base = self.open_frame(at, n, frame)?;
        self.f.fields_to(base + n, RET, free);
        Ok(Next::Eval(body))
    }

    /// Call the code `c`, which has no free variables, with exactly its
    /// arity's arguments at the top of the stack from `at` (See Note
    /// [Known calls] in `lower`).
    #[inline(always)]
    pub(super) fn call_known(&mut self, c: CodeId, at: usize, n: usize) -> Res<Next> {
        let code = &self.code.codes[c as usize];
        let (frame, body) = (code.frame as usize, code.body);
        if let Some(native) = code.native {
            self.open_frame(at, n, native.frame as usize)?;
            return self.native(c, None);
        }
        self.open_frame(at, n, frame)?;
        Ok(Next::Eval(body))
    }

    /// The frame of `frame` slots for a call whose `n` arguments are at
    /// the top of the stack from `at`: where the pending continuations
    /// end (a tail call drops its caller's), its locals holding nothing.
    /// Its base.
    #[inline(always)]
    fn open_frame(&mut self, at: usize, n: usize, frame: usize) -> Res<usize> {
        let base = self.protected();
        if at != base {
            self.f.slide(at, base, n);
        }
        let r = self.f.reserve(frame - n, &NULL_OBJECT);
        self.grow(r)?;
        self.fp = base;
        self.frame_top = base + frame;
        Ok(base)
    }
}

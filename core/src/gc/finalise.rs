//! Finalisers (`Gc.finalise`, `finalise_last`, `finalise_release`) and
//! alarms (`Gc.create_alarm`, `delete_alarm`), on gclab's weak pointers
//! (See Note [Finaliser order] in `mutator::finalise`).

use super::GcError;
use crate::mutator::{Alarm, FinalizerKind, Handle, LastFinalizer, Mutator};

fn check_heap_value(m: &Mutator<'_>, v: Handle, what: &str) -> Result<(), GcError> {
    if m.is_static(v) {
        return Err(GcError::InvalidArgument(format!("{what}: the value is static, not in the heap")));
    }
    Ok(())
}

/// `Gc.finalise f v`: call `f` with `v` after the first GC that finds `v`
/// unreachable (See Note [Finaliser order] in `mutator::finalise`). Several per value
/// are allowed.
pub fn finalise(m: &mut Mutator<'_>, f: crate::mutator::Finalizer, v: Handle) -> Result<(), GcError> {
    check_heap_value(m, v, "Gc.finalise")?;
    let value = m.root_word(v);
    let base = m.depth();
    m.new_weak_raw(v, value, Some(FinalizerKind::Value(f)));
    m.truncate(base);
    Ok(())
}

/// `Gc.finalise_last f v`: call `f` (without `v`) once `v` is unreachable
/// and every weak pointer to it has been cleared; after every `finalise`
/// finaliser of the same GC.
pub fn finalise_last(m: &mut Mutator<'_>, f: LastFinalizer, v: Handle) -> Result<(), GcError> {
    check_heap_value(m, v, "Gc.finalise_last")?;
    let base = m.depth();
    m.new_weak_raw(v, crate::info::NULL_OBJECT.addr(), Some(FinalizerKind::Last(f)));
    m.truncate(base);
    Ok(())
}

/// `Gc.finalise_release`: from inside a finaliser, let the next finalisers
/// run (at the next GC hook) without waiting for this one to return.
pub fn finalise_release(m: &mut Mutator<'_>) {
    m.running_finalizers = false;
}

/// An alarm's handle (`Gc.alarm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlarmId(u64);

/// `Gc.create_alarm f`: run `f` at the end of every major GC.
pub fn create_alarm(m: &mut Mutator<'_>, f: Alarm) -> AlarmId {
    AlarmId(m.hooks.add_alarm(f))
}

/// `Gc.delete_alarm a`: stop it; deleting twice is harmless.
pub fn delete_alarm(m: &mut Mutator<'_>, a: AlarmId) {
    m.hooks.remove_alarm(a.0);
}


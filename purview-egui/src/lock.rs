//! Taking one of the desk's locks whatever happened to its last holder:
//! the one lock helper of the crate.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, even if a thread panicked while holding it: what the
/// desk keeps behind a lock (failures, loaded pages) is whole after every
/// write, so a poisoned lock still guards consistent data.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

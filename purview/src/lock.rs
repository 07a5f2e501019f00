//! Taking a lock whatever happened to its last holder. A leaf: everything
//! that keeps state behind a `Mutex` uses it, and it uses nothing.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, even if a thread panicked while holding it. Purview runs
/// user code under its locks inside `catch_unwind`, so a poisoned lock
/// still guards consistent data.
pub(crate) fn lock_unpoisoned<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

//! Taking a lock whatever happened to its last holder. A leaf: everything
//! that keeps state behind a `Mutex` or an `RwLock` uses it, and it uses
//! nothing.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `mutex`, even if a thread panicked while holding it. Purview runs
/// user code under its locks inside `catch_unwind`, so a poisoned lock
/// still guards consistent data.
pub(crate) fn lock_unpoisoned<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads behind `lock`, even if a thread panicked while writing (as for
/// [`lock_unpoisoned`]).
pub(crate) fn read_unpoisoned<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Writes behind `lock`, even if a thread panicked while writing.
pub(crate) fn write_unpoisoned<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

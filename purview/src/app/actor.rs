//! What the registry stores per window (and for the app-level actions): the
//! view-model behind its object-safe face, its type's compiled actions, and
//! which of them are available now.

use std::{
    collections::HashSet,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::Arc,
};

use super::spec::TypeSpec;
use crate::window::DynActions;

/// A view-model plus what the runtime tracks about its actions.
pub(crate) struct Actor {
    pub vm: Box<dyn DynActions>,
    pub spec: Arc<TypeSpec>,
    /// Bumped on every change to `vm`, visible or not: an agent call whose
    /// working copy started from an older revision must not overwrite it.
    pub revision: u64,
    /// Actions hidden with `set_available(false)`.
    pub hidden: HashSet<String>,
    /// Per action: hook says available and not hidden.
    pub available: Vec<bool>,
}

impl Actor {
    pub fn new(vm: Box<dyn DynActions>, spec: Arc<TypeSpec>) -> Self {
        let mut actor =
            Self { vm, spec, revision: 0, hidden: HashSet::new(), available: Vec::new() };
        actor.refresh_availability();
        actor
    }

    /// Recomputes availability; returns whether it changed. A panicking hook
    /// counts as "unavailable".
    pub fn refresh_availability(&mut self) -> bool {
        let Self { vm, spec, hidden, available, .. } = self;
        let mut changed = available.len() != spec.actions.len();
        available.resize(spec.actions.len(), false);
        for (action, slot) in spec.actions.iter().zip(available.iter_mut()) {
            let name = action.spec.name.as_ref();
            let on = !hidden.contains(name)
                && catch_unwind(AssertUnwindSafe(|| vm.is_available(name))).unwrap_or(false);
            changed |= *slot != on;
            *slot = on;
        }
        changed
    }

    /// Shows or hides one action; `false` if the type has no such action.
    pub fn set_hidden(&mut self, action: &str, hidden: bool) -> bool {
        if self.spec.action(action).is_none() {
            return false;
        }
        if hidden {
            self.hidden.insert(action.to_owned());
        } else {
            self.hidden.remove(action);
        }
        true
    }

    /// The names of the actions available now.
    pub fn available_names(&self) -> impl Iterator<Item = &str> {
        self.spec
            .actions
            .iter()
            .zip(&self.available)
            .filter(|(_, on)| **on)
            .map(|(a, _)| a.spec.name.as_ref())
    }

    /// A clone of the view-model for a working copy; a panicking `Clone` is
    /// `None`.
    pub fn working_copy(&self) -> Option<Box<dyn DynActions>> {
        catch_unwind(AssertUnwindSafe(|| self.vm.clone_box())).ok()
    }
}

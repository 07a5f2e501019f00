//! Applying a finished call: the gates again (the window may have moved
//! while the handler ran), staging edits, checking effects, then applying
//! everything in one step under the state lock.

use std::{
    collections::{HashMap, HashSet},
    panic::{AssertUnwindSafe, catch_unwind},
    sync::Arc,
};

use super::Error;
use super::{
    actor::Actor,
    gates::{self, Target},
    registry::{State, Touched},
    topology::{self, Placement},
};
use crate::window::{DynActions, context::Effect};
use crate::{model::ToolError, refusals};

/// A finished handler, waiting to be applied.
pub(super) struct Finished {
    pub target: Target,
    pub action: String,
    /// The action's index in its type's spec.
    pub index: usize,
    pub working: Box<dyn DynActions>,
    pub base_revision: u64,
    pub effects: Vec<Effect>,
}

/// Applies a finished call in one step, or nothing. Returns the ids of the
/// windows it opened that are still open.
pub(super) fn apply(
    state: &mut State,
    finished: Finished,
    max_windows: usize,
) -> Result<(Vec<String>, Touched), ToolError> {
    let Finished { target, action, index, working, base_revision, effects } = finished;
    let target = &target;
    // The world may have moved while the handler ran without the lock.
    gates::recheck(state, target, index, &action, base_revision)?;
    check_effects(state, &effects, max_windows)?;
    let (working, staged, effects) = stage_updates(state, target, &action, working, effects)?;

    let mut touched = Touched { windows: Vec::new(), app: false, topology: false };
    for (seq, vm) in staged {
        if let Some(entry) = state.windows.get_mut(&seq) {
            entry.actor.vm = vm;
            entry.actor.revision += 1;
            touched.windows.push(seq);
        }
    }
    match target {
        Target::Window { seq, .. } => {
            if let Some(entry) = state.windows.get_mut(seq) {
                entry.actor.vm = working;
                entry.actor.revision += 1;
                touched.windows.push(*seq);
            }
        }
        Target::App => {
            if let Some(app) = state.app.as_mut() {
                app.vm = working;
                app.revision += 1;
                touched.app = true;
            }
        }
    }
    let mut opened = Vec::new();
    for effect in effects {
        match effect {
            Effect::Open { seq, id, vm, spec, placement } => {
                state.insert(seq, id.clone(), None, Actor::new(vm, spec), placement);
                touched.windows.push(seq);
                touched.topology = true;
                opened.push(id);
            }
            Effect::Close(id) => {
                if !state.close_cascade(&id).is_empty() {
                    touched.topology = true;
                }
            }
            Effect::Update { .. } => {} // staged above
            Effect::SetAvailable { window, action, available } => {
                let actor = match &window {
                    Some(id) => state.entry_by_id_mut(id).map(|e| {
                        touched.windows.push(e.seq);
                        &mut e.actor
                    }),
                    None => {
                        touched.app = true;
                        state.app.as_mut()
                    }
                };
                if let Some(actor) = actor {
                    actor.set_hidden(&action, !available);
                }
            }
        }
    }
    let opened = opened
        .into_iter()
        .filter(|id| state.by_id.contains_key(id))
        .map(|id| id.to_string())
        .collect();
    Ok((opened, touched))
}

/// Runs every `Context::update` edit on a copy of its target, before anything
/// is applied, so a panicking edit or a missing target fails the whole call.
/// Edits of the calling window itself apply to its working copy.
#[allow(clippy::type_complexity)]
fn stage_updates(
    state: &State,
    target: &Target,
    action: &str,
    mut working: Box<dyn DynActions>,
    effects: Vec<Effect>,
) -> Result<(Box<dyn DynActions>, Vec<(u64, Box<dyn DynActions>)>, Vec<Effect>), ToolError> {
    let mut staged: Vec<(u64, Box<dyn DynActions>)> = Vec::new();
    let opened: HashSet<Arc<str>> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Open { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    let mut rest = Vec::with_capacity(effects.len());
    let fail = |what: String| refusals::moved_under_the_call(&what);
    for effect in effects {
        let Effect::Update { id, type_id, type_name, edit } = effect else {
            rest.push(effect);
            continue;
        };
        let own = matches!(target, Target::Window { id: origin, .. } if *origin == id);
        let vm: &mut Box<dyn DynActions> = if own {
            &mut working
        } else {
            let entry = state.entry_by_id(&id).ok_or_else(|| {
                if opened.contains(&*id) {
                    fail(format!(
                        "the action edits window `{id}` that it opened itself; give a new window its values when opening it instead"
                    ))
                } else {
                    fail(format!("the action edits window `{id}`, which is no longer open"))
                }
            })?;
            let slot = match staged.iter().position(|(seq, _)| *seq == entry.seq) {
                Some(i) => i,
                None => {
                    let copy = catch_unwind(AssertUnwindSafe(|| entry.actor.vm.clone_box()))
                        .map_err(|_| {
                            fail(format!("copying window `{id}` failed inside the application"))
                        })?;
                    staged.push((entry.seq, copy));
                    staged.len() - 1
                }
            };
            &mut staged[slot].1
        };
        if vm.as_any().type_id() != type_id {
            // The agent sees action_failed; the developer needs the why.
            tracing::warn!(
                action,
                window = %id,
                asked_for = type_name,
                is = vm.type_name(),
                "an action's Context::update named a window of another type, so the call failed and changed nothing; update the window's own type (a dialog's owner is usually not the dialog's type)"
            );
            return Err(fail(format!("window `{id}` is not a `{type_name}`")));
        }
        if catch_unwind(AssertUnwindSafe(|| edit(vm.as_any_mut()))).is_err() {
            tracing::error!(window = %id, "an edit made through Context::update panicked");
            return Err(fail(format!("editing window `{id}` failed inside the application")));
        }
    }
    Ok((working, staged, rest))
}

/// Rejects effect lists that cannot apply in full, before anything applies.
fn check_effects(state: &State, effects: &[Effect], max_windows: usize) -> Result<(), ToolError> {
    // Which windows are open, and who owns them, as the effects play out:
    // a close takes every window stacked on it along (`topology::closed_with`,
    // as `close_cascade` will).
    let mut owners: HashMap<Arc<str>, Option<Arc<str>>> =
        state.windows.values().map(|e| (e.id.clone(), e.owner.clone())).collect();
    let fail = |what: String| Err(refusals::defect(&what));
    for effect in effects {
        match effect {
            Effect::Open { id, placement, .. } => {
                let owner = match placement {
                    Placement::Modal { owner } => {
                        if !owners.contains_key(owner) {
                            return fail(format!(
                                "a modal was opened on window `{owner}`, which is not open (or is closed by this same call)"
                            ));
                        }
                        Some(owner.clone())
                    }
                    Placement::TopLevel | Placement::AppModal => None,
                };
                owners.insert(id.clone(), owner);
            }
            Effect::Close(id) => {
                let windows = owners.iter().map(|(w, o)| (&**w, o.as_deref()));
                let gone: HashSet<Arc<str>> =
                    topology::closed_with(id, windows).into_iter().map(Arc::from).collect();
                owners.retain(|w, _| !gone.contains(w));
            }
            Effect::SetAvailable { window, action, .. } => {
                let known = match window {
                    Some(id) => {
                        state.entry_by_id(id).is_some_and(|e| e.actor.spec.action(action).is_some())
                    }
                    None => state.app.as_ref().is_some_and(|a| a.spec.action(action).is_some()),
                };
                if !known {
                    return fail(format!("set_available named an unknown action `{action}`"));
                }
            }
            Effect::Update { .. } => {} // checked while staging
        }
    }
    let before = state.windows.len();
    if owners.len() > max_windows && owners.len() > before {
        return Err(Error::LimitReached { what: "open windows", limit: max_windows }.into());
    }
    Ok(())
}

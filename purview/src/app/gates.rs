//! The §7 rules, each written once: used before a handler runs and again
//! when its result commits, for window actions and app-level actions alike.
//!
//! | rule | code |
//! |---|---|
//! | the window (or the app's action set) exists and has the action | `window_not_found`, `action_not_available` |
//! | the window is operable; app-level actions only while no app modal is open | `blocked_by_modal` |
//! | the action is available | `action_not_available` |
//! | `expectedVersion` matches (before) / nobody changed the window meanwhile (commit) | `stale_state` |
//!
//! Messages say what happened; the call path adds what to do next for the
//! agent's tool surface.

use std::sync::Arc;

use serde_json::Value;

use super::{
    actor::Actor,
    registry::{Entry, State},
    route::ActionCall,
};
use crate::{
    model::{FieldError, ToolError},
    naming, refusals,
    validate::echo,
};

/// What a call is aimed at, once resolved.
#[derive(Debug, Clone)]
pub(super) enum Target {
    Window { seq: u64, id: Arc<str> },
    App,
}

/// When a gate runs: before the handler, or at commit (after it ran without
/// the lock), which only changes the wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    Before,
    AtCommit,
}

/// A call every rule admitted, with what it is aimed at.
pub(super) struct Admitted<'a> {
    pub target: Target,
    /// The action's index in the actor's spec.
    pub index: usize,
    pub actor: &'a Actor,
    /// The window's entry; `None` for an app-level action.
    pub entry: Option<&'a Entry>,
}

/// Every rule before the handler runs, in order: the target and its
/// action exist, it is operable and the action available, and
/// `expectedVersion` (when given) is the window's version. The only way a
/// call is admitted, for the check outside the operation lock and again
/// under it.
pub(super) fn admit<'a>(state: &'a State, call: &ActionCall) -> Result<Admitted<'a>, ToolError> {
    let (window, action) = (call.window.as_str(), call.action.as_str());
    let (target, index) = resolve(state, window, action, call.key)?;
    check_operable(state, &target, index, action, When::Before)?;
    check_expected_version(state, &target, call.expected_version.as_ref())?;
    let actor = actor(state, &target).ok_or_else(|| refusals::window_not_found(window))?;
    let entry = match &target {
        Target::Window { seq, .. } => entry(state, *seq),
        Target::App => None,
    };
    Ok(Admitted { target, index, actor, entry })
}

/// The rules again when a finished call commits: nobody changed the target
/// while the handler ran, and it is still operable with the action
/// available.
pub(super) fn recheck(
    state: &State,
    target: &Target,
    index: usize,
    action: &str,
    base_revision: u64,
) -> Result<(), ToolError> {
    check_unchanged(state, target, base_revision)?;
    check_operable(state, target, index, action, When::AtCommit)
}

/// `` `w1` ("Order Editor") `` for a window that has a title.
pub(super) fn describe(state: &State, id: &str) -> String {
    match state.entry_by_id(id) {
        Some(e) if !e.title.is_empty() => format!("`{id}` (\"{}\")", e.title),
        _ => format!("`{}`", echo(id)),
    }
}

fn actor<'a>(state: &'a State, target: &Target) -> Option<&'a Actor> {
    match target {
        Target::Window { seq, .. } => entry(state, *seq).map(|e| &e.actor),
        Target::App => state.app.as_ref(),
    }
}

/// A resolved window's entry, by its number: window numbers and ids are
/// never reused, so this is the window the id named, found without hashing
/// the id again (the gates look it up several times per call).
fn entry(state: &State, seq: u64) -> Option<&Entry> {
    state.windows.get(&seq).map(|e| &**e)
}

/// Rule 1: which window (or the app) and which of its actions a call means.
fn resolve(
    state: &State,
    window: &str,
    action: &str,
    key: Option<usize>,
) -> Result<(Target, usize), ToolError> {
    let target = if window == naming::APP {
        if state.app.is_none() {
            return Err(refusals::no_app_actions());
        }
        Target::App
    } else {
        let entry = state.entry_by_id(window).ok_or_else(|| refusals::window_not_found(window))?;
        Target::Window { seq: entry.seq, id: entry.id.clone() }
    };
    let Some(actor) = actor(state, &target) else {
        return Err(refusals::window_not_found(window));
    };
    // A typed call's key, or one an earlier phase found: the action at
    // that place, unless it is another (a key written by hand, say).
    if let Some(key) =
        key.filter(|&k| actor.spec.actions.get(k).is_some_and(|a| a.spec.name == action))
    {
        return Ok((target, key));
    }
    let Some((index, _)) = actor.spec.action(action) else {
        let names: Vec<&str> = actor.spec.actions.iter().map(|a| a.spec.name.as_ref()).collect();
        let owner = match &target {
            Target::Window { id, .. } => format!("Window {}", describe(state, id)),
            Target::App => "The application".to_owned(),
        };
        return Err(refusals::no_such_action(&owner, action, &names));
    };
    Ok((target, index))
}

/// Rules 1–3 for a resolved target: still there, operable, action available.
fn check_operable(
    state: &State,
    target: &Target,
    index: usize,
    action: &str,
    when: When,
) -> Result<(), ToolError> {
    let actor = match target {
        Target::Window { seq, id } => {
            &entry(state, *seq).ok_or_else(|| refusals::window_not_found(id))?.actor
        }
        Target::App => state.app.as_ref().ok_or_else(refusals::no_app_actions)?,
    };
    if let Some(blocker) = blocker(state, target) {
        let what = match (target, when) {
            (Target::Window { id, .. }, When::Before) => {
                format!("Window {} is blocked by a modal", describe(state, id))
            }
            (Target::Window { id, .. }, When::AtCommit) => format!(
                "Window {} was blocked by a modal while `{action}` ran, so nothing was applied",
                describe(state, id)
            ),
            (Target::App, When::Before) => {
                "App-level actions are blocked while an app-level modal is open".to_owned()
            }
            (Target::App, When::AtCommit) => {
                format!("An app-level modal opened while `{action}` ran, so nothing was applied")
            }
        };
        let described = describe(state, &blocker);
        return Err(refusals::blocked_by_modal(&what, blocker, &described));
    }
    if !actor.available.get(index).copied().unwrap_or(false) {
        let whose = match target {
            Target::Window { id, .. } => format!("on window {}", describe(state, id)),
            Target::App => "(app-level)".to_owned(),
        };
        let now = match when {
            When::Before => " right now".to_owned(),
            When::AtCommit => {
                " any more: it was withdrawn while it ran, so nothing was applied".to_owned()
            }
        };
        return Err(refusals::not_available(action, &whose, &now));
    }
    Ok(())
}

/// For a target that is not operable: the window operable in its place.
fn blocker(state: &State, target: &Target) -> Option<String> {
    match target {
        Target::Window { id, .. } => {
            (!state.is_operable(id)).then(|| state.topology().blocker_of(id).to_owned())
        }
        Target::App => {
            let topology = state.topology();
            topology.app_modal().map(|modal| topology.top_of(modal).to_owned())
        }
    }
}

/// Rule 4 before the handler: `expectedVersion`, when given, is the
/// window's version (§7.1). App-level actions have no version.
fn check_expected_version(
    state: &State,
    target: &Target,
    expected: Option<&Value>,
) -> Result<(), ToolError> {
    let Target::Window { seq, id } = target else { return Ok(()) };
    let expected = match expected {
        None | Some(Value::Null) => return Ok(()),
        Some(value) => value.as_u64().ok_or_else(|| {
            ToolError::validation(vec![FieldError::new(
                naming::EXPECTED_VERSION,
                "must be a non-negative integer: the window's version from app://windows",
            )])
        })?,
    };
    let current = entry(state, *seq).map_or(0, |e| e.version);
    if expected != current {
        return Err(stale(state, id, current, Some(expected)));
    }
    Ok(())
}

/// Rule 4 at commit: nobody (the person, another call's commit) changed the
/// target while the handler ran; the person wins (§7.1).
fn check_unchanged(state: &State, target: &Target, base_revision: u64) -> Result<(), ToolError> {
    let revision = actor(state, target).map(|a| a.revision);
    if revision == Some(base_revision) {
        return Ok(());
    }
    Err(match target {
        Target::Window { seq, id } => match entry(state, *seq) {
            Some(entry) => stale(state, id, entry.version, None),
            None => refusals::window_not_found(id),
        },
        Target::App => refusals::app_state_changed(),
    })
}

fn stale(state: &State, id: &str, current: u64, expected: Option<u64>) -> ToolError {
    let why = match expected {
        Some(expected) => {
            format!("is at version {current}, not {expected}: it changed since you read it")
        }
        None => format!(
            "was changed by someone else while your action ran (now version {current}); your action was not applied"
        ),
    };
    refusals::stale(&describe(state, id), &why, current)
}

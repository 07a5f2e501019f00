//! The respond phase of a failed call: every error says what to do next, in the terms
//! of the agent's tool surface — a model whose host never refreshed its
//! tool list is told to use `app__act`, one whose host reads no resources
//! to call `app__read_windows` — and the codes about what is operable carry
//! `next`.

use super::registry::State;
use crate::model::{ErrorCode, Next, ToolError};
use crate::settings::ToolSurface;

/// What to do next after `error`, in the terms of the agent's tool
/// surface, and (for the codes about what is operable) `next`, taken from
/// `state` (absent only when called back from inside the state lock).
pub(super) fn explain(
    surface: ToolSurface,
    state: Option<&State>,
    mut error: ToolError,
) -> ToolError {
    let next = match error.code {
        ErrorCode::BlockedByModal | ErrorCode::WindowNotFound | ErrorCode::ActionNotAvailable => {
            state.map(State::next)
        }
        _ => None,
    };
    let advice = match (error.code, &next) {
        (ErrorCode::BlockedByModal, Some(next)) => {
            let blocker = error.blocked_by.clone().unwrap_or_default();
            let actions = next.actions.get(&blocker).cloned().unwrap_or_default();
            Some(operate_first(surface, &blocker, &actions))
        }
        (ErrorCode::WindowNotFound | ErrorCode::ActionNotAvailable, Some(next)) => {
            Some(what_now(surface, next))
        }
        (ErrorCode::StaleState, _) => Some(match error.current_version {
            Some(current) => format!(
                "Read it again ({}), decide afresh, and retry with expectedVersion {current} if it still makes sense.",
                how_to_read(surface)
            ),
            None => format!(
                "Read the windows again ({}), decide afresh, and retry.",
                how_to_read(surface)
            ),
        }),
        (ErrorCode::ActionTimeout | ErrorCode::ActionFailed, _) => Some(format!(
            "Read the windows again ({}) before deciding whether to retry.",
            how_to_read(surface)
        )),
        _ => None,
    };
    if let Some(advice) = advice {
        error.message = format!("{} {advice}", error.message);
    }
    error.next = next.map(Box::new);
    error
}

/// How the agent reads the windows on its surface.
fn how_to_read(surface: ToolSurface) -> &'static str {
    match surface {
        ToolSurface::Windows => "app://windows",
        ToolSurface::Both => "call app__read_windows, or read app://windows",
        ToolSurface::Dispatcher => "call app__read_windows",
    }
}

/// Advice for a blocked window: deal with the window on top first.
fn operate_first(surface: ToolSurface, blocker: &str, actions: &[String]) -> String {
    let tools: Vec<String> = actions.iter().map(|a| crate::naming::tool_name(blocker, a)).collect();
    match surface {
        ToolSurface::Windows => format!(
            "Operate `{blocker}` first (its tools: {}), or re-read app://windows.",
            list_or_none(&tools)
        ),
        ToolSurface::Both => format!(
            "Operate `{blocker}` first: call {}; if your tool list does not show them, call app__act with window \"{blocker}\" and one of these actions: {}.",
            list_or_none(&tools),
            list_or_none(actions)
        ),
        ToolSurface::Dispatcher => format!(
            "Operate `{blocker}` first: call app__act with window \"{blocker}\" and one of these actions: {}.",
            list_or_none(actions)
        ),
    }
}

/// Advice when the window or action is not there: what can be done instead.
fn what_now(surface: ToolSurface, next: &Next) -> String {
    let reachable: Vec<String> = next
        .actions
        .iter()
        .map(|(window, actions)| format!("{window}: {}", actions.join(", ")))
        .collect();
    let listing = match surface {
        ToolSurface::Windows => "Call tools/list for the tools on offer now".to_owned(),
        ToolSurface::Both => "Call tools/list for the tools on offer now, or app__act with one of the window's actions below".to_owned(),
        ToolSurface::Dispatcher => "Call app__act with one of the window's actions below".to_owned(),
    };
    format!(
        "{listing}, and {} for what each window shows. Operable now: {}.",
        how_to_read(surface),
        if reachable.is_empty() { "nothing".to_owned() } else { reachable.join("; ") }
    )
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() { "none".to_owned() } else { items.join(", ") }
}

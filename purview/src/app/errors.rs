//! The errors an agent call can meet, each saying what to do next.

use super::State;
use crate::model::{ErrorCode, ToolError};

pub(super) fn window_not_found(id: &str) -> ToolError {
    ToolError::new(
        ErrorCode::WindowNotFound,
        format!(
            "Window `{id}` is not open (it was closed, or never existed). Re-read app://windows for the open windows and their ids, and call tools/list for what can be done now."
        ),
    )
}

pub(super) fn describe(state: &State, id: &str) -> String {
    match state.entry_by_id(id) {
        Some(e) if !e.title.is_empty() => format!("`{id}` (\"{}\")", e.title),
        _ => format!("`{id}`"),
    }
}

pub(super) fn stale(state: &State, id: &str, current: u64, expected: Option<u64>) -> ToolError {
    let why = match expected {
        Some(expected) => {
            format!("is at version {current}, not {expected}: it changed since you read it")
        }
        None => format!(
            "was changed by someone else while your action ran (now version {current}); your action was not applied"
        ),
    };
    let mut e = ToolError::new(
        ErrorCode::StaleState,
        format!(
            "Window {} {why}. Re-read app://windows, decide again, and retry with expectedVersion {current} if it still makes sense.",
            describe(state, id)
        ),
    );
    e.current_version = Some(current);
    e
}

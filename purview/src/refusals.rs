//! Every refusal Purview itself gives an agent, each declared once with its
//! code, its wording and its fields; everything else names it. A message
//! says what happened and that nothing was changed; the call path then
//! adds what to do next for the agent's tool surface (`app/advice.rs`).
//!
//! Arguments are what the caller already knows: ids as the agent sent them
//! (echoed safely here), windows as `describe` words them (`` `w1`
//! ("Order Editor") ``).

use std::time::Duration;

use crate::{
    model::{DenialReason, ErrorCode, FieldError, ToolError},
    validate::echo,
};

// --- §7: which window and action a call means ------------------------------

/// `window_not_found`: no open window has this id.
pub(crate) fn window_not_found(id: &str) -> ToolError {
    ToolError::new(
        ErrorCode::WindowNotFound,
        format!("Window `{}` is not open (it was closed, or never existed).", echo(id)),
    )
}

/// `action_not_available`: `app__…` for an app without app-level actions.
pub(crate) fn no_app_actions() -> ToolError {
    ToolError::new(ErrorCode::ActionNotAvailable, "This application has no app-level actions.")
}

/// `action_not_available`: `owner` ("Window `w1` (…)", "The application")
/// has no action of that name.
pub(crate) fn no_such_action(owner: &str, action: &str, names: &[&str]) -> ToolError {
    ToolError::new(
        ErrorCode::ActionNotAvailable,
        format!(
            "{owner} has no action `{}`; its actions are: {}.",
            echo(action),
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        ),
    )
}

/// `action_not_available`: a handler was asked for an action its window
/// type does not have (hand-written `Actions`).
pub(crate) fn unknown_action(action: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionNotAvailable,
        format!(
            "This window has no action `{action}`. Call tools/list for the actions on offer now."
        ),
    )
}

/// `action_not_available`: a name that is not a tool name at all.
pub(crate) fn no_such_tool(tool: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionNotAvailable,
        format!(
            "There is no tool `{}`: tool names are `{{windowId}}__{{action}}` or `app__{{action}}`.",
            echo(tool)
        ),
    )
}

/// `action_not_available`: `app__read_windows` through an API that returns
/// action results.
pub(crate) fn read_windows_is_no_action() -> ToolError {
    ToolError::new(
        ErrorCode::ActionNotAvailable,
        "app__read_windows answers with a snapshot, not an action result: use App::read_windows, or Call::outcome for the wire form.",
    )
}

/// `action_not_available`: a typed call of app-level actions of a type the
/// app was not built with.
pub(crate) fn not_the_apps_actions(actions_name: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionNotAvailable,
        format!(
            "`{actions_name}` are not this application's app-level actions (see AppBuilder::app_actions); nothing was changed. Use `WindowHandle::act` for a window's actions."
        ),
    )
}

// --- §7.2: operability and availability ------------------------------------

/// `blocked_by_modal`: `what` happened; `blocker` (described as
/// `blocker_described`) is operable in its place.
pub(crate) fn blocked_by_modal(what: &str, blocker: String, blocker_described: &str) -> ToolError {
    let mut e = ToolError::new(
        ErrorCode::BlockedByModal,
        format!("{what}; {blocker_described} is operable in its place."),
    );
    e.blocked_by = Some(blocker);
    e
}

/// `action_not_available`: the action exists but is not available `now`.
pub(crate) fn not_available(action: &str, whose: &str, now: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionNotAvailable,
        format!("`{action}` {whose} is not available{now}."),
    )
}

// --- §7.1: versions --------------------------------------------------------

/// `stale_state`: the window (`described`) is at `current`, for `why`.
pub(crate) fn stale(described: &str, why: &str, current: u64) -> ToolError {
    let mut e = ToolError::new(ErrorCode::StaleState, format!("Window {described} {why}."));
    e.current_version = Some(current);
    e
}

/// `stale_state`: the app-level state changed while an app-level action ran.
pub(crate) fn app_state_changed() -> ToolError {
    ToolError::new(
        ErrorCode::StaleState,
        "The application's state changed while your action ran; nothing was applied.",
    )
}

// --- a call that could not complete ----------------------------------------

/// `action_failed`: the handler used its `Context` wrongly (`failures`).
pub(crate) fn context_misused(action: &str, failures: &[String]) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!(
            "`{action}` could not complete ({}); nothing was changed. This is a defect in the application, not in your call.",
            failures.join("; ")
        ),
    )
}

/// `action_failed`: an action called from inside another's handler.
pub(crate) fn reentered(action: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!(
            "`{}` was called from inside another action's handler, which would wait for itself; nothing was changed. This is a defect in the application: a handler acts on other windows through its Context.",
            echo(action)
        ),
    )
}

/// `action_timeout`.
pub(crate) fn timed_out(action: &str, timeout: Duration) -> ToolError {
    ToolError::new(
        ErrorCode::ActionTimeout,
        format!(
            "`{action}` did not finish within {timeout:?} and was abandoned; nothing was changed."
        ),
    )
}

/// `action_failed`: the client cancelled the request before it took effect.
pub(crate) fn cancelled(action: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!("`{action}` was cancelled before it took effect; nothing was changed."),
    )
}

/// `action_failed`: the handler (or the view-model's clone) panicked.
pub(crate) fn failed_inside(action: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!(
            "`{action}` failed inside the application; nothing was changed. Retrying the same call will likely fail the same way."
        ),
    )
}

/// `action_failed`: committing would break what the window set up (`what`),
/// because the world moved under the call.
pub(crate) fn moved_under_the_call(what: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!("{what}; nothing was changed. Re-read app://windows before deciding what to do."),
    )
}

/// `action_failed`: the application's own mistake (`what`), found at commit.
pub(crate) fn defect(what: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!(
            "{what}; nothing was changed. This is a defect in the application, not in your call."
        ),
    )
}

/// `action_failed`: a Purview error raised inside a handler with `?`.
pub(crate) fn inside_handler(error: &dyn std::fmt::Display) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!(
            "The action could not complete ({error}); nothing was changed. This is a defect in the application, not in your call."
        ),
    )
}

/// `limit_reached`: a Purview limit hit inside a handler.
pub(crate) fn limit_inside_handler(error: &dyn std::fmt::Display) -> ToolError {
    ToolError::new(
        ErrorCode::LimitReached,
        format!("{error}; nothing was changed. Close something first, or ask the person."),
    )
}

/// `action_failed`: a typed call's result was not of the type it expected.
pub(crate) fn wrong_result_type(action: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!(
            "`{action}` was applied, but its result was not of the type its call expected. This is a defect in the application."
        ),
    )
}

/// `action_failed`: typed arguments decoded for another action.
pub(crate) fn arguments_for_another_action() -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        "The call's arguments were made for another action; nothing was changed. This is a defect in the application.",
    )
}

/// `validation_failed`: these arguments hold a number too large for JSON
/// to carry (the request could not be decoded, so nothing else is known).
pub(crate) fn number_out_of_range(fields: Vec<String>) -> ToolError {
    let fields = if fields.is_empty() { vec!["arguments".to_owned()] } else { fields };
    ToolError::validation(
        fields
            .into_iter()
            .map(|field| {
                FieldError::new(
                    field,
                    "holds a number too large for JSON to carry (beyond about 1.8e308); send a smaller one",
                )
            })
            .collect(),
    )
}

/// `validation_failed`: `app__read_windows` asked for more windows than
/// can be open at once.
pub(crate) fn too_many_windows_asked(asked: usize, limit: usize) -> ToolError {
    ToolError::validation(vec![FieldError::new(
        "windows",
        format!(
            "lists {asked} window ids, more than the {limit} windows that can be open at once; list the ids of open windows, or leave `windows` out to read them all"
        ),
    )])
}

// --- approvals (a Purview extension) ---------------------------------------

/// Which bound kept an approval question from being asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QuestionLimit {
    /// This session's share is taken.
    FromSession(usize),
    /// The app's whole budget is taken, and no session holds more of it
    /// than this one would.
    InAll(usize),
    /// The question was withdrawn unanswered: another session needed its
    /// place, and this one held the most.
    Withdrawn,
}

/// `limit_reached`: too many approval questions already wait.
pub(crate) fn too_many_questions(action: &str, limit: QuestionLimit) -> ToolError {
    let why = match limit {
        QuestionLimit::FromSession(n) => format!(
            "your session already has {n} approval questions waiting for an answer, its limit"
        ),
        QuestionLimit::InAll(n) => {
            format!("{n} approval questions are already waiting for an answer, the app's limit")
        }
        QuestionLimit::Withdrawn => {
            return ToolError::new(
                ErrorCode::LimitReached,
                format!(
                    "`{action}`'s approval question was withdrawn before anyone answered: the app's questions were all taken, and your session held more of them than the session that needed one. Nothing was changed; wait for an answer to your other questions before calling again."
                ),
            );
        }
    };
    ToolError::new(
        ErrorCode::LimitReached,
        format!(
            "`{action}` needs a person's approval, but {why}. Nothing was changed and no one was asked; wait for an answer to the questions already asked before calling again."
        ),
    )
}

/// `limit_reached`: more answers to questions another process asked (a
/// replica sharing the app's key) were used within one approval timeout
/// than this process keeps to tell a repeated one.
pub(crate) fn too_many_replica_answers(timeout: Duration) -> ToolError {
    ToolError::new(
        ErrorCode::LimitReached,
        format!(
            "This answer is to a question another instance of the application asked, and more such answers were used in the last {} s than this instance can tell apart from a repeat; nothing was changed. Call again without the answer to be asked here.",
            timeout.as_secs()
        ),
    )
}

/// `approval_denied`: an in-process agent's typed call of an action that
/// needs approval. Its arguments are Rust values, which an approver could
/// not be shown, so no one is asked.
pub(crate) fn typed_call_cannot_be_approved(action: &str) -> ToolError {
    let mut error = ToolError::new(
        ErrorCode::ApprovalDenied,
        format!(
            "`{action}` needs a person's approval, and a typed call made as an agent cannot show its arguments to the person asked; nothing was changed. Call it by tool name (`App::call`) with JSON arguments, or as the person (`by_person`)."
        ),
    );
    error.reason = Some(DenialReason::NoApprover);
    error
}

/// `approval_denied`, saying what happened and that calling again asks
/// again.
pub(crate) fn denied(action: &str, reason: DenialReason, timeout: Duration) -> ToolError {
    let message = match reason {
        DenialReason::Declined => format!(
            "The person declined `{action}`; nothing was changed. Calling again asks them again."
        ),
        DenialReason::NoApprover => format!(
            "`{action}` needs a person's approval, and no one could be asked: this application has no approver and your client cannot ask its user. Nothing was changed; ask the user to do it in the application themselves."
        ),
        DenialReason::Timeout => format!(
            "No one approved `{action}` within {} s; nothing was changed. Calling again asks again.",
            timeout.as_secs()
        ),
        DenialReason::Changed => format!(
            "What `{action}` acts on changed while the person decided (a window opened or closed, a modal came or went, or the application's own state changed), so the approval no longer holds; nothing was changed. Read app://windows, then call again to ask again."
        ),
        DenialReason::Expired => format!(
            "The answer to the approval question for `{action}` came back after {} s, when the question had expired; nothing was changed. Calling again asks again.",
            timeout.as_secs()
        ),
        DenialReason::Replayed => format!(
            "That approval of `{action}` was used already, and a yes applies once; nothing was changed. Calling again asks again."
        ),
        DenialReason::Invalid => format!(
            "The approval state sent back with `{action}` was altered, belongs to another call, or came with other arguments than those the person was asked about; nothing was changed. Call again without it to ask again."
        ),
    };
    let mut error = ToolError::new(ErrorCode::ApprovalDenied, message);
    error.reason = Some(reason);
    error
}

use std::{collections::BTreeMap, fmt};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why an approval-requiring call did not run: the `reason` of an
/// `approval_denied` error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DenialReason {
    /// The person said no.
    Declined,
    /// No one could be asked: no approver in the app, and the client cannot
    /// ask its user.
    NoApprover,
    /// No answer came in time.
    Timeout,
    /// What an app-level action depends on (the app's windows, modals or
    /// state) changed while the person decided: the yes no longer holds.
    Changed,
    /// A 2026-07-28 retry came back after its question expired.
    Expired,
    /// A 2026-07-28 retry's answer had been used before: a yes applies once.
    Replayed,
    /// A 2026-07-28 retry's `requestState` was altered, belongs to another
    /// call, or came with other arguments than those approved.
    Invalid,
}

impl fmt::Display for DenialReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Declined => "declined",
            Self::NoApprover => "no_approver",
            Self::Timeout => "timeout",
            Self::Changed => "changed",
            Self::Expired => "expired",
            Self::Replayed => "replayed",
            Self::Invalid => "invalid",
        })
    }
}

/// Whose yes let an approval-requiring call run: the `approvedBy` of its
/// result, and of the app's log line.
///
/// ```
/// use purview::model::ApprovedBy;
/// assert_eq!(serde_json::to_value(ApprovedBy::Client).unwrap(), "client");
/// assert_eq!(ApprovedBy::InApp.to_string(), "in_app");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovedBy {
    /// The person at the app, through the app's own approver (its GUI).
    InApp,
    /// The calling client's user, asked by MCP elicitation (or, on
    /// 2026-07-28, by a question the client put and answered on retry).
    /// Only the client vouches that a person gave it.
    Client,
    /// No one was asked: the app's own policy said yes.
    Policy,
}

impl fmt::Display for ApprovedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InApp => "in_app",
            Self::Client => "client",
            Self::Policy => "policy",
        })
    }
}

/// A successful tool call's `structuredContent` (§5.4, Appendix B).
///
/// There is no `ok` flag: returning normally means success.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResult {
    /// What happened, for a person to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Windows this call opened (and that are still open), in opening order;
    /// left out when there are none, as §5.4 allows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opened_window_ids: Vec<String>,
    /// The action's own structured result, shaped by its outputSchema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Purview extension: when the call changed what can be operated (it
    /// opened or closed a window, or changed which actions are available),
    /// what it changed: the whole `operableWindowIds`, and the actions of
    /// each operable window whose actions changed. Hosts that never refresh
    /// their tool list or read resources show the model nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<Next>,
    /// Purview extension: for an action that needed a person's approval,
    /// whose yes let it run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_by: Option<ApprovedBy>,
}

/// What an agent can operate now, as a Purview extension of the protocol's
/// result and error objects: the operable windows, and available action
/// names by window id (`"app"` for app-level actions).
///
/// On an error (`blocked_by_modal`, `window_not_found`,
/// `action_not_available`) `actions` holds every operable window: the
/// agent's picture was wrong. On a successful call it holds only the
/// windows whose actions the call changed (a window it opened or unblocked,
/// one where an action became available or hidden; an empty list when
/// none is left): the result carries the call's direct effects (§5.4), and
/// every other window in `operableWindowIds` offers what it did before.
///
/// ```
/// # use purview::model::Next;
/// let next: Next = serde_json::from_value(serde_json::json!({
///     "operableWindowIds": ["w3"],
///     "actions": {"w3": ["confirm", "cancel"]}
/// })).unwrap();
/// assert_eq!(next.actions["w3"], ["confirm", "cancel"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Next {
    /// `operableWindowIds` as it is after the call.
    pub operable_window_ids: Vec<String>,
    /// For operable window ids (and `"app"`), the names of their available
    /// actions: call them as `{windowId}__{action}`, or through `app__act`.
    /// Every operable window on an error; on a success, those the call
    /// changed.
    pub actions: BTreeMap<String, Vec<String>>,
}

/// The `code` of a [`ToolError`] (§7.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// `expectedVersion` did not match; carries `currentVersion`.
    StaleState,
    /// Arguments were rejected; carries `fields[]`.
    ValidationFailed,
    /// The window is blocked by a modal (window-level or app-level).
    BlockedByModal,
    /// The window is closed or never existed.
    WindowNotFound,
    /// The action does not exist on that window or is hidden right now.
    ActionNotAvailable,
    /// The action did not finish in time and took no effect.
    ActionTimeout,
    /// Purview extension: the handler failed (returned an error of its own or
    /// panicked) and took no effect.
    ActionFailed,
    /// Purview extension: the call would take the application past one of
    /// its limits (such as the number of open windows) and took no effect.
    LimitReached,
    /// Purview extension: the action needs a person's approval, which was
    /// not given (see `reason`); nothing was changed.
    ApprovalDenied,
}

impl ErrorCode {
    /// The code as it appears on the wire.
    ///
    /// ```
    /// assert_eq!(purview::model::ErrorCode::StaleState.as_str(), "stale_state");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Self::StaleState => "stale_state",
            Self::ValidationFailed => "validation_failed",
            Self::BlockedByModal => "blocked_by_modal",
            Self::WindowNotFound => "window_not_found",
            Self::ActionNotAvailable => "action_not_available",
            Self::ActionTimeout => "action_timeout",
            Self::ActionFailed => "action_failed",
            Self::LimitReached => "limit_reached",
            Self::ApprovalDenied => "approval_denied",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rejected argument of a `validation_failed` error (§7.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FieldError {
    /// The tool parameter name.
    pub field: String,
    /// What is wrong with it, in words an agent can act on.
    pub error: String,
}

impl FieldError {
    /// A field error.
    ///
    /// ```
    /// let e = purview::model::FieldError::new("amount", "must be greater than 0");
    /// assert_eq!(e.field, "amount");
    /// ```
    pub fn new(field: impl Into<String>, error: impl Into<String>) -> Self {
        Self { field: field.into(), error: error.into() }
    }
}

/// A failed tool call's `structuredContent`, sent with `isError: true` (§7.4).
///
/// `message` always says what to do next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolError {
    /// Machine-readable code.
    pub code: ErrorCode,
    /// Human-readable explanation and next step.
    pub message: String,
    /// The window's version now, with [`ErrorCode::StaleState`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_version: Option<u64>,
    /// Per-argument errors, with [`ErrorCode::ValidationFailed`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<FieldError>>,
    /// With [`ErrorCode::BlockedByModal`]: the window that is operable in the
    /// blocked window's place (the top of its modal chain or the app modal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<String>,
    /// Purview extension, with [`ErrorCode::ApprovalDenied`]: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<DenialReason>,
    /// Purview extension, with [`ErrorCode::BlockedByModal`],
    /// [`ErrorCode::WindowNotFound`] and [`ErrorCode::ActionNotAvailable`]:
    /// what can be operated instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<Box<Next>>,
    /// Purview extension, with [`ErrorCode::ValidationFailed`] from
    /// `app__act`: the action's signature as `app__read_windows` lists it,
    /// to correct the call by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Box<str>>,
}

impl ToolError {
    /// An error with a code and a message.
    ///
    /// ```
    /// use purview::model::{ErrorCode, ToolError};
    /// let e = ToolError::new(ErrorCode::ActionFailed, "printer is offline; try again later");
    /// assert_eq!(serde_json::to_value(&e).unwrap()["code"], "action_failed");
    /// ```
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            current_version: None,
            fields: None,
            blocked_by: None,
            reason: None,
            next: None,
            signature: None,
        }
    }

    /// A `validation_failed` error whose message counts the fields.
    ///
    /// ```
    /// use purview::model::{FieldError, ToolError};
    /// let e = ToolError::validation(vec![FieldError::new("pin", "wrong PIN")]);
    /// assert!(e.message.contains("1 argument"));
    /// ```
    pub fn validation(fields: Vec<FieldError>) -> Self {
        let n = fields.len();
        let names: Vec<&str> = fields.iter().map(|f| f.field.as_str()).collect();
        let message = format!(
            "Rejected: {n} argument{} invalid ({}). Nothing was changed; correct {} and call again.",
            if n == 1 { " is" } else { "s are" },
            names.join(", "),
            if n == 1 { "it" } else { "them" },
        );
        Self { fields: Some(fields), ..Self::new(ErrorCode::ValidationFailed, message) }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ToolError {}

/// A handler's own failure text becomes `action_failed` with that message;
/// say what the agent can do about it.
impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(ErrorCode::ActionFailed, message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(ErrorCode::ActionFailed, message)
    }
}

/// What a tools/call returns on the wire: `structuredContent` and `isError`.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let app = purview::App::builder().build();
/// let outcome = app.call("app__read_windows", None).outcome().await;
/// assert!(!outcome.is_error);
/// assert_eq!(outcome.structured["operableWindowIds"], serde_json::json!([]));
/// # });
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolOutcome {
    /// Whether the call failed (`structured` is then a
    /// [`ToolError`] object).
    pub is_error: bool,
    /// The `structuredContent`.
    pub structured: serde_json::Value,
}

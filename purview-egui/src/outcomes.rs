//! What the person's finished calls leave for the GUI: each scope's last
//! failure (with its per-field errors) until a later call there succeeds,
//! and the actions that succeeded, whose forms close.

use std::collections::HashMap;

use purview::{ToolError, model::FieldError};

/// Where a call belongs: a window's id, or `None` for the app's own actions.
pub(crate) type Scope = Option<String>;

/// A call that failed, kept until the next call in its scope succeeds.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    /// The action whose form the per-field errors belong to, if known.
    pub action: Option<String>,
    pub error: ToolError,
}

/// What finished calls left for the GUI.
#[derive(Debug, Default)]
pub(crate) struct Outcomes {
    pub failures: HashMap<Scope, Failure>,
    /// Actions that succeeded since the last frame: their forms close.
    pub succeeded: Vec<(Scope, String)>,
}

/// The error a failure gives for one argument.
pub(crate) fn field_error(error: Option<&ToolError>, field: &str) -> Option<String> {
    error?.fields.as_ref()?.iter().find(|f| f.field == field).map(|f| f.error.clone())
}

/// A failure found by the form itself, shaped as the runtime's would be.
pub(crate) fn form_problems(problems: Vec<FieldError>) -> ToolError {
    ToolError::validation(problems)
}

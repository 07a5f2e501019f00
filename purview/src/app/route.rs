//! The route phase of a call: what it asks for. A tool name `{windowId}__{action}`
//! or `app__{action}` names its window and action; `app__act` names them in
//! its arguments (and carries the action's own arguments separately, so
//! `validation_failed` names them as the action knows them);
//! `app__read_windows` asks for the snapshot.

use serde_json::Value;

use crate::settings::ToolSurface;
use crate::{
    action::JsonObject,
    model::{FieldError, ToolError},
    naming, refusals, validate,
};

/// What a call asks for, once its tool name is understood.
pub(super) enum Request {
    /// `app__read_windows`, optionally narrowed to some windows, with or
    /// without the actions' full schemas.
    ReadWindows { only: Option<Vec<String>>, schemas: bool },
    /// An action, named directly or through `app__act`.
    Action(ActionCall),
}

/// An action call, whichever way it was named.
pub(super) struct ActionCall {
    pub window: String,
    pub action: String,
    /// The action's place in its type's actions, when known: set by a typed
    /// call, and by the check phase once it has found the action by name.
    pub key: Option<usize>,
    pub arguments: JsonObject,
    pub expected_version: Option<Value>,
    /// A typed call's decoded arguments (then `arguments` is empty).
    pub typed: Option<Box<dyn std::any::Any + Send>>,
    /// Named through `app__act`, from a read's signatures: a
    /// `validation_failed` answer then repeats the signature.
    pub dispatched: bool,
}

impl ActionCall {
    /// A call of `action` in `window` with JSON arguments, as a tool call
    /// sends them: `expectedVersion` is taken out of them.
    pub fn with_json(
        window: String,
        action: String,
        key: Option<usize>,
        mut arguments: JsonObject,
    ) -> Self {
        let expected_version = arguments.remove(naming::EXPECTED_VERSION);
        Self { window, action, key, arguments, expected_version, typed: None, dispatched: false }
    }
}

/// Which window and action a tool name (or `app__act`'s arguments) means,
/// on `surface`.
pub(super) fn route(
    surface: ToolSurface,
    tool: &str,
    arguments: JsonObject,
) -> Result<Request, ToolError> {
    if surface.lists_dispatcher() {
        if tool == naming::READ_WINDOWS_TOOL {
            return read_windows_request(arguments);
        }
        if tool == naming::ACT_TOOL {
            return act_request(arguments);
        }
    }
    let Some((window, action)) = naming::split_tool_name(tool) else {
        return Err(refusals::no_such_tool(tool));
    };
    Ok(Request::Action(ActionCall::with_json(
        window.to_owned(),
        action.to_owned(),
        None,
        arguments,
    )))
}

/// `app__read_windows`'s arguments.
fn read_windows_request(mut arguments: JsonObject) -> Result<Request, ToolError> {
    let mut problems = Vec::new();
    let only = match arguments.remove("windows") {
        None | Some(Value::Null) => None,
        Some(Value::Array(ids)) if ids.iter().all(Value::is_string) => {
            Some(ids.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        }
        Some(_) => {
            problems.push(FieldError::new("windows", "must be an array of window ids (strings)"));
            None
        }
    };
    let schemas = match arguments.remove("schemas") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => {
            problems.push(FieldError::new("schemas", "must be true or false"));
            false
        }
    };
    let params = ["windows", "schemas"].map(str::to_owned);
    problems.extend(arguments.keys().take(5).map(|k| validate::unknown_argument(k, &params)));
    if problems.is_empty() {
        Ok(Request::ReadWindows { only, schemas })
    } else {
        Err(ToolError::validation(problems))
    }
}

/// `app__act`'s arguments: the action's own arguments stay separate, so
/// `validation_failed` names them as the action knows them.
fn act_request(mut arguments: JsonObject) -> Result<Request, ToolError> {
    let mut problems = Vec::new();
    let mut text = |name: &str, arguments: &mut JsonObject| match arguments.remove(name) {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        None | Some(Value::Null) => {
            problems.push(FieldError::new(name, "is required"));
            None
        }
        Some(_) => {
            problems.push(FieldError::new(name, "must be a non-empty string"));
            None
        }
    };
    let window = text("window", &mut arguments);
    let action = text("action", &mut arguments);
    let mut inner = match arguments.remove("arguments") {
        None | Some(Value::Null) => JsonObject::new(),
        Some(Value::Object(map)) => map,
        Some(_) => {
            problems.push(FieldError::new("arguments", "must be an object"));
            JsonObject::new()
        }
    };
    let outer_version = arguments.remove(naming::EXPECTED_VERSION);
    let inner_version = inner.remove(naming::EXPECTED_VERSION);
    let expected_version = match (outer_version, inner_version) {
        (Some(a), Some(b)) if a != b => {
            problems.push(FieldError::new(
                naming::EXPECTED_VERSION,
                "was given twice with different values; give it once, beside `window`",
            ));
            None
        }
        (a, b) => a.or(b),
    };
    // Named beside any other bad argument (§7.3), not only once the window is found.
    if expected_version.as_ref().is_some_and(|v| !v.is_null() && v.as_u64().is_none()) {
        problems.push(FieldError::new(naming::EXPECTED_VERSION, "must be a non-negative integer"));
    }
    let params = ["window", "action", "arguments", naming::EXPECTED_VERSION].map(str::to_owned);
    problems.extend(arguments.keys().take(5).map(|k| validate::unknown_argument(k, &params)));
    match (window, action) {
        (Some(window), Some(action)) if problems.is_empty() => Ok(Request::Action(ActionCall {
            window,
            action,
            key: None,
            arguments: inner,
            expected_version,
            typed: None,
            dispatched: true,
        })),
        _ => Err(ToolError::validation(problems)),
    }
}

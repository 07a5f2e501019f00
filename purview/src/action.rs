//! Describing actions (their schemas and hints) and decoding their arguments.

use std::{borrow::Cow, sync::Arc, time::Duration};

use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Map, Value, json};

use crate::{
    model::{ErrorCode, FieldError, ToolError},
    redact::describe_decode_error,
};

/// A JSON object, as schemas are stored.
pub type JsonObject = Map<String, Value>;

/// The longest action name accepted, so that `{winId}__{action}` stays within
/// [`MAX_TOOL_NAME_LEN`] with the longest window id.
pub const MAX_ACTION_NAME_LEN: usize = 26;

/// The longest window id Purview hands out or accepts from an app.
pub const MAX_WINDOW_ID_LEN: usize = 12;

/// The longest tool name Purview produces. Hosts allow 64 characters and some
/// spend up to 24 of them on a `mcp__{server}__` prefix.
pub const MAX_TOOL_NAME_LEN: usize = MAX_WINDOW_ID_LEN + 2 + MAX_ACTION_NAME_LEN;

/// The static description of one action: name, words, schemas and hints.
///
/// ```
/// use purview::ActionSpec;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct EditField {
///     /// Which field to change.
///     field: String,
///     /// The new value.
///     value: String,
/// }
///
/// let spec = ActionSpec::new("edit_field")
///     .title("Edit field")
///     .description("Change one field of the order")
///     .input::<EditField>()
///     .idempotent();
/// assert_eq!(spec.name(), "edit_field");
/// ```
#[derive(Debug, Clone)]
pub struct ActionSpec {
    pub(crate) name: Cow<'static, str>,
    pub(crate) title: Option<Cow<'static, str>>,
    pub(crate) description: Option<Cow<'static, str>>,
    pub(crate) input_schema: JsonObject,
    pub(crate) result_schema: Option<JsonObject>,
    pub(crate) hints: Hints,
    pub(crate) timeout: Option<Duration>,
}

/// MCP tool annotations (§5.6). `None` leaves a hint unset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Hints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

impl ActionSpec {
    /// An action taking no arguments and returning no `result`.
    /// Names are letter-first `[A-Za-z0-9_]`, without `__`, at most
    /// [`MAX_ACTION_NAME_LEN`] long; the runtime rejects others when the
    /// window type is first used.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema: empty_object_schema(),
            result_schema: None,
            hints: Hints {
                read_only: Some(false),
                destructive: Some(false),
                idempotent: Some(false),
                open_world: Some(false),
            },
            timeout: None,
        }
    }

    /// The action name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A short human title (defaults to the name with `_` as spaces).
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the action does, for the agent.
    pub fn description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Takes its arguments from the JSON Schema of `T` (an object type).
    pub fn input<T: schemars::JsonSchema>(self) -> Self {
        self.input_schema(schema_for::<T>())
    }

    /// Takes its arguments from an explicit object schema.
    pub fn input_schema(mut self, schema: JsonObject) -> Self {
        self.input_schema = schema;
        self
    }

    /// Declares the shape of `result` in the tool's outputSchema.
    pub fn result<T: schemars::JsonSchema>(self) -> Self {
        self.result_schema(schema_for::<T>())
    }

    /// Declares the shape of `result` from an explicit schema.
    pub fn result_schema(mut self, schema: JsonObject) -> Self {
        self.result_schema = Some(schema);
        self
    }

    /// Marks the action read-only (`readOnlyHint`): it changes nothing.
    pub fn read_only(mut self) -> Self {
        self.hints.read_only = Some(true);
        self.hints.destructive = Some(false);
        self
    }

    /// Marks the action destructive (`destructiveHint`): irreversible.
    pub fn destructive(mut self) -> Self {
        self.hints.destructive = Some(true);
        self
    }

    /// Marks the action idempotent (`idempotentHint`): safe to retry.
    pub fn idempotent(mut self) -> Self {
        self.hints.idempotent = Some(true);
        self
    }

    /// Marks the action as reaching outside the app (`openWorldHint`).
    pub fn open_world(mut self) -> Self {
        self.hints.open_world = Some(true);
        self
    }

    /// How long the handler may run before the call fails with
    /// `action_timeout` (and takes no effect). Defaults to the app's timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

fn empty_object_schema() -> JsonObject {
    let Value::Object(map) = json!({"type": "object", "properties": {}}) else {
        unreachable!("literal is an object")
    };
    map
}

/// The JSON Schema (draft 2020-12) of `T` as an object, without the `$schema`
/// key that some clients reject.
///
/// ```
/// let schema = purview::schema_for::<u8>();
/// assert_eq!(schema["type"], "integer");
/// assert!(!schema.contains_key("$schema"));
/// ```
pub fn schema_for<T: schemars::JsonSchema>() -> JsonObject {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut map = match schema.to_value() {
        Value::Object(map) => map,
        // `true` / `false` schemas: any value / no value.
        Value::Bool(true) => JsonObject::new(),
        _ => json!({"not": {}}).as_object().cloned().unwrap_or_default(),
    };
    map.remove("$schema");
    map
}

/// A compiled action: the spec plus the exact schemas tools/list advertises.
#[derive(Debug)]
pub(crate) struct CompiledAction {
    pub spec: ActionSpec,
    pub tool_title: String,
    pub input_schema: Arc<JsonObject>,
    pub output_schema: Arc<JsonObject>,
    pub params: Arc<[String]>,
    pub result_shape: ResultShape,
}

/// How an action's `result` travels, decided once from its declared schema
/// so that values always match the outputSchema: §5.4 makes `result` an
/// object, so anything else is carried as `{"value": ..}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultShape {
    /// The declared schema describes objects: sent as is.
    Object,
    /// The declared schema describes something else: always wrapped.
    Wrapped,
    /// No schema declared: wrapped when the value is not an object.
    Undeclared,
}

impl ResultShape {
    fn of(schema: Option<&JsonObject>) -> Self {
        match schema {
            None => Self::Undeclared,
            Some(s) if describes_object(s) => Self::Object,
            Some(_) => Self::Wrapped,
        }
    }

    pub(crate) fn wrap(self, value: Value) -> Value {
        match (self, value) {
            (Self::Object, value) | (Self::Undeclared, value @ Value::Object(_)) => value,
            (_, value) => json!({ "value": value }),
        }
    }
}

/// Checks an action name against Purview's name rules.
pub(crate) fn check_action_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_ACTION_NAME_LEN {
        return Err(format!(
            "action name `{name}` must be 1 to {MAX_ACTION_NAME_LEN} characters long"
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(format!("action name `{name}` must start with an ASCII letter"));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("action name `{name}` may contain only A-Z, a-z, 0-9 and `_`"));
    }
    if name.contains("__") || name.ends_with('_') {
        return Err(format!(
            "action name `{name}` must not contain `__` or end with `_` (it separates window and action in tool names)"
        ));
    }
    Ok(())
}

impl CompiledAction {
    /// Window-level actions take `expectedVersion`; app-level ones belong to
    /// no window and so have no version to expect.
    pub(crate) fn compile(spec: ActionSpec, window_level: bool) -> Result<Self, String> {
        check_action_name(&spec.name)?;
        let mut input = spec.input_schema.clone();
        if input.get("type").is_some_and(|t| t != "object") {
            return Err(format!(
                "action `{}`: the input schema must describe an object (its properties are the arguments)",
                spec.name
            ));
        }
        input.insert("type".into(), "object".into());
        let properties =
            input.entry("properties").or_insert_with(|| Value::Object(JsonObject::new()));
        let Value::Object(properties) = properties else {
            return Err(format!("action `{}`: `properties` must be an object", spec.name));
        };
        if properties.contains_key("expectedVersion") {
            return Err(format!(
                "action `{}`: `expectedVersion` is reserved for optimistic concurrency (§5.5)",
                spec.name
            ));
        }
        let params: Arc<[String]> = properties.keys().cloned().collect();
        if window_level {
            properties.insert(
            "expectedVersion".into(),
            json!({
                "type": "integer",
                "minimum": 0,
                "description": "The version of this window you last read in app://windows. If the window changed since, the call is rejected with stale_state and nothing happens."
            }),
            );
        }
        let output = output_schema(spec.result_schema.clone());
        let result_shape = ResultShape::of(spec.result_schema.as_ref());
        let tool_title =
            spec.title.as_deref().map(str::to_owned).unwrap_or_else(|| humanize(&spec.name));
        Ok(Self {
            spec,
            tool_title,
            input_schema: Arc::new(input),
            output_schema: Arc::new(output),
            params,
            result_shape,
        })
    }
}

/// `edit_field` → `Edit field`.
pub(crate) fn humanize(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => spaced,
    }
}

/// The ToolResult shape of §12.3 with the action's own result inside. Nothing
/// is `required`, so the error object (§7.4), which also travels in
/// structuredContent, validates too.
fn output_schema(result: Option<JsonObject>) -> JsonObject {
    let mut properties = JsonObject::new();
    properties.insert(
        "message".into(),
        json!({"type": "string", "description": "What happened, for a person to read"}),
    );
    properties.insert(
        "openedWindowIds".into(),
        json!({"type": "array", "items": {"type": "string"}, "description": "Windows this call opened"}),
    );
    let mut defs = None;
    if let Some(mut result) = result {
        // Hoist `$defs` to the root so `#/$defs/...` references still resolve.
        defs = result.remove("$defs");
        let result = if describes_object(&result) {
            result
        } else {
            // §5.4: `result` is an object; other values travel as {"value": ..}.
            let mut wrapped = JsonObject::new();
            wrapped.insert("type".into(), "object".into());
            wrapped.insert("properties".into(), json!({ "value": Value::Object(result) }));
            wrapped
        };
        properties.insert("result".into(), Value::Object(result));
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    if let Some(defs) = defs {
        schema.insert("$defs".into(), defs);
    }
    schema
}

/// Whether a schema describes JSON objects only (so no wrapping is needed).
fn describes_object(schema: &JsonObject) -> bool {
    schema.get("type").is_some_and(|t| t == "object")
}

/// The arguments of one call, decoded field by field so that every bad
/// argument is reported at once (§7.3).
///
/// ```
/// use purview::Args;
///
/// let mut args = Args::from_json(serde_json::json!({"recipient": "", "amount": "lots"}), &["recipient", "amount"]);
/// let recipient: Option<String> = args.required("recipient");
/// let amount: Option<f64> = args.required("amount");
/// let err = args.finish().unwrap_err();
/// assert_eq!(err.fields.unwrap()[0].field, "amount");
/// assert!(recipient.is_some() && amount.is_none());
/// ```
pub struct Args {
    map: JsonObject,
    params: Arc<[String]>,
    schema: Option<Arc<JsonObject>>,
    errors: Vec<FieldError>,
}

/// Shows only the argument names: values may be secrets.
impl std::fmt::Debug for Args {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Args")
            .field("names", &self.map.keys().collect::<Vec<_>>())
            .field("errors", &self.errors)
            .finish_non_exhaustive()
    }
}

impl Args {
    pub(crate) fn new(
        map: JsonObject,
        params: Arc<[String]>,
        schema: Option<Arc<JsonObject>>,
    ) -> Self {
        Self { map, params, schema, errors: Vec::new() }
    }

    /// Arguments from a JSON object, for tests and hand-written dispatch.
    /// A non-object becomes an empty argument set.
    pub fn from_json(value: Value, params: &[&str]) -> Self {
        let map = match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        };
        Self::new(map, params.iter().map(|p| (*p).to_owned()).collect(), None)
    }

    /// Takes a required argument. Missing, `null` or undecodable: records a
    /// field error and returns `None`.
    pub fn required<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            None | Some(Value::Null) => {
                self.errors.push(FieldError::new(name, "is required"));
                None
            }
            Some(value) => self.decode(name, value),
        }
    }

    /// Takes an optional argument: `None` when missing or `null`; an
    /// undecodable value records a field error.
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            None | Some(Value::Null) => None,
            Some(value) => self.decode(name, value),
        }
    }

    fn decode<T: DeserializeOwned>(&mut self, name: &str, value: Value) -> Option<T> {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(v) => Some(v),
            Err(e) => {
                let path = e.path().to_string();
                let field = if path == "." { name.to_owned() } else { format!("{name}.{path}") };
                self.errors
                    .push(FieldError::new(field, describe_decode_error(&e.inner().to_string())));
                None
            }
        }
    }

    /// Records a field error found by the handler's own checks.
    pub fn invalid(&mut self, field: impl Into<String>, error: impl Into<String>) {
        self.errors.push(FieldError::new(field, error));
    }

    /// Ends decoding: unknown arguments are errors too. Returns
    /// `validation_failed` with every field error, or `Ok(())`.
    pub fn finish(mut self) -> Result<(), ToolError> {
        self.reject_unknown();
        if self.errors.is_empty() { Ok(()) } else { Err(ToolError::validation(self.errors)) }
    }

    /// Decodes all arguments into one struct. A field that fails is named in
    /// `validation_failed`; unknown arguments are rejected.
    pub fn parse<T: DeserializeOwned>(mut self) -> Result<T, ToolError> {
        self.reject_unknown();
        if let Some(schema) = &self.schema {
            // Every argument that breaks the schema is reported, not only the
            // first one serde would stop at.
            let problems = crate::schema_check::check_arguments(schema, &self.map);
            if !problems.is_empty() || !self.errors.is_empty() {
                self.errors.extend(problems);
                return Err(ToolError::validation(self.errors));
            }
        }
        let map = std::mem::take(&mut self.map);
        let known: JsonObject = map;
        let decoded = match serde_path_to_error::deserialize::<_, T>(Value::Object(known)) {
            Ok(v) => Some(v),
            Err(e) => {
                let inner = e.inner().to_string();
                let field = match inner.strip_prefix("missing field `") {
                    Some(rest) => rest.trim_end_matches('`').to_owned(),
                    None => e.path().to_string(),
                };
                let error = if inner.starts_with("missing field") {
                    "is required".to_owned()
                } else {
                    describe_decode_error(&inner)
                };
                self.errors.push(FieldError::new(field, error));
                None
            }
        };
        match decoded {
            Some(v) if self.errors.is_empty() => Ok(v),
            _ => Err(ToolError::validation(self.errors)),
        }
    }

    fn reject_unknown(&mut self) {
        if self.params.is_empty() && self.map.is_empty() {
            return;
        }
        let params = self.params.clone();
        let unknown: Vec<String> =
            self.map.keys().filter(|k| !params.iter().any(|p| p == *k)).cloned().collect();
        for key in unknown {
            self.map.remove(&key);
            let expected = if params.is_empty() {
                "this action takes no arguments".to_owned()
            } else {
                format!("this action takes: {}", params.join(", "))
            };
            self.errors.push(FieldError::new(key, format!("unknown argument; {expected}")));
        }
    }
}

/// What a successful handler returns: a message and an optional structured
/// `result`. Opened windows are added by the runtime.
///
/// ```
/// use purview::ActionOutput;
/// let out = ActionOutput::message("Submitted; a confirmation dialog opened")
///     .with_result(serde_json::json!({"orderId": 12345}));
/// # let _ = out;
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActionOutput {
    pub(crate) message: Option<String>,
    pub(crate) result: Option<Value>,
}

impl ActionOutput {
    /// An output with a message.
    pub fn message(message: impl Into<String>) -> Self {
        Self { message: Some(message.into()), result: None }
    }

    /// An output carrying only a structured result.
    pub fn result(result: impl Serialize) -> Self {
        Self::default().with_result(result)
    }

    /// Adds a structured result. Since the protocol's `result` is an object,
    /// a result whose declared schema is not an object (a number, a list, an
    /// `Option`) is sent as `{"value": ..}`, and so is a non-object result of
    /// an action that declares none. A value that cannot be JSON at all (a
    /// map with non-string keys) becomes `null`.
    ///
    /// ```
    /// let out = purview::ActionOutput::result(3);
    /// # let _ = out;
    /// ```
    pub fn with_result(mut self, result: impl Serialize) -> Self {
        self.result = Some(serde_json::to_value(result).unwrap_or(Value::Null));
        self
    }

    /// Sets the message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// The error a dispatcher returns for an action name it does not know.
///
/// ```
/// let e = purview::unknown_action("fly");
/// assert_eq!(e.code, purview::model::ErrorCode::ActionNotAvailable);
/// ```
pub fn unknown_action(action: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionNotAvailable,
        format!(
            "This window has no action `{action}`. Call tools/list for the actions on offer now."
        ),
    )
}

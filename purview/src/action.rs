//! Describing actions: their names, words, schemas and hints, and what a
//! handler returns.

use std::{borrow::Cow, time::Duration};

use serde::Serialize;
use serde_json::{Value, json};

pub use crate::model::JsonObject;
use crate::model::{ToolError, ToolHints};

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
    pub(crate) hints: ToolHints,
    pub(crate) timeout: Option<Duration>,
    pub(crate) approval: bool,
    pub(crate) sources: Vec<ArgumentSource>,
}

/// Where an argument's value comes from: a column of one of the window's
/// tables (`#[arg(from = table.column)]`). The person picks it by
/// clicking a row; the argument's description tells agents the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentSource {
    /// The argument.
    pub argument: Cow<'static, str>,
    /// The table block's id in the action's window.
    pub table: Cow<'static, str>,
    /// The column (from 0) whose cell is the value.
    pub column: usize,
    /// That column as the declaration names it: the row type's field
    /// (`id`), or its place (`0`).
    pub column_name: Cow<'static, str>,
}

impl ArgumentSource {
    /// The sentence the argument's description ends with, telling agents
    /// where its value comes from. A GUI that lets the person pick the row
    /// says so in its own words instead ([`ArgumentSource::persons_help`]).
    ///
    /// ```
    /// use purview::ActionSpec;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Book { pet_id: u32 }
    ///
    /// let spec = ActionSpec::new("book").input::<Book>().argument_from("pet_id", "pets", 0, "id");
    /// assert!(spec.sources()[0].agent_hint().contains("`id` column"));
    /// ```
    pub fn agent_hint(&self) -> String {
        format!(
            "Take it from the `{}` column of this window's `{}` table (its rows are in app://windows).",
            self.column_name, self.table
        )
    }

    /// The argument's own help for a person who picks the row: its schema
    /// `description` without [`ArgumentSource::agent_hint`].
    ///
    /// ```
    /// use purview::ActionSpec;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Book { pet_id: u32 }
    ///
    /// let spec = ActionSpec::new("book").input::<Book>().argument_from("pet_id", "pets", 0, "id");
    /// let source = &spec.sources()[0];
    /// let said = format!("The pet to see. {}", source.agent_hint());
    /// assert_eq!(source.persons_help(&said), "The pet to see.");
    /// ```
    pub fn persons_help<'a>(&self, description: &'a str) -> &'a str {
        description.strip_suffix(self.agent_hint().as_str()).unwrap_or(description).trim_end()
    }
}

impl ActionSpec {
    /// An action taking no arguments and returning no `result`.
    /// Names are letter-first `[A-Za-z0-9_]`, without `__`, at most
    /// [`MAX_ACTION_NAME_LEN`](crate::naming::MAX_ACTION_NAME_LEN) long; the
    /// runtime rejects others when the window type is first used (the macros
    /// reject them at compile time).
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema: empty_object_schema(),
            result_schema: None,
            hints: ToolHints {
                read_only: Some(false),
                destructive: Some(false),
                idempotent: Some(false),
                open_world: Some(false),
            },
            timeout: None,
            approval: false,
            sources: Vec::new(),
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
    pub fn result<T: crate::constraint::ResultType>(self) -> Self {
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

    /// Needs a person's approval when an agent calls it (never when the
    /// person does, through [`Call::by_person`](crate::Call::by_person)); the
    /// tool's description says so. See [`Approver`](crate::approval::Approver).
    pub fn approval(mut self) -> Self {
        self.approval = true;
        self
    }

    /// Whether the action needs a person's approval when an agent calls it.
    pub fn needs_approval(&self) -> bool {
        self.approval
    }

    /// Says that `argument` takes a value from column `column` (from 0,
    /// named `column_name` for agents) of the window's table block
    /// `table`: the person picks it by clicking a row, and the argument's
    /// description tells agents where to find it. Call it after the input
    /// schema is set. `#[arg(from = table.column)]` writes it, checked at
    /// compile time.
    ///
    /// ```
    /// use purview::ActionSpec;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Book { pet_id: u32 }
    ///
    /// let spec = ActionSpec::new("book").input::<Book>().argument_from("pet_id", "pets", 0, "id");
    /// assert_eq!(spec.sources()[0].table, "pets");
    /// ```
    pub fn argument_from(
        mut self,
        argument: impl Into<Cow<'static, str>>,
        table: impl Into<Cow<'static, str>>,
        column: usize,
        column_name: impl Into<Cow<'static, str>>,
    ) -> Self {
        let source = ArgumentSource {
            argument: argument.into(),
            table: table.into(),
            column,
            column_name: column_name.into(),
        };
        let where_from = source.agent_hint();
        if let Some(Value::Object(property)) = self
            .input_schema
            .get_mut("properties")
            .and_then(|p| p.get_mut(source.argument.as_ref()))
        {
            let said = match property.get("description").and_then(Value::as_str) {
                Some(own) => format!("{own} {where_from}"),
                None => where_from,
            };
            property.insert("description".into(), Value::String(said));
        }
        self.sources.push(source);
        self
    }

    /// Where arguments' values come from ([`ActionSpec::argument_from`]).
    pub fn sources(&self) -> &[ArgumentSource] {
        &self.sources
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
/// let schema = purview::by_hand::schema_for::<u8>();
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
        Self { message: Some(message.into()), ..Self::default() }
    }

    /// An output carrying only a structured result.
    pub fn result<T: Serialize>(result: T) -> Self {
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
    pub fn with_result<T: Serialize>(mut self, result: T) -> Self {
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
/// let e = purview::by_hand::unknown_action("fly");
/// assert_eq!(e.code, purview::model::ErrorCode::ActionNotAvailable);
/// ```
pub fn unknown_action(action: &str) -> ToolError {
    crate::refusals::unknown_action(action)
}

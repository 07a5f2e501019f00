//! An action's form, read from its input schema once per action type (the
//! same definitions agents get): one [`Field`] per argument, with its label,
//! help, kind, choices, placeholder, bounds and the table it is chosen from;
//! and what the person typed turned back into the call's arguments, or into
//! per-field errors in the person's words, before anything is called.
//!
//! The only file of the person's side that reads a JSON Schema.

use std::collections::BTreeMap;

use purview::{
    activity::{ActionInfo, ArgumentSource},
    model::{FieldError, JsonObject},
    naming::{EXPECTED_VERSION, humanize},
    serde::Serialize,
    serde_json::{Map, Value},
};

use crate::words;

/// What the person typed into a form: one text per argument (`"true"` or
/// `"false"` for a checkbox, the choice's own string for a choice).
///
/// ```
/// use purview_person::{Field, FieldKind, Typed, arguments};
///
/// let field = Field {
///     name: "on".into(), label: "On".into(), help: None, kind: FieldKind::Bool,
///     choices: vec![], required: true, placeholder: None, bounds: None, from: None,
/// };
/// let typed: Typed = [("on".to_owned(), "true".to_owned())].into();
/// assert_eq!(arguments(&[field], &typed).unwrap()["on"], true);
/// ```
pub type Typed = BTreeMap<String, String>;

/// The input a form field takes.
///
/// ```
/// use purview_person::FieldKind;
///
/// assert!(FieldKind::Integer.is_typed());
/// assert!(!FieldKind::Choice.is_typed(), "a choice is picked, not typed");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(crate = "purview::serde", rename_all = "lowercase")]
pub enum FieldKind {
    /// A string.
    Text,
    /// A `writeOnly` string (`purview::Secret`): a password field, whose
    /// text goes to the call and is then forgotten.
    Secret,
    /// A JSON number.
    Number,
    /// A JSON integer.
    Integer,
    /// A boolean, as a checkbox.
    Bool,
    /// One of [`Field::choices`].
    Choice,
    /// Anything else, typed as JSON.
    Json,
}

impl FieldKind {
    /// Whether the field is typed into (Enter in it submits the form).
    ///
    /// ```
    /// assert!(purview_person::FieldKind::Text.is_typed());
    /// ```
    pub fn is_typed(&self) -> bool {
        !matches!(self, Self::Bool | Self::Choice)
    }
}

/// Where an argument's value comes from: a cell of a row the person
/// chooses (`#[arg(from = table.column)]`).
///
/// ```
/// # use purview::{prelude::*, projection::Page};
/// # use purview_person::*;
/// # #[window(title = "Returns", summary = "Returns")]
/// # #[derive(Clone)]
/// # struct Returns {
/// #     #[block(table, limit = 10, load = load_rows, columns = ["Return", "Status"])]
/// #     rows: Vec<(u32, String)>,
/// # }
/// # #[actions]
/// # impl Returns {
/// #     /// Fetch a range of returns.
/// #     #[action(read_only, idempotent)]
/// #     fn load_rows(&self, offset: usize, limit: usize) -> Page<(u32, String)> {
/// #         Page::slice(&self.rows, offset, limit)
/// #     }
/// #     /// Refund a return.
/// #     #[action]
/// #     fn refund(&mut self, #[arg(from = rows.0)] id: u32) {}
/// # }
/// # let app = App::builder().build();
/// # let rows = (1..=30).map(|i| (i, "open".to_owned())).collect();
/// # let id = app.open(Returns { rows }).unwrap().id().to_owned();
/// # let model = Reader::default().read(&app.scene().unwrap(), Around::default());
/// # let window = model.window(&id).unwrap();
/// # let table = window.tables().next().unwrap();
/// let refund = model.action(Some(&id), "refund").unwrap();
/// let from = refund.fields[0].from.as_ref().unwrap();
/// assert_eq!((from.table.as_str(), from.column), ("rows", 0));
/// assert_eq!(from.hint, "Choose a row in Rows to fill this in.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(crate = "purview::serde", rename_all = "camelCase")]
pub struct RowSource {
    /// The table's block id.
    pub table: String,
    /// The table's name in words.
    pub table_title: String,
    /// The column whose cell is the value.
    pub column: usize,
    /// "Choose a row in Open orders to fill this in."
    pub hint: String,
}

/// One argument of an action, as a form field.
///
/// ```
/// use purview::prelude::*;
///
/// #[window(summary = "Returns")]
/// #[derive(Clone, Default)]
/// struct Returns;
///
/// #[actions]
/// impl Returns {
///     /// Refund a return.
///     #[action]
///     fn refund(&mut self, #[arg(range(min = 1, max = 500), example = 25)] amount: u32) {}
/// }
///
/// let app = App::builder().build();
/// app.open(Returns).unwrap();
/// let scene = app.scene().unwrap();
/// let fields = purview_person::fields(&scene.windows[0].actions[0]);
/// assert_eq!(fields[0].label, "Amount");
/// assert_eq!(fields[0].placeholder.as_deref(), Some("25"));
/// assert_eq!(fields[0].bounds.as_deref(), Some("From 1 to 500"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(crate = "purview::serde", rename_all = "camelCase")]
pub struct Field {
    /// The argument's name, which a `validation_failed` error names.
    pub name: String,
    /// The name in words.
    pub label: String,
    /// The schema's description, without the sentence that tells agents
    /// where a chosen row's value comes from.
    pub help: Option<String>,
    /// What kind of input it takes.
    pub kind: FieldKind,
    /// The choices of a [`FieldKind::Choice`].
    pub choices: Vec<String>,
    /// Whether the schema requires it.
    pub required: bool,
    /// The schema's first example, as text.
    pub placeholder: Option<String>,
    /// Its bounds in words ("From 1 to 500", "at most 80 characters").
    pub bounds: Option<String>,
    /// The table whose rows fill it, if it is chosen rather than typed.
    pub from: Option<RowSource>,
}

impl Field {
    /// Whether the field is a secret: typed hidden, forgotten once sent.
    ///
    /// ```
    /// use purview_person::{Field, FieldKind};
    ///
    /// let field = Field {
    ///     name: "pin".into(), label: "Pin".into(), help: None, kind: FieldKind::Secret,
    ///     choices: vec![], required: true, placeholder: None, bounds: None, from: None,
    /// };
    /// assert!(field.is_secret());
    /// ```
    pub fn is_secret(&self) -> bool {
        self.kind == FieldKind::Secret
    }
}

/// The fields of an action's form, `expectedVersion` left out (the person
/// acts on what is on screen), required ones first in their declared order.
///
/// ```
/// # use purview::prelude::*;
/// # use purview_person::*;
/// # #[window(summary = "Counts to {count}")]
/// # #[derive(Clone, Default)]
/// # struct Counter { #[block(field)] count: u32 }
/// # #[actions]
/// # impl Counter {
/// #     /// Count one more.
/// #     #[action]
/// #     fn increment(&mut self) { self.count += 1; }
/// #     /// Count from here.
/// #     #[action]
/// #     fn set(&mut self, count: u32) { self.count = count; }
/// #     /// Start again.
/// #     #[action(destructive)]
/// #     fn reset(&mut self) { self.count = 0; }
/// # }
/// # let app = App::builder().build();
/// # let id = app.open(Counter::default()).unwrap().id().to_owned();
/// # let model = Reader::default().read(&app.scene().unwrap(), Around::default());
/// # let scope: Scope = Some(id.clone());
/// let scene = app.scene().unwrap();
/// let set = scene.windows[0].actions.iter().find(|a| a.name == "set").unwrap();
/// let made = fields(set);
/// assert_eq!((made[0].label.as_str(), &made[0].kind), ("Count", &FieldKind::Integer));
/// ```
pub fn fields(action: &ActionInfo) -> Vec<Field> {
    fields_of(&action.input_schema, &action.sources)
}

/// The fields of `schema`, some chosen from the rows `sources` name.
pub(crate) fn fields_of(schema: &Map<String, Value>, sources: &[ArgumentSource]) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    // JSON objects here do not keep their order, but `required` does (the
    // declaration order): required arguments first, in it, then the rest.
    let mut names: Vec<&String> =
        properties.keys().filter(|name| name.as_str() != EXPECTED_VERSION).collect();
    names.sort_by_key(|name| required.iter().position(|r| r == name).unwrap_or(usize::MAX));
    names
        .into_iter()
        .filter_map(|name| Some((name, properties.get(name)?)))
        .map(|(name, property)| {
            let property = unwrap_optional(schema, resolve(schema, property));
            let source = sources.iter().find(|s| s.argument == *name);
            let said = property.get("description").and_then(Value::as_str);
            let help = match (said, source) {
                (Some(said), Some(source)) => Some(source.persons_help(said)),
                (said, _) => said,
            };
            let (kind, choices) = kind(schema, property);
            Field {
                name: name.clone(),
                label: humanize(name),
                help: help.filter(|h| !h.is_empty()).map(str::to_owned),
                kind,
                choices,
                required: required.contains(&name.as_str()),
                placeholder: property.get("examples").and_then(|e| e.get(0)).map(text_of),
                bounds: bounds(property),
                from: source.map(|s| RowSource {
                    table: s.table.to_string(),
                    table_title: humanize(&s.table),
                    column: s.column,
                    hint: words::choose_row_hint(&s.table),
                }),
            }
        })
        .collect()
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Follows a local `$ref` (`#/$defs/X`), as schemars writes enums.
fn resolve<'a>(root: &'a Map<String, Value>, property: &'a Value) -> &'a Value {
    let Some(reference) = property.get("$ref").and_then(Value::as_str) else { return property };
    let Some(path) = reference.strip_prefix('#') else { return property };
    let mut parts = path.split('/').skip(1);
    let first = parts.next().and_then(|part| root.get(part));
    parts.fold(first, |node, part| node.and_then(|n| n.get(part))).unwrap_or(property)
}

/// `Option<T>` is `anyOf: [T, {type: null}]`: the `T`.
fn unwrap_optional<'a>(root: &'a Map<String, Value>, property: &'a Value) -> &'a Value {
    if let Some(branches) = property.get("anyOf").and_then(Value::as_array) {
        let mut real =
            branches.iter().filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if let (Some(only), None) = (real.next(), real.next()) {
            return resolve(root, only);
        }
    }
    property
}

fn kind(root: &Map<String, Value>, property: &Value) -> (FieldKind, Vec<String>) {
    let property = unwrap_optional(root, property);
    if let Some(choices) = choices(property) {
        return (FieldKind::Choice, choices);
    }
    let written_only = property.get("writeOnly").and_then(Value::as_bool) == Some(true);
    let ty = match property.get("type") {
        Some(Value::String(ty)) => Some(ty.as_str()),
        // ["string", "null"] for an optional value.
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    };
    let kind = match ty {
        Some("string") if written_only => FieldKind::Secret,
        Some("string") => FieldKind::Text,
        Some("integer") => FieldKind::Integer,
        Some("number") => FieldKind::Number,
        Some("boolean") => FieldKind::Bool,
        _ => FieldKind::Json,
    };
    (kind, Vec::new())
}

/// The strings of an `enum`, or of a `oneOf` of `const`s (enums whose
/// variants have doc comments).
fn choices(property: &Value) -> Option<Vec<String>> {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        return values.iter().map(|v| v.as_str().map(str::to_owned)).collect();
    }
    let branches = property.get("oneOf").and_then(Value::as_array)?;
    branches
        .iter()
        .map(|b| {
            b.get("const")
                .or_else(|| b.get("enum").and_then(|e| e.get(0)))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

/// The bounds a person should know before typing: a number's range, a
/// text's length.
fn bounds(property: &Value) -> Option<String> {
    // A bound that is only the type's own (a u32's 0 and 4294967295) says
    // nothing the person needs: only what the app chose is shown.
    let chosen = |v: &&Value| v.as_f64().is_some_and(|n| n.abs() < f64::from(i32::MAX));
    let number = |key: &str| property.get(key).filter(chosen).map(Value::to_string);
    let (mut min, max) = (number("minimum"), number("maximum"));
    if max.is_none() && min.as_deref() == Some("0") {
        min = None;
    }
    if let Some(said) = words::number_bounds(min.as_deref(), max.as_deref()) {
        return Some(said);
    }
    let length = |key: &str| property.get(key).and_then(Value::as_u64);
    words::length_bounds(length("minLength"), length("maxLength"))
}

/// The call's arguments from what the person typed, or the fields to
/// correct first, in the shape of a `validation_failed` error. A choice
/// outside its list is refused here, as the app would.
///
/// ```
/// use purview_person::{Field, FieldKind, arguments};
///
/// let field = Field {
///     name: "quantity".into(), label: "Quantity".into(), help: None,
///     kind: FieldKind::Integer, choices: vec![], required: true,
///     placeholder: None, bounds: None, from: None,
/// };
/// let typed = [("quantity".to_owned(), "ten".to_owned())].into();
/// assert_eq!(arguments(&[field], &typed).unwrap_err()[0].error, "must be a whole number");
/// ```
pub fn arguments(fields: &[Field], typed: &Typed) -> Result<JsonObject, Vec<FieldError>> {
    let mut arguments = JsonObject::new();
    let mut problems = Vec::new();
    for field in fields {
        let text = typed.get(&field.name).map(String::as_str).unwrap_or_default();
        let mut refuse = |problem: String| {
            problems.push(FieldError::new(&field.name, problem));
            None
        };
        let value = match &field.kind {
            FieldKind::Bool => Some(Value::Bool(text == "true")),
            FieldKind::Text | FieldKind::Secret => {
                (field.required || !text.is_empty()).then(|| Value::String(text.to_owned()))
            }
            _ if text.trim().is_empty() => {
                if field.required {
                    refuse(words::REQUIRED.to_owned())
                } else {
                    None
                }
            }
            FieldKind::Choice if field.choices.iter().any(|c| c == text) => Some(text.into()),
            FieldKind::Choice => refuse(words::one_of(&field.choices)),
            FieldKind::Integer => match text.trim().parse::<i64>() {
                Ok(n) => Some(Value::from(n)),
                Err(_) => refuse(words::WHOLE_NUMBER.to_owned()),
            },
            FieldKind::Number => match text.trim().parse::<f64>() {
                Ok(n) if n.is_finite() => Some(Value::from(n)),
                _ => refuse(words::NUMBER.to_owned()),
            },
            FieldKind::Json => match purview::serde_json::from_str(text) {
                Ok(v) => Some(v),
                Err(_) => refuse(words::JSON.to_owned()),
            },
        };
        if let Some(value) = value {
            arguments.insert(field.name.clone(), value);
        }
    }
    if problems.is_empty() { Ok(arguments) } else { Err(problems) }
}

/// Forgets every secret typed, once the call carrying it is made.
///
/// ```
/// use purview_person::{Field, FieldKind, Typed, forget_secrets};
///
/// let pin = Field {
///     name: "pin".into(), label: "Pin".into(), help: None, kind: FieldKind::Secret,
///     choices: vec![], required: true, placeholder: None, bounds: None, from: None,
/// };
/// let mut typed: Typed = [("pin".to_owned(), "1234".to_owned())].into();
/// forget_secrets(&[pin], &mut typed);
/// assert!(typed.is_empty());
/// ```
pub fn forget_secrets(fields: &[Field], typed: &mut Typed) {
    for field in fields.iter().filter(|f| f.is_secret()) {
        typed.remove(&field.name);
    }
}

#[cfg(test)]
#[path = "form_tests.rs"]
mod tests;

//! What the person can do in a window, as `App::scene` lists it (the same
//! definitions agents get): each action's title, annotations and the form
//! its input schema asks for.

use purview::{
    activity::ActionInfo,
    model::FieldError,
    model::JsonObject,
    naming::humanize,
    serde_json::{Map, Value},
};

/// One action a window offers now: as the scene listed it (its name,
/// title, description, whether it is destructive, and what the person's
/// calls go through, [`ActionInfo::call`]), with its form's fields.
#[derive(Debug, Clone)]
pub(crate) struct ActionDef {
    pub info: ActionInfo,
    /// The arguments, in schema order, without `expectedVersion`.
    pub params: Vec<Param>,
}

/// One argument of an action, as a form field.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    /// The argument name, which `validation_failed` uses.
    pub name: String,
    /// The name in words.
    pub label: String,
    /// The schema's description.
    pub description: Option<String>,
    /// The schema's first example, as text: the field's placeholder.
    pub example: Option<String>,
    /// What kind of input it takes.
    pub kind: ParamKind,
    /// Whether the schema requires it.
    pub required: bool,
}

/// The input a form field takes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ParamKind {
    /// A string.
    Text,
    /// A `writeOnly` string (`purview::Secret`): typed into a password field.
    Secret,
    /// A JSON number.
    Number,
    /// A JSON integer.
    Integer,
    /// A boolean, as a checkbox.
    Bool,
    /// One of these strings, as a combo box.
    Choice(Vec<String>),
    /// Anything else, typed as JSON.
    Json,
}

impl ParamKind {
    /// Whether the field is typed into (Enter in it submits the form).
    pub(crate) fn is_typed(&self) -> bool {
        !matches!(self, Self::Bool | Self::Choice(_))
    }
}

impl ActionDef {
    /// The form of an action the app lists ([`App::scene`](purview::App::scene)).
    pub(crate) fn from_info(info: &ActionInfo) -> Self {
        Self { params: params(&info.input_schema), info: info.clone() }
    }
}

/// The arguments of an input schema, `expectedVersion` left out (the person
/// always acts on what is on screen).
fn params(schema: &Map<String, Value>) -> Vec<Param> {
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
    let mut names: Vec<&String> = properties
        .keys()
        .filter(|name| name.as_str() != purview::naming::EXPECTED_VERSION)
        .collect();
    names.sort_by_key(|name| required.iter().position(|r| r == name).unwrap_or(usize::MAX));
    names
        .into_iter()
        .filter_map(|name| Some((name, properties.get(name)?)))
        .map(|(name, property)| {
            let property = resolve(schema, property);
            Param {
                name: name.clone(),
                label: humanize(name),
                description: property.get("description").and_then(Value::as_str).map(str::to_owned),
                example: property.get("examples").and_then(|e| e.get(0)).map(|e| match e {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                }),
                kind: kind(schema, property),
                required: required.contains(&name.as_str()),
            }
        })
        .collect()
}

/// Follows a local `$ref` (`#/$defs/X`), as schemars writes enums.
fn resolve<'a>(root: &'a Map<String, Value>, property: &'a Value) -> &'a Value {
    let Some(reference) = property.get("$ref").and_then(Value::as_str) else { return property };
    let Some(path) = reference.strip_prefix('#') else { return property };
    let mut parts = path.split('/').skip(1);
    let first = parts.next().and_then(|part| root.get(part));
    parts.fold(first, |node, part| node.and_then(|n| n.get(part))).unwrap_or(property)
}

fn kind(root: &Map<String, Value>, property: &Value) -> ParamKind {
    // Option<T>: `anyOf: [T, {type: null}]`.
    if let Some(branches) = property.get("anyOf").and_then(Value::as_array) {
        let mut real =
            branches.iter().filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if let (Some(only), None) = (real.next(), real.next()) {
            return kind(root, resolve(root, only));
        }
    }
    if let Some(choices) = choices(property) {
        return ParamKind::Choice(choices);
    }
    let written_only = property.get("writeOnly").and_then(Value::as_bool) == Some(true);
    let ty = match property.get("type") {
        Some(Value::String(ty)) => Some(ty.as_str()),
        // ["string", "null"] for an optional value.
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    };
    match ty {
        Some("string") if written_only => ParamKind::Secret,
        Some("string") => ParamKind::Text,
        Some("integer") => ParamKind::Integer,
        Some("number") => ParamKind::Number,
        Some("boolean") => ParamKind::Bool,
        _ => ParamKind::Json,
    }
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

/// What the person typed into an action's form, one text per argument
/// (`"true"`/`"false"` for a checkbox).
#[derive(Debug, Clone, Default)]
pub(crate) struct FormValues {
    pub texts: std::collections::HashMap<String, String>,
    /// Whether the form has been drawn since it opened.
    pub shown: bool,
}

impl FormValues {
    /// The call's arguments, or the fields the person must correct first
    /// (in the same shape as a `validation_failed` error).
    pub(crate) fn arguments(&self, params: &[Param]) -> Result<JsonObject, Vec<FieldError>> {
        let mut arguments = JsonObject::new();
        let mut problems = Vec::new();
        for param in params {
            let text = self.texts.get(&param.name).map(String::as_str).unwrap_or_default();
            let value = match &param.kind {
                ParamKind::Bool => Some(Value::Bool(text == "true")),
                _ if text.trim().is_empty()
                    && param.kind != ParamKind::Text
                    && param.kind != ParamKind::Secret =>
                {
                    if param.required {
                        problems.push(FieldError::new(&param.name, "is required"));
                    }
                    None
                }
                ParamKind::Text | ParamKind::Secret => {
                    (param.required || !text.is_empty()).then(|| Value::String(text.to_owned()))
                }
                ParamKind::Choice(_) => Some(Value::String(text.to_owned())),
                ParamKind::Integer => match text.trim().parse::<i64>() {
                    Ok(n) => Some(Value::from(n)),
                    Err(_) => {
                        problems.push(FieldError::new(&param.name, "must be a whole number"));
                        None
                    }
                },
                ParamKind::Number => match text.trim().parse::<f64>() {
                    Ok(n) if n.is_finite() => Some(Value::from(n)),
                    _ => {
                        problems.push(FieldError::new(&param.name, "must be a number"));
                        None
                    }
                },
                ParamKind::Json => match purview::serde_json::from_str(text) {
                    Ok(v) => Some(v),
                    Err(_) => {
                        problems.push(FieldError::new(&param.name, "must be JSON"));
                        None
                    }
                },
            };
            if let Some(value) = value {
                arguments.insert(param.name.clone(), value);
            }
        }
        if problems.is_empty() { Ok(arguments) } else { Err(problems) }
    }

    /// Forgets every secret typed, once it has been sent.
    pub(crate) fn forget_secrets(&mut self, params: &[Param]) {
        for param in params.iter().filter(|p| p.kind == ParamKind::Secret) {
            self.texts.remove(&param.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use purview::serde_json::json;

    use super::*;

    #[test]
    fn a_schema_becomes_form_fields_of_the_right_kinds() {
        let schema = json!({
            "type": "object",
            "$defs": {"Field": {"type": "string", "enum": ["recipient", "amount"]}},
            "properties": {
                "field": {"$ref": "#/$defs/Field"},
                "value": {"type": "string", "writeOnly": true},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "note": {"type": ["string", "null"]},
                "urgent": {"type": "boolean"},
                (purview::naming::EXPECTED_VERSION): {"type": "integer"}
            },
            "required": ["field", "value"]
        });
        let params = params(schema.as_object().expect("an object"));
        let kinds: Vec<_> = params.iter().map(|p| (p.name.as_str(), p.kind.clone())).collect();
        assert_eq!(
            kinds,
            [
                ("field", ParamKind::Choice(vec!["recipient".into(), "amount".into()])),
                ("value", ParamKind::Secret),
                ("count", ParamKind::Integer),
                ("note", ParamKind::Text),
                ("ratio", ParamKind::Number),
                ("urgent", ParamKind::Bool),
            ]
        );
    }

    #[test]
    fn a_schemas_description_and_first_example_become_help_and_placeholder() {
        let schema = json!({
            "properties": {
                "day": {"type": "string", "description": "The visit's day.", "examples": ["2026-03-12", "2026-03-13"]},
                "minutes": {"type": "integer", "examples": [30]},
                "note": {"type": "string"}
            },
            "required": ["day", "minutes", "note"]
        });
        let params = params(schema.as_object().expect("an object"));
        let shown: Vec<_> = params
            .iter()
            .map(|p| (p.name.as_str(), p.description.as_deref(), p.example.as_deref()))
            .collect();
        assert_eq!(
            shown,
            [
                ("day", Some("The visit's day."), Some("2026-03-12")),
                ("minutes", None, Some("30")),
                ("note", None, None),
            ]
        );
    }

    #[test]
    fn a_form_refuses_text_where_a_number_is_asked_for() {
        let schema = json!({
            "properties": {"offset": {"type": "integer"}, "limit": {"type": "integer"}},
            "required": ["offset", "limit"]
        });
        let params = params(schema.as_object().expect("an object"));
        let mut form = FormValues::default();
        form.texts.insert("offset".into(), "ten".into());
        form.texts.insert("limit".into(), "5".into());
        let problems = form.arguments(&params).unwrap_err();
        assert_eq!(problems, [FieldError::new("offset", "must be a whole number")]);
        form.texts.insert("offset".into(), "10".into());
        assert_eq!(form.arguments(&params).unwrap()["offset"], 10);
    }
}

//! An action's form, from its input schema (the same definitions agents
//! get): one field per argument with its kind, and what the person typed
//! turned back into the call's arguments, or into per-field errors in the
//! person's words, before anything is called.

use purview::{
    model::{FieldError, JsonObject},
    naming::{EXPECTED_VERSION, humanize},
    serde_json::{Map, Value, json},
};

/// The input a form field takes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Text,
    /// A `writeOnly` string (`purview::Secret`): a password field, whose
    /// text is never sent back to the page.
    Secret,
    Number,
    Integer,
    Bool,
    Choice(Vec<String>),
    /// Anything else, typed as JSON.
    Json,
}

/// One argument of an action, as a form field.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub name: String,
    pub label: String,
    pub description: Option<String>,
    pub kind: Kind,
    pub required: bool,
}

impl Param {
    /// The field as the page draws it.
    pub(crate) fn to_json(&self) -> Value {
        let (kind, choices) = match &self.kind {
            Kind::Text => ("text", None),
            Kind::Secret => ("secret", None),
            Kind::Number => ("number", None),
            Kind::Integer => ("integer", None),
            Kind::Bool => ("bool", None),
            Kind::Choice(choices) => ("choice", Some(choices.clone())),
            Kind::Json => ("json", None),
        };
        json!({
            "name": self.name,
            "label": self.label,
            "description": self.description,
            "kind": kind,
            "choices": choices,
            "required": self.required,
        })
    }
}

/// The arguments of an input schema, `expectedVersion` left out (the person
/// acts on what is on screen), required ones first in their declared order.
pub(crate) fn params(schema: &Map<String, Value>) -> Vec<Param> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut names: Vec<&String> =
        properties.keys().filter(|name| name.as_str() != EXPECTED_VERSION).collect();
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

fn kind(root: &Map<String, Value>, property: &Value) -> Kind {
    // Option<T>: `anyOf: [T, {type: null}]`.
    if let Some(branches) = property.get("anyOf").and_then(Value::as_array) {
        let mut real =
            branches.iter().filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if let (Some(only), None) = (real.next(), real.next()) {
            return kind(root, resolve(root, only));
        }
    }
    if let Some(choices) = choices(property) {
        return Kind::Choice(choices);
    }
    let written_only = property.get("writeOnly").and_then(Value::as_bool) == Some(true);
    let ty = match property.get("type") {
        Some(Value::String(ty)) => Some(ty.as_str()),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    };
    match ty {
        Some("string") if written_only => Kind::Secret,
        Some("string") => Kind::Text,
        Some("integer") => Kind::Integer,
        Some("number") => Kind::Number,
        Some("boolean") => Kind::Bool,
        _ => Kind::Json,
    }
}

/// The strings of an `enum`, or of a `oneOf` of `const`s.
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

/// The call's arguments from what the person typed (`values`: a string per
/// field, a boolean for a checkbox), or the fields to correct first, in the
/// shape of a `validation_failed` error.
pub(crate) fn arguments(
    params: &[Param],
    values: &JsonObject,
) -> Result<JsonObject, Vec<FieldError>> {
    let mut arguments = JsonObject::new();
    let mut problems = Vec::new();
    for param in params {
        let given = values.get(&param.name);
        let text = given.and_then(Value::as_str).unwrap_or_default();
        let blank = text.trim().is_empty();
        let value = match &param.kind {
            Kind::Bool => {
                Some(Value::Bool(given.and_then(Value::as_bool).unwrap_or(text == "true")))
            }
            Kind::Text | Kind::Secret => {
                (param.required || !text.is_empty()).then(|| Value::String(text.to_owned()))
            }
            _ if blank => {
                if param.required {
                    problems.push(FieldError::new(&param.name, "is required"));
                }
                None
            }
            Kind::Choice(choices) if choices.iter().any(|c| c == text) => Some(text.into()),
            Kind::Choice(choices) => {
                problems.push(FieldError::new(
                    &param.name,
                    format!("must be one of: {}", choices.join(", ")),
                ));
                None
            }
            Kind::Integer => text.trim().parse::<i64>().map(Value::from).ok().or_else(|| {
                problems.push(FieldError::new(&param.name, "must be a whole number"));
                None
            }),
            Kind::Number => match text.trim().parse::<f64>() {
                Ok(n) if n.is_finite() => Some(Value::from(n)),
                _ => {
                    problems.push(FieldError::new(&param.name, "must be a number"));
                    None
                }
            },
            Kind::Json => purview::serde_json::from_str(text).ok().or_else(|| {
                problems.push(FieldError::new(&param.name, "must be JSON"));
                None
            }),
        };
        if let Some(value) = value {
            arguments.insert(param.name.clone(), value);
        }
    }
    if problems.is_empty() { Ok(arguments) } else { Err(problems) }
}

#[cfg(test)]
mod tests {
    use purview::serde_json::json;

    use super::*;

    fn object(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_schema_becomes_form_fields_of_the_right_kinds() {
        let schema = object(json!({
            "$defs": {"Field": {"type": "string", "enum": ["recipient", "amount"]}},
            "properties": {
                "field": {"$ref": "#/$defs/Field"},
                "pin": {"type": "string", "writeOnly": true},
                "count": {"type": "integer"},
                "note": {"type": ["string", "null"]},
                "urgent": {"type": "boolean"},
                (EXPECTED_VERSION): {"type": "integer"}
            },
            "required": ["field", "pin"]
        }));
        let kinds: Vec<_> = params(&schema).into_iter().map(|p| (p.name, p.kind)).collect();
        assert_eq!(
            kinds[0],
            ("field".into(), Kind::Choice(vec!["recipient".into(), "amount".into()]))
        );
        assert_eq!(kinds[1], ("pin".into(), Kind::Secret));
        assert!(kinds.iter().all(|(name, _)| name != EXPECTED_VERSION));
        assert!(kinds.contains(&("urgent".into(), Kind::Bool)));
        assert!(kinds.contains(&("note".into(), Kind::Text)));
    }

    #[test]
    fn typed_text_becomes_arguments_or_errors_per_field() {
        let schema = object(json!({
            "properties": {"quantity": {"type": "integer"}, "sku": {"type": "string"}},
            "required": ["quantity", "sku"]
        }));
        let params = params(&schema);
        let problems =
            arguments(&params, &object(json!({"quantity": "ten", "sku": "A"}))).unwrap_err();
        assert_eq!(problems, [FieldError::new("quantity", "must be a whole number")]);
        let missing = arguments(&params, &object(json!({"sku": "A"}))).unwrap_err();
        assert_eq!(missing, [FieldError::new("quantity", "is required")]);
        let ok = arguments(&params, &object(json!({"quantity": " 3 ", "sku": "A"}))).unwrap();
        assert_eq!(Value::Object(ok), json!({"quantity": 3, "sku": "A"}));
    }
}

//! Checking a call's arguments before the handler runs (and before the
//! operation lock is taken): unknown names, and a conservative check against
//! the action's input schema, so `validation_failed` names every bad
//! argument at once (§7.3) instead of only the first one serde trips over.
//!
//! It understands the keywords schemars emits for argument types — `type`,
//! `required`, `properties`, `enum`, `const`, `minimum`, `maximum`,
//! `minLength`, `maxLength`, `items`, `anyOf`/`oneOf`, local `$ref` — and
//! ignores the rest: it may let a bad value through (serde still rejects it
//! then), but never rejects a good one.

use serde_json::{Map, Value};

use crate::model::FieldError;

/// How many unknown argument names one error report repeats; the rest are
/// counted, so a request with thousands of made-up names cannot make the
/// answer thousands of times larger.
const UNKNOWN_NAMES_SHOWN: usize = 5;

/// The longest argument or tool name an error message repeats.
pub(crate) const ECHO_LIMIT: usize = 64;

/// `text` cut to [`ECHO_LIMIT`] characters, marked when cut.
pub(crate) fn echo(text: &str) -> String {
    match text.char_indices().nth(ECHO_LIMIT) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// The field error for an argument the action does not take.
pub(crate) fn unknown_argument(name: &str, params: &[String]) -> FieldError {
    let expected = if params.is_empty() {
        "this action takes no arguments".to_owned()
    } else {
        format!("this action takes: {}", params.join(", "))
    };
    FieldError::new(echo(name), format!("unknown argument; {expected}"))
}

/// Every problem with a call's arguments: unknown names (a few named, the
/// rest counted), then each argument that breaks the schema.
pub(crate) fn check(
    schema: &Map<String, Value>,
    params: &[String],
    args: &Map<String, Value>,
) -> Vec<FieldError> {
    let unknown: Vec<&String> = args.keys().filter(|k| !params.contains(k)).collect();
    let mut errors: Vec<FieldError> = unknown
        .iter()
        .take(UNKNOWN_NAMES_SHOWN)
        .map(|name| unknown_argument(name, params))
        .collect();
    if unknown.len() > UNKNOWN_NAMES_SHOWN {
        errors.push(FieldError::new(
            "arguments",
            format!("{} more unknown arguments", unknown.len() - UNKNOWN_NAMES_SHOWN),
        ));
    }
    errors.extend(check_arguments(schema, args));
    errors
}

/// Checks every top-level argument against its property schema, and that
/// required ones are present. Returns one error per bad argument.
pub(crate) fn check_arguments(
    schema: &Map<String, Value>,
    args: &Map<String, Value>,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if args.get(name).is_none_or(Value::is_null) && !nullable(schema, name) {
                errors.push(FieldError::new(name, "is required"));
            }
        }
    }
    let Some(Value::Object(properties)) = schema.get("properties") else { return errors };
    for (name, value) in args {
        let Some(property) = properties.get(name) else { continue };
        if let Some(problem) = check_value(schema, property, value, 0) {
            errors.push(FieldError::new(name.clone(), problem));
        }
    }
    errors
}

fn nullable(root: &Map<String, Value>, name: &str) -> bool {
    let property = root.get("properties").and_then(|p| p.get(name));
    property.is_some_and(|p| check_value(root, p, &Value::Null, 0).is_none())
}

fn resolve<'a>(root: &'a Map<String, Value>, schema: &'a Value) -> &'a Value {
    let Some(reference) = schema.get("$ref").and_then(Value::as_str) else { return schema };
    reference
        .strip_prefix("#/$defs/")
        .and_then(|name| root.get("$defs")?.get(name))
        .unwrap_or(schema)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn matches_type(expected: &str, value: &Value) -> bool {
    match expected {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

/// `None` when `value` passes; otherwise what is wrong, without quoting the
/// value itself (it may be a secret).
fn check_value(
    root: &Map<String, Value>,
    schema: &Value,
    value: &Value,
    depth: usize,
) -> Option<String> {
    if depth > 16 {
        return None;
    }
    let schema = resolve(root, schema);
    let Value::Object(s) = schema else { return None };
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = s.get(key) {
            let failures: Vec<String> =
                options.iter().filter_map(|o| check_value(root, o, value, depth + 1)).collect();
            if failures.len() == options.len() {
                return failures.into_iter().next();
            }
        }
    }
    if let Some(expected) = s.get("type") {
        let allowed: Vec<&str> = match expected {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|t| matches_type(t, value)) {
            let want: Vec<&str> =
                allowed.iter().map(|t| if *t == "null" { "null" } else { t }).collect();
            return Some(format!("expected {}, got {}", want.join(" or "), type_name(value)));
        }
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(value)
    {
        let shown: Vec<String> = options.iter().map(Value::to_string).collect();
        return Some(format!("must be one of {}", shown.join(", ")));
    }
    if let Some(constant) = s.get("const")
        && constant != value
    {
        return Some(format!("must be {constant}"));
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            return Some(format!("must be at least {min}"));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            return Some(format!("must be at most {max}"));
        }
    }
    if let Some(text) = value.as_str() {
        let len = text.chars().count() as u64;
        if let Some(min) = s.get("minLength").and_then(Value::as_u64)
            && len < min
        {
            return Some(format!("must be at least {min} characters long"));
        }
        if let Some(max) = s.get("maxLength").and_then(Value::as_u64)
            && len > max
        {
            return Some(format!("must be at most {max} characters long"));
        }
    }
    if let (Some(items), Value::Array(values)) = (s.get("items"), value) {
        for (i, item) in values.iter().enumerate() {
            if let Some(problem) = check_value(root, items, item, depth + 1) {
                return Some(format!("item {i}: {problem}"));
            }
        }
    }
    if let (Some(Value::Object(properties)), Value::Object(fields)) = (s.get("properties"), value) {
        if let Some(Value::Array(required)) = s.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !fields.contains_key(name) {
                    return Some(format!("missing `{name}`"));
                }
            }
        }
        for (name, field) in fields {
            if let Some(property) = properties.get(name)
                && let Some(problem) = check_value(root, property, field, depth + 1)
            {
                return Some(format!("`{name}`: {problem}"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Sample {
        name: String,
        count: u8,
        ratio: Option<f64>,
        tags: Vec<String>,
    }

    fn schema() -> Map<String, Value> {
        crate::schema_for::<Sample>()
    }

    #[test]
    fn s7_3_reports_every_bad_argument_at_once() {
        let args = json!({"name": 5, "count": 300, "tags": [1]});
        let errors = check_arguments(&schema(), args.as_object().unwrap());
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["count", "name", "tags"], "{errors:?}");
        assert!(errors[0].error.contains("at most 255"), "{errors:?}");
    }

    #[test]
    fn s7_3_missing_required_and_optional_null() {
        let args = json!({"ratio": null});
        let errors = check_arguments(&schema(), args.as_object().unwrap());
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["name", "count", "tags"]);
    }

    #[test]
    fn s7_3_valid_arguments_pass() {
        let args = json!({"name": "x", "count": 3, "ratio": 0.5, "tags": ["a"]});
        assert!(check_arguments(&schema(), args.as_object().unwrap()).is_empty());
    }
}

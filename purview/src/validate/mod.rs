//! Checking a call's arguments before the handler runs, outside the
//! operation lock, so a bad or oversized request never holds up anyone:
//!
//! 1. size limits (total bytes, one string, number of arguments), so
//!    nothing large is stored, echoed or validated;
//! 2. unknown argument names (a few named, the rest counted);
//! 3. the full JSON Schema of the action's input (compiled once per
//!    action by [`schema`], which checks every keyword of the self-contained
//!    schemas Purview advertises), every violated keyword becoming a
//!    per-field error (§7.3).
//!
//! No message quotes a value an agent sent, and for `writeOnly` (secret)
//! arguments not even its kind: an error about a PIN says the PIN is wrong,
//! not what was typed.

mod apply;
mod format;
#[cfg(test)]
mod keyword_tests;
pub(crate) mod pattern;
mod schema;
#[cfg(test)]
mod suite_tests;
mod uri;
pub(crate) mod words;

use std::collections::HashSet;

use serde_json::{Map, Value};

use self::schema::{JsonType, Node, Violation};
use crate::{model::FieldError, settings::Limits};

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

/// An action's compiled argument check.
#[derive(Debug)]
pub(crate) struct ArgumentCheck {
    validator: Node,
    /// Top-level arguments marked `writeOnly` (secrets).
    secret: HashSet<String>,
}

impl ArgumentCheck {
    /// Compiles the input schema once; an invalid schema is the app's
    /// mistake, reported when the window type is first used.
    pub fn compile(schema: &Map<String, Value>) -> Result<Self, String> {
        let validator = Node::compile(&Value::Object(schema.clone()))
            .map_err(|e| format!("its input schema cannot be checked: {e}"))?;
        let secret = schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(_, p)| p.get("writeOnly").and_then(Value::as_bool) == Some(true))
            .map(|(name, _)| name.clone())
            .collect();
        Ok(Self { validator, secret })
    }

    /// Every problem with a call's arguments: limits first (an oversized
    /// request is not looked at further), then unknown names, then each
    /// violated schema keyword.
    pub fn check(
        &self,
        params: &[String],
        args: &mut Map<String, Value>,
        limits: &Limits,
    ) -> Vec<FieldError> {
        if let Some(problem) = over_limits(args, limits) {
            return vec![problem];
        }
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
        if unknown.is_empty() {
            // The usual call: every name is known, so the arguments are
            // validated as they are, lent as a JSON value and given back.
            let instance = Value::Object(std::mem::take(args));
            self.schema_errors(&instance, &mut errors);
            if let Value::Object(map) = instance {
                *args = map;
            }
        } else {
            // Unknown names are reported above; validate only the known ones.
            let known: Map<String, Value> = args
                .iter()
                .filter(|(k, _)| params.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            self.schema_errors(&Value::Object(known), &mut errors);
        }
        errors
    }

    /// Adds one error per argument and violated keyword of `instance`.
    fn schema_errors(&self, instance: &Value, errors: &mut Vec<FieldError>) {
        // Most calls are valid: finding that out collects no errors.
        if self.validator.is_valid(instance) {
            return;
        }
        let mut seen: HashSet<(String, String)> = HashSet::new();
        for error in self.validator.errors(instance) {
            let problem = describe(&error, &self.secret);
            // One keyword can fail at several depths of one argument; one
            // line per argument and message is enough.
            if seen.insert((problem.field.clone(), problem.error.clone())) {
                errors.push(problem);
            }
        }
    }
}

impl ArgumentCheck {
    /// The arguments as a person may see them: whole, with secret
    /// (`writeOnly`) values masked. Nothing is shortened: a person asked
    /// to approve a call is shown all that a yes applies, and a call with
    /// more than a question can show is refused instead
    /// (`ApprovalRequest::too_long_to_show`).
    pub fn shown(&self, args: &Map<String, Value>) -> Value {
        let shown = args
            .iter()
            .map(|(name, value)| {
                let value = if self.secret.contains(name) {
                    Value::String(crate::redact::MASK.to_owned())
                } else {
                    value.clone()
                };
                (name.clone(), value)
            })
            .collect();
        Value::Object(shown)
    }
}

/// The first limit `args` exceeds, as a field error.
pub(crate) fn over_limits(args: &Map<String, Value>, limits: &Limits) -> Option<FieldError> {
    if args.len() > limits.max_arguments {
        return Some(FieldError::new(
            "arguments",
            format!("{} arguments; the limit is {}", args.len(), limits.max_arguments),
        ));
    }
    let mut total = 0usize;
    for (name, value) in args {
        let (bytes, longest) = measure(value);
        if longest > limits.max_string_bytes {
            return Some(FieldError::new(
                echo(name),
                format!(
                    "holds a string of {longest} bytes; the limit is {} bytes",
                    limits.max_string_bytes
                ),
            ));
        }
        total = total.saturating_add(bytes).saturating_add(name.len());
    }
    (total > limits.max_argument_bytes).then(|| {
        FieldError::new(
            "arguments",
            format!("about {total} bytes in all; the limit is {} bytes", limits.max_argument_bytes),
        )
    })
}

/// Roughly how many bytes `value` takes as JSON, and its longest string.
fn measure(value: &Value) -> (usize, usize) {
    match value {
        Value::String(s) => (s.len() + 2, s.len()),
        Value::Array(items) => items
            .iter()
            .map(measure)
            .fold((2, 0), |(b, l), (ib, il)| (b.saturating_add(ib).saturating_add(1), l.max(il))),
        Value::Object(map) => map.iter().fold((2, 0), |(b, l), (k, v)| {
            let (vb, vl) = measure(v);
            (b.saturating_add(k.len() + 4).saturating_add(vb), l.max(vl).max(k.len()))
        }),
        Value::Number(n) => (n.to_string().len(), 0),
        Value::Bool(_) | Value::Null => (5, 0),
    }
}

/// One violated keyword as a field error: the top-level argument it is in,
/// where inside it (escaped), and what is wrong — never the value itself.
fn describe(error: &schema::Error, secret: &HashSet<String>) -> FieldError {
    let mut segments = error.path.iter();
    let top = segments.next();
    let inner: Vec<String> = segments.map(|s| echo(s)).collect();
    let (field, message) = match (&error.violation, top) {
        (Violation::Required(property), None) => (echo(property), "is required".into()),
        (violation, Some(top)) => {
            let hide_kind = secret.contains(top) && inner.is_empty();
            (echo(top), what_is_wrong(violation, hide_kind))
        }
        (violation, None) => ("arguments".into(), what_is_wrong(violation, false)),
    };
    let message =
        if inner.is_empty() { message } else { format!("at {}: {message}", inner.join("/")) };
    FieldError::new(field, message)
}

fn type_name(kind: JsonType) -> &'static str {
    use JsonType as T;
    match kind {
        T::Array => "an array",
        T::Boolean => "a boolean",
        T::Integer => "an integer",
        T::Null => "null",
        T::Number => "a number",
        T::Object => "an object",
        T::String => "a string",
    }
}

/// `1 character`, `3 characters`.
pub(crate) fn count(n: u64, unit: &str) -> String {
    if n == 1 { format!("1 {unit}") } else { format!("{n} {unit}s") }
}

fn what_is_wrong(violation: &Violation, hide_kind: bool) -> String {
    use Violation as V;
    match violation {
        V::Type(_) if hide_kind => "has the wrong type".into(),
        V::Type(expected) => {
            let expected: Vec<&str> = expected.iter().copied().map(type_name).collect();
            format!("must be {}", expected.join(" or "))
        }
        V::Required(name) => format!("is missing `{}`", echo(name)),
        V::Minimum(limit) => words::at_least(limit),
        V::Maximum(limit) => words::at_most(limit),
        V::Between(min, max) => words::between(min, max),
        V::ExclusiveMinimum(limit) => format!("must be greater than {limit}"),
        V::ExclusiveMaximum(limit) => format!("must be less than {limit}"),
        V::MultipleOf(step) => format!("must be a multiple of {step}"),
        V::MinLength(limit) => words::length(Some(*limit), None),
        V::MaxLength(limit) => words::length(None, Some(*limit)),
        V::LengthBetween(min, max) => words::length(Some(*min), Some(*max)),
        V::Pattern(said) => said.to_string(),
        V::Format(format) => format!("must be a valid {format}"),
        V::Enum(options) => format!("must be one of {options}"),
        V::Const(expected) => format!("must be {expected}"),
        V::MinItems(limit) => format!("must have at least {}", count(*limit, "item")),
        V::MaxItems(limit) => format!("must have at most {}", count(*limit, "item")),
        V::UniqueItems => "must not repeat an item".into(),
        V::MinContains(limit) => {
            format!("must contain at least {} matching", count(*limit, "item"))
        }
        V::MaxContains(limit) => format!("must contain at most {} matching", count(*limit, "item")),
        V::MinProperties(limit) => format!("must have at least {limit} fields"),
        V::MaxProperties(limit) => format!("must have at most {limit} fields"),
        V::AdditionalProperties(unexpected) | V::UnevaluatedProperties(unexpected) => {
            let shown: Vec<String> =
                unexpected.iter().take(UNKNOWN_NAMES_SHOWN).map(|n| echo(n)).collect();
            let more = unexpected.len().saturating_sub(UNKNOWN_NAMES_SHOWN);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("has fields it does not take: {}{more}", shown.join(", "))
        }
        V::UnevaluatedItems => "has items it does not take".into(),
        V::AnyOf | V::OneOfNone => "does not match any of the allowed shapes".into(),
        V::OneOfMany => "matches more than one of the allowed shapes".into(),
        V::Contains => "must contain a matching item".into(),
        V::PropertyNames => "has a field name that is not allowed".into(),
        V::Not | V::False => "is not allowed here".into(),
    }
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
        #[schemars(length(min = 1))]
        tags: Vec<String>,
        #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
        code: Option<String>,
        pin: crate::Secret<String>,
    }

    fn check(mut args: Value) -> Vec<FieldError> {
        let schema = crate::schema::self_contained(&crate::action::schema_for::<Sample>());
        let params: Vec<String> =
            schema["properties"].as_object().unwrap().keys().cloned().collect();
        let check = ArgumentCheck::compile(&schema).unwrap();
        let before = args.clone();
        let errors = check.check(&params, args.as_object_mut().unwrap(), &Limits::default());
        assert_eq!(args, before, "the check gives the arguments back as they were");
        errors
    }

    fn fields(errors: &[FieldError]) -> Vec<&str> {
        let mut fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        fields.sort();
        fields
    }

    #[test]
    fn s7_3_reports_every_bad_argument_at_once() {
        let errors = check(json!({"name": 5, "count": 300, "tags": [1], "pin": "1"}));
        assert_eq!(fields(&errors), ["count", "name", "tags"], "{errors:?}");
        assert!(errors.iter().any(|e| e.error.contains("between 0 and 255")), "{errors:?}");
    }

    #[test]
    fn s7_3_every_keyword_is_enforced() {
        let errors = check(json!({"name": "x", "count": 1, "tags": [], "code": "abc", "pin": "1"}));
        assert_eq!(fields(&errors), ["code", "tags"], "minItems and pattern: {errors:?}");
    }

    #[test]
    fn s7_3_each_json_schema_keyword_names_its_argument() {
        let schema = json!({"type": "object", "properties": {
            "few": {"type": "array", "maxItems": 1},
            "distinct": {"type": "array", "uniqueItems": true},
            "above": {"type": "number", "exclusiveMinimum": 0},
            "below": {"type": "number", "exclusiveMaximum": 10},
            "step": {"type": "integer", "multipleOf": 5},
            "short": {"type": "string", "maxLength": 3},
            "choice": {"enum": ["a", "b"]},
            "fixed": {"const": 1},
            "nested": {"type": "object", "properties": {"x": {"type": "integer"}},
                       "additionalProperties": false}
        }});
        let schema = schema.as_object().unwrap();
        let params: Vec<String> =
            schema["properties"].as_object().unwrap().keys().cloned().collect();
        let check = ArgumentCheck::compile(schema).unwrap();
        let mut valid = json!({"few": [1], "distinct": [1, 2], "above": 1, "below": 9, "step": 10,
                           "short": "abc", "choice": "a", "fixed": 1, "nested": {"x": 1}});
        assert!(
            check.check(&params, valid.as_object_mut().unwrap(), &Limits::default()).is_empty()
        );
        let mut wrong = json!({"few": [1, 2], "distinct": [1, 1], "above": 0, "below": 10, "step": 7,
                           "short": "abcd", "choice": "c", "fixed": 2, "nested": {"x": 1, "y": 2}});
        let errors = check.check(&params, wrong.as_object_mut().unwrap(), &Limits::default());
        assert_eq!(
            fields(&errors),
            ["above", "below", "choice", "distinct", "few", "fixed", "nested", "short", "step"],
            "{errors:?}"
        );
        let text = format!("{errors:?}");
        assert!(!text.contains("abcd") && !text.contains("\"c\""), "no value quoted: {text}");
    }

    #[test]
    fn s7_3_missing_required_and_optional_null() {
        let errors = check(json!({"ratio": null}));
        assert_eq!(fields(&errors), ["count", "name", "pin", "tags"]);
    }

    #[test]
    fn s7_3_valid_arguments_pass() {
        assert!(
            check(json!({"name": "x", "count": 3, "ratio": 0.5, "tags": ["a"], "pin": "1"}))
                .is_empty()
        );
    }

    #[test]
    fn s4_5_messages_never_quote_a_value_nor_a_secrets_kind() {
        let errors = check(
            json!({"name": "hunter2-name", "count": "hunter2", "tags": ["x"], "pin": 123456}),
        );
        let text = format!("{errors:?}");
        assert!(!text.contains("hunter2") && !text.contains("123456"), "{text}");
        let pin = errors.iter().find(|e| e.field == "pin").unwrap();
        assert_eq!(pin.error, "has the wrong type");
    }

    #[test]
    fn oversized_arguments_are_refused_before_anything_else() {
        let long = "x".repeat(Limits::default().max_string_bytes + 1);
        let errors = check(json!({"name": long, "unknown": 1}));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].error.contains("the limit is"), "{errors:?}");
    }
}

//! An action as one line a model reads at a glance:
//! `edit_field(field: 'recipient'|'amount', value: string)`.
//!
//! `app__read_windows` lists these instead of full input schemas, which
//! cost several times the snapshot they accompany. The line is rendered
//! from the same self-contained schema the arguments are checked against,
//! so it says what a call must look like:
//!
//! - `name: type` is required, `name?: type` optional, `= value` its default;
//! - types are `string`, `integer`, `number`, `boolean`, `null`, `any`,
//!   literals (`'a'|'b'`, `3`), arrays `T[]` and objects `{a: T, b?: T}`;
//! - rules follow the type in parentheses: `>=0`, `1..100` (both ends
//!   included), `<5`, `step 5` for numbers; `len<=200`, `len 1..20`,
//!   `/regex/` and a format (`email`, `date`) for strings; `items<=10`,
//!   `unique` for arrays; `secret` for a value that is never shown back;
//! - what the action is follows in brackets: `[destructive]`,
//!   `[read-only]`, `[needs approval]`, and `[pages table rows]` for the
//!   load action a paged table declares (`#[block(table, load = ..)]`),
//!   and `[pet from pets.id]` for an argument whose value is a cell of one
//!   of the window's tables (`#[arg(from = pets.id)]`);
//! - a schema with rules no line can carry ends in `[more rules in the
//!   schema]`, which `app__read_windows` gives with `schemas: true`.
//!
//! `expectedVersion` is not listed: `app__act` takes it beside `window`.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::{action::JsonObject, model::ToolHints};

/// Keywords that say nothing about which values are accepted.
const WORDS_ONLY: [&str; 9] = [
    "description",
    "title",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "$comment",
    "$schema",
    "$id",
];

/// How deep nested objects and arrays are written out.
const MAX_DEPTH: usize = 6;

/// The signature of action `name` taking `input` (its advertised input
/// schema), with what its hints and approval say about it, and the tables
/// it is the declared load action of.
pub(crate) fn signature(
    name: &str,
    input: &JsonObject,
    hints: &ToolHints,
    needs_approval: bool,
    pages: &[&str],
    sources: &[crate::action::ArgumentSource],
) -> String {
    let mut rest = Rest::default();
    let params = object_params(input, 0, &mut rest, &[crate::naming::EXPECTED_VERSION]);
    rest.note_extra(input, &["type", "properties", "required", "additionalProperties"]);
    let mut marks: Vec<String> = Vec::new();
    if hints.destructive == Some(true) {
        marks.push("destructive".into());
    }
    if hints.read_only == Some(true) {
        marks.push("read-only".into());
    }
    if needs_approval {
        marks.push("needs approval".into());
    }
    marks.extend(pages.iter().map(|table| crate::naming::pages_mark(table)));
    marks.extend(
        sources.iter().map(|s| format!("{} from {}.{}", s.argument, s.table, s.column_name)),
    );
    if !rest.complete {
        marks.push("more rules in the schema".into());
    }
    crate::naming::signature_line(name, &params, &marks)
}

/// Whether everything the schema checks made it into the line.
struct Rest {
    complete: bool,
}

impl Default for Rest {
    fn default() -> Self {
        Self { complete: true }
    }
}

impl Rest {
    /// Marks the line incomplete if `schema` has a rule outside `handled`.
    fn note_extra(&mut self, schema: &JsonObject, handled: &[&str]) {
        if schema
            .keys()
            .any(|k| !handled.contains(&k.as_str()) && !WORDS_ONLY.contains(&k.as_str()))
        {
            self.complete = false;
        }
    }
}

/// `a: T, b?: T = d`: required properties first, in `required` order (the
/// order they were declared in), then the optional ones.
fn object_params(schema: &JsonObject, depth: usize, rest: &mut Rest, skip: &[&str]) -> String {
    let empty = Map::new();
    let properties = match schema.get("properties") {
        Some(Value::Object(p)) => p,
        _ => &empty,
    };
    let required: Vec<&str> = match schema.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut names: Vec<&str> =
        required.iter().copied().filter(|r| properties.contains_key(*r)).collect();
    names.extend(properties.keys().map(String::as_str).filter(|k| !required.contains(k)));
    if required.iter().any(|r| !properties.contains_key(*r)) {
        rest.complete = false;
    }
    let mut parts = Vec::new();
    for name in names.into_iter().filter(|n| !skip.contains(n)) {
        let schema = &properties[name];
        let mut part = String::from(name);
        if !required.contains(&name) {
            part.push('?');
        }
        part.push_str(": ");
        part.push_str(&type_of(schema, depth + 1, rest));
        if let Some(default) = schema.get("default") {
            let _ = write!(part, " = {}", literal(default));
        }
        parts.push(part);
    }
    if let Some(extra) = schema.get("additionalProperties")
        && extra != &Value::Bool(false)
    {
        match extra {
            Value::Object(_) => {
                parts.push(format!("[key: string]: {}", type_of(extra, depth + 1, rest)))
            }
            // `true`: anything else is accepted too.
            _ => parts.push("...".to_owned()),
        }
    }
    parts.join(", ")
}

/// The type (and rules) of one value.
fn type_of(schema: &Value, depth: usize, rest: &mut Rest) -> String {
    let schema = match schema {
        Value::Object(s) => s,
        Value::Bool(true) => return "any".to_owned(),
        _ => {
            rest.complete = false;
            return "never".to_owned();
        }
    };
    if depth > MAX_DEPTH {
        rest.complete = false;
        return "any".to_owned();
    }
    if let Some(value) = schema.get("const") {
        rest.note_extra(schema, &["const", "type"]);
        return literal(value);
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        rest.note_extra(schema, &["enum", "type"]);
        return values.iter().map(literal).collect::<Vec<_>>().join("|");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            rest.note_extra(schema, &[key]);
            let mut kinds: Vec<String> = Vec::new();
            for branch in branches {
                let kind = type_of(branch, depth, rest);
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
            return kinds.join("|");
        }
    }
    if let Some(Value::Array(all)) = schema.get("allOf")
        && let [only] = all.as_slice()
    {
        rest.note_extra(schema, &["allOf"]);
        return type_of(only, depth, rest);
    }
    let kinds: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if kinds.is_empty() {
        rest.note_extra(schema, &["writeOnly"]);
        return "any".to_owned();
    }
    let mut handled = vec!["type"];
    let several = kinds.len() > 1;
    let written: Vec<String> = kinds
        .iter()
        .map(|kind| {
            let (text, keys) = one_type(kind, schema, depth, rest);
            handled.extend(keys);
            // `(a|b)[]|null`, not `a|b[]|null`.
            if several && text.contains('|') { format!("({text})") } else { text }
        })
        .collect();
    rest.note_extra(schema, &handled);
    written.join("|")
}

/// One JSON type with the rules that apply to it, and the keywords used.
fn one_type(
    kind: &str,
    schema: &JsonObject,
    depth: usize,
    rest: &mut Rest,
) -> (String, Vec<&'static str>) {
    let mut rules = Vec::new();
    let keys: Vec<&'static str>;
    let base = match kind {
        "string" => {
            keys = vec!["minLength", "maxLength", "pattern", "format", "writeOnly"];
            if let Some(range) = range(schema, "minLength", "maxLength", "len") {
                rules.push(range);
            }
            if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
                rules.push(format!("/{pattern}/"));
            }
            if let Some(format) = schema.get("format").and_then(Value::as_str) {
                rules.push(format.to_owned());
            }
            if schema.get("writeOnly") == Some(&Value::Bool(true)) {
                rules.push("secret".to_owned());
            }
            "string".to_owned()
        }
        "integer" | "number" => {
            keys = vec!["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
            rules.extend(numeric_rules(schema));
            kind.to_owned()
        }
        "array" => {
            keys = vec!["items", "minItems", "maxItems", "uniqueItems"];
            if let Some(range) = range(schema, "minItems", "maxItems", "items") {
                rules.push(range);
            }
            if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
                rules.push("unique".to_owned());
            }
            let item = schema
                .get("items")
                .map_or_else(|| "any".to_owned(), |i| type_of(i, depth + 1, rest));
            if item.contains('|') { format!("({item})[]") } else { format!("{item}[]") }
        }
        "object" => {
            keys = vec!["properties", "required", "additionalProperties"];
            if schema.contains_key("properties") || schema.contains_key("additionalProperties") {
                format!("{{{}}}", object_params(schema, depth, rest, &[]))
            } else {
                "object".to_owned()
            }
        }
        "boolean" | "null" => {
            keys = Vec::new();
            kind.to_owned()
        }
        other => {
            keys = Vec::new();
            rest.complete = false;
            other.to_owned()
        }
    };
    if rules.is_empty() { (base, keys) } else { (format!("{base}({})", rules.join(", ")), keys) }
}

/// `len 1..20`, `len<=20`, `len>=1` from a pair of inclusive bounds.
fn range(schema: &JsonObject, min: &str, max: &str, what: &str) -> Option<String> {
    let low = schema.get(min).and_then(Value::as_u64);
    let high = schema.get(max).and_then(Value::as_u64);
    match (low, high) {
        (Some(l), Some(h)) if l == h => Some(format!("{what} {l}")),
        (Some(l), Some(h)) => Some(format!("{what} {l}..{h}")),
        (Some(l), None) => Some(format!("{what}>={l}")),
        (None, Some(h)) => Some(format!("{what}<={h}")),
        (None, None) => None,
    }
}

fn numeric_rules(schema: &JsonObject) -> Vec<String> {
    let number = |key: &str| schema.get(key).filter(|v| v.is_number()).map(Value::to_string);
    let mut rules = Vec::new();
    match (number("minimum"), number("maximum")) {
        (Some(low), Some(high)) => rules.push(format!("{low}..{high}")),
        (low, high) => {
            rules.extend(low.map(|l| format!(">={l}")));
            rules.extend(high.map(|h| format!("<={h}")));
        }
    }
    rules.extend(number("exclusiveMinimum").map(|l| format!(">{l}")));
    rules.extend(number("exclusiveMaximum").map(|h| format!("<{h}")));
    rules.extend(number("multipleOf").map(|m| format!("step {m}")));
    rules
}

/// A value as the line writes it: strings in single quotes (no JSON
/// escaping of double quotes), everything else as JSON.
fn literal(value: &Value) -> String {
    match value {
        Value::String(s) => {
            let mut out = String::with_capacity(s.len() + 2);
            out.push('\'');
            for c in s.chars() {
                if c == '\'' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('\'');
            out
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sig(schema: Value) -> String {
        let Value::Object(schema) = schema else { panic!("an object") };
        signature("act", &schema, &ToolHints::default(), false, &[], &[])
    }

    #[test]
    fn required_first_in_declared_order_then_optional_with_defaults() {
        let line = sig(json!({"type": "object", "properties": {
            "b": {"type": "string"}, "a": {"type": "integer"}, "c": {"type": "boolean", "default": true},
            (crate::naming::EXPECTED_VERSION): {"type": "integer", "minimum": 0}},
            "required": ["b", "a"]}));
        assert_eq!(line, "act(b: string, a: integer, c?: boolean = true)");
    }

    #[test]
    fn enums_and_constants_are_literals() {
        let line = sig(json!({"type": "object", "properties": {
            "field": {"oneOf": [{"const": "recipient", "type": "string", "description": "x"}, {"const": "amount", "type": "string"}]},
            "mode": {"type": "string", "enum": ["a", "it's"]}, "n": {"enum": [1, 2]}},
            "required": ["field"]}));
        assert_eq!(line, r"act(field: 'recipient'|'amount', mode?: 'a'|'it\'s', n?: 1|2)");
    }

    #[test]
    fn rules_follow_the_type() {
        let line = sig(json!({"type": "object", "properties": {
            "limit": {"type": "integer", "minimum": 0, "maximum": 1000},
            "offset": {"type": "integer", "minimum": 0},
            "price": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01},
            "code": {"type": "string", "minLength": 3, "maxLength": 3, "pattern": "^[A-Z]+$"},
            "name": {"type": "string", "maxLength": 200},
            "mail": {"type": "string", "format": "email"},
            "pin": {"type": "string", "writeOnly": true},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10, "uniqueItems": true}},
            "required": ["limit", "offset", "price", "code", "name", "mail", "pin", "tags"]}));
        assert_eq!(
            line,
            "act(limit: integer(0..1000), offset: integer(>=0), price: number(>0, step 0.01), \
             code: string(len 3, /^[A-Z]+$/), name: string(len<=200), mail: string(email), \
             pin: string(secret), tags: string[](items<=10, unique))"
        );
    }

    #[test]
    fn nullable_nested_and_open_values() {
        let line = sig(json!({"type": "object", "properties": {
            "note": {"type": ["string", "null"]},
            "kind": {"anyOf": [{"enum": ["x", "y"]}, {"type": "null"}]},
            "at": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x"]},
            "any": {}, "map": {"type": "object", "additionalProperties": {"type": "integer"}}}}));
        assert_eq!(
            line,
            "act(any?: any, at?: {x: number, y?: number}, kind?: 'x'|'y'|null, \
             map?: {[key: string]: integer}, note?: string|null)"
        );
    }

    #[test]
    fn hints_and_rules_it_cannot_carry_are_marked() {
        let Value::Object(schema) = json!({"type": "object", "properties": {
            "a": {"type": "string", "not": {"const": "x"}}}})
        else {
            unreachable!()
        };
        let hints =
            ToolHints { destructive: Some(true), read_only: Some(false), ..ToolHints::default() };
        assert_eq!(
            signature("wipe", &schema, &hints, true, &[], &[]),
            "wipe(a?: string) [destructive, needs approval, more rules in the schema]"
        );
        let Value::Object(empty) = json!({"type": "object", "properties": {}}) else {
            unreachable!()
        };
        let read = ToolHints { read_only: Some(true), ..ToolHints::default() };
        assert_eq!(signature("look", &empty, &read, false, &[], &[]), "look() [read-only]");
        assert_eq!(
            signature("load", &empty, &read, false, &["rows"], &[]),
            "load() [read-only, pages table rows]"
        );
    }

    #[test]
    fn deep_or_odd_schemas_do_not_panic() {
        let mut deep = json!({"type": "string"});
        for _ in 0..100 {
            deep = json!({"type": "array", "items": deep});
        }
        let line = sig(
            json!({"type": "object", "properties": {"d": deep, "f": false, "n": 5, "r": {"required": ["zz"], "type": "object", "properties": {}}}}),
        );
        assert!(line.ends_with("[more rules in the schema]"), "{line}");
    }
}

//! Tool schemas every host accepts.
//!
//! schemars writes `$ref`/`$defs` for nested types and non-standard `format`
//! values (`uint32`, `double`, …). Some providers mishandle references in
//! tool input schemas, and Ajv-based clients (the TypeScript SDK, MCP
//! Inspector, VS Code) print "unknown format … ignored" on every call. So
//! every schema a tool advertises is made self-contained here: references
//! inlined, integer formats turned into `minimum`/`maximum`, other
//! non-standard formats dropped.

use serde_json::{Map, Value, json};

use crate::action::JsonObject;

/// The `format` values JSON Schema 2020-12 defines; anything else is dropped.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one subschema.
const ONE: [&str; 11] = [
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];
/// Keywords whose value is an array of subschemas.
const MANY: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAPS: [&str; 3] = ["properties", "patternProperties", "dependentSchemas"];

/// How deep references are followed before a (recursive) type is cut off.
const MAX_INLINE_DEPTH: usize = 32;

/// A self-contained copy of `schema`: no `$ref`, no `$defs`, standard
/// formats only.
pub(crate) fn self_contained(schema: &JsonObject) -> JsonObject {
    let defs = definitions(schema);
    let mut out = schema.clone();
    out.remove("$defs");
    out.remove("definitions");
    let mut stack = Vec::new();
    clean_object(&mut out, &defs, &mut stack);
    out
}

fn definitions(schema: &JsonObject) -> Map<String, Value> {
    let mut defs = Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Value::Object(map)) = schema.get(key) {
            for (name, def) in map {
                defs.insert(format!("#/{key}/{name}"), def.clone());
            }
        }
    }
    defs
}

fn clean(value: &mut Value, defs: &Map<String, Value>, stack: &mut Vec<String>) {
    if let Value::Object(object) = value {
        clean_object(object, defs, stack);
    }
}

fn clean_object(object: &mut JsonObject, defs: &Map<String, Value>, stack: &mut Vec<String>) {
    if let Some(Value::String(reference)) = object.get("$ref").cloned() {
        object.remove("$ref");
        let resolved = match defs.get(&reference) {
            Some(_) if stack.contains(&reference) || stack.len() >= MAX_INLINE_DEPTH => {
                // A recursive type cannot be inlined: accept any value below
                // this point, and let decoding judge it.
                json!({"description": "(a nested value of the same shape)"})
            }
            Some(def) => {
                stack.push(reference.clone());
                let mut def = def.clone();
                clean(&mut def, defs, stack);
                stack.pop();
                def
            }
            None => Value::Object(Map::new()),
        };
        if let Value::Object(resolved) = resolved {
            // Keywords beside the reference (a description) win.
            for (key, value) in resolved {
                object.entry(key).or_insert(value);
            }
        }
    }
    object.remove("$defs");
    object.remove("definitions");
    object.remove("$schema");
    fix_format(object);
    for key in ONE {
        if let Some(sub) = object.get_mut(key) {
            clean(sub, defs, stack);
        }
    }
    for key in MANY {
        if let Some(Value::Array(subs)) = object.get_mut(key) {
            subs.iter_mut().for_each(|s| clean(s, defs, stack));
        }
    }
    for key in MAPS {
        if let Some(Value::Object(subs)) = object.get_mut(key) {
            subs.values_mut().for_each(|s| clean(s, defs, stack));
        }
    }
}

/// Integer formats become the bounds they stand for; other non-standard
/// formats are dropped.
fn fix_format(object: &mut JsonObject) {
    let Some(Value::String(format)) = object.get("format") else { return };
    if STANDARD_FORMATS.contains(&format.as_str()) {
        return;
    }
    let bounds: Option<(Value, Option<Value>)> = match format.as_str() {
        "uint8" => Some((0.into(), Some(u8::MAX.into()))),
        "uint16" => Some((0.into(), Some(u16::MAX.into()))),
        "uint32" => Some((0.into(), Some(u32::MAX.into()))),
        "uint64" | "uint" | "uint128" => Some((0.into(), None)),
        "int8" => Some((i8::MIN.into(), Some(i8::MAX.into()))),
        "int16" => Some((i16::MIN.into(), Some(i16::MAX.into()))),
        "int32" => Some((i32::MIN.into(), Some(i32::MAX.into()))),
        _ => None,
    };
    object.remove("format");
    if let Some((min, max)) = bounds {
        object.entry("minimum").or_insert(min);
        if let Some(max) = max {
            object.entry("maximum").or_insert(max);
        }
    }
}

/// Whether a schema describes JSON objects only (so a result needs no
/// wrapping).
pub(crate) fn describes_object(schema: &JsonObject) -> bool {
    schema.get("type").is_some_and(|t| t == "object")
}

/// The `next` object of results and errors (a Purview extension).
pub(crate) fn next_schema() -> Value {
    json!({
        "type": "object",
        "description": "What can be operated now: operableWindowIds, and by window id (\"app\" for app-level) the available actions of each window the call changed (of every operable window, on an error)",
        "properties": {
            "operableWindowIds": {"type": "array", "items": {"type": "string"}},
            "actions": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}
        }
    })
}

/// The ToolResult shape of §12.3 with the action's own result inside (and,
/// for an action that may need approval, whose yes let it run). Nothing is
/// `required`, so the error object (§7.4), which also travels in
/// structuredContent, validates too.
pub(crate) fn output_schema(result: Option<&JsonObject>, approval: bool) -> JsonObject {
    let mut properties = JsonObject::new();
    properties.insert(
        "message".into(),
        json!({"type": "string", "description": "What happened, for a person to read"}),
    );
    properties.insert(
        "openedWindowIds".into(),
        json!({"type": "array", "items": {"type": "string"}, "description": "Windows this call opened"}),
    );
    if let Some(result) = result {
        let result = self_contained(result);
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
    properties.insert("next".into(), next_schema());
    if approval {
        properties.insert(
            "approvedBy".into(),
            json!({
                "enum": ["in_app", "client", "policy"],
                "description": "Whose approval let the call run: the person at the app, the client's user, or the app's policy"
            }),
        );
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        count: u32,
        ratio: f64,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Outer {
        inner: Inner,
        many: Vec<Inner>,
        small: u8,
        when: String,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Tree {
        children: Vec<Tree>,
    }

    fn contains_key(value: &Value, key: &str) -> bool {
        match value {
            Value::Object(map) => {
                map.contains_key(key) || map.values().any(|v| contains_key(v, key))
            }
            Value::Array(items) => items.iter().any(|v| contains_key(v, key)),
            _ => false,
        }
    }

    #[test]
    fn nested_types_are_inlined_and_formats_become_bounds() {
        let clean = Value::Object(self_contained(&crate::action::schema_for::<Outer>()));
        assert!(!contains_key(&clean, "$ref"), "{clean:#}");
        assert!(!contains_key(&clean, "$defs"), "{clean:#}");
        assert!(!contains_key(&clean, "format"), "{clean:#}");
        let count = &clean["properties"]["inner"]["properties"]["count"];
        assert_eq!(count["minimum"], 0);
        assert_eq!(count["maximum"], u32::MAX);
        assert_eq!(clean["properties"]["many"]["items"]["properties"]["ratio"]["type"], "number");
        assert_eq!(clean["properties"]["small"]["maximum"], 255);
    }

    #[test]
    fn recursive_types_are_cut_off_instead_of_looping() {
        let clean = Value::Object(self_contained(&crate::action::schema_for::<Tree>()));
        assert!(!contains_key(&clean, "$ref"), "{clean:#}");
    }

    #[test]
    fn standard_formats_stay() {
        let schema = json!({"type": "string", "format": "date-time"});
        let clean = self_contained(schema.as_object().unwrap());
        assert_eq!(clean["format"], "date-time");
    }
}

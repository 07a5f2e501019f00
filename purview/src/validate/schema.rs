//! JSON Schema 2020-12 validation for the schemas Purview advertises.
//!
//! Every input schema is made self-contained before it is used
//! (`crate::schema::self_contained`: no `$ref`, standard formats only), so
//! what is left is the validation and applicator vocabularies, which this
//! module checks in full: types, `enum`/`const`, the numeric, string, array
//! and object keywords, `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`,
//! `dependentRequired`/`dependentSchemas`, `unevaluatedProperties`/
//! `unevaluatedItems`, and the formats in `super::format`. A schema is
//! compiled once per action; a keyword whose value is malformed, or a
//! reference left in it, is refused then, so a constraint is never
//! skipped while calls are served.
//!
//! Unknown keywords are annotations, as JSON Schema says.

use std::sync::Arc;

use regex::Regex;
use serde_json::{Map, Number, Value};

use super::{format, pattern};

/// The JSON types, as `type` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    Array,
    Boolean,
    Integer,
    Null,
    Number,
    Object,
    String,
}

impl JsonType {
    fn named(name: &str) -> Option<Self> {
        Some(match name {
            "array" => Self::Array,
            "boolean" => Self::Boolean,
            "integer" => Self::Integer,
            "null" => Self::Null,
            "number" => Self::Number,
            "object" => Self::Object,
            "string" => Self::String,
            _ => return None,
        })
    }

    pub(super) fn admits(self, value: &Value) -> bool {
        match (self, value) {
            (Self::Array, Value::Array(_))
            | (Self::Boolean, Value::Bool(_))
            | (Self::Null, Value::Null)
            | (Self::Number, Value::Number(_))
            | (Self::Object, Value::Object(_))
            | (Self::String, Value::String(_)) => true,
            // 1.0 is an integer too.
            (Self::Integer, Value::Number(n)) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        }
    }
}

/// One violated keyword: what it asked for.
#[derive(Debug, Clone)]
pub(crate) enum Violation {
    Type(Vec<JsonType>),
    Required(String),
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum(Number),
    ExclusiveMaximum(Number),
    MultipleOf(Number),
    MinLength(u64),
    MaxLength(u64),
    /// Both bounds of a number, when the value is outside them.
    Between(Number, Number),
    /// Both bounds of a text's length, when it is outside them.
    LengthBetween(u64, u64),
    /// The pattern, and the words that say it to a person
    /// ([`words::pattern`](super::words::pattern)).
    Pattern(Arc<str>),
    Format(String),
    Enum(Value),
    Const(Value),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    MinContains(u64),
    MaxContains(u64),
    MinProperties(u64),
    MaxProperties(u64),
    AdditionalProperties(Vec<String>),
    UnevaluatedProperties(Vec<String>),
    UnevaluatedItems,
    AnyOf,
    OneOfNone,
    OneOfMany,
    Contains,
    PropertyNames,
    Not,
    False,
}

/// A violation and where in the instance it is (JSON Pointer segments,
/// unescaped).
#[derive(Debug, Clone)]
pub(crate) struct Error {
    pub path: Vec<String>,
    pub violation: Violation,
}

/// A compiled schema.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Any,
    Never,
    Rules(Arc<Rules>),
}

#[derive(Debug, Default)]
pub(crate) struct Rules {
    pub(super) types: Option<Vec<JsonType>>,
    pub(super) one_value: Option<Value>,
    pub(super) values: Option<Vec<Value>>,
    pub(super) minimum: Option<Number>,
    pub(super) maximum: Option<Number>,
    pub(super) exclusive_minimum: Option<Number>,
    pub(super) exclusive_maximum: Option<Number>,
    pub(super) multiple_of: Option<Number>,
    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    /// The pattern as a person reads it ([`words::pattern`](super::words::pattern)), and the regex.
    pub(super) pattern: Option<(Arc<str>, Arc<Regex>)>,
    pub(super) format: Option<String>,
    pub(super) prefix_items: Vec<Node>,
    pub(super) items: Option<Node>,
    pub(super) contains: Option<Node>,
    pub(super) min_contains: Option<u64>,
    pub(super) max_contains: Option<u64>,
    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) unique_items: bool,
    pub(super) properties: Vec<(String, Node)>,
    pub(super) pattern_properties: Vec<(Arc<Regex>, Node)>,
    pub(super) additional_properties: Option<Node>,
    pub(super) property_names: Option<Node>,
    pub(super) required: Vec<String>,
    pub(super) dependent_required: Vec<(String, Vec<String>)>,
    pub(super) dependent_schemas: Vec<(String, Node)>,
    pub(super) min_properties: Option<u64>,
    pub(super) max_properties: Option<u64>,
    pub(super) all_of: Vec<Node>,
    pub(super) any_of: Vec<Node>,
    pub(super) one_of: Vec<Node>,
    pub(super) not: Option<Node>,
    pub(super) condition: Option<(Node, Option<Node>, Option<Node>)>,
    pub(super) unevaluated_properties: Option<Node>,
    pub(super) unevaluated_items: Option<Node>,
}

fn malformed(keyword: &str, wanted: &str) -> String {
    format!("`{keyword}` must be {wanted}")
}

fn count(keyword: &str, value: &Value) -> Result<u64, String> {
    value
        .as_u64()
        .or_else(|| value.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
        .ok_or_else(|| malformed(keyword, "a non-negative integer"))
}

fn number(keyword: &str, value: &Value) -> Result<Number, String> {
    match value {
        Value::Number(n) => Ok(n.clone()),
        _ => Err(malformed(keyword, "a number")),
    }
}

fn schemas(keyword: &str, value: &Value) -> Result<Vec<Node>, String> {
    match value {
        Value::Array(items) if !items.is_empty() => items.iter().map(Node::compile).collect(),
        _ => Err(malformed(keyword, "a non-empty array of schemas")),
    }
}

fn named_schemas(keyword: &str, value: &Value) -> Result<Vec<(String, Node)>, String> {
    let Value::Object(map) = value else { return Err(malformed(keyword, "an object of schemas")) };
    map.iter().map(|(name, schema)| Ok((name.clone(), Node::compile(schema)?))).collect()
}

fn names(keyword: &str, value: &Value) -> Result<Vec<String>, String> {
    let wanted = || malformed(keyword, "an array of strings");
    value
        .as_array()
        .ok_or_else(wanted)?
        .iter()
        .map(|name| name.as_str().map(str::to_owned).ok_or_else(wanted))
        .collect()
}

impl Node {
    /// Compiles `schema`; `Err` says what is wrong with it.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        let map = match schema {
            Value::Bool(true) => return Ok(Self::Any),
            Value::Bool(false) => return Ok(Self::Never),
            Value::Object(map) => map,
            _ => return Err("a schema must be an object or a boolean".into()),
        };
        let mut rules = Rules::default();
        for (keyword, value) in map {
            compile_keyword(&mut rules, keyword, value, map)?;
        }
        Ok(Self::Rules(Arc::new(rules)))
    }
}

/// The validation vocabulary: keywords that look at the value itself.
fn compile_keyword(
    rules: &mut Rules,
    keyword: &str,
    value: &Value,
    map: &Map<String, Value>,
) -> Result<(), String> {
    match keyword {
        "type" => {
            let names: Vec<&str> = match value {
                Value::String(name) => vec![name.as_str()],
                Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                _ => return Err(malformed("type", "a type name or an array of them")),
            };
            let types: Option<Vec<JsonType>> = names.iter().map(|n| JsonType::named(n)).collect();
            match types {
                Some(types) if value.as_array().is_none_or(|a| a.len() == types.len()) => {
                    rules.types = Some(types);
                }
                _ => return Err(malformed("type", "JSON type names")),
            }
        }
        "enum" => {
            rules.values =
                Some(value.as_array().cloned().ok_or_else(|| malformed("enum", "an array"))?)
        }
        "const" => rules.one_value = Some(value.clone()),
        "minimum" => rules.minimum = Some(number(keyword, value)?),
        "maximum" => rules.maximum = Some(number(keyword, value)?),
        "exclusiveMinimum" => rules.exclusive_minimum = Some(number(keyword, value)?),
        "exclusiveMaximum" => rules.exclusive_maximum = Some(number(keyword, value)?),
        "multipleOf" => {
            let n = number(keyword, value)?;
            if n.as_f64().is_none_or(|f| f <= 0.0) {
                return Err(malformed(keyword, "greater than 0"));
            }
            rules.multiple_of = Some(n);
        }
        "minLength" => rules.min_length = Some(count(keyword, value)?),
        "maxLength" => rules.max_length = Some(count(keyword, value)?),
        "minItems" => rules.min_items = Some(count(keyword, value)?),
        "maxItems" => rules.max_items = Some(count(keyword, value)?),
        "minContains" => rules.min_contains = Some(count(keyword, value)?),
        "maxContains" => rules.max_contains = Some(count(keyword, value)?),
        "minProperties" => rules.min_properties = Some(count(keyword, value)?),
        "maxProperties" => rules.max_properties = Some(count(keyword, value)?),
        "uniqueItems" => {
            rules.unique_items = value.as_bool().ok_or_else(|| malformed(keyword, "a boolean"))?
        }
        "pattern" => {
            let text = value.as_str().ok_or_else(|| malformed(keyword, "a string"))?;
            let message = map.get(super::words::MESSAGE_KEYWORD).and_then(Value::as_str);
            let example = map.get("examples").and_then(|e| e.get(0)).and_then(Value::as_str);
            let said = super::words::pattern(text, message, example);
            let regex = pattern::compile(text)?;
            if let Some(example) = example.filter(|e| !regex.is_match(e)) {
                return Err(format!(
                    "its example {example:?} does not match its pattern {text:?}: a person would be shown a value that is refused"
                ));
            }
            rules.pattern = Some((said.into(), regex));
        }
        "format" => {
            let name = value.as_str().ok_or_else(|| malformed(keyword, "a string"))?;
            if format::is_checked(name) {
                rules.format = Some(name.to_owned());
            }
        }
        _ => return compile_applicator(rules, keyword, value, map),
    }
    Ok(())
}

/// The applicator vocabulary: keywords that apply subschemas.
fn compile_applicator(
    rules: &mut Rules,
    keyword: &str,
    value: &Value,
    map: &Map<String, Value>,
) -> Result<(), String> {
    match keyword {
        "items" => match value {
            Value::Array(_) => {
                return Err(
                    "`items` as an array is draft 2019-09 or older; use `prefixItems`".into()
                );
            }
            _ => rules.items = Some(Node::compile(value)?),
        },
        "prefixItems" => rules.prefix_items = schemas(keyword, value)?,
        "contains" => rules.contains = Some(Node::compile(value)?),
        "properties" => rules.properties = named_schemas(keyword, value)?,
        "patternProperties" => {
            rules.pattern_properties = named_schemas(keyword, value)?
                .into_iter()
                .map(|(text, node)| Ok((pattern::compile(&text)?, node)))
                .collect::<Result<_, String>>()?
        }
        "additionalProperties" => rules.additional_properties = Some(Node::compile(value)?),
        "propertyNames" => rules.property_names = Some(Node::compile(value)?),
        "required" => rules.required = names(keyword, value)?,
        "dependentRequired" => {
            let Value::Object(deps) = value else {
                return Err(malformed(keyword, "an object of arrays of strings"));
            };
            rules.dependent_required = deps
                .iter()
                .map(|(k, v)| Ok((k.clone(), names(keyword, v)?)))
                .collect::<Result<_, String>>()?;
        }
        "dependentSchemas" => rules.dependent_schemas = named_schemas(keyword, value)?,
        "allOf" => rules.all_of = schemas(keyword, value)?,
        "anyOf" => rules.any_of = schemas(keyword, value)?,
        "oneOf" => rules.one_of = schemas(keyword, value)?,
        "not" => rules.not = Some(Node::compile(value)?),
        "if" => {
            let branch = |key: &str| map.get(key).map(Node::compile).transpose();
            rules.condition = Some((Node::compile(value)?, branch("then")?, branch("else")?));
        }
        "unevaluatedProperties" => rules.unevaluated_properties = Some(Node::compile(value)?),
        "unevaluatedItems" => rules.unevaluated_items = Some(Node::compile(value)?),
        "$ref" | "$dynamicRef" | "$recursiveRef" => {
            return Err(format!(
                "`{keyword}` is left in the schema; Purview checks self-contained schemas"
            ));
        }
        // `then`/`else` go with `if`; the rest are annotations.
        _ => {}
    }
    Ok(())
}

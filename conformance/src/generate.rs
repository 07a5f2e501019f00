//! Arguments from a tool's `inputSchema`: mostly valid ones, built from the
//! schema and then checked against it, and deliberately broken ones, each
//! breaking one named parameter so the answer can be judged per field (§7.3).

use std::collections::HashMap;

use jsonschema::{Validator, error::ValidationErrorKind};
use rand::RngExt as _;
use serde_json::{Map, Number, Value, json};

mod shown;

pub(crate) use shown::Shown;

/// The explorer's random source: the same seed gives the same walk.
pub(crate) type Rand = rand::rngs::Xoshiro256PlusPlus;

/// Where values come from besides the schema: the developer's hints (by
/// parameter name), then the table a parameter's description names as its
/// source, then what the app showed.
#[derive(Clone, Copy)]
pub(crate) struct Sources<'a> {
    /// Values to use for a parameter, by its name (`--hint`).
    pub hints: &'a HashMap<String, Vec<Value>>,
    /// What the app's windows and answers showed lately.
    pub shown: &'a Shown,
    /// The window the tool acts on, whose values come first.
    pub window: Option<&'a str>,
    /// The parameters the app keeps refusing made-up values for (by name,
    /// in `validation_failed`): they take what the app showed.
    pub refused: &'a std::collections::BTreeSet<String>,
}

impl<'a> Sources<'a> {
    /// Only the developer's hints.
    #[cfg(test)]
    pub fn hints(hints: &'a HashMap<String, Vec<Value>>) -> Self {
        static NOTHING: std::sync::LazyLock<Shown> = std::sync::LazyLock::new(Shown::default);
        static NONE: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        Self { hints, shown: &NOTHING, window: None, refused: &NONE }
    }
}

/// Strings that tend to find edges: empty, blank, long, non-ASCII, markup,
/// control and bidi characters, numbers and words in string clothing.
const INTERESTING: &[&str] = &[
    "",
    " ",
    "a",
    "Ada Lovelace",
    "0",
    "-1",
    "42",
    "3.14",
    "true",
    "null",
    "ünïcødé ✓ 東京",
    "<b>bold</b>",
    "line\nbreak",
    "tab\tbed",
    "\u{202e}reversed",
    "\u{7}bell",
    "'; DROP TABLE orders; --",
    "../../etc/passwd",
    "{{template}}",
    "emoji 🧾",
];

/// How an argument set was made, so the answer can be judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Validity {
    /// Checked against the inputSchema and accepted by it.
    Valid,
    /// Rejected by the inputSchema because of these parameters.
    Invalid(Vec<String>),
    /// Could not be decided (no schema to check against, or a schema the
    /// validator cannot compile).
    Unknown,
}

/// A tool's inputSchema, compiled once.
pub(crate) struct InputSchema {
    root: Value,
    validator: Option<Validator>,
}

impl InputSchema {
    pub fn new(root: Value) -> Self {
        let validator = jsonschema::options().should_validate_formats(true).build(&root).ok();
        Self { root, validator }
    }

    /// The top-level parameter names.
    pub fn parameters(&self) -> Vec<String> {
        self.properties().map(|p| p.keys().cloned().collect()).unwrap_or_default()
    }

    /// Whether the schema declares this top-level parameter.
    pub fn has(&self, name: &str) -> bool {
        self.properties().is_some_and(|p| p.contains_key(name))
    }

    /// Parameters whose values must never come back (`writeOnly: true`).
    pub fn write_only(&self) -> Vec<String> {
        self.properties()
            .into_iter()
            .flatten()
            .filter(|(_, s)| s.get("writeOnly").and_then(Value::as_bool) == Some(true))
            .map(|(name, _)| name.clone())
            .collect()
    }

    fn properties(&self) -> Option<&Map<String, Value>> {
        self.root.get("properties").and_then(Value::as_object)
    }

    /// Checks arguments against the schema.
    pub fn judge(&self, arguments: &Map<String, Value>) -> Validity {
        let Some(validator) = &self.validator else { return Validity::Unknown };
        let value = Value::Object(arguments.clone());
        let mut broken: Vec<String> = Vec::new();
        for error in validator.iter_errors(&value) {
            let path = error.instance_path().to_string();
            let top = path.trim_start_matches('/').split('/').next().unwrap_or("").to_owned();
            if !top.is_empty() {
                broken.push(top.replace("~1", "/").replace("~0", "~"));
                continue;
            }
            match error.kind() {
                ValidationErrorKind::Required { property } => {
                    broken.extend(property.as_str().map(str::to_owned));
                }
                ValidationErrorKind::AdditionalProperties { unexpected } => {
                    broken.extend(unexpected.iter().cloned());
                }
                _ => broken.push(String::new()),
            }
        }
        if broken.is_empty() {
            return Validity::Valid;
        }
        broken.sort();
        broken.dedup();
        Validity::Invalid(broken)
    }

    /// Valid arguments (best effort: up to eight tries, then the last try,
    /// judged honestly). A parameter with hints always takes one of them;
    /// others often take a value the app showed under a matching label,
    /// and are made up from the schema otherwise.
    pub fn valid(
        &self,
        rng: &mut Rand,
        sources: Sources<'_>,
        secret: &mut dyn FnMut(&mut Rand) -> String,
    ) -> (Map<String, Value>, Validity) {
        let mut last = Map::new();
        for _ in 0..8 {
            let mut g = Gen { root: &self.root, rng, sources, secret, depth: 0 };
            let value = g.object_top();
            let validity = self.judge(&value);
            if validity == Validity::Valid {
                return (value, validity);
            }
            last = value;
        }
        let validity = self.judge(&last);
        (last, validity)
    }

    /// Valid arguments with one parameter broken. `None` when nothing could
    /// be broken (a schema that accepts anything).
    pub fn invalid(
        &self,
        rng: &mut Rand,
        sources: Sources<'_>,
        secret: &mut dyn FnMut(&mut Rand) -> String,
    ) -> Option<(Map<String, Value>, Vec<String>)> {
        let (base, _) = self.valid(rng, sources, secret);
        let properties = self.properties().cloned().unwrap_or_default();
        let required: Vec<String> = self
            .root
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        let closed = self.root.get("additionalProperties") == Some(&Value::Bool(false));
        for _ in 0..8 {
            let mut args = base.clone();
            let broke = match rng.random_range(0..4u8) {
                0 if !required.is_empty() => {
                    let name = required[rng.random_range(0..required.len())].clone();
                    args.remove(&name);
                    name
                }
                1 if closed => {
                    let name = format!("unexpected_{}", rng.random_range(0..1000u32));
                    args.insert(name.clone(), json!("surprise"));
                    name
                }
                2 if !properties.is_empty() => {
                    let (name, schema) = pick(rng, &properties);
                    args.insert(name.clone(), out_of_range(schema, rng));
                    name.clone()
                }
                _ if !properties.is_empty() => {
                    let (name, schema) = pick(rng, &properties);
                    args.insert(name.clone(), wrong_type(schema, rng));
                    name.clone()
                }
                _ => String::new(),
            };
            // A null for an optional parameter is widely read as "absent"
            // (some hosts send one for every optional parameter): not a
            // mistake worth provoking.
            if broke.is_empty()
                || (args.get(&broke) == Some(&Value::Null) && !required.contains(&broke))
            {
                continue;
            }
            if let Validity::Invalid(names) = self.judge(&args)
                && names.contains(&broke)
            {
                return Some((args, vec![broke]));
            }
        }
        None
    }
}

/// A pattern without its `^…$` anchors: the generator makes whole matches
/// anyway, and does not take anchors.
fn unanchored(pattern: &str) -> &str {
    let pattern = pattern.strip_prefix('^').unwrap_or(pattern);
    match pattern.strip_suffix('$') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => pattern,
    }
}

fn pick<'a>(rng: &mut Rand, map: &'a Map<String, Value>) -> (&'a String, &'a Value) {
    let i = rng.random_range(0..map.len());
    map.iter().nth(i).expect("index within the map")
}

/// A value of a type the schema does not allow.
fn wrong_type(schema: &Value, rng: &mut Rand) -> Value {
    let types = types_of(schema);
    let candidates = [
        ("string", json!("not the right type")),
        ("integer", json!(17)),
        ("boolean", json!(true)),
        ("object", json!({"nested": 1})),
        ("array", json!([1, 2])),
        ("null", Value::Null),
    ];
    let wrong: Vec<&Value> = candidates
        .iter()
        .filter(|(t, _)| {
            !types.iter().any(|have| have == t || (*have == "number" && *t == "integer"))
        })
        .map(|(_, v)| v)
        .collect();
    if wrong.is_empty() { Value::Null } else { wrong[rng.random_range(0..wrong.len())].clone() }
}

/// A value of the right type just outside the schema's bounds.
fn out_of_range(schema: &Value, rng: &mut Rand) -> Value {
    let num = |key: &str| schema.get(key).and_then(Value::as_f64);
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && values.iter().all(Value::is_string)
    {
        return json!("not-one-of-the-options");
    }
    match types_of(schema).first().map(String::as_str) {
        Some("integer") => {
            if let Some(max) = num("maximum") {
                json!(max as i64 + 1)
            } else if let Some(min) = num("minimum") {
                json!(min as i64 - 1)
            } else {
                json!(i64::MIN)
            }
        }
        Some("number") => {
            if let Some(max) = num("maximum") {
                json!(max + 1.0)
            } else if let Some(min) = num("minimum").or(num("exclusiveMinimum")) {
                json!(min - 1.0)
            } else {
                json!(-1e308)
            }
        }
        Some("string") => {
            if let Some(max) = num("maxLength") {
                Value::String("x".repeat(max as usize + 1))
            } else if num("minLength").is_some_and(|m| m >= 1.0) {
                json!("")
            } else {
                wrong_type(schema, rng)
            }
        }
        Some("array") => {
            if let Some(max) = num("maxItems") {
                Value::Array(vec![Value::Null; max as usize + 1])
            } else {
                json!("not an array")
            }
        }
        _ => wrong_type(schema, rng),
    }
}

/// Whether `value` is of one of `types` (any value when there are none).
fn fits(types: &[String], value: &Value) -> bool {
    types.is_empty()
        || types.iter().any(|t| match t.as_str() {
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            _ => false,
        })
}

fn types_of(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(|t| t.as_str().map(str::to_owned)).collect(),
        _ if schema.get("enum").is_some() || schema.get("const").is_some() => {
            let sample = schema.get("const").or_else(|| schema["enum"].get(0));
            sample.map(|v| vec![json_type(v).to_owned()]).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

struct Gen<'a> {
    root: &'a Value,
    rng: &'a mut Rand,
    sources: Sources<'a>,
    secret: &'a mut dyn FnMut(&mut Rand) -> String,
    depth: usize,
}

impl Gen<'_> {
    fn object_top(&mut self) -> Map<String, Value> {
        match self.value(self.root, None) {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn lookup(&self, reference: &str) -> Option<&'_ Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    fn value(&mut self, schema: &Value, name: Option<&str>) -> Value {
        self.depth += 1;
        let value = self.value_inner(schema, name);
        self.depth -= 1;
        value
    }

    fn value_inner(&mut self, schema: &Value, name: Option<&str>) -> Value {
        if self.depth > 12 {
            return Value::Null;
        }
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let target = self.lookup(reference).cloned().unwrap_or(Value::Bool(true));
            return self.value(&target, name);
        }
        // A hint is the developer's word: always taken where its type fits
        // (a number given for a string parameter is taken as its digits),
        // so a walk never spends a lock screen's tries on made-up PINs.
        if let Some(hints) = name.and_then(|n| self.sources.hints.get(n)) {
            let types = types_of(schema);
            let fitting: Vec<Value> = hints
                .iter()
                .filter_map(|h| match h {
                    h if fits(&types, h) => Some(h.clone()),
                    Value::Number(n) if fits(&types, &json!("")) => Some(json!(n.to_string())),
                    _ => None,
                })
                .collect();
            if !fitting.is_empty() {
                return fitting[self.rng.random_range(0..fitting.len())].clone();
            }
        }
        let shown = self.sources.shown;
        // A value from the table the description names: an agent reading
        // it sends one, and no made-up value or hint could be a record's
        // own reference.
        if let Some(value) = shown.cell_of_source(self.rng, schema, self.sources.window) {
            return value;
        }
        let refused = name.is_some_and(|n| self.sources.refused.contains(n));
        if let Some(value) = shown.pick(self.rng, schema, name, self.sources.window, refused) {
            return value;
        }
        if let Some(value) = schema.get("const") {
            return value.clone();
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array)
            && !values.is_empty()
        {
            return values[self.rng.random_range(0..values.len())].clone();
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(options) = schema.get(key).and_then(Value::as_array)
                && !options.is_empty()
            {
                let option = options[self.rng.random_range(0..options.len())].clone();
                return self.value(&option, name);
            }
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array)
            && let Some(first) = all.iter().find(|s| s.get("type").is_some()).or(all.first())
        {
            return self.value(&first.clone(), name);
        }
        let types = types_of(schema);
        let ty = if types.is_empty() {
            if schema.get("properties").is_some() {
                "object".to_owned()
            } else {
                "string".to_owned()
            }
        } else {
            // Prefer a non-null type; null now and then.
            let non_null: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
            if non_null.is_empty() || (types.len() > non_null.len() && self.rng.random_bool(0.15)) {
                "null".to_owned()
            } else {
                non_null[self.rng.random_range(0..non_null.len())].clone()
            }
        };
        match ty.as_str() {
            "object" => self.object(schema),
            "array" => self.array(schema),
            "string" => self.string(schema),
            "integer" => self.integer(schema),
            "number" => self.number(schema),
            "boolean" => Value::Bool(self.rng.random_bool(0.5)),
            _ => Value::Null,
        }
    }

    fn object(&mut self, schema: &Value) -> Value {
        let mut out = Map::new();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, sub) in properties {
                if required.contains(&name.as_str()) || self.rng.random_bool(0.5) {
                    let write_only = sub.get("writeOnly").and_then(Value::as_bool) == Some(true);
                    let value = if write_only
                        && types_of(sub).iter().any(|t| t == "string")
                        && !self.sources.hints.contains_key(name)
                        && self.rng.random_bool(0.8)
                    {
                        Value::String((self.secret)(self.rng))
                    } else {
                        self.value(sub, Some(name))
                    };
                    out.insert(name.clone(), value);
                }
            }
        }
        Value::Object(out)
    }

    fn array(&mut self, schema: &Value) -> Value {
        let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = schema.get("maxItems").and_then(Value::as_u64).map_or(min + 3, |m| m as usize);
        let len = if max > min { self.rng.random_range(min..=max.min(min + 4)) } else { min };
        let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
        let mut out: Vec<Value> = (0..len).map(|_| self.value(&items, None)).collect();
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
            let mut seen = Vec::new();
            out.retain(|v| {
                let fresh = !seen.contains(v);
                seen.push(v.clone());
                fresh
            });
        }
        Value::Array(out)
    }

    fn string(&mut self, schema: &Value) -> Value {
        let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = schema.get("maxLength").and_then(Value::as_u64).map(|m| m as usize);
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
            && let Ok(generator) = rand_regex::Regex::compile(unanchored(pattern), 8)
        {
            return Value::String(self.rng.sample::<String, _>(&generator));
        }
        if let Some(format) = schema.get("format").and_then(Value::as_str) {
            let day = self.rng.random_range(1..=28u32);
            let formatted = match format {
                "date" => Some(format!("2026-11-{day:02}")),
                "date-time" => Some(format!("2026-11-{day:02}T10:30:00Z")),
                "time" => Some("10:30:00Z".to_owned()),
                "email" => Some(format!("person{day}@example.com")),
                "uri" | "url" => Some(format!("https://example.com/item/{day}")),
                "uuid" => Some(format!("0b6e1c6e-3a5f-4c1e-9f6a-{day:012}")),
                _ => None,
            };
            if let Some(value) = formatted {
                return Value::String(value);
            }
        }
        let mut text = if self.rng.random_bool(0.7) {
            INTERESTING[self.rng.random_range(0..INTERESTING.len())].to_owned()
        } else {
            let len = self.rng.random_range(1..=24usize);
            (0..len).map(|_| char::from(self.rng.random_range(b'a'..=b'z'))).collect()
        };
        while text.chars().count() < min {
            text.push('x');
        }
        if let Some(max) = max
            && text.chars().count() > max
        {
            text = text.chars().take(max).collect();
        }
        Value::String(text)
    }

    fn integer(&mut self, schema: &Value) -> Value {
        let get = |key: &str| schema.get(key).and_then(Value::as_f64);
        let lo = get("minimum").or(get("exclusiveMinimum").map(|m| m + 1.0)).unwrap_or(-5.0);
        let hi = get("maximum")
            .or(get("exclusiveMaximum").map(|m| m - 1.0))
            .unwrap_or(lo.max(0.0) + 1000.0);
        let (lo, hi) = (lo.ceil() as i64, hi.floor() as i64);
        let mut value = if hi >= lo {
            match self.rng.random_range(0..6u8) {
                0 => lo,
                1 => hi,
                // Counts, positions and indexes are mostly small.
                2 | 3 => self.rng.random_range(lo..=hi.min(lo.saturating_add(3))),
                _ => self.rng.random_range(lo..=hi.min(lo.saturating_add(1_000_000))),
            }
        } else {
            lo
        };
        if let Some(step) = schema.get("multipleOf").and_then(Value::as_i64)
            && step > 0
        {
            value -= value.rem_euclid(step);
        }
        json!(value)
    }

    fn number(&mut self, schema: &Value) -> Value {
        if self.rng.random_bool(0.5) {
            return self.integer(schema);
        }
        let get = |key: &str| schema.get(key).and_then(Value::as_f64);
        let lo = get("minimum").or(get("exclusiveMinimum").map(|m| m + 0.01)).unwrap_or(-5.0);
        let hi = get("maximum")
            .or(get("exclusiveMaximum").map(|m| m - 0.01))
            .unwrap_or(lo.max(0.0) + 1000.0);
        let value = if hi > lo { self.rng.random_range(lo..hi) } else { lo };
        let value = (value * 100.0).round() / 100.0;
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests;

//! Applying a compiled schema to a value: every keyword's check, and
//! what each subschema looked at, for `unevaluatedProperties` and
//! `unevaluatedItems`.

use std::{cmp::Ordering, collections::HashSet};

use serde_json::{Map, Number, Value};

use super::{
    format,
    schema::{Error, Node, Rules, Violation},
};

/// What a schema looked at in a value, for `unevaluated*`.
#[derive(Default)]
pub(super) struct Seen {
    pub(super) properties: HashSet<String>,
    pub(super) all_items: bool,
    pub(super) items: HashSet<usize>,
}

impl Seen {
    pub(super) fn merge(&mut self, other: Seen) {
        self.properties.extend(other.properties);
        self.all_items |= other.all_items;
        self.items.extend(other.items);
    }
}

/// Applying a compiled schema, from its root.
impl Node {
    /// Whether `value` is valid; stops at nothing, but collects nothing.
    pub fn is_valid(&self, value: &Value) -> bool {
        let mut errors = Vec::new();
        self.validate(value, &mut Vec::new(), &mut errors);
        errors.is_empty()
    }

    /// Every violation in `value`.
    pub fn errors(&self, value: &Value) -> Vec<Error> {
        let mut errors = Vec::new();
        self.validate(value, &mut Vec::new(), &mut errors);
        errors
    }

    pub(super) fn validate(
        &self,
        value: &Value,
        path: &mut Vec<String>,
        out: &mut Vec<Error>,
    ) -> Seen {
        match self {
            Self::Any => Seen::default(),
            Self::Never => {
                out.push(Error { path: path.clone(), violation: Violation::False });
                Seen::default()
            }
            Self::Rules(rules) => rules.validate(value, path, out),
        }
    }

    /// `value` on its own: valid or not, and what it looked at.
    pub(super) fn probe(&self, value: &Value, path: &mut Vec<String>) -> (bool, Seen) {
        let mut errors = Vec::new();
        let seen = self.validate(value, path, &mut errors);
        (errors.is_empty(), seen)
    }
}

/// `a` against `b`, exactly for integers.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let int = |n: &Number| n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// JSON equality: numbers by value (`1` equals `1.0`), objects whatever
/// their key order.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// A key equal values share, for `uniqueItems` on long arrays.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => out.push_str(&(f as i64).to_string()),
            _ => out.push_str(&n.to_string()),
        },
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for key in keys {
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(&map[key], out);
                out.push(',');
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn all_unique(items: &[Value]) -> bool {
    if items.len() <= 32 {
        return items.iter().enumerate().all(|(i, a)| items[i + 1..].iter().all(|b| !equal(a, b)));
    }
    let mut seen = HashSet::with_capacity(items.len());
    items.iter().all(|item| {
        let mut key = String::new();
        canonical(item, &mut key);
        seen.insert(key)
    })
}

/// `(mantissa, exponent)` with the value `mantissa × 10^exponent`, from
/// the number's shortest decimal form.
fn decimal(n: &Number) -> Option<(i128, i32)> {
    let text = n.to_string();
    let (body, exp) = match text.split_once(['e', 'E']) {
        Some((body, exp)) => (body, exp.parse::<i32>().ok()?),
        None => (text.as_str(), 0),
    };
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    let mantissa: i128 = format!("{whole}{fraction}").parse().ok()?;
    Some((mantissa, exp.checked_sub(i32::try_from(fraction.len()).ok()?)?))
}

/// Whether `value` is a whole multiple of `step`: exactly, in decimal.
fn is_multiple(value: &Number, step: &Number) -> bool {
    if let (Some((a, ea)), Some((b, eb))) = (decimal(value), decimal(step)) {
        let low = ea.min(eb);
        let scale = |m: i128, e: i32| {
            u32::try_from(e - low)
                .ok()
                .and_then(|p| 10i128.checked_pow(p))
                .and_then(|p| m.checked_mul(p))
        };
        if let (Some(a), Some(b)) = (scale(a, ea), scale(b, eb)) {
            return b != 0 && a % b == 0;
        }
    }
    match (value.as_f64(), step.as_f64()) {
        (Some(v), Some(s)) => (v / s).is_finite() && (v / s).fract() == 0.0,
        _ => false,
    }
}

/// `additionalProperties` and `unevaluatedProperties`: the properties
/// `rest` of `map` against `schema`. When the schema is `false`, one
/// error names them all, rather than one "not allowed here" each.
fn the_rest(
    schema: &Node,
    map: &Map<String, Value>,
    rest: &[&String],
    path: &mut Vec<String>,
    out: &mut Vec<Error>,
    refused: fn(Vec<String>) -> Violation,
) {
    if matches!(schema, Node::Never) {
        if !rest.is_empty() {
            let names = rest.iter().map(|n| (*n).clone()).collect();
            out.push(Error { path: path.clone(), violation: refused(names) });
        }
        return;
    }
    for name in rest {
        path.push((*name).clone());
        schema.validate(&map[*name], path, out);
        path.pop();
    }
}

impl Rules {
    pub(super) fn validate(
        &self,
        value: &Value,
        path: &mut Vec<String>,
        out: &mut Vec<Error>,
    ) -> Seen {
        let mut fail = |path: &Vec<String>, violation| {
            out.push(Error { path: path.clone(), violation });
        };
        let mut seen = Seen::default();
        if let Some(types) = self.types.as_ref().filter(|t| !t.iter().any(|t| t.admits(value))) {
            fail(path, Violation::Type(types.clone()));
        }
        if let Some(values) = self.values.as_ref().filter(|v| !v.iter().any(|v| equal(v, value))) {
            fail(path, Violation::Enum(Value::Array(values.clone())));
        }
        if let Some(one) = self.one_value.as_ref().filter(|one| !equal(one, value)) {
            fail(path, Violation::Const(one.clone()));
        }
        match value {
            Value::Number(n) => self.number(n, path, &mut fail),
            Value::String(text) => self.string(text, path, &mut fail),
            _ => {}
        }
        match value {
            Value::Array(items) => self.array(items, path, out, &mut seen),
            Value::Object(map) => self.object(value, map, path, out, &mut seen),
            _ => {}
        }
        self.combinators(value, path, out, &mut seen);
        // Last: what every other keyword here and below left unevaluated.
        self.unevaluated(value, path, out, &mut seen);
        seen
    }

    fn number(
        &self,
        n: &Number,
        path: &Vec<String>,
        fail: &mut impl FnMut(&Vec<String>, Violation),
    ) {
        let below = |limit: &Option<Number>, ok: fn(Ordering) -> bool| {
            limit.as_ref().filter(|l| compare(n, l).is_some_and(|o| !ok(o))).cloned()
        };
        let low = below(&self.minimum, Ordering::is_ge);
        let high = below(&self.maximum, Ordering::is_le);
        match (&self.minimum, &self.maximum) {
            (Some(min), Some(max)) if low.is_some() || high.is_some() => {
                fail(path, Violation::Between(min.clone(), max.clone()));
            }
            _ => {
                if let Some(l) = low {
                    fail(path, Violation::Minimum(l));
                }
                if let Some(l) = high {
                    fail(path, Violation::Maximum(l));
                }
            }
        }
        if let Some(l) = below(&self.exclusive_minimum, Ordering::is_gt) {
            fail(path, Violation::ExclusiveMinimum(l));
        }
        if let Some(l) = below(&self.exclusive_maximum, Ordering::is_lt) {
            fail(path, Violation::ExclusiveMaximum(l));
        }
        if let Some(step) = self.multiple_of.as_ref().filter(|s| !is_multiple(n, s)) {
            fail(path, Violation::MultipleOf(step.clone()));
        }
    }

    fn string(
        &self,
        text: &str,
        path: &Vec<String>,
        fail: &mut impl FnMut(&Vec<String>, Violation),
    ) {
        if self.min_length.is_some() || self.max_length.is_some() {
            let length = text.chars().count() as u64;
            let short = self.min_length.filter(|m| length < *m);
            let long = self.max_length.filter(|m| length > *m);
            match (self.min_length, self.max_length) {
                (Some(min), Some(max)) if short.is_some() || long.is_some() => {
                    fail(path, Violation::LengthBetween(min, max));
                }
                _ => {
                    if let Some(min) = short {
                        fail(path, Violation::MinLength(min));
                    }
                    if let Some(max) = long {
                        fail(path, Violation::MaxLength(max));
                    }
                }
            }
        }
        if let Some((said, regex)) = &self.pattern
            && !regex.is_match(text)
        {
            fail(path, Violation::Pattern(said.clone()));
        }
        if let Some(name) = &self.format
            && format::check(name, text) == Some(false)
        {
            fail(path, Violation::Format(name.clone()));
        }
    }

    fn array(
        &self,
        items: &[Value],
        path: &mut Vec<String>,
        out: &mut Vec<Error>,
        seen: &mut Seen,
    ) {
        let len = items.len() as u64;
        if let Some(min) = self.min_items.filter(|m| len < *m) {
            out.push(Error { path: path.clone(), violation: Violation::MinItems(min) });
        }
        if let Some(max) = self.max_items.filter(|m| len > *m) {
            out.push(Error { path: path.clone(), violation: Violation::MaxItems(max) });
        }
        if self.unique_items && !all_unique(items) {
            out.push(Error { path: path.clone(), violation: Violation::UniqueItems });
        }
        for (index, (item, schema)) in items.iter().zip(&self.prefix_items).enumerate() {
            path.push(index.to_string());
            schema.validate(item, path, out);
            path.pop();
            seen.items.insert(index);
        }
        if let Some(schema) = &self.items {
            for (index, item) in items.iter().enumerate().skip(self.prefix_items.len()) {
                path.push(index.to_string());
                schema.validate(item, path, out);
                path.pop();
            }
            seen.all_items = true;
        }
        if let Some(schema) = &self.contains {
            let mut matched = 0u64;
            for (index, item) in items.iter().enumerate() {
                path.push(index.to_string());
                if schema.probe(item, path).0 {
                    matched += 1;
                    seen.items.insert(index);
                }
                path.pop();
            }
            let min = self.min_contains.unwrap_or(1);
            if matched < min {
                let violation = if self.min_contains.is_some() {
                    Violation::MinContains(min)
                } else {
                    Violation::Contains
                };
                out.push(Error { path: path.clone(), violation });
            }
            if let Some(max) = self.max_contains.filter(|m| matched > *m) {
                out.push(Error { path: path.clone(), violation: Violation::MaxContains(max) });
            }
        }
    }

    fn object(
        &self,
        value: &Value,
        map: &Map<String, Value>,
        path: &mut Vec<String>,
        out: &mut Vec<Error>,
        seen: &mut Seen,
    ) {
        let len = map.len() as u64;
        if let Some(min) = self.min_properties.filter(|m| len < *m) {
            out.push(Error { path: path.clone(), violation: Violation::MinProperties(min) });
        }
        if let Some(max) = self.max_properties.filter(|m| len > *m) {
            out.push(Error { path: path.clone(), violation: Violation::MaxProperties(max) });
        }
        for name in self.required.iter().filter(|n| !map.contains_key(*n)) {
            out.push(Error { path: path.clone(), violation: Violation::Required(name.clone()) });
        }
        for (name, wanted) in &self.dependent_required {
            if map.contains_key(name) {
                for missing in wanted.iter().filter(|n| !map.contains_key(*n)) {
                    out.push(Error {
                        path: path.clone(),
                        violation: Violation::Required(missing.clone()),
                    });
                }
            }
        }
        if let Some(schema) = &self.property_names
            && map.keys().any(|name| !schema.probe(&Value::String(name.clone()), path).0)
        {
            out.push(Error { path: path.clone(), violation: Violation::PropertyNames });
        }
        for (name, schema) in &self.properties {
            if let Some(item) = map.get(name) {
                path.push(name.clone());
                schema.validate(item, path, out);
                path.pop();
                seen.properties.insert(name.clone());
            }
        }
        let mut matched_pattern = HashSet::new();
        for (regex, schema) in &self.pattern_properties {
            for (name, item) in map.iter().filter(|(name, _)| regex.is_match(name)) {
                path.push(name.clone());
                schema.validate(item, path, out);
                path.pop();
                matched_pattern.insert(name.as_str());
                seen.properties.insert(name.clone());
            }
        }
        if let Some(schema) = &self.additional_properties {
            let extra: Vec<&String> = map
                .keys()
                .filter(|n| {
                    !self.properties.iter().any(|(p, _)| p == *n)
                        && !matched_pattern.contains(n.as_str())
                })
                .collect();
            the_rest(schema, map, &extra, path, out, Violation::AdditionalProperties);
            seen.properties.extend(extra.into_iter().cloned());
        }
        for (name, schema) in &self.dependent_schemas {
            if map.contains_key(name) {
                seen.merge(schema.validate(value, path, out));
            }
        }
    }

    fn combinators(
        &self,
        value: &Value,
        path: &mut Vec<String>,
        out: &mut Vec<Error>,
        seen: &mut Seen,
    ) {
        for schema in &self.all_of {
            seen.merge(schema.validate(value, path, out));
        }
        if !self.any_of.is_empty() {
            let mut any = false;
            for schema in &self.any_of {
                let (valid, branch) = schema.probe(value, path);
                if valid {
                    any = true;
                    seen.merge(branch);
                }
            }
            if !any {
                out.push(Error { path: path.clone(), violation: Violation::AnyOf });
            }
        }
        if !self.one_of.is_empty() {
            let mut valid: Vec<Seen> = Vec::new();
            for schema in &self.one_of {
                let (ok, branch) = schema.probe(value, path);
                if ok {
                    valid.push(branch);
                }
            }
            match valid.len() {
                0 => out.push(Error { path: path.clone(), violation: Violation::OneOfNone }),
                1 => valid.into_iter().for_each(|branch| seen.merge(branch)),
                _ => out.push(Error { path: path.clone(), violation: Violation::OneOfMany }),
            }
        }
        if let Some(schema) = &self.not
            && schema.probe(value, path).0
        {
            out.push(Error { path: path.clone(), violation: Violation::Not });
        }
        if let Some((condition, then, otherwise)) = &self.condition {
            let (holds, branch) = condition.probe(value, path);
            let next = if holds {
                seen.merge(branch);
                then
            } else {
                otherwise
            };
            if let Some(schema) = next {
                seen.merge(schema.validate(value, path, out));
            }
        }
    }

    fn unevaluated(
        &self,
        value: &Value,
        path: &mut Vec<String>,
        out: &mut Vec<Error>,
        seen: &mut Seen,
    ) {
        match value {
            Value::Object(map) => {
                let Some(schema) = &self.unevaluated_properties else { return };
                let rest: Vec<&String> =
                    map.keys().filter(|n| !seen.properties.contains(*n)).collect();
                the_rest(schema, map, &rest, path, out, Violation::UnevaluatedProperties);
                seen.properties.extend(rest.into_iter().cloned());
            }
            Value::Array(items) => {
                let Some(schema) = &self.unevaluated_items else { return };
                if seen.all_items {
                    return;
                }
                let mut bad = false;
                for (index, item) in
                    items.iter().enumerate().filter(|(i, _)| !seen.items.contains(i))
                {
                    path.push(index.to_string());
                    bad |= !schema.probe(item, path).0;
                    path.pop();
                }
                if bad {
                    out.push(Error { path: path.clone(), violation: Violation::UnevaluatedItems });
                }
                seen.all_items = true;
            }
            _ => {}
        }
    }
}

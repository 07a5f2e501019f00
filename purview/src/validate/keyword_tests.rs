//! The JSON Schema check, held to a general-purpose validator's verdicts
//! and to the corners where exactness matters.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::schema::{Node, Violation};

/// Small values over few keys and strings, so generated schemas and
/// values meet often.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..5).prop_map(Value::from),
        prop_oneof![Just(0.5), Just(1.0), Just(-2.5), Just(3.0)].prop_map(Value::from),
        prop_oneof![Just(""), Just("a"), Just("ab"), Just("b1"), Just("xyz"), Just("é")]
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![Just("a"), Just("b"), Just("c"), Just("x")].prop_map(String::from),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![Just("a"), Just("b"), Just("c"), Just("x")].prop_map(String::from)
}

/// Schemas made of the keywords this module checks.
#[allow(clippy::too_many_lines)] // one arm per keyword reads best
fn schema() -> impl Strategy<Value = Value> {
    let types = prop_oneof![
        Just("array"),
        Just("boolean"),
        Just("integer"),
        Just("null"),
        Just("number"),
        Just("object"),
        Just("string")
    ];
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        types.clone().prop_map(|t| json!({"type": t})),
        proptest::collection::btree_set(types, 1..3).prop_map(|t| json!({"type": t})),
        (-2i64..4).prop_map(|n| json!({"minimum": n})),
        (-2i64..4).prop_map(|n| json!({"maximum": n})),
        prop_oneof![Just(json!(0)), Just(json!(0.5)), Just(json!(-2))]
            .prop_map(|n| json!({"exclusiveMinimum": n})),
        (-2i64..4).prop_map(|n| json!({"exclusiveMaximum": n})),
        // Whole steps only: for a negative value and a fractional step
        // the reference says no (`-2.5` is not a multiple of `0.5`
        // there); fractional steps are checked below.
        prop_oneof![Just(json!(2)), Just(json!(3))].prop_map(|n| json!({"multipleOf": n})),
        (0u64..3).prop_map(|n| json!({"minLength": n})),
        (0u64..3).prop_map(|n| json!({"maxLength": n})),
        prop_oneof![
            Just("^a"),
            Just("b$"),
            Just("^[a-c]+$"),
            Just("x|1"),
            Just(r"\d"),
            Just(r"^\w*$")
        ]
        .prop_map(|p| json!({"pattern": p})),
        value().prop_map(|v| json!({"const": v})),
        proptest::collection::vec(value(), 1..4).prop_map(|v| json!({"enum": v})),
        (0u64..3).prop_map(|n| json!({"minItems": n})),
        (0u64..3).prop_map(|n| json!({"maxItems": n})),
        any::<bool>().prop_map(|b| json!({"uniqueItems": b})),
        (0u64..3).prop_map(|n| json!({"minProperties": n})),
        (0u64..3).prop_map(|n| json!({"maxProperties": n})),
        proptest::collection::btree_set(key(), 0..3).prop_map(|k| json!({"required": k})),
        (key(), proptest::collection::btree_set(key(), 1..3))
            .prop_map(|(k, v)| json!({"dependentRequired": {k: v}})),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        let many = proptest::collection::vec(inner.clone(), 1..3);
        prop_oneof![
            inner.clone().prop_map(|s| json!({"items": s})),
            (many.clone(), proptest::option::of(inner.clone())).prop_map(|(p, i)| match i {
                Some(i) => json!({"prefixItems": p, "items": i}),
                None => json!({"prefixItems": p}),
            }),
            (inner.clone(), proptest::option::of(0u64..3), proptest::option::of(0u64..3)).prop_map(
                |(s, min, max)| {
                    let mut o = json!({"contains": s});
                    if let Some(min) = min {
                        o["minContains"] = min.into();
                    }
                    if let Some(max) = max {
                        o["maxContains"] = max.into();
                    }
                    o
                }
            ),
            proptest::collection::btree_map(key(), inner.clone(), 1..3)
                .prop_map(|p| json!({"properties": p})),
            (proptest::collection::btree_map(key(), inner.clone(), 0..3), inner.clone())
                .prop_map(|(p, a)| json!({"properties": p, "additionalProperties": a})),
            (prop_oneof![Just("^a"), Just("[bc]")], inner.clone()).prop_map(
                |(p, s)| json!({"patternProperties": {p: s}, "additionalProperties": false})
            ),
            inner.clone().prop_map(|s| json!({"propertyNames": s})),
            (key(), inner.clone()).prop_map(|(k, s)| json!({"dependentSchemas": {k: s}})),
            many.clone().prop_map(|s| json!({"allOf": s})),
            many.clone().prop_map(|s| json!({"anyOf": s})),
            many.clone().prop_map(|s| json!({"oneOf": s})),
            inner.clone().prop_map(|s| json!({"not": s})),
            (
                inner.clone(),
                proptest::option::of(inner.clone()),
                proptest::option::of(inner.clone())
            )
                .prop_map(|(i, t, e)| {
                    let mut o = json!({"if": i});
                    if let Some(t) = t {
                        o["then"] = t;
                    }
                    if let Some(e) = e {
                        o["else"] = e;
                    }
                    o
                }),
            (many.clone(), inner.clone())
                .prop_map(|(s, u)| json!({"anyOf": s, "unevaluatedProperties": u})),
            (proptest::collection::btree_map(key(), inner.clone(), 0..2), many.clone()).prop_map(
                |(p, s)| json!({"properties": p, "allOf": s, "unevaluatedProperties": false})
            ),
            (many.clone(), inner.clone())
                .prop_map(|(p, u)| json!({"prefixItems": p, "unevaluatedItems": u})),
            (many, inner).prop_map(|(s, u)| json!({"oneOf": s, "unevaluatedItems": u})),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    /// The check agrees with a general-purpose JSON Schema 2020-12
    /// validator on every schema and value: what it lets through, the
    /// handler may rely on.
    #[test]
    fn s7_3_verdicts_agree_with_a_general_validator(schema in schema(), value in value()) {
        let reference = jsonschema::draft202012::new(&schema).expect("a valid schema");
        let ours = Node::compile(&schema).expect("compiles");
        prop_assert_eq!(
            ours.is_valid(&value),
            reference.is_valid(&value),
            "schema {} value {}", schema, value
        );
        prop_assert_eq!(ours.errors(&value).is_empty(), ours.is_valid(&value));
    }
}

#[test]
fn s7_3_numbers_compare_exactly() {
    let step = Node::compile(&json!({"multipleOf": 0.01})).unwrap();
    assert!(step.is_valid(&json!(19.99)), "decimal steps are exact");
    assert!(!step.is_valid(&json!(19.995)));
    let half = Node::compile(&json!({"multipleOf": 0.5})).unwrap();
    assert!(
        half.is_valid(&json!(-2.5)) && half.is_valid(&json!(-3)) && !half.is_valid(&json!(-0.3))
    );
    let big = Node::compile(&json!({"maximum": u64::MAX - 1})).unwrap();
    assert!(!big.is_valid(&json!(u64::MAX)), "integers beyond 2^53 compare exactly");
    let integer = Node::compile(&json!({"type": "integer"})).unwrap();
    assert!(integer.is_valid(&json!(2.0)) && !integer.is_valid(&json!(2.5)));
}

#[test]
fn unique_items_on_long_arrays() {
    let unique = Node::compile(&json!({"uniqueItems": true})).unwrap();
    let mut items: Vec<Value> = (0..1000).map(Value::from).collect();
    assert!(unique.is_valid(&Value::Array(items.clone())));
    items.push(json!(7.0));
    assert!(!unique.is_valid(&Value::Array(items.clone())), "7.0 repeats 7");
    let objects = json!([{"a": 1, "b": [1, 2]}, {"b": [1, 2.0], "a": 1.0}]);
    assert!(!unique.is_valid(&objects));
    let mut long: Vec<Value> = (0..100).map(|i| json!({"k": i})).collect();
    long.push(json!({"k": 5.0}));
    assert!(!unique.is_valid(&Value::Array(long)));
}

#[test]
fn malformed_schemas_are_refused_when_compiled() {
    for (schema, says) in [
        (json!({"minimum": "1"}), "`minimum` must be a number"),
        (json!({"type": "text"}), "`type` must be JSON type names"),
        (json!({"multipleOf": 0}), "greater than 0"),
        (json!({"pattern": "(?=a)"}), "look-around"),
        (json!({"properties": {"a": 5}}), "an object or a boolean"),
        (json!({"$ref": "#/$defs/x"}), "self-contained"),
        (json!({"items": [true]}), "prefixItems"),
    ] {
        let error = Node::compile(&schema).unwrap_err();
        assert!(error.contains(says), "{schema}: {error}");
    }
}

#[test]
fn errors_say_where() {
    let schema = json!({"type": "object", "properties": {
        "list": {"type": "array", "items": {"type": "object", "required": ["id"]}}
    }});
    let errors = Node::compile(&schema).unwrap().errors(&json!({"list": [{"id": 1}, {}]}));
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].path, ["list", "1"]);
    assert!(matches!(&errors[0].violation, Violation::Required(name) if name == "id"));
}

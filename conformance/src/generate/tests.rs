use rand::SeedableRng as _;

use super::*;

fn schema() -> InputSchema {
    InputSchema::new(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 20},
            "count": {"type": "integer", "minimum": 1, "maximum": 9},
            "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"},
            "pin": {"type": "string", "writeOnly": true},
            "kind": {"enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}
        },
        "required": ["name", "count", "code"],
        "additionalProperties": false
    }))
}

fn no_secret(rng: &mut Rand) -> String {
    format!("pv-secret-{}", rng.random_range(0..u32::MAX))
}

#[test]
fn valid_arguments_satisfy_the_schema() {
    let schema = schema();
    let mut rng = Rand::seed_from_u64(1);
    for _ in 0..500 {
        let (args, validity) =
            schema.valid(&mut rng, Sources::hints(&HashMap::new()), &mut no_secret);
        assert_eq!(validity, Validity::Valid, "{args:?}");
    }
}

#[test]
fn invalid_arguments_name_the_broken_parameter() {
    let schema = schema();
    let mut rng = Rand::seed_from_u64(2);
    let mut broken = std::collections::BTreeSet::new();
    for _ in 0..500 {
        let (args, names) = schema
            .invalid(&mut rng, Sources::hints(&HashMap::new()), &mut no_secret)
            .expect("breakable");
        assert!(matches!(schema.judge(&args), Validity::Invalid(n) if n.contains(&names[0])));
        broken.insert(names[0].clone());
    }
    for name in ["name", "count", "code", "kind"] {
        assert!(broken.contains(name), "{name} never broken: {broken:?}");
    }
}

#[test]
fn write_only_strings_get_a_distinctive_value() {
    let schema = schema();
    let mut rng = Rand::seed_from_u64(3);
    let secrets = (0..100)
        .filter_map(|_| {
            schema
                .valid(&mut rng, Sources::hints(&HashMap::new()), &mut no_secret)
                .0
                .get("pin")
                .cloned()
        })
        .filter(|v| v.as_str().is_some_and(|s| s.starts_with("pv-secret-")))
        .count();
    assert!(secrets > 10, "{secrets}");
}

#[test]
fn hints_are_offered() {
    let schema = schema();
    let mut rng = Rand::seed_from_u64(4);
    let hints = HashMap::from([("name".to_owned(), vec![json!("Grace")])]);
    let used = (0..100)
        .filter(|_| {
            schema.valid(&mut rng, Sources::hints(&hints), &mut no_secret).0["name"] == "Grace"
        })
        .count();
    assert_eq!(used, 100, "a hint is always taken");
}

#[test]
fn a_number_hint_for_a_string_parameter_is_taken_as_its_digits() {
    let schema = schema();
    let mut rng = Rand::seed_from_u64(5);
    let hints = HashMap::from([("pin".to_owned(), vec![json!(4711)])]);
    let mut sent = 0;
    for _ in 0..40 {
        let (args, validity) = schema.valid(&mut rng, Sources::hints(&hints), &mut no_secret);
        assert_eq!(validity, Validity::Valid, "{args:?}");
        if let Some(pin) = args.get("pin") {
            assert_eq!(pin, &json!("4711"));
            sent += 1;
        }
    }
    assert!(sent > 5, "{sent}");
}

use purview::serde_json::json;

use super::*;

fn schema(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap_or_default()
}

fn typed(pairs: &[(&str, &str)]) -> Typed {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

#[test]
fn a_schema_becomes_form_fields_of_the_right_kinds() {
    let schema = schema(json!({
        "$defs": {"Field": {"type": "string", "enum": ["recipient", "amount"]}},
        "properties": {
            "field": {"$ref": "#/$defs/Field"},
            "value": {"type": "string", "writeOnly": true},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "note": {"type": ["string", "null"]},
            "maybe": {"anyOf": [{"$ref": "#/$defs/Field"}, {"type": "null"}]},
            "urgent": {"type": "boolean"},
            (EXPECTED_VERSION): {"type": "integer"}
        },
        "required": ["field", "value"]
    }));
    let fields = fields_of(&schema, &[]);
    let kinds: Vec<_> = fields.iter().map(|f| (f.name.as_str(), f.kind.clone())).collect();
    assert_eq!(
        kinds,
        [
            ("field", FieldKind::Choice),
            ("value", FieldKind::Secret),
            ("count", FieldKind::Integer),
            ("maybe", FieldKind::Choice),
            ("note", FieldKind::Text),
            ("ratio", FieldKind::Number),
            ("urgent", FieldKind::Bool),
        ]
    );
    assert_eq!(fields[0].choices, ["recipient", "amount"]);
    assert_eq!(fields[3].choices, ["recipient", "amount"]);
}

#[test]
fn a_schemas_description_example_and_bounds_become_help_placeholder_and_bounds() {
    let schema = schema(json!({
        "properties": {
            "day": {"type": "string", "description": "The visit's day.", "examples": ["2026-03-12"]},
            "amount": {"type": "number", "minimum": 0.01, "maximum": 500, "examples": [25]},
            "code": {"type": "string", "minLength": 3, "maxLength": 3},
            "note": {"type": "string", "maxLength": 80}
        },
        "required": ["day", "amount", "code", "note"]
    }));
    let shown: Vec<_> = fields_of(&schema, &[])
        .into_iter()
        .map(|f| (f.name, f.help, f.placeholder, f.bounds))
        .collect();
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        shown,
        [
            ("day".into(), some("The visit's day."), some("2026-03-12"), None),
            ("amount".into(), None, some("25"), some("From 0.01 to 500")),
            ("code".into(), None, None, some("Exactly 3 characters")),
            ("note".into(), None, None, some("At most 80 characters")),
        ]
    );
}

#[test]
fn an_argument_chosen_from_a_row_keeps_only_the_persons_help() {
    let source = ArgumentSource {
        argument: "order_id".into(),
        table: "open_orders".into(),
        column: 0,
        column_name: "id".into(),
    };
    let said = format!("The order to pay. {}", source.agent_hint());
    let schema = schema(json!({
        "properties": {"order_id": {"type": "integer", "description": said}},
        "required": ["order_id"]
    }));
    let field = &fields_of(&schema, &[source])[0];
    assert_eq!(field.help.as_deref(), Some("The order to pay."));
    let from = field.from.as_ref().expect("chosen from a table");
    assert_eq!(
        (from.table.as_str(), from.table_title.as_str(), from.column),
        ("open_orders", "Open orders", 0)
    );
}

#[test]
fn typed_text_becomes_arguments_or_errors_per_field() {
    let schema = schema(json!({
        "properties": {
            "quantity": {"type": "integer"},
            "sku": {"type": "string"},
            "size": {"enum": ["S", "M"]},
            "gift": {"type": "boolean"},
            "note": {"type": "string"}
        },
        "required": ["quantity", "sku", "size"]
    }));
    let fields = fields_of(&schema, &[]);
    let problems = arguments(&fields, &typed(&[("quantity", "ten"), ("sku", "A"), ("size", "XL")]))
        .unwrap_err();
    assert_eq!(
        problems,
        [
            FieldError::new("quantity", "must be a whole number"),
            FieldError::new("size", "must be one of: S, M"),
        ]
    );
    let missing = arguments(&fields, &typed(&[("sku", "A"), ("size", "S")])).unwrap_err();
    assert_eq!(missing, [FieldError::new("quantity", "is required")]);
    let ok = arguments(&fields, &typed(&[("quantity", " 3 "), ("sku", "A"), ("size", "M")]));
    assert_eq!(
        Value::Object(ok.unwrap()),
        json!({"quantity": 3, "sku": "A", "size": "M", "gift": false})
    );
}

#[test]
fn a_secret_is_forgotten_once_sent_and_nothing_else_is() {
    let schema = schema(json!({
        "properties": {"pin": {"type": "string", "writeOnly": true}, "user": {"type": "string"}},
        "required": ["pin", "user"]
    }));
    let fields = fields_of(&schema, &[]);
    let mut typed = typed(&[("pin", "1234"), ("user", "ada")]);
    let sent = arguments(&fields, &typed).unwrap();
    assert_eq!(sent["pin"], "1234", "the secret reaches the call");
    forget_secrets(&fields, &mut typed);
    assert_eq!(typed.get("pin"), None);
    assert_eq!(typed.get("user").map(String::as_str), Some("ada"));
}

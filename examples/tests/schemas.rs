//! Schemas every host accepts (a Purview extension of §5.2): drives each
//! example through every window it has and checks every tool it lists, on
//! the default surface, for `$ref`/`$defs` in an inputSchema and for a
//! `format` JSON Schema does not define, anywhere in a tool. Ajv-based
//! clients (the TypeScript SDK, MCP Inspector, VS Code) warn on every call
//! about such formats; some providers mishandle references.

#[path = "../by_hand.rs"]
#[allow(dead_code)]
mod by_hand;
#[path = "../hello_windows.rs"]
#[allow(dead_code)]
mod hello_windows;
#[path = "../order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use std::collections::BTreeSet;

use purview::{App, settings::ToolSurface};
use serde_json::{Value, json};

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

/// Every problem in one schema: references, and non-standard formats.
fn problems(schema: &Value, references_allowed: bool, path: &str, found: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                let here = format!("{path}/{key}");
                if !references_allowed && matches!(key.as_str(), "$ref" | "$defs" | "definitions") {
                    found.push(format!("{here}: a reference"));
                }
                if key == "format"
                    && let Some(format) = value.as_str()
                    && !STANDARD_FORMATS.contains(&format)
                {
                    found.push(format!("{here}: format {format:?}"));
                }
                problems(value, references_allowed, &here, found);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                problems(item, references_allowed, &format!("{path}/{i}"), found);
            }
        }
        _ => {}
    }
}

/// Lints every tool the app lists now; returns the names seen.
fn lint(app: &App, seen: &mut BTreeSet<String>) {
    for tool in app.tools().expect("tools") {
        let mut found = Vec::new();
        problems(&Value::Object((*tool.input_schema).clone()), false, "inputSchema", &mut found);
        problems(&Value::Object((*tool.output_schema).clone()), true, "outputSchema", &mut found);
        assert!(found.is_empty(), "{} in {}: {found:#?}", tool.name, app.name());
        seen.insert(tool.name);
    }
}

/// Calls a tool and lints what is listed afterwards.
async fn step(app: &App, seen: &mut BTreeSet<String>, tool: &str, arguments: Value) -> Value {
    let outcome = app.call(tool, arguments.as_object().cloned()).outcome().await;
    assert!(!outcome.is_error, "{tool}: {}", outcome.structured);
    lint(app, seen);
    outcome.structured
}

fn opened(result: &Value) -> String {
    result["openedWindowIds"][0].as_str().expect("a window opened").to_owned()
}

#[tokio::test]
async fn order_desk_lists_only_self_contained_standard_schemas() {
    let app = order_desk::order_desk_app(ToolSurface::Both);
    let seen = &mut BTreeSet::new();
    lint(&app, seen);
    step(&app, seen, "w1__edit_field", json!({"field": "recipient", "value": "Ada"})).await;
    let dialog = opened(&step(&app, seen, "w1__submit", json!({})).await);
    let terms = opened(&step(&app, seen, &format!("{dialog}__show_terms"), json!({})).await);
    step(&app, seen, &format!("{terms}__close"), json!({})).await;
    step(&app, seen, &format!("{dialog}__cancel"), json!({})).await;
    step(&app, seen, "app__new_report", json!({})).await;
    let lock = opened(&step(&app, seen, "app__lock", json!({})).await);
    step(&app, seen, &format!("{lock}__unlock"), json!({"pin": order_desk::UNLOCK_PIN})).await;
    for tool in ["w1__submit", "w2__load_rows", "app__read_windows", "app__act"] {
        assert!(seen.contains(tool), "{tool} was never listed: {seen:?}");
    }
    assert!(
        seen.iter().any(|t| t.ends_with("__unlock"))
            && seen.iter().any(|t| t.ends_with("__show_terms"))
    );
}

async fn task_list_story(app: &App, seen: &mut BTreeSet<String>) {
    lint(app, seen);
    step(app, seen, "w1__complete", json!({"number": 1})).await;
    let dialog = opened(&step(app, seen, "w1__clear_done", json!({})).await);
    step(app, seen, &format!("{dialog}__cancel"), json!({})).await;
    step(app, seen, "app__new_tasks", json!({})).await;
    assert!(seen.iter().any(|t| t.ends_with("__confirm")), "the dialog was listed: {seen:?}");
}

#[tokio::test]
async fn hello_windows_lists_only_self_contained_standard_schemas() {
    let (app, _tasks) = hello_windows::app(ToolSurface::Both).expect("the app starts");
    task_list_story(&app, &mut BTreeSet::new()).await;
}

#[tokio::test]
async fn by_hand_lists_only_self_contained_standard_schemas() {
    let (app, _tasks) = by_hand::app(ToolSurface::Both).expect("the app starts");
    task_list_story(&app, &mut BTreeSet::new()).await;
}

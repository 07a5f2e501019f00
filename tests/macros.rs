//! The macros' generated artifacts: tool definitions and projections as
//! committed JSON snapshots, validated against JSON Schemas of the protocol
//! (tests/schemas) and exercised through real calls.
//!
//! Regenerate the snapshots after an intended change with
//! `UPDATE_SNAPSHOTS=1 cargo test -p purview-tests --test macros`.

use std::time::Duration;

use anyhow::{Result, ensure};
use purview::{App, Context, Row, Secret, ToolError, actions, projection::Media, window};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

const PASSWORD: &str = "correct-horse-battery";
const PIN: &str = "pin-7702";

#[derive(Clone, Row)]
struct Line {
    product: String,
    #[row(name = "Qty")]
    quantity: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum FieldName {
    Recipient,
    Amount,
    Password,
}

#[window(
    title = "Order Editor",
    summary = "Editing order #{order}: {missing} field(s) still to fill in"
)]
#[derive(Clone)]
struct OrderEditor {
    order: u32,
    missing: usize,
    #[block(text)]
    heading: String,
    #[block(field)]
    recipient: String,
    #[block(field)]
    amount: String,
    #[block(field, label = "Payment password", sensitive)]
    password: Secret<String>,
    #[block(table)]
    lines: Vec<Line>,
    #[block(list, ordered)]
    history: Vec<String>,
    #[block(notice = "error")]
    recipient_error: Option<String>,
    #[block(media)]
    preview: Option<Media>,
    #[block(custom)]
    extra: Value,
}

impl Default for OrderEditor {
    fn default() -> Self {
        let mut editor = Self {
            order: 12345,
            missing: 0,
            heading: "Editing order #12345".into(),
            recipient: String::new(),
            amount: "$100.00".into(),
            password: Secret::new(PASSWORD.into()),
            lines: vec![
                Line { product: "A".into(), quantity: 2 },
                Line { product: "B".into(), quantity: 1 },
            ],
            history: vec!["created".into()],
            recipient_error: None,
            preview: Some(
                Media::new("image/png", "data:image/png;base64,AA==").alt("An empty preview"),
            ),
            extra: json!({"channel": "web"}),
        };
        editor.revalidate();
        editor
    }
}

#[derive(Serialize, schemars::JsonSchema)]
struct Receipt {
    /// The order number.
    order: u32,
    /// The password, which leaves masked.
    password: Secret<String>,
}

#[actions]
impl OrderEditor {
    /// Change one field of the order.
    #[action(idempotent)]
    fn edit_field(
        &mut self,
        /// Which field to change.
        field: FieldName,
        /// The new value, as text.
        value: Secret<String>,
        cx: &mut Context,
    ) {
        match field {
            FieldName::Recipient => self.recipient = value.into_inner(),
            FieldName::Amount => match value.expose().trim_start_matches('$').parse::<f64>() {
                Ok(a) if a > 0.0 => self.amount = format!("${a:.2}"),
                _ => cx.invalid("value", "must be a positive amount of money, such as 12.50"),
            },
            FieldName::Password => self.password = value,
        }
        self.revalidate();
    }

    /// Set recipient and amount together.
    #[action]
    fn set_details(
        &mut self,
        /// Who receives the order.
        recipient: String,
        /// The amount in dollars.
        amount: f64,
        cx: &mut Context,
    ) {
        if recipient.is_empty() {
            cx.invalid("recipient", "cannot be empty");
        }
        if amount <= 0.0 {
            cx.invalid("amount", "must be greater than 0");
        }
        self.recipient = recipient;
        self.amount = format!("${amount:.2}");
        self.revalidate();
    }

    /// Submit the order; a confirmation dialog opens.
    #[action(destructive, available = has_recipient)]
    fn submit(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open_modal(Confirm)?;
        cx.message("Submitted; confirm in the dialog");
        Ok(())
    }

    /// Bring the editor to the front.
    #[action(read_only, idempotent)]
    fn focus(&self) {}

    /// A receipt for the order.
    #[action(read_only)]
    fn receipt(&self) -> Receipt {
        Receipt { order: self.order, password: self.password.clone() }
    }

    /// Check the PIN.
    #[action(read_only)]
    fn check_pin(
        &self,
        /// The PIN.
        pin: Secret<String>,
    ) -> Result<bool, ToolError> {
        if pin.expose() == PIN {
            Ok(true)
        } else {
            Err(ToolError::validation(vec![purview::model::FieldError::new("pin", "wrong PIN")]))
        }
    }

    /// Wait, asynchronously.
    #[action(timeout = "200ms")]
    async fn wait(
        &mut self,
        /// Milliseconds.
        millis: u64,
        /// An optional note.
        note: Option<String>,
    ) -> String {
        tokio::time::sleep(Duration::from_millis(millis)).await;
        note.unwrap_or_else(|| "waited".into())
    }

    fn has_recipient(&self) -> bool {
        !self.recipient.is_empty()
    }

    fn revalidate(&mut self) {
        self.missing = usize::from(self.recipient.is_empty());
        self.recipient_error =
            self.recipient.is_empty().then(|| "Recipient cannot be empty".to_owned());
    }
}

#[window(title = "Confirm submission", summary = "Asks to confirm the order")]
#[derive(Clone)]
struct Confirm;

#[actions]
impl Confirm {
    /// Close the dialog.
    #[action]
    fn cancel(&mut self, cx: &mut Context) {
        cx.close();
    }
}

#[window(title = "Report Details", summary = "A report of {total} rows")]
#[derive(Clone)]
struct Report {
    total: usize,
    #[block(table, limit = 5, columns = ["Row", "Region", "Revenue"])]
    rows: Vec<(u32, String, f64)>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Rows {
    rows: Vec<(u32, String, f64)>,
    total: usize,
}

#[actions]
impl Report {
    /// Fetch rows of the report.
    #[action(read_only, idempotent)]
    fn load_rows(
        &self,
        /// First row, from 0.
        offset: usize,
        /// At most 1000 rows.
        limit: usize,
        cx: &mut Context,
    ) -> Rows {
        if limit > 1000 {
            cx.invalid("limit", "at most 1000");
        }
        if offset >= self.rows.len() {
            cx.invalid("offset", format!("must be below {}", self.rows.len()));
        }
        let rows = self.rows.iter().skip(offset).take(limit).cloned().collect();
        Rows { rows, total: self.rows.len() }
    }
}

#[derive(Clone)]
struct Menu;

#[actions(app)]
impl Menu {
    /// Open another report.
    #[action]
    fn new_report(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open(report())?;
        Ok(())
    }
}

fn report() -> Report {
    let regions = ["North", "South", "East", "West"];
    let rows: Vec<(u32, String, f64)> = (0..10_000u32)
        .map(|i| (i + 1, regions[i as usize % 4].to_owned(), f64::from(i) * 1.5))
        .collect();
    Report { total: rows.len(), rows }
}

fn sample_app() -> Result<App> {
    let app = App::builder()
        .name("samples")
        .tool_surface(purview::settings::ToolSurface::Windows)
        .app_actions(Menu)
        .build();
    app.open(OrderEditor::default())?;
    app.open(report())?;
    Ok(app)
}

fn snapshot_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots").join(name)
}

/// Compares with the committed snapshot (or rewrites it on request).
fn assert_snapshot(name: &str, actual: &Value) -> Result<()> {
    let path = snapshot_path(name);
    let pretty = serde_json::to_string_pretty(actual)? + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, pretty)?;
        return Ok(());
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    assert!(
        &expected == actual,
        "{name} differs from the generated value; if the change is intended, run UPDATE_SNAPSHOTS=1 cargo test -p purview-tests --test macros\n--- generated:\n{pretty}"
    );
    Ok(())
}

/// A schema under tests/schemas, or the protocol's own app://windows schema
/// as the conformance kit ships it.
fn schema(name: &str) -> Result<jsonschema::Validator> {
    let text = if name == "app-windows.schema.json" {
        purview_conformance::APP_WINDOWS_SCHEMA.to_owned()
    } else {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas").join(name),
        )?
    };
    Ok(jsonschema::validator_for(&serde_json::from_str(&text)?)?)
}

fn assert_valid(validator: &jsonschema::Validator, value: &Value) {
    let errors: Vec<String> =
        validator.iter_errors(value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}\nin {value:#}");
}

#[test]
fn s4_2_generated_projection_matches_snapshot_and_protocol_schema() -> Result<()> {
    let app = sample_app()?;
    let snapshot: Value = serde_json::from_str(&app.snapshot_json()?)?;
    assert_valid(&schema("app-windows.schema.json")?, &snapshot);
    // The report shows 5 of 10,000 rows, truncated (Appendix B).
    let table = &snapshot["windows"][1]["blocks"][0];
    assert_eq!((table["offset"].as_u64(), table["total"].as_u64()), (Some(0), Some(10_000)));
    assert_eq!(table["rows"].as_array().map(Vec::len), Some(5));
    assert_snapshot("windows.json", &snapshot)
}

#[test]
fn s5_generated_tool_definitions_match_snapshot() -> Result<()> {
    let app = sample_app()?;
    let tools = serde_json::to_value(app.tools()?)?;
    for tool in tools.as_array().unwrap() {
        // Every schema a tool advertises is itself a valid JSON Schema.
        jsonschema::validator_for(&tool["inputSchema"])?;
        jsonschema::validator_for(&tool["outputSchema"])?;
    }
    assert_snapshot("tools.json", &tools)
}

#[test]
fn s5_5_generated_input_schemas_accept_valid_and_reject_invalid_arguments() -> Result<()> {
    let app = sample_app()?;
    let tools = app.tools()?;
    let input = |suffix: &str| -> Result<jsonschema::Validator> {
        let tool = tools.iter().find(|t| t.name.ends_with(suffix)).unwrap();
        Ok(jsonschema::validator_for(&Value::Object((*tool.input_schema).clone()))?)
    };
    let edit = input("__edit_field")?;
    assert!(edit.is_valid(&json!({"field": "recipient", "value": "Ada"})));
    assert!(edit.is_valid(&json!({"field": "amount", "value": "1", "expectedVersion": 3})));
    assert!(!edit.is_valid(&json!({"field": "colour", "value": "red"})), "enum");
    assert!(!edit.is_valid(&json!({"field": "recipient"})), "missing value");
    assert!(!edit.is_valid(&json!({"field": "recipient", "value": 5})), "type");
    assert!(!edit.is_valid(&json!({"field": "recipient", "value": "x", "expectedVersion": "3"})));
    let load = input("__load_rows")?;
    assert!(load.is_valid(&json!({"offset": 0, "limit": 10})));
    assert!(!load.is_valid(&json!({"offset": -1, "limit": 10})), "usize is non-negative");
    let wait = input("__wait")?;
    assert!(wait.is_valid(&json!({"millis": 5})), "optional note may be left out");
    assert!(wait.is_valid(&json!({"millis": 5, "note": null})));
    let new_report = tools.iter().find(|t| t.name == "app__new_report").unwrap();
    assert!(new_report.input_schema["properties"].get("expectedVersion").is_none());
    Ok(())
}

#[tokio::test]
async fn s12_3_generated_results_and_errors_fit_output_schemas() -> Result<()> {
    let app = sample_app()?;
    let outcome = schema("tool-outcome.schema.json")?;
    let output_of = |name: &str| -> Result<jsonschema::Validator> {
        let tools = app.tools()?;
        let tool =
            tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name} is not listed"));
        Ok(jsonschema::validator_for(&Value::Object((*tool.output_schema).clone()))?)
    };
    // Each call with the outcome it must have: `None` for success, or the
    // error code; successes and errors alike must fit both schemas.
    let calls = [
        ("w1__edit_field", json!({"field": "recipient", "value": "Ada"}), None),
        ("w2__load_rows", json!({"offset": 9_998, "limit": 5}), None),
        ("w2__load_rows", json!({"offset": 20_000, "limit": 5_000}), Some("validation_failed")),
        ("w1__receipt", json!({}), None),
        ("w1__wait", json!({"millis": 1}), None),
        ("w1__wait", json!({"millis": 1_000}), Some("action_timeout")),
        ("w1__check_pin", json!({"pin": PIN}), None),
        ("w1__check_pin", json!({"pin": "nope"}), Some("validation_failed")),
        ("w1__set_details", json!({"recipient": "", "amount": 0}), Some("validation_failed")),
        ("w1__focus", json!({"expectedVersion": 1}), Some("stale_state")),
        ("w1__submit", json!({}), None),
    ];
    for (tool, args, expected) in calls {
        let output = output_of(tool)?;
        let answer = app.call(tool, args.as_object().cloned()).outcome().await;
        let structured = answer.structured;
        let code = answer.is_error.then(|| structured["code"].as_str().unwrap_or("?"));
        assert_eq!(code, expected, "{tool} {args}: {structured}");
        assert_valid(&outcome, &structured);
        assert_valid(&output, &structured);
    }
    // A fresh app: the loop left w1 behind a modal.
    let app = sample_app()?;
    let rows = app
        .call("w2__load_rows", json!({"offset": 9_998, "limit": 5}).as_object().cloned())
        .await
        .unwrap();
    assert_eq!(rows.value.as_ref().unwrap()["total"], 10_000);
    assert_eq!(rows.value.as_ref().unwrap()["rows"].as_array().unwrap().len(), 2);
    let bad = app
        .call("w2__load_rows", json!({"offset": 20_000, "limit": 5_000}).as_object().cloned())
        .await
        .unwrap_err();
    let mut fields: Vec<String> = bad.fields.unwrap().into_iter().map(|f| f.field).collect();
    fields.sort();
    assert_eq!(fields, ["limit", "offset"]);
    let waited = app
        .call("w1__wait", json!({"millis": 1, "note": "done"}).as_object().cloned())
        .await
        .unwrap();
    assert_eq!(
        waited.value,
        Some(json!({"value": "done"})),
        "non-object results travel as {{\"value\": ..}}"
    );
    let timed_out =
        app.call("w1__wait", json!({"millis": 1_000}).as_object().cloned()).await.unwrap_err();
    assert_eq!(
        timed_out.code,
        purview::model::ErrorCode::ActionTimeout,
        "timeout = \"200ms\" applies"
    );
    Ok(())
}

#[tokio::test]
async fn s4_5_a_sensitive_field_cannot_leak_through_any_generated_path() -> Result<()> {
    let app = sample_app()?;
    let editor = app.window::<OrderEditor>("w1")?;
    let mut seen = String::new();
    // Projection.
    seen.push_str(&app.snapshot_json()?);
    // Debug of the secret inside the view-model.
    seen.push_str(&editor.read(|e| format!("{:?}", e.password))?);
    // Tool definitions.
    seen.push_str(&serde_json::to_string(&app.tools()?)?);
    // A result that carries the secret.
    let receipt = app.call("w1__receipt", None).outcome().await;
    ensure!(!receipt.is_error, "{}", receipt.structured);
    seen.push_str(&receipt.structured.to_string());
    // Errors about sensitive arguments, right type and wrong type.
    for args in
        [json!({"pin": "nope"}), json!({"pin": 7702}), json!({"field": "amount", "value": PIN})]
    {
        let tool = if args.get("pin").is_some() { "w1__check_pin" } else { "w1__edit_field" };
        let err = app.call(tool, args.as_object().cloned()).await.unwrap_err();
        seen.push_str(&serde_json::to_string(&err)?);
    }
    // Setting the password through an action, then reading everything again.
    app.call("w1__edit_field", json!({"field": "password", "value": PIN}).as_object().cloned())
        .await
        .map_err(anyhow::Error::msg)?;
    seen.push_str(&app.snapshot_json()?);
    assert!(seen.contains("••••••"), "the masked value is shown");
    for secret in [PASSWORD, PIN, "7702"] {
        assert!(!seen.contains(secret), "{secret} leaked:\n{seen}");
    }
    assert_eq!(editor.read(|e| e.password.expose().clone())?, PIN, "the secret itself is intact");
    Ok(())
}

#[tokio::test]
async fn s5_1_generated_availability_hook_hides_and_shows_submit() -> Result<()> {
    let app = sample_app()?;
    assert!(!app.tool_names()?.contains(&"w1__submit".to_owned()));
    app.call("w1__edit_field", json!({"field": "recipient", "value": "Ada"}).as_object().cloned())
        .await
        .map_err(anyhow::Error::msg)?;
    assert!(app.tool_names()?.contains(&"w1__submit".to_owned()));
    let out = app.call("w1__submit", None).await.map_err(anyhow::Error::msg)?;
    assert_eq!(out.opened_window_ids.len(), 1);
    assert_eq!(out.message.as_deref(), Some("Submitted; confirm in the dialog"));
    assert_eq!(app.operable_window_ids()?, [out.opened_window_ids[0].as_str(), "w2"]);
    Ok(())
}

/// A load action whose types fit but whose arguments are named otherwise:
/// the compiler checks positions and types, opening the window the names.
#[window(summary = "{count} lines")]
#[derive(Clone, Default)]
struct MisnamedLoader {
    count: usize,
    #[block(table, limit = 2, load = fetch, columns = ["Line"])]
    lines: Vec<(u32,)>,
}

#[actions]
impl MisnamedLoader {
    /// Fetch some lines.
    #[action(read_only)]
    fn fetch(&self, start: usize, count: usize) -> purview::projection::Page<(u32,)> {
        purview::projection::Page::slice(&self.lines, start, count)
    }
}

#[test]
fn s9_a_load_action_must_take_offset_and_limit_by_name() {
    let app = purview::App::builder().build();
    let error = app.open(MisnamedLoader::default()).expect_err("refused at open");
    let text = error.to_string();
    assert!(
        text.contains("`fetch`") && text.contains("offset") && text.contains("limit"),
        "{text}"
    );
    assert!(app.window_list().unwrap().is_empty(), "nothing opened");
}

#[tokio::test]
async fn s9_a_declared_page_travels_as_offset_total_and_rows_of_cells() -> Result<()> {
    let app = purview::App::builder().build();
    let lines: Vec<(u32,)> = (1..=5).map(|i| (i,)).collect();
    let log = app.open(PagedLog { count: lines.len(), lines })?;
    let tool = format!("{}__load_lines", log.id());
    let page = app.call(&tool, json!({"offset": 3, "limit": 10}).as_object().cloned()).await;
    let page = page.map_err(anyhow::Error::msg)?.value;
    assert_eq!(page, Some(json!({"offset": 3, "total": 5, "rows": [[4], [5]]})));
    let scene = app.scene()?;
    assert_eq!(scene.windows[0].paged_by, [("lines".to_owned(), "load_lines".to_owned())]);
    Ok(())
}

#[window(summary = "{count} lines")]
#[derive(Clone, Default)]
struct PagedLog {
    count: usize,
    #[block(table, limit = 2, load = load_lines, columns = ["Line"])]
    lines: Vec<(u32,)>,
}

#[actions]
impl PagedLog {
    /// Fetch a range of lines.
    #[action(read_only)]
    fn load_lines(&self, offset: usize, limit: usize) -> purview::projection::Page<(u32,)> {
        purview::projection::Page::slice(&self.lines, offset, limit)
    }
}

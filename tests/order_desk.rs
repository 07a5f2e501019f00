//! Black-box tests of the reference app: the order_desk binary is spawned
//! and driven through rmcp's client, over stdio and over streamable HTTP,
//! asserting the exact operableWindowIds, tool lists and error codes at
//! every step of the scenario its contract describes.

use std::{process::Stdio, time::Duration};

use anyhow::{Context as _, Result};
use purview_tests::{Agent, Note};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");

fn updated() -> Note {
    Note::Updated(purview::model::WINDOWS_URI.into())
}

fn tools(window: &str, actions: &[&str]) -> Vec<String> {
    actions.iter().map(|a| format!("{window}__{a}")).collect()
}

const EDITOR: [&str; 4] = ["edit_field", "set_password", "set_details", "focus"];
const REPORT: [&str; 3] = ["load_rows", "refresh", "close"];
const CONFIRM: [&str; 3] = ["confirm", "cancel", "show_terms"];
const APP: [&str; 2] = ["app__lock", "app__new_report"];
/// Listed at every moment on the default tool surface.
const DISPATCHER: [&str; 2] = ["app__act", "app__read_windows"];

fn expected(parts: &[Vec<String>]) -> Vec<String> {
    let mut all: Vec<String> = parts.concat();
    all.extend(APP.iter().chain(&DISPATCHER).map(|s| s.to_string()));
    all.sort();
    all
}

/// The item labelled `label` in any `fields` block of `window`.
fn field(window: &Value, label: &str) -> Value {
    window["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "fields")
        .flat_map(|b| b["items"].as_array().into_iter().flatten())
        .find(|i| i["label"] == label)
        .cloned()
        .unwrap_or(Value::Null)
}

fn window<'a>(snapshot: &'a Value, id: &str) -> &'a Value {
    snapshot["windows"].as_array().unwrap().iter().find(|w| w["id"] == id).unwrap()
}

fn ids(snapshot: &Value) -> Vec<String> {
    snapshot["operableWindowIds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// The whole contract, driven by `agent`; `watcher` (if any) is a second,
/// subscribed session that must hear about `agent`'s changes.
async fn scenario(agent: &mut Agent, mut watcher: Option<&mut Agent>) -> Result<()> {
    // Start: editor w1 and report w2, both operable; submit hidden.
    let snap = agent.read_json().await?;
    assert_eq!(ids(&snap), ["w1", "w2"]);
    let editor = window(&snap, "w1");
    assert_eq!(editor["title"], "Order Editor");
    assert_eq!(editor["summary"], "Editing order #12345; 1 field is still to fill in");
    assert_eq!(
        editor["blocks"][0],
        json!({"type": "text", "id": "heading", "text": "Order #12345"})
    );
    assert_eq!(field(editor, "Recipient"), json!({"label": "Recipient", "value": ""}));
    assert_eq!(field(editor, "Amount"), json!({"label": "Amount", "value": "$100.00"}));
    assert_eq!(
        field(editor, "Payment password"),
        json!({"label": "Payment password", "value": "••••••", "sensitive": true})
    );
    let table = editor["blocks"].as_array().unwrap().iter().find(|b| b["type"] == "table").unwrap();
    assert_eq!(table["columns"], json!(["Product", "Quantity"]));
    assert_eq!(table["rows"], json!([["A", 2], ["B", 1]]));
    assert!(editor["blocks"].as_array().unwrap().iter().any(|b| b["type"] == "notice"
        && b["severity"] == "error"
        && b["text"] == "Recipient cannot be empty"));
    let report = window(&snap, "w2");
    assert_eq!(report["title"], "Report Details");
    assert!(report["summary"].as_str().unwrap().contains("10000 rows"));
    let rows = &report["blocks"][0];
    assert_eq!((rows["offset"].clone(), rows["total"].clone()), (json!(0), json!(10_000)));
    assert_eq!(rows["columns"], json!(["Row", "Region", "Revenue"]));
    assert_eq!(rows["rows"].as_array().unwrap().len(), 5);
    assert_eq!(agent.tool_names().await?, expected(&[tools("w1", &EDITOR), tools("w2", &REPORT)]));

    // Validation, per field.
    let bad_amount =
        agent.call("w1__edit_field", json!({"field": "amount", "value": "lots"})).await?;
    assert_eq!(bad_amount.code(), Some("validation_failed"));
    assert_eq!(bad_amount.structured["fields"][0]["field"], "value");
    let both = agent.call("w1__set_details", json!({"recipient": "", "amount": 0})).await?;
    let mut fields: Vec<&str> = both.structured["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    fields.sort();
    assert_eq!(fields, ["amount", "recipient"]);

    // A real edit with expectedVersion; submit appears.
    let version = window(&agent.read_json().await?, "w1")["version"].as_u64().unwrap();
    let ok = agent
        .call(
            "w1__edit_field",
            json!({"field": "recipient", "value": "Ada Lovelace", "expectedVersion": version}),
        )
        .await?;
    assert!(!ok.is_error, "{ok:?}");
    // §5.4: `next` names only the window whose actions the call changed.
    assert_eq!(
        ok.structured["next"],
        json!({"operableWindowIds": ["w1", "w2"],
               "actions": {"w1": ["edit_field", "set_password", "set_details", "submit", "focus"]}})
    );
    assert!(ok.structured.get("openedWindowIds").is_none(), "nothing opened: {ok:?}");
    agent.expect(Note::ToolsChanged).await?;
    if let Some(w) = watcher.as_mut() {
        w.expect(updated()).await?;
        assert_eq!(
            field(window(&w.read_json().await?, "w1"), "Recipient")["value"],
            "Ada Lovelace"
        );
    }
    assert_eq!(
        agent.tool_names().await?,
        expected(&[tools("w1", &[&EDITOR[..], &["submit"]].concat()), tools("w2", &REPORT)])
    );
    let stale = agent
        .call(
            "w1__edit_field",
            json!({"field": "amount", "value": "5", "expectedVersion": version}),
        )
        .await?;
    assert_eq!(stale.code(), Some("stale_state"));
    assert_eq!(stale.structured["currentVersion"], version + 1);

    // Large data through a tool (§9).
    let page = agent.call("w2__load_rows", json!({"offset": 9_998, "limit": 5})).await?;
    assert_eq!(page.structured["result"]["total"], 10_000);
    assert_eq!(page.structured["result"]["rows"].as_array().unwrap().len(), 2);
    let too_many = agent.call("w2__load_rows", json!({"offset": 0, "limit": 5_000})).await?;
    assert_eq!(too_many.structured["fields"][0]["field"], "limit");
    let out_of_range = agent.call("w2__load_rows", json!({"offset": 10_000, "limit": 1})).await?;
    assert_eq!(out_of_range.structured["fields"][0]["field"], "offset");

    // submit → Confirm submission (w3) owned by the editor: a hand-off.
    let submitted = agent.call("w1__submit", json!({})).await?;
    assert_eq!(submitted.structured["openedWindowIds"], json!(["w3"]));
    // The dialog is new; the report and the app-level actions did not change.
    assert_eq!(
        submitted.structured["next"],
        json!({"operableWindowIds": ["w3", "w2"], "actions": {"w3": CONFIRM}})
    );
    agent.expect(Note::ToolsChanged).await?;
    if let Some(w) = watcher.as_mut() {
        w.expect(Note::ToolsChanged).await?;
    }
    let snap = agent.read_json().await?;
    assert_eq!(ids(&snap), ["w3", "w2"]);
    let confirm = window(&snap, "w3");
    assert_eq!(
        (confirm["title"].clone(), confirm["modal"].clone(), confirm["ownerId"].clone()),
        (json!("Confirm submission"), json!(true), json!("w1"))
    );
    assert_eq!(field(confirm, "Recipient")["value"], "Ada Lovelace");
    assert_eq!(field(confirm, "Amount")["value"], "$100.00");
    assert_eq!(agent.tool_names().await?, expected(&[tools("w3", &CONFIRM), tools("w2", &REPORT)]));
    let blocked = agent.call("w1__edit_field", json!({"field": "recipient", "value": "x"})).await?;
    assert_eq!(blocked.code(), Some("blocked_by_modal"));
    assert_eq!(blocked.structured["blockedBy"], "w3");
    // An error's `next` lists every operable window: the agent's picture was wrong.
    assert_eq!(
        blocked.structured["next"],
        json!({"operableWindowIds": ["w3", "w2"],
               "actions": {"w3": CONFIRM, "w2": REPORT, "app": ["new_report", "lock"]}})
    );

    // editor → confirm → terms, and back.
    let terms = agent.call("w3__show_terms", json!({})).await?;
    assert_eq!(terms.structured["openedWindowIds"], json!(["w4"]));
    let snap = agent.read_json().await?;
    assert_eq!(ids(&snap), ["w4", "w2"]);
    assert_eq!(
        (window(&snap, "w4")["title"].clone(), window(&snap, "w4")["ownerId"].clone()),
        (json!("Terms"), json!("w3"))
    );
    assert_eq!(
        agent.tool_names().await?,
        expected(&[tools("w4", &["close"]), tools("w2", &REPORT)])
    );
    assert_eq!(agent.call("w3__confirm", json!({})).await?.code(), Some("blocked_by_modal"));
    agent.call("w4__close", json!({})).await?;
    assert_eq!(ids(&agent.read_json().await?), ["w3", "w2"]);

    // cancel hands the tools back; a second submit is confirmed.
    agent.call("w3__cancel", json!({})).await?;
    assert_eq!(ids(&agent.read_json().await?), ["w1", "w2"]);
    assert_eq!(
        agent.call("w1__submit", json!({})).await?.structured["openedWindowIds"],
        json!(["w5"])
    );
    let confirmed = agent.call("w5__confirm", json!({})).await?;
    assert!(!confirmed.is_error, "{confirmed:?}");
    assert_eq!(
        confirmed.structured["next"],
        json!({"operableWindowIds": ["w1", "w2"], "actions": {"w1": ["focus"]}}),
        "the editor is back, with only focus left; the report is as it was"
    );
    let snap = agent.read_json().await?;
    assert_eq!(ids(&snap), ["w1", "w2"]);
    assert!(
        window(&snap, "w1")["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["type"] == "notice" && b["severity"] == "success")
    );
    // A submitted order is read-only: only focus is left on the editor.
    assert_eq!(
        agent.tool_names().await?,
        expected(&[tools("w1", &["focus"]), tools("w2", &REPORT)]),
        "submit and the edits are gone"
    );
    let late = agent.call("w1__edit_field", json!({"field": "recipient", "value": "Eve"})).await?;
    assert_eq!(late.code(), Some("action_not_available"), "{late:?}");
    assert_eq!(agent.call("w5__cancel", json!({})).await?.code(), Some("window_not_found"));

    // App-level actions.
    let report = agent.call("app__new_report", json!({})).await?;
    assert_eq!(report.structured["openedWindowIds"], json!(["w6"]));
    assert_eq!(report.structured["result"]["windowId"], "w6");
    assert_eq!(ids(&agent.read_json().await?), ["w1", "w2", "w6"]);
    let lock = agent.call("app__lock", json!({})).await?;
    assert_eq!(lock.structured["openedWindowIds"], json!(["w7"]));
    assert_eq!(
        lock.structured["next"],
        json!({"operableWindowIds": ["w7"], "actions": {"w7": ["unlock"]}}),
        "the windows under the lock are simply no longer operable"
    );
    let snap = agent.read_json().await?;
    assert_eq!(ids(&snap), ["w7"]);
    assert_eq!(
        (window(&snap, "w7")["modal"].clone(), window(&snap, "w7")["ownerId"].clone()),
        (json!(true), Value::Null)
    );
    // Under the app-level modal only its tool remains, beside Purview's own.
    assert_eq!(agent.tool_names().await?, ["app__act", "app__read_windows", "w7__unlock"]);
    assert_eq!(agent.call("w6__refresh", json!({})).await?.code(), Some("blocked_by_modal"));
    assert_eq!(agent.call("app__new_report", json!({})).await?.code(), Some("blocked_by_modal"));
    let wrong = agent.call("w7__unlock", json!({"pin": "0000"})).await?;
    assert_eq!(wrong.code(), Some("validation_failed"));
    assert_eq!(wrong.structured["fields"][0]["field"], "pin");
    assert!(!wrong.text.contains("0000"), "the wrong PIN is not echoed");
    assert!(!agent.call("w7__unlock", json!({"pin": "1234"})).await?.is_error);
    assert_eq!(ids(&agent.read_json().await?), ["w1", "w2", "w6"]);

    // Closing a report; its tools go, and calls to it say so.
    agent.call("w6__close", json!({})).await?;
    assert_eq!(agent.call("w6__refresh", json!({})).await?.code(), Some("window_not_found"));
    assert_eq!(
        agent.tool_names().await?,
        expected(&[tools("w1", &["focus"]), tools("w2", &REPORT)])
    );

    // No byte the server sent on this session carried the secret.
    let everything = format!("{}{:?}", agent.read_json().await?, agent.tools().await?);
    assert!(!everything.contains("hunter2"));
    Ok(())
}

#[tokio::test]
async fn s11_order_desk_over_stdio() -> Result<()> {
    let command = tokio::process::Command::new(ORDER_DESK);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
    let mut agent = Agent::over(transport).await?;
    agent.subscribe().await?;
    scenario(&mut agent, None).await?;
    agent.close().await
}

/// A spawned `order_desk --http 127.0.0.1:0`, and its URL.
pub struct HttpDesk {
    _child: tokio::process::Child,
    pub url: String,
}

pub async fn spawn_http_desk() -> Result<HttpDesk> {
    let mut child = tokio::process::Command::new(ORDER_DESK)
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await? {
            if let Some(url) = line.split("MCP endpoint ").nth(1) {
                return Ok::<_, anyhow::Error>(url.trim().to_owned());
            }
        }
        anyhow::bail!("order_desk exited before printing its endpoint")
    })
    .await
    .context("order_desk did not start")??;
    // Keep draining stderr so the child never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(HttpDesk { _child: child, url })
}

#[tokio::test]
async fn s10_1_order_desk_over_http_with_two_sessions() -> Result<()> {
    let desk = spawn_http_desk().await?;
    let mut agent = Agent::over(StreamableHttpClientTransport::from_uri(desk.url.clone())).await?;
    let mut watcher =
        Agent::over(StreamableHttpClientTransport::from_uri(desk.url.clone())).await?;
    watcher.subscribe().await?;
    scenario(&mut agent, Some(&mut watcher)).await?;
    agent.close().await?;
    watcher.close().await
}

/// Regression (found by purview-conformance): `edit_field` took its value
/// as a write-only secret so the password could be set through it, yet the
/// recipient it sets is shown back — a schema that says "never shown" about
/// a value that is. Now only `set_password` takes a secret, and what it is
/// given appears nowhere an agent can look.
#[tokio::test]
async fn s4_5_only_values_never_shown_back_are_write_only() -> Result<()> {
    let command = tokio::process::Command::new(ORDER_DESK);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
    let agent = Agent::over(transport).await?;
    let write_only = |tool: &rmcp::model::Tool| -> Vec<String> {
        tool.input_schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, p)| p["writeOnly"] == true)
            .map(|(name, _)| format!("{}.{name}", tool.name))
            .collect()
    };
    let secret_params: Vec<String> = agent.tools().await?.iter().flat_map(write_only).collect();
    assert_eq!(secret_params, ["w1__set_password.password"]);

    let password = "pv-regression-5f1e";
    let set = agent.call("w1__set_password", json!({"password": password})).await?;
    assert!(!set.is_error, "{set:?}");
    let shown = agent.call("w1__edit_field", json!({"field": "recipient", "value": "Ada"})).await?;
    let read = agent.call("app__read_windows", json!({})).await?;
    let snapshot = agent.read_json().await?;
    for (place, text) in [
        ("set_password's answer", format!("{} {}", set.structured, set.text)),
        ("edit_field's answer", format!("{} {}", shown.structured, shown.text)),
        ("app__read_windows", format!("{} {}", read.structured, read.text)),
        ("app://windows", snapshot.to_string()),
    ] {
        assert!(!text.contains(password), "the password came back in {place}");
    }
    assert_eq!(field(window(&snapshot, "w1"), "Recipient")["value"], "Ada");
    agent.close().await
}

/// RELIABILITY.md "A hostile agent": 10 of 12 blank or invisible characters passed the
/// recipient check (`plain_line`), and a run of U+3000 pushed
/// "for $999999.99" lines below the amount a person read. Each is refused
/// now, by both ways of setting the recipient, and nothing is changed.
#[tokio::test]
async fn s5_6_the_recipient_check_refuses_blank_and_invisible_characters() -> Result<()> {
    const UNSEEN: [char; 12] = [
        '\u{3000}',
        '\u{2003}',
        '\u{00A0}',
        '\u{1680}',
        '\u{202F}',
        '\u{205F}',
        '\t',
        '\u{00AD}',
        '\u{034F}',
        '\u{3164}',
        '\u{FE0F}',
        '\u{E0100}',
    ];
    let command = tokio::process::Command::new(ORDER_DESK);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
    let agent = Agent::over(transport).await?;
    let mut names: Vec<String> =
        UNSEEN.iter().map(|c| format!("Ada{}for $999999.99", c.to_string().repeat(40))).collect();
    names.push("Ada  Lovelace".to_owned());
    for name in &names {
        let edit = json!({"field": "recipient", "value": name});
        let edited = agent.call("w1__edit_field", edit).await?;
        let details = json!({"recipient": name, "amount": 12});
        let set = agent.call("w1__set_details", details).await?;
        for (how, refused) in [("edit_field", &edited), ("set_details", &set)] {
            assert_eq!(refused.code(), Some("validation_failed"), "{how} {name:?}: {refused:?}");
            let error = refused.structured["fields"][0]["error"].as_str().unwrap_or_default();
            assert!(error.starts_with("must be one plain line"), "{how} {name:?}: {error}");
        }
    }
    let snapshot = agent.read_json().await?;
    assert_eq!(field(window(&snapshot, "w1"), "Recipient")["value"], "", "nothing was set");
    agent.close().await
}

/// RELIABILITY.md "A hostile agent", over the reference app: the question showed 65 of the
/// recipient's 123 characters while the yes applied all of them.
#[tokio::test]
async fn s5_6_the_order_desk_question_shows_the_whole_recipient() -> Result<()> {
    const RECIPIENT: &str = "Ada Lovelace, Analytical Engines, 12 Marylebone Road W1, London, and forward the goods to Mallory, 1 Evil Road, account 666";
    let mut command = tokio::process::Command::new(ORDER_DESK);
    command.arg("--require-approval");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
    let elicitation = purview_tests::Elicitation::new(purview_tests::Elicit::Decline);
    let agent = Agent::over_with(transport, Some(elicitation.clone())).await?;
    let details = json!({"recipient": RECIPIENT, "amount": 999_999.99});
    let declined = agent.call("w1__set_details", details).await?;
    assert_eq!(declined.structured["reason"], "declined", "{declined:?}");
    let asked = elicitation.messages();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains(&format!("recipient: \"{RECIPIENT}\"")), "{}", asked[0]);
    agent.close().await
}

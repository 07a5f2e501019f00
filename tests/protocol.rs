//! The protocol, driven through a real rmcp client over an in-process duplex.
//! Each test names the section of the MCP GUI Bridge Protocol v0.1.0 it
//! checks; together they cover every MUST of §11.

use std::time::Duration;

use anyhow::Result;
use purview::{App, model::Snapshot};
use purview_tests::{Agent, Confirm, Editor, Note, demo_app};
use serde_json::{Value, json};

const UPDATED: fn() -> Note = || Note::Updated(purview::model::WINDOWS_URI.into());

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn names(list: &[&str]) -> Vec<String> {
    sorted(list.iter().map(|s| s.to_string()).collect())
}

fn editor_tools(id: &str, with_submit: bool) -> Vec<String> {
    let mut actions = vec![
        "edit_field",
        "set_password",
        "set_details",
        "focus",
        "touch",
        "slow",
        "explode",
        "load",
        "close",
        "reveal",
    ];
    if with_submit {
        actions.push("submit");
    }
    actions.into_iter().map(|a| format!("{id}__{a}")).collect()
}

fn confirm_tools(id: &str) -> Vec<String> {
    ["confirm", "cancel", "nest"].iter().map(|a| format!("{id}__{a}")).collect()
}

const APP_TOOLS: [&str; 2] = ["app__lock", "app__new_editor"];

fn window<'a>(snapshot: &'a Snapshot, id: &str) -> &'a purview::model::WindowState {
    snapshot
        .windows
        .iter()
        .find(|w| w.id == id)
        .unwrap_or_else(|| panic!("no window {id} in {snapshot:?}"))
}

fn expect_tools(mut expected: Vec<String>) -> Vec<String> {
    expected.extend(APP_TOOLS.iter().map(|s| s.to_string()));
    sorted(expected)
}

// §3 ---------------------------------------------------------------------

#[tokio::test]
async fn s3_initialize_declares_resource_subscribe_and_tool_list_changed() -> Result<()> {
    let app = demo_app();
    let agent = Agent::legacy(&app).await?;
    let info = agent.client.peer_info().expect("initialize result");
    let caps = &info.capabilities;
    assert_eq!(caps.resources.as_ref().and_then(|r| r.subscribe), Some(true));
    assert_eq!(caps.tools.as_ref().and_then(|t| t.list_changed), Some(true));
    assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("purview-test-app"));
    Ok(())
}

#[tokio::test]
async fn s8_1_instructions_cover_every_recommended_point_plus_app_notes() -> Result<()> {
    let app = demo_app();
    let agent = Agent::legacy(&app).await?;
    let text = agent.client.peer_info().and_then(|i| i.instructions.clone()).expect("instructions");
    for point in [
        "app://windows",        // the single resource
        "operableWindowIds",    // sole authority on operability
        "ownerId",              // topology
        "summary",              // read the summary first
        "blocks",               //
        "{windowId}__{action}", // naming
        "only what can be called now",
        "focus",                    // focus-style action first
        "read app://windows again", // re-read on notifications
        "expectedVersion",          // concurrent writes
        "stale_state",
        "isError", // failures
        "validation_failed",
        "Big data",      // large data through tools
        "Test fixture.", // the app's own appendix
    ] {
        assert!(text.contains(point), "instructions lack {point:?}:\n{text}");
    }
    Ok(())
}

// §4 / §12.1 / §12.2 -----------------------------------------------------

#[tokio::test]
async fn s12_1_resources_list_holds_exactly_app_windows() -> Result<()> {
    let app = demo_app();
    let agent = Agent::legacy(&app).await?;
    let resources = agent.client.list_all_resources().await?;
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0].uri, "app://windows");
    assert_eq!(resources[0].mime_type.as_deref(), Some("application/json"));
    Ok(())
}

#[tokio::test]
async fn s12_2_read_returns_one_json_text_with_every_window_inlined() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    let raw = agent.read_json().await?;
    assert_eq!(raw["operableWindowIds"], json!([editor.id()]));
    let w = &raw["windows"][0];
    // Every required field of §4.2 is present, ownerId even when null.
    for key in ["id", "title", "modal", "ownerId", "version", "summary", "blocks"] {
        assert!(w.get(key).is_some(), "window lacks {key}: {w}");
    }
    assert_eq!(w["ownerId"], Value::Null);
    assert_eq!(w["modal"], false);
    assert_eq!(w["title"], "Order Editor");
    assert!(w["version"].is_u64());
    let blocks = w["blocks"].as_array().unwrap();
    let types: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text", "fields", "table", "notice"]);
    assert_eq!(blocks[1]["items"][0], json!({"label": "Recipient", "value": ""}));
    assert_eq!(blocks[2]["rows"], json!([["A", 2], ["B", 1]]));
    assert_eq!(
        blocks[3],
        json!({"type": "notice", "id": "recipient_error", "severity": "error", "text": "Recipient cannot be empty"})
    );
    Ok(())
}

#[tokio::test]
async fn s12_2_unknown_resource_uri_is_an_error() -> Result<()> {
    let app = demo_app();
    let agent = Agent::legacy(&app).await?;
    let err = agent
        .client
        .read_resource(rmcp::model::ReadResourceRequestParams::new("app://nothing"))
        .await
        .expect_err("unknown resource");
    assert!(err.to_string().contains("app://windows"), "{err}");
    Ok(())
}

#[test]
fn s4_4_every_primitive_serializes_to_its_wire_shape() {
    use purview::model::{Block, FieldItem, Severity};
    let cases = [
        (Block::text("b1", "Hi"), json!({"type": "text", "id": "b1", "text": "Hi"})),
        (
            Block::fields(
                "b2",
                [FieldItem::new("Amount", "$1"), FieldItem::sensitive("PIN", true)],
            ),
            json!({"type": "fields", "id": "b2", "items": [{"label": "Amount", "value": "$1"}, {"label": "PIN", "value": "••••••", "sensitive": true}]}),
        ),
        (
            Block::table("b3", ["P", "Q"], vec![vec!["A".into(), 2.into()]]),
            json!({"type": "table", "id": "b3", "columns": ["P", "Q"], "rows": [["A", 2]]}),
        ),
        (
            Block::table("b3", ["P"], vec![vec![1.into()]]).truncated(5, 100),
            json!({"type": "table", "id": "b3", "columns": ["P"], "rows": [[1]], "offset": 5, "total": 100}),
        ),
        (
            Block::list("b4", vec!["x".into()], true),
            json!({"type": "list", "id": "b4", "items": ["x"], "ordered": true}),
        ),
        (
            Block::list("b4", vec!["x".into()], false).truncated(0, 9),
            json!({"type": "list", "id": "b4", "items": ["x"], "offset": 0, "total": 9}),
        ),
        (
            Block::notice("b5", Severity::Warn, "Careful"),
            json!({"type": "notice", "id": "b5", "severity": "warn", "text": "Careful"}),
        ),
        (
            Block::media("b6", "image/png", "data:image/png;base64,AA==", Some("a dot".into())),
            json!({"type": "media", "id": "b6", "mimeType": "image/png", "url": "data:image/png;base64,AA==", "alt": "a dot"}),
        ),
        (
            Block::custom("b7", json!({"k": 1})),
            json!({"type": "custom", "id": "b7", "payload": {"k": 1}}),
        ),
    ];
    for (block, want) in cases {
        assert_eq!(serde_json::to_value(&block).unwrap(), want);
        let back: Block = serde_json::from_value(want).unwrap();
        assert_eq!(back, block);
    }
}

// §2 / §5.1 / §10.2: operability and the tools/list hand-off ---------------

#[tokio::test]
async fn s5_1_modal_chain_hands_tools_over_and_back_leaving_unrelated_windows() -> Result<()> {
    let app = demo_app();
    let a = app.open(Editor::default())?;
    let b = app.open(Editor { recipient: "Ada".into(), ..Editor::default() })?;
    let c = app.open(Editor::default())?;
    let mut agent = Agent::legacy(&app).await?;
    let all_three = expect_tools(
        [editor_tools(a.id(), false), editor_tools(b.id(), true), editor_tools(c.id(), false)]
            .concat(),
    );
    assert_eq!(agent.tool_names().await?, all_three);

    // B → D1
    let out = agent.call(&format!("{}__submit", b.id()), json!({})).await?;
    let d1 = out.structured["openedWindowIds"][0].as_str().unwrap().to_owned();
    agent.expect(Note::ToolsChanged).await?;
    let snap = agent.read().await?;
    assert_eq!(snap.operable_window_ids, [a.id(), d1.as_str(), c.id()]);
    assert_eq!(window(&snap, &d1).owner_id.as_deref(), Some(b.id()));
    assert!(window(&snap, &d1).modal);
    assert_eq!(
        agent.tool_names().await?,
        expect_tools(
            [editor_tools(a.id(), false), confirm_tools(&d1), editor_tools(c.id(), false)].concat()
        )
    );

    // B → D1 → D2: only the tail is operable; D1 is blocked too.
    let out = agent.call(&format!("{d1}__nest"), json!({})).await?;
    let d2 = out.structured["openedWindowIds"][0].as_str().unwrap().to_owned();
    let snap = agent.read().await?;
    assert_eq!(snap.operable_window_ids, [a.id(), d2.as_str(), c.id()]);
    assert_eq!(window(&snap, &d2).owner_id.as_deref(), Some(d1.as_str()));
    assert_eq!(
        agent.tool_names().await?,
        expect_tools(
            [editor_tools(a.id(), false), confirm_tools(&d2), editor_tools(c.id(), false)].concat()
        )
    );

    // Closing D2 hands the top back to D1, then closing D1 back to B.
    agent.call(&format!("{d2}__cancel"), json!({})).await?;
    assert_eq!(agent.read().await?.operable_window_ids, [a.id(), d1.as_str(), c.id()]);
    agent.call(&format!("{d1}__cancel"), json!({})).await?;
    assert_eq!(agent.read().await?.operable_window_ids, [a.id(), b.id(), c.id()]);
    assert_eq!(agent.tool_names().await?, all_three);
    Ok(())
}

#[tokio::test]
async fn s10_2_app_modal_collapses_operability_and_withdraws_app_tools() -> Result<()> {
    let app = demo_app();
    let a = app.open(Editor::default())?;
    let mut agent = Agent::legacy(&app).await?;
    let out = agent.call("app__lock", json!({})).await?;
    assert!(!out.is_error, "{out:?}");
    let locked = out.structured["openedWindowIds"][0].as_str().unwrap().to_owned();
    agent.expect(Note::ToolsChanged).await?;
    let snap = agent.read().await?;
    assert_eq!(snap.operable_window_ids, [locked.as_str()]);
    let w = window(&snap, &locked);
    assert!(w.modal && w.owner_id.is_none(), "app-level modal is modal:true + ownerId:null");
    assert_eq!(agent.tool_names().await?, [format!("{locked}__unlock")]);

    // Stale calls to what was listed before are rejected at run time.
    let blocked = agent.call(&format!("{}__focus", a.id()), json!({})).await?;
    assert_eq!(blocked.code(), Some("blocked_by_modal"));
    assert_eq!(blocked.structured["blockedBy"], locked.as_str());
    let app_blocked = agent.call("app__new_editor", json!({})).await?;
    assert_eq!(app_blocked.code(), Some("blocked_by_modal"));

    // Nested app modal: the newest one is the top.
    let second = app.open_app_modal(purview_tests::Locked)?;
    assert_eq!(agent.read().await?.operable_window_ids, [second.id()]);
    second.close()?;

    let wrong = agent.call(&format!("{locked}__unlock"), json!({"pin": "0000"})).await?;
    assert_eq!(wrong.code(), Some("validation_failed"));
    assert_eq!(wrong.structured["fields"][0]["field"], "pin");
    let ok = agent
        .call(&format!("{locked}__unlock"), json!({"pin": purview_tests::windows::PIN}))
        .await?;
    assert!(!ok.is_error);
    assert_eq!(agent.read().await?.operable_window_ids, [a.id()]);
    assert_eq!(agent.tool_names().await?, expect_tools(editor_tools(a.id(), false)));
    Ok(())
}

#[tokio::test]
async fn s12_5_no_windows_means_empty_operable_set_and_only_app_tools() -> Result<()> {
    let app = demo_app();
    let agent = Agent::legacy(&app).await?;
    let snap = agent.read().await?;
    assert!(snap.operable_window_ids.is_empty() && snap.windows.is_empty());
    assert_eq!(agent.tool_names().await?, names(&APP_TOOLS));
    Ok(())
}

#[tokio::test]
async fn s2_closing_a_window_closes_the_modals_stacked_on_it() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let d1 = editor.open_modal(Confirm { depth: 1 })?;
    // A second modal on the same owner stacks on the chain's top.
    let d2 = editor.open_modal(Confirm { depth: 2 })?;
    let snap = app.snapshot()?;
    assert_eq!(window(&snap, d2.id()).owner_id.as_deref(), Some(d1.id()));
    assert_eq!(snap.operable_window_ids, [d2.id()]);
    editor.close()?;
    assert!(app.snapshot()?.windows.is_empty());
    assert!(!d1.is_open()? && !d2.is_open()?);
    Ok(())
}

// §5 tools ------------------------------------------------------------------

#[tokio::test]
async fn s5_2_tool_names_are_name_safe_and_titles_name_the_window() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor { recipient: "Ada".into(), ..Editor::default() })?;
    let agent = Agent::legacy(&app).await?;
    for tool in agent.tools().await? {
        let name = tool.name.to_string();
        assert!(name.len() <= purview::naming::MAX_TOOL_NAME_LEN, "{name}");
        let (win, action) = name.split_once("__").expect("{winId}__{action}");
        assert!(
            win.chars().next().unwrap().is_ascii_alphabetic()
                && win.chars().all(|c| c.is_ascii_alphanumeric()),
            "{name}"
        );
        assert!(action.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{name}");
        let title = tool.title.clone().expect("title");
        let description = tool.description.clone().expect("description").to_string();
        if win != "app" {
            assert_eq!(win, editor.id());
            assert!(title.contains("Order Editor") && title.contains(editor.id()), "{title}");
            assert!(description.contains("Order Editor"), "{description}");
        }
    }
    Ok(())
}

#[tokio::test]
async fn s5_5_input_schema_offers_optional_expected_version() -> Result<()> {
    let app = demo_app();
    app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    for tool in agent.tools().await? {
        let schema = &tool.input_schema;
        assert_eq!(schema["type"], "object");
        assert!(!schema.contains_key("$schema"), "no $schema key: some clients reject it");
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert!(!required.contains(&"expectedVersion"));
        // Window operations that write take it; app-level ones and those
        // that change nothing (readOnlyHint) do not.
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
        let has_version = schema["properties"].get("expectedVersion").is_some();
        let writes_in_a_window = !tool.name.starts_with("app__") && !read_only;
        assert_eq!(has_version, writes_in_a_window, "{}", tool.name);
    }
    let edit =
        agent.tools().await?.into_iter().find(|t| t.name.ends_with("__set_details")).unwrap();
    assert_eq!(
        edit.input_schema["properties"]["recipient"]["description"],
        "Who receives the order."
    );
    Ok(())
}

#[tokio::test]
async fn s12_3_every_tool_declares_an_output_schema_of_tool_result_shape() -> Result<()> {
    let app = demo_app();
    app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    for tool in agent.tools().await? {
        let out = tool
            .output_schema
            .clone()
            .unwrap_or_else(|| panic!("{} has no outputSchema", tool.name));
        assert_eq!(out["type"], "object");
        assert_eq!(out["properties"]["message"]["type"], "string");
        assert_eq!(out["properties"]["openedWindowIds"]["items"]["type"], "string");
    }
    let load = agent.tools().await?.into_iter().find(|t| t.name.ends_with("__load")).unwrap();
    let result = &load.output_schema.unwrap()["properties"]["result"];
    assert_eq!(result["properties"]["rows"]["type"], "array");
    Ok(())
}

#[tokio::test]
async fn s5_5_an_expected_version_that_is_no_version_is_refused_by_name() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    let tool = format!("{}__edit_field", editor.id());
    for bad in [json!(-1), json!("3"), json!(1.5)] {
        let args = json!({"field": "recipient", "value": "Ada", "expectedVersion": bad});
        let out = agent.call(&tool, args).await?;
        assert!(out.is_error, "{bad}: {out:?}");
        assert_eq!(out.structured["code"], "validation_failed");
        assert_eq!(out.structured["fields"][0]["field"], "expectedVersion", "{out:?}");
    }
    assert_eq!(editor.read(|e| e.recipient.clone())?, "", "nothing applied");
    Ok(())
}

#[tokio::test]
async fn s5_6_annotations_mark_destructive_idempotent_and_read_only() -> Result<()> {
    let app = demo_app();
    app.open(Editor { recipient: "Ada".into(), ..Editor::default() })?;
    let agent = Agent::legacy(&app).await?;
    let tools = agent.tools().await?;
    let find = |suffix: &str| {
        tools.iter().find(|t| t.name.ends_with(suffix)).unwrap().annotations.clone().unwrap()
    };
    assert_eq!(find("__submit").destructive_hint, Some(true));
    assert_eq!(find("__edit_field").idempotent_hint, Some(true));
    assert_eq!(find("__edit_field").destructive_hint, Some(false));
    assert_eq!(find("__load").read_only_hint, Some(true));
    assert_eq!(find("__touch").read_only_hint, Some(false));
    Ok(())
}

#[tokio::test]
async fn s5_1_hidden_actions_vanish_and_list_changed_fires_only_on_real_change() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let mut agent = Agent::legacy(&app).await?;
    agent.subscribe().await?;
    let submit = format!("{}__submit", editor.id());
    assert!(!agent.tool_names().await?.contains(&submit), "submit hidden while recipient is empty");

    // Filling the recipient makes submit available: list_changed.
    agent
        .call(
            &format!("{}__edit_field", editor.id()),
            json!({"field": "recipient", "value": "Ada"}),
        )
        .await?;
    agent.expect(Note::ToolsChanged).await?;
    assert!(agent.tool_names().await?.contains(&submit));

    // An edit that leaves the tool set alone: resources/updated only.
    agent.drain().await;
    editor.update(|e| e.amount = 5.0)?;
    let notes = agent.drain().await;
    assert!(notes.contains(&UPDATED()), "{notes:?}");
    assert!(!notes.contains(&Note::ToolsChanged), "{notes:?}");

    // set_available(false) hides it regardless of the hook.
    editor.set_available("submit", false)?;
    agent.expect(Note::ToolsChanged).await?;
    assert!(!agent.tool_names().await?.contains(&submit));
    let hidden = agent.call(&submit, json!({})).await?;
    assert_eq!(hidden.code(), Some("action_not_available"));
    Ok(())
}

// §5.4 results ------------------------------------------------------------------

#[tokio::test]
async fn s5_4_success_returns_tool_result_with_text_mirror_and_opened_ids() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor { recipient: "Ada".into(), ..Editor::default() })?;
    let agent = Agent::legacy(&app).await?;
    let out = agent.call(&format!("{}__submit", editor.id()), json!({})).await?;
    assert!(!out.is_error);
    assert!(out.structured.get("ok").is_none(), "no ok flag");
    let opened = out.structured["openedWindowIds"].as_array().unwrap();
    assert_eq!(opened.len(), 1);
    let dialog = opened[0].as_str().unwrap();
    assert!(out.structured["message"].as_str().unwrap().contains(dialog));
    let mirrored: Value = serde_json::from_str(&out.text)?;
    assert_eq!(mirrored, out.structured, "content mirrors structuredContent");
    let snap = agent.read().await?;
    assert_eq!(window(&snap, dialog).owner_id.as_deref(), Some(editor.id()));

    let app_out = agent.call("app__new_editor", json!({})).await?;
    let new_id = app_out.structured["openedWindowIds"][0].as_str().unwrap();
    assert!(agent.read().await?.operable_window_ids.iter().any(|id| id == new_id));

    let load = agent.call(&format!("{new_id}__load"), json!({"offset": 3, "limit": 2})).await?;
    assert!(!load.is_error, "{load:?}");
    assert_eq!(load.structured["result"], json!({"rows": [3, 4], "total": 256}));
    assert!(load.structured.get("openedWindowIds").is_none(), "opened nothing: {load:?}");
    Ok(())
}

// §7 consistency and errors ------------------------------------------------------

#[tokio::test]
async fn s7_1_stale_state_carries_current_version_and_changes_nothing() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    let version = window(&agent.read().await?, editor.id()).version;
    editor.update(|e| e.recipient = "typed by the person".into())?;
    let current = editor.version()?;
    assert_eq!(current, version + 1);

    let tool = format!("{}__edit_field", editor.id());
    let stale = agent
        .call(&tool, json!({"field": "recipient", "value": "agent", "expectedVersion": version}))
        .await?;
    assert_eq!(stale.code(), Some("stale_state"));
    assert_eq!(stale.structured["currentVersion"], current);
    let message = stale.structured["message"].as_str().unwrap();
    assert!(message.contains("app://windows"), "{message}");
    assert!(message.contains(&format!("expectedVersion {current}")), "{message}");
    assert_eq!(editor.read(|e| e.recipient.clone())?, "typed by the person");

    let fresh = agent
        .call(&tool, json!({"field": "recipient", "value": "agent", "expectedVersion": current}))
        .await?;
    assert!(!fresh.is_error, "{fresh:?}");
    assert_eq!(editor.read(|e| e.recipient.clone())?, "agent");
    Ok(())
}

#[tokio::test]
async fn s7_1_a_person_editing_during_an_agent_call_wins() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    let tool = format!("{}__slow", editor.id());
    let call = tokio::spawn(async move { agent.call(&tool, json!({"millis": 150})).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    editor.update(|e| e.recipient = "the person's text".into())?;
    let out = call.await??;
    assert_eq!(out.code(), Some("stale_state"), "{out:?}");
    assert_eq!(out.structured["currentVersion"], editor.version()?);
    assert_eq!(editor.read(|e| e.recipient.clone())?, "the person's text");
    Ok(())
}

#[tokio::test]
async fn s7_1_versions_move_only_when_the_projection_changes() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let mut agent = Agent::legacy(&app).await?;
    agent.subscribe().await?;
    let v0 = editor.version()?;
    let touch = agent.call(&format!("{}__touch", editor.id()), json!({})).await?;
    assert!(!touch.is_error);
    assert_eq!(editor.read(|e| e.hidden_counter)?, 1, "the write happened");
    assert_eq!(editor.version()?, v0, "but nothing visible changed");
    editor.update(|e| e.recipient = String::new())?; // same value
    assert_eq!(editor.version()?, v0);
    assert!(agent.drain().await.is_empty(), "no notification for an invisible change");
    editor.update(|e| e.amount = 7.0)?;
    assert_eq!(editor.version()?, v0 + 1);
    Ok(())
}

#[tokio::test]
async fn s7_2_blocked_window_calls_are_rejected_naming_the_window_on_top() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor { recipient: "Ada".into(), ..Editor::default() })?;
    let agent = Agent::legacy(&app).await?;
    let out = agent.call(&format!("{}__submit", editor.id()), json!({})).await?;
    let dialog = out.structured["openedWindowIds"][0].as_str().unwrap().to_owned();
    let blocked = agent
        .call(&format!("{}__edit_field", editor.id()), json!({"field": "recipient", "value": "x"}))
        .await?;
    assert_eq!(blocked.code(), Some("blocked_by_modal"));
    assert_eq!(blocked.structured["blockedBy"], dialog.as_str());
    assert!(blocked.structured["message"].as_str().unwrap().contains(&dialog));
    assert_eq!(editor.read(|e| e.recipient.clone())?, "Ada");
    Ok(())
}

#[tokio::test]
async fn s7_4_window_not_found_and_action_not_available() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    let unknown = agent.call(&format!("{}__fly", editor.id()), json!({})).await?;
    assert_eq!(unknown.code(), Some("action_not_available"));
    assert!(
        unknown.structured["message"].as_str().unwrap().contains("edit_field"),
        "lists the real actions"
    );
    let hidden = agent.call(&format!("{}__submit", editor.id()), json!({})).await?;
    assert_eq!(hidden.code(), Some("action_not_available"));
    let closed = agent.call(&format!("{}__close", editor.id()), json!({})).await?;
    assert!(!closed.is_error);
    let gone = agent.call(&format!("{}__focus", editor.id()), json!({})).await?;
    assert_eq!(gone.code(), Some("window_not_found"));
    let never = agent.call("w999__focus", json!({})).await?;
    assert_eq!(never.code(), Some("window_not_found"));
    let malformed = agent.call("focus", json!({})).await?;
    assert_eq!(malformed.code(), Some("action_not_available"));
    Ok(())
}

#[tokio::test]
async fn s7_3_validation_failed_names_every_bad_argument() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    let tool = format!("{}__set_details", editor.id());
    let fields = |out: &purview_tests::agent::Outcome| -> Vec<String> {
        let mut f: Vec<String> = out.structured["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap().to_owned())
            .collect();
        f.sort();
        f
    };
    // Raised by the handler: both checks at once.
    let both = agent.call(&tool, json!({"recipient": "", "amount": 0})).await?;
    assert_eq!(both.code(), Some("validation_failed"));
    assert_eq!(fields(&both), ["amount", "recipient"]);
    assert!(both.structured["message"].as_str().unwrap().contains("2 arguments"));
    // Wrong types, missing, unknown: decoded before the handler.
    let types = agent.call(&tool, json!({"recipient": 5, "amount": "lots"})).await?;
    assert_eq!(fields(&types), ["amount", "recipient"]);
    let missing = agent.call(&tool, json!({})).await?;
    assert_eq!(fields(&missing), ["amount", "recipient"]);
    let unknown =
        agent.call(&tool, json!({"recipient": "Ada", "amount": 1, "colour": "red"})).await?;
    assert_eq!(fields(&unknown), ["colour"]);
    let range =
        agent.call(&format!("{}__load", editor.id()), json!({"offset": 300, "limit": -1})).await?;
    assert_eq!(fields(&range), ["limit", "offset"]);
    let version =
        agent.call(&tool, json!({"recipient": "Ada", "amount": 1, "expectedVersion": "x"})).await?;
    assert_eq!(fields(&version), ["expectedVersion"]);
    // None of it touched the window.
    assert_eq!(editor.read(|e| (e.recipient.clone(), e.amount))?, (String::new(), 100.0));
    Ok(())
}

#[tokio::test]
async fn s7_4_timeout_abandons_the_action_without_effect() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    let v = editor.version()?;
    let out = agent.call(&format!("{}__slow", editor.id()), json!({"millis": 5_000})).await?;
    assert_eq!(out.code(), Some("action_timeout"));
    assert_eq!(editor.read(|e| e.recipient.clone())?, "", "the half-done edit was discarded");
    assert_eq!(editor.version()?, v);
    Ok(())
}

#[tokio::test]
async fn s7_2_a_panicking_handler_fails_cleanly_and_the_server_lives_on() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;
    let v = editor.version()?;
    let out = agent.call(&format!("{}__explode", editor.id()), json!({})).await?;
    assert_eq!(out.code(), Some("action_failed"));
    assert!(out.structured["message"].as_str().unwrap().contains("nothing was changed"));
    assert_eq!(editor.read(|e| e.recipient.clone())?, "");
    assert_eq!(editor.version()?, v);
    let next = agent.call(&format!("{}__focus", editor.id()), json!({})).await?;
    assert!(!next.is_error, "the server still answers");
    Ok(())
}

// §6 / §8.3 / §10.1 notifications and serialization -------------------------------

#[tokio::test]
async fn s6_resource_update_arrives_after_the_state_took_effect() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let mut watcher = Agent::legacy(&app).await?;
    watcher.subscribe().await?;
    let actor = Agent::legacy(&app).await?;
    actor
        .call(
            &format!("{}__edit_field", editor.id()),
            json!({"field": "recipient", "value": "Grace"}),
        )
        .await?;
    watcher.expect(UPDATED()).await?;
    let snap = watcher.read().await?;
    let fields = &serde_json::to_value(&window(&snap, editor.id()).blocks)?[1]["items"][0];
    assert_eq!(fields["value"], "Grace");
    Ok(())
}

#[tokio::test]
async fn s10_1_notifications_reach_every_session_of_both_generations() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor { recipient: "Ada".into(), ..Editor::default() })?;
    let mut subscribed = Agent::legacy(&app).await?;
    subscribed.subscribe().await?;
    let mut unsubscribed = Agent::legacy(&app).await?;
    let mut modern = Agent::modern(&app).await?;
    // A person's edit, outside any request.
    editor.update(|e| e.amount = 42.0)?;
    subscribed.expect(UPDATED()).await?;
    modern.expect(UPDATED()).await?;
    // A modal opened by the person changes the tool set: everyone hears it.
    let dialog = editor.open_modal(Confirm { depth: 1 })?;
    subscribed.expect(Note::ToolsChanged).await?;
    unsubscribed.expect(Note::ToolsChanged).await?;
    modern.expect(Note::ToolsChanged).await?;
    assert!(
        !unsubscribed.drain().await.contains(&UPDATED()),
        "resources/updated goes only to sessions subscribed to app://windows"
    );
    // The modern session reads the same state.
    assert_eq!(modern.read().await?.operable_window_ids, [dialog.id()]);
    assert_eq!(modern.tool_names().await?, expect_tools(confirm_tools(dialog.id())));
    Ok(())
}

#[tokio::test]
async fn s6_a_burst_of_edits_is_coalesced() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let mut agent = Agent::legacy(&app).await?;
    agent.subscribe().await?;
    for i in 0..10_000 {
        editor.update(|e| e.amount = f64::from(i) + 1.0)?;
    }
    let notes = agent.drain().await;
    let updates = notes.iter().filter(|n| **n == UPDATED()).count();
    assert!(updates >= 1, "at least one update");
    assert!(updates < 200, "10,000 edits gave {updates} notifications");
    let snap = agent.read().await?;
    let amount = &serde_json::to_value(&window(&snap, editor.id()).blocks)?[1]["items"][1]["value"];
    assert_eq!(amount, "$10000.00", "the last read shows the final state");
    Ok(())
}

#[tokio::test]
async fn s10_1_operations_from_different_sessions_are_serialized() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let first = Agent::legacy(&app).await?;
    let second = Agent::legacy(&app).await?;
    let slow = format!("{}__slow", editor.id());
    let edit = format!("{}__edit_field", editor.id());
    let a = tokio::spawn(async move { first.call(&slow, json!({"millis": 150})).await });
    tokio::time::sleep(Duration::from_millis(30)).await;
    let b = second.call(&edit, json!({"field": "recipient", "value": "second"})).await?;
    let a = a.await??;
    // Had they interleaved, the slow call would have found its window
    // changed under it; serialized, both apply in order.
    assert!(!a.is_error, "{a:?}");
    assert!(!b.is_error, "{b:?}");
    assert_eq!(editor.read(|e| e.recipient.clone())?, "second");
    Ok(())
}

// §10.3 / §10.4 / §12.4 identity -------------------------------------------------

#[tokio::test]
async fn s10_3_window_ids_are_never_reused() -> Result<()> {
    let app = demo_app();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..50 {
        let w = app.open(Editor::default())?;
        assert!(seen.insert(w.id().to_owned()), "id {} reused", w.id());
        w.close()?;
    }
    let named = app.open_named("main", Editor::default())?;
    assert_eq!(named.id(), "main");
    named.close()?;
    let again = app.open_named("main", Editor::default())?;
    assert_ne!(again.id(), "main", "a closed window's id is not handed out again");
    Ok(())
}

#[tokio::test]
async fn s12_4_unsafe_window_names_get_one_handle_used_everywhere() -> Result<()> {
    let app = demo_app();
    let editor =
        app.open_named("订单 编辑器 #1", Editor { recipient: "Ada".into(), ..Editor::default() })?;
    let id = editor.id().to_owned();
    assert!(
        id.chars().next().unwrap().is_ascii_alphabetic()
            && id.chars().all(|c| c.is_ascii_alphanumeric()),
        "{id}"
    );
    let agent = Agent::legacy(&app).await?;
    assert!(agent.tool_names().await?.contains(&format!("{id}__submit")));
    let out = agent.call(&format!("{id}__submit"), json!({})).await?;
    let dialog = out.structured["openedWindowIds"][0].as_str().unwrap();
    let snap = agent.read().await?;
    assert_eq!(window(&snap, dialog).owner_id.as_deref(), Some(id.as_str()));
    assert!(snap.windows.iter().any(|w| w.id == id));
    assert_eq!(app.find_named("订单 编辑器 #1")?.as_deref(), Some(id.as_str()));
    Ok(())
}

#[tokio::test]
async fn s10_5_versions_are_monotonic_integers() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let mut last = editor.version()?;
    for i in 0..20 {
        // Each step shows a different amount than the one before.
        editor.update(|e| e.amount = f64::from(i % 3) + 1.0)?;
        let v = editor.version()?;
        assert!(v > last, "a visible change moves the version: {last} -> {v}");
        last = v;
    }
    editor.update(|e| e.amount = f64::from(19 % 3) + 1.0)?;
    assert_eq!(editor.version()?, last, "the same content keeps the version");
    let raw = serde_json::to_value(app.snapshot()?)?;
    assert!(raw["windows"][0]["version"].is_u64());
    Ok(())
}

// The person's side -------------------------------------------------------------------

#[tokio::test]
async fn s10_1_gui_reentrancy_is_an_error_not_a_deadlock() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let inner = app.clone();
    let result = editor.update(move |_| inner.open(Editor::default()).map(|_| ()))?;
    assert!(matches!(result, Err(purview::Error::Reentrant)), "{result:?}");
    Ok(())
}

#[tokio::test]
async fn s6_on_change_wakes_the_gui_after_agent_calls() -> Result<()> {
    let app: App = demo_app();
    let editor = app.open(Editor::default())?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    app.on_change(move |change| {
        let _ = tx.send(change);
    });
    app.call(
        &format!("{}__edit_field", editor.id()),
        json!({"field": "recipient", "value": "x"}).as_object().cloned(),
    )
    .await
    .map_err(anyhow::Error::msg)?;
    let change = rx.recv().await.unwrap();
    assert!(change.resource && change.tools, "{change:?}");
    Ok(())
}

/// Numbers whose shortest decimal form only just carries them.
#[purview::window(title = "Numbers", summary = "Numbers that are hard to print")]
#[derive(Clone)]
struct Numbers {
    #[block(table, columns = ["x"])]
    rows: Vec<(f64,)>,
    #[block(custom)]
    extra: Value,
}

#[purview::actions]
impl Numbers {
    /// Nothing.
    #[action(read_only)]
    fn look(&self) {}
}

#[test]
fn s4_2_every_read_shows_the_very_values_the_window_holds() -> Result<()> {
    // The last two read back one unit in the last place off with
    // serde_json's default float parsing.
    let awkward = [
        0.1 + 0.2,
        1e-7,
        5e-324,
        f64::MAX,
        -0.0,
        -467_994_906.205_341_64,
        1.071_566_039_146_582_6e-75,
    ];
    let app = App::builder().build();
    let rows = awkward.iter().map(|x| (*x,)).collect();
    app.open(Numbers { rows, extra: json!({"third": 1.0 / 3.0}) })?;
    let resource: Value = serde_json::from_str(&app.snapshot_json()?)?;
    let read = app.read_windows(None)?;
    let typed = serde_json::to_value(app.snapshot()?)?;
    assert_eq!(read["windows"], resource["windows"]);
    assert_eq!(typed, resource);
    for view in [&resource, &read, &typed] {
        let blocks = &view["windows"][0]["blocks"];
        for (i, x) in awkward.iter().enumerate() {
            let shown = blocks[0]["rows"][i][0].as_f64().unwrap_or(f64::NAN);
            assert_eq!(shown.to_bits(), x.to_bits(), "row {i}: {shown} for {x}");
        }
        assert_eq!(
            blocks[1]["payload"]["third"].as_f64().map(f64::to_bits),
            Some((1.0_f64 / 3.0).to_bits())
        );
    }
    Ok(())
}

/// A switch that can be thrown once: its one action hides itself.
#[purview::window(title = "Switch", summary = "A switch that is {state}")]
#[derive(Clone, Default)]
struct Switch {
    state: &'static str,
}

#[purview::actions]
impl Switch {
    /// Throw the switch; it cannot be thrown back.
    #[action(available = is_off)]
    fn throw(&mut self) {
        self.state = "on";
    }

    fn is_off(&self) -> bool {
        self.state != "on"
    }
}

#[tokio::test]
async fn s5_4_a_window_left_with_no_actions_is_named_with_an_empty_list() -> Result<()> {
    let app = App::builder().build();
    let switch = app.open(Switch { state: "off" })?;
    let other = app.open(Switch { state: "off" })?;
    let thrown = app.call(&format!("{}__throw", switch.id()), None).outcome().await;
    assert!(!thrown.is_error, "{}", thrown.structured);
    // The thrown switch is still operable but offers nothing now; the
    // other one did not change, so it is not repeated.
    assert_eq!(
        thrown.structured["next"],
        json!({"operableWindowIds": [switch.id(), other.id()], "actions": {switch.id(): []}})
    );
    Ok(())
}

/// One agent of each protocol generation on `app`.
async fn both_generations(app: &App) -> Result<[Agent; 2]> {
    Ok([Agent::legacy(app).await?, Agent::modern(app).await?])
}

#[tokio::test]
async fn s5_1_tools_list_is_built_once_per_change_on_every_surface_and_generation() -> Result<()> {
    use purview::settings::ToolSurface;
    // The dispatcher surface's list never changes, and clients keep it
    // for its TTL; the `Both` surface lists the dispatcher's tools too.
    for surface in [ToolSurface::Windows, ToolSurface::Both] {
        let app = purview_tests::demo_app_on(surface);
        let editor = app.open(Editor::default())?;
        let agents = both_generations(&app).await?;
        let before = app.build_counts()?.tool_lists;
        let first = agents[0].tool_names().await?;
        for i in 0..100 {
            assert_eq!(agents[i % 2].tool_names().await?, first, "{surface:?}");
        }
        assert_eq!(app.build_counts()?.tool_lists, before + 1, "{surface:?}: 100 lists, no change");
        // One change of the tool set: one more build, and the lists show it.
        let modal = editor.open_modal(Confirm { depth: 0 })?;
        let changed = agents[1].tool_names().await?;
        for i in 0..100 {
            assert_eq!(agents[i % 2].tool_names().await?, changed, "{surface:?}");
        }
        assert_eq!(app.build_counts()?.tool_lists, before + 2, "{surface:?}: one change");
        assert_ne!(changed, first, "{surface:?}: the modal took over the editor's tools");
        assert!(changed.iter().any(|t| t.starts_with(&format!("{}__", modal.id()))));
    }
    Ok(())
}

#[tokio::test]
async fn s4_1_app_windows_is_serialized_once_per_change_for_every_reader() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let agents = both_generations(&app).await?;
    let before = app.build_counts()?.snapshots;
    let first = agents[0].read_json().await?;
    for i in 0..100 {
        assert_eq!(agents[i % 2].read_json().await?, first);
    }
    assert_eq!(app.build_counts()?.snapshots, before + 1, "100 reads, no change");
    editor.update(|e| e.recipient = "Ada".into())?;
    let changed = agents[1].read_json().await?;
    for i in 0..100 {
        assert_eq!(agents[i % 2].read_json().await?, changed);
    }
    assert_eq!(app.build_counts()?.snapshots, before + 2, "one change");
    assert!(changed.to_string().contains("Ada"), "the read shows the change");
    Ok(())
}

#[tokio::test]
async fn s4_1_app_read_windows_is_built_once_per_change_with_and_without_schemas() -> Result<()> {
    let app = purview_tests::demo_app_on(purview::settings::ToolSurface::Both);
    let editor = app.open(Editor::default())?;
    let agents = both_generations(&app).await?;
    let read = async |i: usize, schemas: bool| -> Result<Value> {
        let arguments = if schemas { json!({"schemas": true}) } else { json!({}) };
        let outcome = agents[i % 2].call("app__read_windows", arguments).await?;
        anyhow::ensure!(!outcome.is_error, "{}", outcome.structured);
        Ok(outcome.structured)
    };
    let before = app.build_counts()?.window_reads;
    let (plain, full) = (read(0, false).await?, read(1, true).await?);
    for i in 0..100 {
        assert_eq!(read(i, false).await?, plain);
        assert_eq!(read(i, true).await?, full);
    }
    assert_eq!(app.build_counts()?.window_reads, before + 2, "100 reads of each, no change");
    editor.update(|e| e.recipient = "Ada".into())?;
    let (plain, full) = (read(0, false).await?, read(1, true).await?);
    for i in 0..100 {
        assert_eq!(read(i, false).await?, plain);
        assert_eq!(read(i, true).await?, full);
    }
    assert_eq!(app.build_counts()?.window_reads, before + 4, "one change");
    assert!(plain.to_string().contains("Ada") && full.to_string().contains("Ada"));
    // A narrowed read is answered for its own windows, not from the cache.
    let only =
        agents[0].call("app__read_windows", json!({"windows": [editor.id()]})).await?.structured;
    assert_eq!(only["windows"].as_array().map(Vec::len), Some(1));
    Ok(())
}

#[test]
fn s10_1_a_scene_with_nothing_changed_projects_no_window() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    for _ in 0..3 {
        app.open(Editor::default())?;
    }
    let first = app.scene()?;
    let before = app.build_counts()?.projections;
    for _ in 0..100 {
        let frame = app.scene()?;
        assert!(std::sync::Arc::ptr_eq(&frame, &first), "the same scene, shared, not copied");
    }
    assert_eq!(app.build_counts()?.projections, before, "100 frames, nothing changed");
    // A person's edit projects the edited window once, for agents and the
    // GUI alike, and the next frame shows it.
    editor.update(|e| e.recipient = "Ada".into())?;
    let changed = app.scene()?;
    assert_eq!(app.build_counts()?.projections, before + 1);
    // The other windows are shared from the last scene, not gathered again.
    for (before, after) in first.windows.iter().zip(&changed.windows) {
        let same = std::sync::Arc::ptr_eq(before, after);
        assert_eq!(same, before.state.id != editor.id(), "{}", before.state.id);
    }
    let shown = changed.windows.iter().find(|w| w.state.id == editor.id()).expect("editor");
    assert_eq!(shown.state.version, editor.version()?);
    assert!(serde_json::to_string(&shown.state.blocks)?.contains("Ada"));
    assert_eq!(*shown.state, app.snapshot()?.windows[0], "the scene shows what agents read");
    Ok(())
}

#[test]
fn s10_1_after_a_change_a_scene_looks_again_only_at_the_windows_it_changed() -> Result<()> {
    let app = demo_app();
    let editors: Vec<_> =
        (0..200).map(|_| app.open(Editor::default())).collect::<Result<_, _>>()?;
    let first = app.scene()?;
    let looked = || app.build_counts().map(|c| c.scene_windows);
    let before = looked()?;
    // Two edits between frames: the next scene looks at those two alone.
    editors[7].update(|e| e.recipient = "Ada".into())?;
    editors[150].update(|e| e.recipient = "Grace".into())?;
    let changed = app.scene()?;
    assert_eq!(looked()?, before + 2, "two windows changed, two looked at");
    for (i, (was, now)) in first.windows.iter().zip(&changed.windows).enumerate() {
        assert_eq!(std::sync::Arc::ptr_eq(was, now), i != 7 && i != 150, "window {i}");
    }
    assert_eq!(
        changed.windows.iter().map(|w| &*w.state).collect::<Vec<_>>(),
        app.snapshot()?.windows.iter().collect::<Vec<_>>(),
        "the scene shows what agents read"
    );
    // A modal changes who is operable: every window is looked at again,
    // and the owner shows what blocks it.
    let before = looked()?;
    let dialog = editors[3].open_modal(Confirm { depth: 1 })?;
    let blocked = app.scene()?;
    assert_eq!(looked()?, before + 201);
    assert_eq!(blocked.windows[3].blocked_by.as_deref(), Some(dialog.id()));
    // The next edit of a blocked window is looked at alone, and still
    // shows what blocks it.
    let before = looked()?;
    editors[3].update(|e| e.recipient = "Lin".into())?;
    let edited = app.scene()?;
    assert_eq!(looked()?, before + 1);
    assert_eq!(edited.windows[3].blocked_by.as_deref(), Some(dialog.id()));
    assert!(!edited.windows[3].operable);
    Ok(())
}

/// A window whose projection can be held mid-way, as a slow view-model's
/// would be, while a change to it is settling under the state lock.
#[derive(Clone)]
struct Held {
    n: u32,
    gate: std::sync::Arc<(std::sync::Mutex<(bool, bool)>, std::sync::Condvar)>,
}

impl purview::Window for Held {
    fn title(&self) -> String {
        "Held".into()
    }
    fn project(&self, view: &mut purview::View) {
        let (state, turn) = &*self.gate;
        let mut held = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // (closed, entered): say that a projection is under way, and wait.
        held.1 = true;
        turn.notify_all();
        while held.0 {
            held = turn.wait(held).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        view.summary(format!("Counted to {}", self.n));
    }
}

impl purview::Actions for Held {
    fn actions() -> Vec<purview::ActionSpec> {
        Vec::new()
    }
    fn call<'a>(
        &'a mut self,
        action: &'a str,
        _: purview::Args,
        _: &'a mut purview::Context,
    ) -> purview::by_hand::BoxFuture<'a> {
        Box::pin(async move { Err(purview::by_hand::unknown_action(action)) })
    }
}

#[test]
fn s10_1_a_frame_reads_the_scene_while_a_change_settles_under_the_state_lock() -> Result<()> {
    let gate =
        std::sync::Arc::new((std::sync::Mutex::new((false, false)), std::sync::Condvar::new()));
    let app = App::builder().build();
    let held = app.open(Held { n: 0, gate: gate.clone() })?;
    assert_eq!(app.scene()?.windows[0].state.summary.as_deref(), Some("Counted to 0"));

    // A change whose projection waits, holding the state lock to settle.
    *gate.0.lock().unwrap() = (true, false);
    let editing = std::thread::spawn(move || held.update(|h| h.n = 1));
    {
        let mut state = gate.0.lock().unwrap();
        while !state.1 {
            state = gate.1.wait(state).unwrap();
        }
    }
    // The frame does not wait for it: it shows the last settled scene.
    let (sent, frame) = std::sync::mpsc::channel();
    let reader = app.clone();
    std::thread::spawn(move || sent.send(reader.scene().map(|s| s.windows[0].state.clone())));
    let shown = frame.recv_timeout(Duration::from_secs(10));
    gate.0.lock().unwrap().0 = false;
    gate.1.notify_all();
    editing.join().expect("the edit finishes")?;
    let shown = shown.expect("the scene is read while the change settles")?;
    assert_eq!(shown.summary.as_deref(), Some("Counted to 0"));
    // Once settled, the next frame shows the change.
    assert_eq!(app.scene()?.windows[0].state.summary.as_deref(), Some("Counted to 1"));
    Ok(())
}

#[test]
fn s6_a_change_only_a_gui_shows_still_wakes_its_listeners() -> Result<()> {
    // On the dispatcher surface the tool list never changes, so an action
    // withdrawn from an operable window tells agents nothing; the GUI's
    // buttons change all the same, and its listener hears of it.
    let app = purview_tests::demo_app_on(purview::settings::ToolSurface::Dispatcher);
    let editor = app.open(Editor::default())?;
    let before = app.scene()?;
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = heard.clone();
    app.on_change(move |change| log.lock().unwrap().push(change));
    let action = before.windows[0].actions[0].name.clone();
    editor.set_available(&action, false)?;
    let after = app.scene()?;
    assert!(after.windows[0].actions.iter().all(|a| a.name != action), "{action} withdrawn");
    let heard = heard.lock().unwrap().clone();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert!(heard[0].scene && !heard[0].tools && !heard[0].resource, "{:?}", heard[0]);
    Ok(())
}

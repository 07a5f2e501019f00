//! The person's side, typed: `#[actions]` generates one call per action
//! (`handle.act().submit()`), and `#[derive(WindowKind)]` tells window types
//! apart. A typed call takes the person's path, so everything an agent sees
//! of it — versions, tools/list, notifications, `openedWindowIds` — is what
//! a call by tool name (`app.call(tool, args).by_person()`) gives.

#[path = "../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod windows;

use anyhow::Result;
use purview::{App, Secret, WindowHandle, WindowKind, model::ErrorCode, settings::ToolSurface};
use purview_tests::{Agent, Note};
use serde_json::json;
use windows::{
    ConfirmSubmission, Desk, EditableField, Locked, OrderEditor, ReportDetails, Terms,
    order_desk_app,
};

#[derive(WindowKind)]
enum DeskWindow {
    Editor(WindowHandle<OrderEditor>),
    Confirm(WindowHandle<ConfirmSubmission>),
    Report(WindowHandle<ReportDetails>),
    Terms(WindowHandle<Terms>),
    Locked(WindowHandle<Locked>),
}

fn editor(app: &App) -> WindowHandle<OrderEditor> {
    app.window::<OrderEditor>("w1").expect("order_desk opens its editor as w1")
}

#[tokio::test]
async fn s5_4_a_typed_call_reports_opened_windows_and_hands_tools_over() -> Result<()> {
    let app = order_desk_app(ToolSurface::Windows);
    let editor = editor(&app);
    editor.act().edit_field(EditableField::Recipient, "Ada".into()).await?;
    let before = editor.version()?;

    let submitted = editor.act().submit().await?;
    assert_eq!(submitted.opened_window_ids, ["w3"]);
    assert!(submitted.message.as_deref().is_some_and(|m| m.contains("w3")));
    // §10.2: the editor's tools went to the dialog, as for an agent's call.
    let tools = app.tool_names()?;
    assert!(tools.contains(&"w3__confirm".to_owned()));
    assert!(!tools.iter().any(|t| t.starts_with("w1__")));
    assert_eq!(editor.version()?, before, "opening a modal does not change what the editor shows");

    let confirm = app.window::<ConfirmSubmission>("w3")?;
    confirm.act().confirm().await?;
    assert!(editor.read(|e| e.submitted)?);
    assert!(!confirm.is_open()?);
    Ok(())
}

#[tokio::test]
async fn s7_3_a_typed_call_gets_the_handlers_validation_failed_per_field() -> Result<()> {
    let app = order_desk_app(ToolSurface::Both);
    let editor = editor(&app);
    let refused =
        editor.act().set_details("\u{202E}evil".into(), -3.0).await.expect_err("both are wrong");
    assert_eq!(refused.code, ErrorCode::ValidationFailed);
    let fields: Vec<String> = refused.fields.unwrap().into_iter().map(|f| f.field).collect();
    assert_eq!(fields, ["recipient", "amount"]);
    assert_eq!(editor.read(|e| e.recipient.clone())?, "", "nothing of a refused call is applied");
    Ok(())
}

#[tokio::test]
async fn s7_2_a_typed_call_meets_every_gate_an_agent_meets() -> Result<()> {
    let app = order_desk_app(ToolSurface::Both);
    let editor = editor(&app);
    // Unavailable: nothing to submit without a recipient.
    let refused = editor.act().submit().await.expect_err("submit is hidden");
    assert_eq!(refused.code, ErrorCode::ActionNotAvailable);
    // Blocked by a modal: the lock screen collapses the app to itself.
    app.act::<Desk>().lock().await?;
    let refused =
        editor.act().edit_field(EditableField::Amount, "5".into()).await.expect_err("locked");
    assert_eq!(refused.code, ErrorCode::BlockedByModal);
    // A closed window.
    let report = app.window::<ReportDetails>("w2")?;
    let locked = app.window_list()?.into_iter().find(|w| w.title == "Locked").unwrap();
    let locked = app.window::<Locked>(&locked.id)?;
    locked.act().unlock(Secret::new(windows::UNLOCK_PIN.into())).await?;
    report.act().close().await?;
    let refused = report.act().refresh().await.expect_err("closed");
    assert_eq!(refused.code, ErrorCode::WindowNotFound);
    Ok(())
}

#[tokio::test]
async fn typed_calls_return_the_handlers_own_result_value() -> Result<()> {
    let app = order_desk_app(ToolSurface::Both);
    let report = app.window::<ReportDetails>("w2")?;
    let page = report.act().load_rows(9_998, 5).await?.value;
    assert_eq!((page.offset, page.total, page.rows.len()), (9_998, 10_000, 2));
    assert_eq!(page.rows[0].0, 9_999);

    let opened = app.act::<Desk>().new_report().await?;
    assert_eq!(opened.opened_window_ids, std::slice::from_ref(&opened.value.window_id));
    assert!(app.window::<ReportDetails>(&opened.value.window_id).is_ok());
    Ok(())
}

/// App-level actions of another app: `app.act::<OtherDesk>()` compiles
/// (a window type does not: ui-tests/fail/app_act_of_a_window_type.rs), and
/// is refused, because the order desk was built with `Desk`.
#[derive(Clone)]
struct OtherDesk;

#[purview::actions(app)]
impl OtherDesk {
    /// Lock another desk.
    #[action]
    fn lock(&mut self) {}
}

#[tokio::test]
async fn an_app_level_typed_call_through_another_apps_actions_is_refused() -> Result<()> {
    let app = order_desk_app(ToolSurface::Both);
    let refused = app.act::<OtherDesk>().lock().await.expect_err("not the app's actions");
    assert_eq!(refused.code, ErrorCode::ActionNotAvailable);
    assert!(refused.message.contains("app_actions"), "{}", refused.message);
    Ok(())
}

#[tokio::test]
async fn s6_a_typed_call_notifies_agents_and_is_not_agent_activity() -> Result<()> {
    let app = order_desk_app(ToolSurface::Both);
    let mut agent = Agent::legacy(&app).await?;
    agent.subscribe().await?;
    agent.drain().await;
    let editor = editor(&app);
    editor.act().edit_field(EditableField::Recipient, "Grace".into()).await?;
    agent.expect(Note::Updated(purview::model::WINDOWS_URI.into())).await?;
    let snapshot = agent.read_json().await?;
    assert_eq!(snapshot["windows"][0]["blocks"][1]["items"][0]["value"], json!("Grace"));
    assert!(app.agent_activity().is_none(), "the person's click is not the agent's");
    Ok(())
}

#[tokio::test]
async fn a_typed_call_of_the_person_is_never_held_for_approval() -> Result<()> {
    // Agents need a person's yes for `confirm`; the person's own click does not.
    let builder = purview::App::builder().require_approval::<ConfirmSubmission>("confirm");
    let app = windows::order_desk(builder);
    let editor = editor(&app);
    editor.act().edit_field(EditableField::Recipient, "Ada".into()).await?;
    let dialog = editor.act().submit().await?.opened_window_ids.remove(0);
    app.window::<ConfirmSubmission>(&dialog)?.act().confirm().await?;
    assert!(editor.read(|e| e.submitted)?);
    Ok(())
}

#[tokio::test]
async fn a_typed_call_names_the_tool_an_agent_would_call() -> Result<()> {
    let app = order_desk_app(ToolSurface::Both);
    let call = editor(&app).act().focus();
    assert_eq!(
        (call.tool_name(), call.window_id(), call.action()),
        ("w1__focus".into(), Some("w1"), "focus")
    );
    assert_eq!(app.act::<Desk>().lock().tool_name(), "app__lock");
    // Secrets in arguments never show in a call's Debug.
    let locked = Locked::new();
    let app2 = App::builder().build();
    let handle = app2.open(locked)?;
    let call = handle.act().unlock(Secret::new("9876".into()));
    assert!(!format!("{call:?}").contains("9876"));
    Ok(())
}

#[tokio::test]
async fn window_kind_matches_each_open_window_to_its_type() -> Result<()> {
    let app = order_desk_app(ToolSurface::Both);
    let editor = editor(&app);
    editor.act().edit_field(EditableField::Recipient, "Ada".into()).await?;
    editor.act().submit().await?;
    let confirm = app.window::<ConfirmSubmission>("w3")?;
    confirm.act().show_terms().await?;
    let mut kinds = Vec::new();
    for info in app.window_list()? {
        let (kind, id) = match app.window_kind::<DeskWindow>(&info.id) {
            Some(DeskWindow::Editor(w)) => ("editor", w.id().to_owned()),
            Some(DeskWindow::Confirm(w)) => ("confirm", w.id().to_owned()),
            Some(DeskWindow::Report(w)) => ("report", w.id().to_owned()),
            Some(DeskWindow::Terms(w)) => ("terms", w.id().to_owned()),
            Some(DeskWindow::Locked(w)) => ("locked", w.id().to_owned()),
            None => ("unknown", info.id.clone()),
        };
        assert_eq!(id, info.id, "the handle is the window's");
        kinds.push(kind);
    }
    assert_eq!(kinds, ["editor", "report", "confirm", "terms"]);
    assert!(app.window_kind::<DeskWindow>("w99").is_none());
    Ok(())
}

#[tokio::test]
async fn s5_6_an_agents_typed_call_of_an_action_needing_approval_asks_no_one_and_applies_nothing()
-> Result<()> {
    // Its arguments are Rust values the person could not be shown, so even
    // an approver that says yes to everything is never asked.
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = asked.clone();
    let app =
        windows::order_desk(App::builder().require_approval::<OrderEditor>("edit_field").approver(
            move |_: purview::approval::ApprovalRequest| {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async { purview::approval::Approval::Approve }
            },
        ));
    let editor = editor(&app);
    let call = editor.act().edit_field(EditableField::Recipient, "Mallory".into()).by_agent();
    let refused = call.await.expect_err("refused");
    assert_eq!(refused.code, ErrorCode::ApprovalDenied);
    assert!(refused.message.contains("by tool name"), "{}", refused.message);
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 0, "no one was asked");
    assert_eq!(editor.read(|e| e.recipient.clone())?, "", "nothing applied");
    // By tool name the approver sees the arguments, and says yes.
    let arguments = json!({"field": "recipient", "value": "Ada"});
    app.call("w1__edit_field", arguments.as_object().cloned()).await.map_err(anyhow::Error::msg)?;
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(editor.read(|e| e.recipient.clone())?, "Ada");
    Ok(())
}

/// What a GUI's default buttons call: an action as a scene listed it, by its
/// window and key. The gates are those of the moment it runs, not of the
/// frame that listed it.
#[tokio::test]
async fn s7_2_an_action_a_scene_listed_meets_the_gates_of_the_moment_it_runs() -> Result<()> {
    let app = order_desk_app(ToolSurface::Both);
    let editor = editor(&app);
    let scene = app.scene()?;
    let listed = |name: &str| {
        let window = scene.windows.iter().find(|w| w.state.id == editor.id()).expect("listed");
        window.actions.iter().find(|a| a.name == name).cloned().expect("available")
    };
    let set_details = listed("set_details");
    let arguments = |recipient: &str| {
        json!({"recipient": recipient, "amount": 12.5}).as_object().cloned().unwrap_or_default()
    };
    assert_eq!(set_details.call(&app, arguments("Ada")).tool_name(), "w1__set_details");
    // Blocked since the scene was read: refused, nothing applied.
    app.act::<Desk>().lock().await?;
    let refused = set_details.call(&app, arguments("Ada")).await.expect_err("locked");
    assert_eq!(refused.code, ErrorCode::BlockedByModal);
    assert_eq!(editor.read(|e| e.recipient.clone())?, "");
    let locked = app.window_list()?.into_iter().find(|w| w.title == "Locked").unwrap();
    app.window::<Locked>(&locked.id)?.act().unlock(Secret::new(windows::UNLOCK_PIN.into())).await?;
    // The JSON arguments get the schema check an agent's get.
    let refused = set_details
        .call(&app, json!({"recipient": 7}).as_object().cloned().unwrap_or_default())
        .await
        .expect_err("a number is no recipient");
    assert_eq!(refused.code, ErrorCode::ValidationFailed);
    let done = set_details.call(&app, arguments("Ada")).await?;
    assert!(done.value.is_none(), "set_details returns nothing");
    assert_eq!(editor.read(|e| e.recipient.clone())?, "Ada");
    // The person's call, not an agent's.
    assert!(app.agent_activity().is_none(), "the person's call is not the agent's");
    Ok(())
}

/// A counter whose action builds its own output, carrying a typed value.
#[purview::window(summary = "Counts to {count}")]
#[derive(Clone, Default)]
struct Tally {
    #[block(field)]
    count: u32,
}

#[purview::actions]
impl Tally {
    /// Count one more; the output says so and carries the new count.
    #[action]
    fn bump(&mut self) -> purview::ActionOutput {
        self.count += 1;
        purview::ActionOutput::result(self.count).with_message("counted")
    }
}

/// An action declared `-> ActionOutput` has `()` for its typed call's
/// value, whatever its output carries: the applied call is reported as
/// applied (it was refused as `wrong_result_type` after committing), and an
/// agent still gets the result.
#[tokio::test]
async fn s5_4_a_typed_call_of_an_action_building_its_own_output_reports_it_applied() -> Result<()> {
    let app = App::builder().build();
    let tally = app.open(Tally::default())?;
    let done = tally.act().bump().await?;
    assert_eq!(done.message.as_deref(), Some("counted"));
    assert_eq!(tally.read(|t| t.count)?, 1);
    let tool = format!("{}__bump", tally.id());
    let by_agent = app.call(&tool, None).await?;
    assert_eq!(by_agent.value, Some(json!({"value": 2})));
    Ok(())
}

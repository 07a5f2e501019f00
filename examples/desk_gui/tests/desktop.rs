//! The desktop demo with a person and an agent at once: egui_kittest plays
//! the person (finding controls by their labels, typing, clicking) while an
//! rmcp client plays the agent, on the same order_desk application.

#[path = "../../order_desk/windows.rs"]
#[allow(dead_code)]
mod windows;

#[path = "../gui.rs"]
mod gui;

use std::time::Duration;

use anyhow::{Result, bail};
use egui_kittest::{Harness, kittest::Queryable};
use purview::App;
use purview_egui::Desk;
use purview_tests::{Agent, Note};
use serde_json::{Value, json};

fn person(app: &App) -> Harness<'static, Desk> {
    let desk =
        gui::desk(app.clone(), purview::approval::ApprovalQueue::new(), "http://127.0.0.1:0/mcp")
            .embedded(true);
    Harness::builder()
        .with_size([1400.0, 1000.0])
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk)
}

/// Draws frames until egui is idle. Agent calls landing meanwhile ask for
/// more repaints (that is the point of `App::on_change`), so running out of
/// steps is not an error here.
fn draw(harness: &mut Harness<'static, Desk>) {
    let _ = harness.try_run();
}

/// Lets a button press (run on the runtime) land, then redraws.
async fn settle(
    harness: &mut Harness<'static, Desk>,
    until: impl Fn(&App) -> bool,
    app: &App,
) -> Result<()> {
    for _ in 0..100 {
        draw(harness);
        if until(app) {
            draw(harness);
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    bail!("the person's action did not take effect; on screen: {:?}", harness.root())
}

fn recipient(snapshot: &Value) -> Value {
    snapshot["windows"][0]["blocks"][1]["items"][0]["value"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s7_1_person_and_agent_share_the_windows_and_the_person_wins() -> Result<()> {
    let app = windows::order_desk_app(purview::settings::ToolSurface::Both);
    let mut agent = Agent::legacy(&app).await?;
    agent.subscribe().await?;
    let mut harness = person(&app);
    draw(&mut harness);

    // The person types a recipient: the agent hears of it and reads it.
    let before = agent.read_json().await?["windows"][0]["version"].as_u64().unwrap();
    harness.get_by_label("Recipient").click();
    draw(&mut harness);
    harness.get_by_label("Recipient").type_text("Ada");
    draw(&mut harness);
    agent.expect(Note::Updated(purview::model::WINDOWS_URI.into())).await?;
    let snapshot = agent.read_json().await?;
    assert_eq!(recipient(&snapshot), "Ada");

    // A stale agent write after the person's edit: refused, the person's text kept.
    let stale = agent
        .call(
            "w1__edit_field",
            json!({"field": "recipient", "value": "Agent's guess", "expectedVersion": before}),
        )
        .await?;
    assert_eq!(stale.code(), Some("stale_state"));
    draw(&mut harness);
    assert_eq!(harness.get_by_label("Recipient").value().as_deref(), Some("Ada"));
    assert_eq!(recipient(&agent.read_json().await?), "Ada");

    // The agent submits: the modal is on the person's screen, the editor blocked.
    let submitted = agent.call("w1__submit", json!({})).await?;
    assert_eq!(submitted.structured["openedWindowIds"], json!(["w3"]));
    draw(&mut harness);
    harness.get_by_label("Cancel");
    assert!(harness.query_by_label_contains("Blocked by Confirm submission").is_some());
    assert!(
        harness.query_by_label("Agent is working here").is_some(),
        "the agent's window is marked"
    );
    let tools = agent.tool_names().await?;
    assert!(
        tools.contains(&"w3__cancel".to_owned()) && !tools.iter().any(|t| t.starts_with("w1__"))
    );

    // The person clicks Cancel: the hand-off is reversed for the agent.
    agent.drain().await;
    harness.get_by_label("Cancel").click();
    settle(
        &mut harness,
        |app| app.operable_window_ids().is_ok_and(|ids| ids == ["w1", "w2"]),
        &app,
    )
    .await?;
    agent.expect(Note::ToolsChanged).await?;
    let tools = agent.tool_names().await?;
    assert!(
        tools.contains(&"w1__submit".to_owned()) && !tools.iter().any(|t| t.starts_with("w3__"))
    );
    assert!(harness.query_by_label("Cancel").is_none(), "the dialog is gone from the screen");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s10_2_the_person_locks_and_the_agent_sees_only_the_lock_screen() -> Result<()> {
    let app = windows::order_desk_app(purview::settings::ToolSurface::Both);
    let mut agent = Agent::legacy(&app).await?;
    let mut harness = person(&app);
    draw(&mut harness);
    // The main window's buttons may sit under an embedded window in the
    // test's single canvas, so they are pressed the way a screen reader does.
    harness.get_by_label("Lock").click_accesskit();
    settle(&mut harness, |app| app.operable_window_ids().is_ok_and(|ids| ids.len() == 1), &app)
        .await?;
    agent.expect(Note::ToolsChanged).await?;
    // Purview's own two tools stay listed on the default surface.
    assert_eq!(agent.tool_names().await?, ["app__act", "app__read_windows", "w3__unlock"]);
    // The agent unlocks; the person's screen follows at once.
    let unlocked = agent.call("w3__unlock", json!({"pin": windows::UNLOCK_PIN})).await?;
    assert!(!unlocked.is_error, "{unlocked:?}");
    draw(&mut harness);
    assert!(harness.query_by_label("Unlock").is_none());
    assert_eq!(app.agent_activity().and_then(|a| a.window).as_deref(), Some("w3"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s5_3_focus_marks_the_window_and_asks_the_gui_to_raise_it() -> Result<()> {
    let app = windows::order_desk_app(purview::settings::ToolSurface::Both);
    let agent = Agent::legacy(&app).await?;
    let mut harness = person(&app);
    draw(&mut harness);
    assert!(harness.query_by_label("Agent is working here").is_none());
    agent.call("w1__focus", json!({})).await?;
    draw(&mut harness);
    let activity = app.agent_activity().expect("recorded");
    assert!(activity.focus && activity.window.as_deref() == Some("w1"));
    // Focus, then another call before the GUI draws: the request survives.
    agent.call("w2__refresh", json!({})).await?;
    let activity = app.agent_activity().expect("recorded");
    assert!(!activity.focus);
    assert_eq!(activity.focus_request.as_ref().map(|(w, _)| w.as_str()), Some("w1"));
    assert!(harness.query_by_label("Agent is working here").is_some());
    // The person's own clicks are not agent activity.
    harness.get_by_label("New report").click_accesskit();
    settle(&mut harness, |app| app.window_list().is_ok_and(|w| w.len() == 3), &app).await?;
    assert_eq!(app.agent_activity().map(|a| a.serial), Some(activity.serial));
    Ok(())
}

/// Draws until a control labelled `label` is on screen.
async fn until_shown(harness: &mut Harness<'static, Desk>, label: &str) -> Result<()> {
    for _ in 0..200 {
        draw(harness);
        if harness.query_by_label(label).is_some() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    bail!("no {label:?} on screen: {:?}", harness.root())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s5_6_the_person_approves_or_declines_the_agents_confirm_on_screen() -> Result<()> {
    let builder = App::builder().require_approval::<windows::ConfirmSubmission>("confirm");
    let app = windows::order_desk(builder);
    let agent = std::sync::Arc::new(Agent::legacy(&app).await?);
    let mut harness = person(&app);
    draw(&mut harness);
    agent.call("w1__edit_field", json!({"field": "recipient", "value": "Ada"})).await?;
    assert!(!agent.call("w1__submit", json!({})).await?.is_error);

    for (button, approved) in [("Decline", false), ("Approve", true)] {
        let asking = agent.clone();
        let call = tokio::spawn(async move { asking.call("w3__confirm", json!({})).await });
        until_shown(&mut harness, button).await?;
        assert!(harness.query_by_label("Agent is waiting for your approval").is_some());
        harness.get_by_label(button).click_accesskit();
        draw(&mut harness);
        let outcome = tokio::time::timeout(Duration::from_secs(5), call).await???;
        if approved {
            assert!(!outcome.is_error, "{outcome:?}");
        } else {
            assert_eq!(outcome.structured["reason"], "declined", "{outcome:?}");
        }
        draw(&mut harness);
        assert!(harness.query_by_label(button).is_none(), "the prompt is gone once answered");
    }
    let submitted = app.window::<windows::OrderEditor>("w1")?.read(|e| e.submitted)?;
    assert!(submitted, "the approved confirm ran");
    Ok(())
}

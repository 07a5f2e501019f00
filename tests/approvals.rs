//! A person approves an agent's action (a Purview extension beyond §5.6 and
//! §10.6): asked through the app's approver or the agent's client
//! (elicitation) before the call takes the operation lock; a decline, no one
//! to ask, or no answer in time is `approval_denied` and changes nothing; a
//! yes holds only for the window as it was when asked.

use std::future::IntoFuture as _;
use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::{Context as _, Result, ensure};
use proptest::prelude::*;
use purview::{
    App, approval::Approval, approval::ApprovalQueue, approval::ApprovalRequest, http::HttpOptions,
    model::ErrorCode, settings::ToolSurface,
};
use purview_tests::{Agent, Confirm, Editor, Elicit, Elicitation, Note, demo_builder};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;

/// The fixture with `confirm` on the confirmation dialog needing approval,
/// an editor `w1` with a recipient, and its dialog `w2` open.
fn app_with_dialog(timeout: Duration) -> Result<App> {
    let app = demo_builder()
        .tool_surface(ToolSurface::Both)
        .require_approval::<Confirm>("confirm")
        .require_approval::<Editor>("set_details")
        .approval_timeout(timeout)
        .build();
    let editor = app.open(Editor::default())?;
    editor.update(|e| e.recipient = "Ada".into())?;
    editor.open_modal(Confirm { depth: 1 })?;
    Ok(app)
}

fn submitted(app: &App) -> Result<bool> {
    Ok(app.window::<Editor>("w1")?.read(|e| e.submitted)?)
}

#[tokio::test]
async fn s5_6_an_approved_call_runs_a_declined_one_changes_nothing() -> Result<()> {
    let app = app_with_dialog(Duration::from_secs(5))?;
    let elicitation = Elicitation::new(Elicit::Decline);
    let mut agent = Agent::eliciting(&app, elicitation.clone()).await?;
    agent.subscribe().await?;
    let before = app.snapshot_json()?;

    let declined = agent.call("w2__confirm", json!({})).await?;
    ensure!(declined.code() == Some("approval_denied"), "{declined:?}");
    ensure!(declined.structured["reason"] == "declined", "{declined:?}");
    ensure!(
        declined.structured["message"].as_str().unwrap_or_default().contains("asks them again")
    );
    ensure!(app.snapshot_json()? == before, "a declined call changed the state");
    ensure!(agent.drain().await.is_empty(), "a declined call notified");
    let asked = elicitation.messages();
    ensure!(asked.len() == 1, "{asked:?}");
    ensure!(
        asked[0].contains("purview-test-agent")
            && asked[0].contains("Confirm submission (level 1)")
            && asked[0].contains("w2"),
        "the person sees who asks, where and what: {asked:?}"
    );

    elicitation.set(Elicit::Approve(true));
    let approved = agent.call("w2__confirm", json!({})).await?;
    ensure!(!approved.is_error, "{approved:?}");
    ensure!(submitted(&app)?, "the approved action ran");
    agent.expect(Note::Updated(purview::model::WINDOWS_URI.into())).await?;
    Ok(())
}

#[tokio::test]
async fn s5_6_a_form_answered_with_no_is_a_decline() -> Result<()> {
    let app = app_with_dialog(Duration::from_secs(5))?;
    let agent = Agent::eliciting(&app, Elicitation::new(Elicit::Approve(false))).await?;
    let refused = agent.call("w2__confirm", json!({})).await?;
    ensure!(refused.structured["reason"] == "declined", "{refused:?}");
    ensure!(!submitted(&app)?);
    Ok(())
}

#[tokio::test]
async fn s5_6_a_client_that_cannot_ask_gets_no_approver() -> Result<()> {
    let app = app_with_dialog(Duration::from_secs(5))?;
    let agent = Agent::legacy(&app).await?;
    let refused = agent.call("w2__confirm", json!({})).await?;
    ensure!(refused.code() == Some("approval_denied"), "{refused:?}");
    ensure!(refused.structured["reason"] == "no_approver", "{refused:?}");
    ensure!(!submitted(&app)?);
    // Nor can a 2026-07-28 session be asked (the server sends it no requests).
    let modern = Agent::modern(&app).await?;
    let refused = modern.call("w2__confirm", json!({})).await?;
    ensure!(refused.structured["reason"] == "no_approver", "{refused:?}");
    ensure!(!submitted(&app)?);
    // The person's own button never asks.
    app.call("w2__confirm", None).by_person().await.map_err(anyhow::Error::msg)?;
    ensure!(submitted(&app)?, "the person's call ran without asking");
    Ok(())
}

#[tokio::test]
async fn s5_6_the_apps_policy_decides_when_no_one_can_be_asked() -> Result<()> {
    let app = demo_builder()
        .require_approval::<Confirm>("confirm")
        .when_no_one_can_approve(Approval::Approve)
        .build();
    let editor = app.open(Editor::default())?;
    editor.update(|e| e.recipient = "Ada".into())?;
    editor.open_modal(Confirm { depth: 1 })?;
    // Whoever can be asked still is: a client that can ask says no.
    let asking = Agent::eliciting(&app, Elicitation::new(Elicit::Decline)).await?;
    let declined = asking.call("w2__confirm", json!({})).await?;
    ensure!(declined.structured["reason"] == "declined", "{declined:?}");
    // A client that was asked but failed to answer is no "no one": a no.
    let failing = Agent::eliciting(&app, Elicitation::new(Elicit::Fail)).await?;
    let failed = failing.call("w2__confirm", json!({})).await?;
    ensure!(failed.structured["reason"] == "declined", "{failed:?}");
    ensure!(!submitted(&app)?, "an ask that failed did not let it through");
    // No one to ask: the policy lets it go ahead.
    let plain = Agent::legacy(&app).await?;
    let ran = plain.call("w2__confirm", json!({})).await?;
    ensure!(!ran.is_error, "{ran:?}");
    ensure!(submitted(&app)?, "the policy let it run");
    Ok(())
}

#[tokio::test]
async fn s5_6_no_answer_in_time_is_a_timeout_and_others_carry_on_meanwhile() -> Result<()> {
    let app = app_with_dialog(Duration::from_millis(1500))?;
    let hanging = Agent::eliciting(&app, Elicitation::new(Elicit::Hang)).await?;
    let other = Agent::legacy(&app).await?;
    let pending = tokio::spawn(async move { hanging.call("w2__confirm", json!({})).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    ensure!(!pending.is_finished(), "the approval is pending");
    // Meanwhile: another session reads and acts, and the person edits.
    ensure!(other.read().await?.windows.len() == 2);
    let opened = other.call("app__new_editor", json!({})).await?;
    ensure!(!opened.is_error, "{opened:?}");
    app.window::<Editor>("w1")?.update(|e| e.hidden_counter += 1)?;
    ensure!(!pending.is_finished(), "still pending after the others were served");
    let timed_out = pending.await??;
    ensure!(timed_out.structured["reason"] == "timeout", "{timed_out:?}");
    ensure!(!submitted(&app)?);
    Ok(())
}

#[tokio::test]
async fn s7_1_a_change_while_the_person_decides_voids_the_approval() -> Result<()> {
    let app = app_with_dialog(Duration::from_secs(5))?;
    let editor = app.window::<Editor>("w1")?;
    // The app's approver: while asked, the person changes what the editor
    // shows, then says yes.
    let person = editor.clone();
    app.set_approver(move |_request: ApprovalRequest| {
        let person = person.clone();
        async move {
            person.update(|e| e.recipient = "Bo".into()).expect("the person's edit");
            Approval::Approve
        }
    });
    // set_details lives on the editor, which the dialog blocks: close it.
    app.close("w2")?;
    let before = editor.version()?;
    let voided = app
        .call("w1__set_details", json!({"recipient": "Cy", "amount": 5}).as_object().cloned())
        .await
        .unwrap_err();
    ensure!(voided.code == ErrorCode::StaleState, "{voided:?}");
    ensure!(voided.current_version == Some(before + 1), "{voided:?}");
    ensure!(editor.read(|e| e.recipient.clone())? == "Bo", "the person's edit stands");
    Ok(())
}

#[tokio::test]
async fn s7_1_a_window_closed_or_blocked_while_the_person_decides_voids_the_approval() -> Result<()>
{
    for (change, expected) in
        [("close", ErrorCode::WindowNotFound), ("block", ErrorCode::BlockedByModal)]
    {
        let app = app_with_dialog(Duration::from_secs(5))?;
        app.close("w2")?;
        let editor = app.window::<Editor>("w1")?;
        let (person, handle) = (app.clone(), editor.clone());
        app.set_approver(move |_request: ApprovalRequest| {
            let (person, handle) = (person.clone(), handle.clone());
            async move {
                match change {
                    "close" => person.close("w1").expect("the person closes the editor"),
                    _ => {
                        handle.open_modal(Confirm { depth: 1 }).expect("a dialog opens");
                    }
                }
                Approval::Approve
            }
        });
        let voided = app
            .call("w1__set_details", json!({"recipient": "Cy", "amount": 5}).as_object().cloned())
            .await
            .unwrap_err();
        ensure!(voided.code == expected, "{change}: {voided:?}");
        if change == "block" {
            ensure!(editor.read(|e| e.recipient.clone())? == "Ada", "nothing applied");
        }
    }
    Ok(())
}

#[tokio::test]
async fn s5_6_the_app_approver_comes_first_and_app_act_asks_too() -> Result<()> {
    let app = app_with_dialog(Duration::from_secs(5))?;
    let queue = ApprovalQueue::new();
    app.set_approver(queue.clone());
    // The client could elicit, but the app's own approver is asked first.
    let elicitation = Elicitation::new(Elicit::Approve(true));
    let agent = Agent::eliciting(&app, elicitation.clone()).await?;
    let call = tokio::spawn(async move {
        let outcome = agent.call("app__act", json!({"window": "w2", "action": "confirm"})).await;
        (agent, outcome)
    });
    let mut pending = Vec::new();
    for _ in 0..500 {
        pending = queue.pending();
        if !pending.is_empty() || call.is_finished() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    ensure!(!pending.is_empty(), "the app's approver was not asked");
    let request = &pending[0].request;
    ensure!(request.window_id.as_deref() == Some("w2") && request.action == "confirm");
    // Named by its connection, the only credential an in-process client
    // has; the name it gives itself is an aside.
    let asker = &request.agent;
    ensure!(asker.starts_with("The client on connection "), "{asker}");
    ensure!(asker.ends_with(r#", calling itself "purview-test-agent","#), "{asker}");
    queue.answer(pending[0].id, Approval::Decline);
    let (_agent, outcome) = call.await?;
    let outcome = outcome?;
    ensure!(outcome.structured["reason"] == "declined", "{outcome:?}");
    ensure!(elicitation.messages().is_empty(), "the client was not asked");
    ensure!(queue.pending().is_empty());
    Ok(())
}

#[tokio::test]
async fn s5_6_tools_say_they_wait_for_approval() -> Result<()> {
    let app = app_with_dialog(Duration::from_secs(5))?;
    let tools = app.tools()?;
    let confirm = tools.iter().find(|t| t.name == "w2__confirm").context("confirm is listed")?;
    ensure!(confirm.description.contains("approval") && confirm.description.contains("declined"));
    let cancel = tools.iter().find(|t| t.name == "w2__cancel").context("cancel is listed")?;
    ensure!(!cancel.description.contains("approval"));
    Ok(())
}

#[tokio::test]
async fn s5_6_approval_over_http_by_elicitation() -> Result<()> {
    let app = app_with_dialog(Duration::from_secs(5))?;
    let server = app.serve_http(HttpOptions::default()).await?;
    let elicitation = Elicitation::new(Elicit::Approve(true));
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let agent = Agent::over_with(transport, Some(elicitation.clone())).await?;
    let approved = agent.call("w2__confirm", json!({})).await?;
    ensure!(!approved.is_error, "{approved:?}");
    ensure!(elicitation.messages().len() == 1 && submitted(&app)?);
    agent.close().await?;
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn s5_6_every_approval_outcome_over_http() -> Result<()> {
    let app = app_with_dialog(Duration::from_millis(1500))?;
    let server = app.serve_http(HttpOptions::default()).await?;
    let connect = |elicitation: Option<Elicitation>| {
        Agent::over_with(StreamableHttpClientTransport::from_uri(server.url()), elicitation)
    };
    let elicitation = Elicitation::new(Elicit::Decline);
    let mut agent = connect(Some(elicitation.clone())).await?;
    agent.subscribe().await?;
    let before = agent.read_json().await?;

    // Declined: nothing changes, nothing is announced.
    let declined = agent.call("w2__confirm", json!({})).await?;
    ensure!(declined.structured["reason"] == "declined", "{declined:?}");
    ensure!(agent.read_json().await? == before, "a declined call changed the state");
    tokio::time::sleep(Duration::from_millis(100)).await;
    ensure!(agent.drain().await.is_empty(), "a declined call notified");

    // A client that cannot ask: no_approver.
    let plain = connect(None).await?;
    let refused = plain.call("w2__confirm", json!({})).await?;
    ensure!(refused.structured["reason"] == "no_approver", "{refused:?}");

    // No answer in time, while another session and the person carry on.
    elicitation.set(Elicit::Hang);
    let pending = tokio::spawn(async move {
        let outcome = agent.call("w2__confirm", json!({})).await;
        (agent, outcome)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    ensure!(plain.read().await?.windows.len() == 2, "another session reads meanwhile");
    ensure!(!plain.call("app__new_editor", json!({})).await?.is_error);
    app.window::<Editor>("w1")?.update(|e| e.hidden_counter += 1)?;
    ensure!(!pending.is_finished(), "the approval is still pending");
    let (agent, timed_out) = pending.await?;
    ensure!(timed_out?.structured["reason"] == "timeout");
    ensure!(!submitted(&app)?, "nothing ran without a yes");

    // Approved: it runs.
    elicitation.set(Elicit::Approve(true));
    let approved = agent.call("w2__confirm", json!({})).await?;
    ensure!(!approved.is_error, "{approved:?}");
    ensure!(submitted(&app)?, "the approved action ran");
    agent.close().await?;
    plain.close().await?;
    server.shutdown().await;
    Ok(())
}

/// Approval declared with the macros rather than by the builder.
#[purview::window(title = "Payments", summary = "{pending} payment(s) ready to send")]
#[derive(Clone)]
struct Payments {
    #[block(field)]
    pending: u32,
}

#[purview::actions]
impl Payments {
    /// Send every pending payment.
    #[action(destructive, approval)]
    fn send_all(&mut self, cx: &mut purview::Context) {
        self.pending = 0;
        cx.message("Sent");
    }
}

#[tokio::test]
async fn s5_6_an_action_marked_approval_by_the_macro_asks_first() -> Result<()> {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let app = App::builder()
        .approver(move |request: ApprovalRequest| {
            log.lock().unwrap().push(request.action.clone());
            async { Approval::Decline }
        })
        .build();
    let payments = app.open(Payments { pending: 3 })?;
    let tool = format!("{}__send_all", payments.id());
    let listed = app.tools()?;
    let definition = listed.iter().find(|t| t.name == tool).context("send_all is listed")?;
    ensure!(definition.description.contains("approval"), "{}", definition.description);
    let refused = app.call(&tool, None).await.unwrap_err();
    ensure!(refused.code == ErrorCode::ApprovalDenied, "{refused:?}");
    ensure!(payments.read(|p| p.pending)? == 3, "nothing was sent");
    ensure!(*asked.lock().unwrap() == ["send_all"], "the approver was asked once");
    // The person's own button does not ask.
    app.call(&tool, None).by_person().await.map_err(anyhow::Error::msg)?;
    ensure!(payments.read(|p| p.pending)? == 0 && asked.lock().unwrap().len() == 1);
    Ok(())
}

// ---------------------------------------------------------------------------
// Property: whatever the person answers, a call that was not approved, or
// whose approval was voided, never changes anything.

#[derive(Debug, Clone, Copy)]
enum Answer {
    Approve,
    Decline,
    Silence,
    EditThenApprove,
}

#[derive(Debug, Clone)]
enum Op {
    PersonEdit(bool),
    Call { answer: Answer, amount: u8 },
}

fn op() -> impl Strategy<Value = Op> {
    let answer = prop_oneof![
        Just(Answer::Approve),
        Just(Answer::Decline),
        Just(Answer::Silence),
        Just(Answer::EditThenApprove),
    ];
    prop_oneof![
        1 => any::<bool>().prop_map(Op::PersonEdit),
        3 => (answer, any::<u8>()).prop_map(|(answer, amount)| Op::Call { answer, amount }),
    ]
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let app = demo_builder()
        .tool_surface(ToolSurface::Both)
        .require_approval::<Editor>("set_details")
        .approval_timeout(Duration::from_millis(30))
        .build();
    let editor = app.open(Editor::default()).unwrap();
    let script: Arc<Mutex<Answer>> = Arc::new(Mutex::new(Answer::Approve));
    // What the state became after the person's edit during an approval.
    let after_edit: Arc<Mutex<Option<Arc<str>>>> = Arc::default();
    {
        let (script, after_edit, person, app) =
            (script.clone(), after_edit.clone(), editor.clone(), app.clone());
        app.clone().set_approver(move |_request: ApprovalRequest| {
            let answer = *script.lock().unwrap();
            let (after_edit, person, app) = (after_edit.clone(), person.clone(), app.clone());
            async move {
                match answer {
                    Answer::Approve => Approval::Approve,
                    Answer::Decline => Approval::Decline,
                    Answer::Silence => std::future::pending().await,
                    Answer::EditThenApprove => {
                        person.update(|e| e.recipient.push('!')).unwrap();
                        *after_edit.lock().unwrap() = Some(app.snapshot_json().unwrap());
                        Approval::Approve
                    }
                }
            }
        });
    }
    for op in ops {
        match op {
            Op::PersonEdit(fill) => {
                editor
                    .update(|e| e.recipient = if fill { "Ada".into() } else { String::new() })
                    .unwrap();
            }
            Op::Call { answer, amount } => {
                *script.lock().unwrap() = answer;
                *after_edit.lock().unwrap() = None;
                let before = app.snapshot_json().unwrap();
                let args = json!({"recipient": "Agent", "amount": f64::from(amount) + 1.0});
                let result = runtime
                    .block_on(app.call("w1__set_details", args.as_object().cloned()).into_future());
                let now = app.snapshot_json().unwrap();
                match (answer, result) {
                    (Answer::Approve, Ok(_)) => {}
                    (Answer::Approve, Err(e)) => {
                        prop_assert!(false, "an approved call failed: {e}")
                    }
                    (Answer::Decline | Answer::Silence, Ok(_)) => {
                        prop_assert!(false, "a call ran without approval")
                    }
                    (Answer::Decline | Answer::Silence, Err(e)) => {
                        prop_assert_eq!(e.code, ErrorCode::ApprovalDenied);
                        prop_assert_eq!(&now, &before, "a refused call changed the state");
                    }
                    (Answer::EditThenApprove, Ok(_)) => {
                        prop_assert!(false, "an approval for a window that changed was honoured")
                    }
                    (Answer::EditThenApprove, Err(e)) => {
                        prop_assert_eq!(e.code, ErrorCode::StaleState);
                        let edited = after_edit.lock().unwrap().clone().unwrap();
                        prop_assert_eq!(&now, &edited, "a voided call changed the state");
                    }
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn s5_6_no_refused_or_voided_call_ever_changes_state(ops in proptest::collection::vec(op(), 1..16)) {
        run(ops)?;
    }
}

#[tokio::test]
async fn s5_6_order_desk_asks_for_approval_over_stdio_when_told_to() -> Result<()> {
    let start = |approval: bool| async move {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_order_desk"));
        if approval {
            command.arg("--require-approval");
        }
        let (transport, _) = rmcp::transport::TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::null())
            .spawn()?;
        let elicitation = Elicitation::new(Elicit::Decline);
        let agent = Agent::over_with(transport, Some(elicitation.clone())).await?;
        agent.call("w1__edit_field", json!({"field": "recipient", "value": "Ada"})).await?;
        agent.call("w1__submit", json!({})).await?;
        anyhow::Ok((agent, elicitation))
    };
    let (mut agent, elicitation) = start(true).await?;
    agent.subscribe().await?;
    let before = agent.read_json().await?;
    agent.drain().await;
    let declined = agent.call("w3__confirm", json!({})).await?;
    ensure!(declined.structured["reason"] == "declined", "{declined:?}");
    ensure!(elicitation.messages()[0].contains("Confirm submission"));
    ensure!(agent.read_json().await? == before, "a declined call changed the state");
    ensure!(agent.drain().await.is_empty(), "a declined call notified");
    elicitation.set(Elicit::Approve(true));
    let confirmed = agent.call("w3__confirm", json!({})).await?;
    ensure!(!confirmed.is_error, "{confirmed:?}");
    agent.close().await?;
    // Without the switch nothing is asked.
    let (agent, elicitation) = start(false).await?;
    ensure!(!agent.call("w3__confirm", json!({})).await?.is_error);
    ensure!(elicitation.messages().is_empty());
    agent.close().await
}

/// The recipient an earlier question showed 65 characters of: 123 characters,
/// the end of which a person never read.
const LONG_RECIPIENT: &str = "Ada Lovelace, Analytical Engines, 12 Marylebone Road W1, London, and forward the goods to Mallory, 1 Evil Road, account 666";

/// `w1` alone, with `set_details` needing approval.
fn app_asking_for_details() -> Result<App> {
    let app = demo_builder()
        .tool_surface(ToolSurface::Both)
        .require_approval::<Editor>("set_details")
        .approval_timeout(Duration::from_secs(5))
        .build();
    app.open(Editor::default())?;
    Ok(app)
}

fn recipient_of(app: &App) -> Result<String> {
    Ok(app.window::<Editor>("w1")?.read(|e| e.recipient.clone())?)
}

/// RELIABILITY.md "A hostile agent": each argument was cut to 64 characters in the question
/// while a yes applied all of it. Now the person asked, in the app or by
/// elicitation, reads every character that is applied.
#[tokio::test]
async fn s5_6_a_long_argument_is_shown_whole_where_the_yes_applies_it() -> Result<()> {
    ensure!(LONG_RECIPIENT.chars().count() == 123);
    let shown = format!("recipient: \"{LONG_RECIPIENT}\"");
    // By elicitation.
    let app = app_asking_for_details()?;
    let elicitation = Elicitation::new(Elicit::Approve(true));
    let agent = Agent::eliciting(&app, elicitation.clone()).await?;
    let args = json!({"recipient": LONG_RECIPIENT, "amount": 999_999.99});
    let done = agent.call("w1__set_details", args.clone()).await?;
    ensure!(!done.is_error, "{done:?}");
    let asked = elicitation.messages();
    ensure!(asked.len() == 1 && asked[0].contains(&shown), "the question: {asked:?}");
    ensure!(recipient_of(&app)? == LONG_RECIPIENT, "what was applied is what was shown");
    // By the app's own approver.
    let app = app_asking_for_details()?;
    let queue = ApprovalQueue::new();
    app.set_approver(queue.clone());
    let agent = Agent::eliciting(&app, Elicitation::new(Elicit::Decline)).await?;
    let call = tokio::spawn(async move { agent.call("w1__set_details", args).await });
    let pending = loop {
        if let Some(pending) = queue.pending().into_iter().next() {
            break pending;
        }
        ensure!(!call.is_finished(), "the app's approver was not asked: {:?}", call.await);
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    ensure!(pending.request.arguments["recipient"] == LONG_RECIPIENT, "{:?}", pending.request);
    let text = pending.request.describe();
    ensure!(text.contains(&shown), "the in-app question: {text}");
    queue.answer(pending.id, Approval::Approve);
    let done = call.await??;
    ensure!(!done.is_error, "{done:?}");
    ensure!(recipient_of(&app)? == LONG_RECIPIENT);
    Ok(())
}

/// An argument too long for a question to show whole is refused before
/// anyone is asked, naming the argument and the bound; nothing is applied.
#[tokio::test]
async fn s5_6_an_argument_too_long_to_show_is_refused_before_anyone_is_asked() -> Result<()> {
    let app = app_asking_for_details()?;
    let elicitation = Elicitation::new(Elicit::Approve(true));
    let agent = Agent::eliciting(&app, elicitation.clone()).await?;
    let long = format!("{LONG_RECIPIENT}{}", " x".repeat(600));
    let refused =
        agent.call("w1__set_details", json!({"recipient": long, "amount": 999_999.99})).await?;
    ensure!(refused.code() == Some("validation_failed"), "{refused:?}");
    let field = &refused.structured["fields"][0];
    ensure!(field["field"] == "recipient", "{refused:?}");
    let error = field["error"].as_str().unwrap_or_default();
    ensure!(error.contains("up to 1024 characters each") && error.contains("shorter"), "{error}");
    ensure!(elicitation.messages().is_empty(), "no one was asked");
    ensure!(recipient_of(&app)?.is_empty(), "nothing was applied");
    // Within the bound, the same call is asked about.
    let fits = agent.call("w1__set_details", json!({"recipient": LONG_RECIPIENT, "amount": 1}));
    ensure!(!fits.await?.is_error);
    ensure!(elicitation.messages().len() == 1);
    Ok(())
}

/// RELIABILITY.md "A hostile agent": the window's summary, which holds what the agent set, went
/// into the question unquoted; so did the client's own name.
#[tokio::test]
async fn s5_6_the_window_summary_and_the_clients_name_are_quoted_in_the_question() -> Result<()> {
    let app = app_with_dialog(Duration::from_secs(5))?;
    let elicitation = Elicitation::new(Elicit::Decline);
    let agent = Agent::eliciting(&app, elicitation.clone()).await?;
    agent.call("w2__confirm", json!({})).await?;
    let asked = elicitation.messages().first().cloned().context("a question")?;
    ensure!(asked.starts_with("The client on connection "), "{asked}");
    ensure!(asked.contains(r#", calling itself "purview-test-agent", asks"#), "{asked}");
    let says = asked.lines().find(|l| l.starts_with("The window says: ")).context("a summary")?;
    let quoted = says.trim_start_matches("The window says: ");
    ensure!(quoted.starts_with('"') && quoted.ends_with('"'), "{asked}");
    Ok(())
}

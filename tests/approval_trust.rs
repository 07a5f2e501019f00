//! Approvals on every protocol generation, and only from whom the app
//! trusts (a Purview extension beyond §5.6 and §10.6).
//!
//! On 2026-07-28 the server may not send the client a request, so an
//! approval question ends the first call with `input_required` (a form
//! elicitation and a sealed `requestState`); the client calls again with
//! the answer. The state binds the window, its version, the action and the
//! arguments, expires with the approval timeout and holds once. Which yes
//! counts is the app's setting (`WhoApproves`), and results say whose yes
//! it was (`approvedBy`).

use std::time::Duration;

use anyhow::{Context as _, Result, anyhow, ensure};
use proptest::prelude::*;
use purview::{
    App, approval::Approval, approval::ApprovalQueue, approval::ApprovalRequest,
    approval::WhoApproves, http::HttpOptions, model::ErrorCode, settings::ToolSurface,
};
use purview_tests::{Agent, AppMenu, Confirm, Editor, Elicit, Elicitation, demo_builder};
use rmcp::{
    model::{CallToolRequestParams, CallToolResponse, InputRequiredResult},
    transport::StreamableHttpClientTransport,
};
use serde_json::{Value, json};

/// The editor `w1` with `set_details` needing approval (and `confirm` on
/// its dialog), as `who` allows.
fn app_trusting(who: WhoApproves, timeout: Duration) -> Result<App> {
    let app = demo_builder()
        .tool_surface(ToolSurface::Both)
        .require_approval::<Confirm>("confirm")
        .require_approval::<Editor>("set_details")
        .approval_timeout(timeout)
        .who_approves(who)
        .build();
    app.open(Editor::default())?;
    Ok(app)
}

fn details(recipient: &str, amount: u32) -> CallToolRequestParams {
    let arguments = json!({"recipient": recipient, "amount": amount});
    CallToolRequestParams::new("w1__set_details").with_arguments(as_object(arguments))
}

fn as_object(value: Value) -> purview::model::JsonObject {
    value.as_object().cloned().unwrap_or_default()
}

fn recipient(app: &App) -> Result<String> {
    Ok(app.window::<Editor>("w1")?.read(|e| e.recipient.clone())?)
}

/// The first round of an approval question: `input_required` with one
/// form and a state.
async fn question(agent: &Agent, params: CallToolRequestParams) -> Result<InputRequiredResult> {
    match agent.call_once(params).await? {
        CallToolResponse::InputRequired(question) => Ok(question),
        other => Err(anyhow!("expected input_required, got {other:?}")),
    }
}

/// The retry carrying `answer` (an elicitation result) and `state`.
async fn answer(
    agent: &Agent,
    params: CallToolRequestParams,
    state: &str,
    approve: Option<bool>,
) -> Result<(bool, Value)> {
    let mut responses = std::collections::BTreeMap::new();
    if let Some(approve) = approve {
        responses.insert(
            "approval".to_owned(),
            json!({"action": "accept", "content": {"approve": approve}}),
        );
    }
    let retry = params.with_request_state(state).with_input_responses(responses);
    match agent.call_once(retry).await? {
        CallToolResponse::Complete(result) => {
            Ok((result.is_error == Some(true), result.structured_content.unwrap_or(Value::Null)))
        }
        other => Err(anyhow!("expected a result, got {other:?}")),
    }
}

/// The next question the app's approver is asked.
async fn next_question(queue: &ApprovalQueue) -> purview::approval::PendingApproval {
    loop {
        if let Some(pending) = queue.pending().into_iter().next() {
            return pending;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn call_new_editor(
    app: App,
) -> Result<purview::Performed<Option<serde_json::Value>>, purview::ToolError> {
    app.call("app__new_editor", None).await
}

fn state_of(question: &InputRequiredResult) -> Result<String> {
    question.request_state.clone().context("the question carries no requestState")
}

#[tokio::test]
async fn s5_6_a_2026_client_is_asked_by_a_question_and_its_yes_applies() -> Result<()> {
    let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(5))?;
    let elicitation = Elicitation::new(Elicit::Approve(true));
    let agent = Agent::modern_eliciting(&app, elicitation.clone()).await?;
    // rmcp's client puts the form to its user and retries, as hosts do.
    let done = agent.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await?;
    ensure!(!done.is_error, "{done:?}");
    ensure!(done.structured["approvedBy"] == "client", "{done:?}");
    ensure!(recipient(&app)? == "Ada");
    let asked = elicitation.messages();
    ensure!(asked.len() == 1, "{asked:?}");
    ensure!(asked[0].contains("purview-test-agent"), "who asks: {asked:?}");
    ensure!(asked[0].contains("recipient: \"Ada\""), "what is asked: {asked:?}");
    Ok(())
}

#[tokio::test]
async fn s5_6_the_question_has_todays_wording_and_a_one_field_form() -> Result<()> {
    let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(5))?;
    let agent = Agent::modern_eliciting(&app, Elicitation::new(Elicit::Decline)).await?;
    let asked = question(&agent, details("Ada", 7)).await?;
    let wire = serde_json::to_value(&asked)?;
    ensure!(wire["resultType"] == "input_required", "{wire}");
    let form = &wire["inputRequests"]["approval"];
    ensure!(form["method"] == "elicitation/create", "{wire}");
    ensure!(form["params"]["mode"] == "form", "{wire}");
    let message = form["params"]["message"].as_str().unwrap_or_default();
    ensure!(message.contains("Reply with approve = true"), "{message}");
    let schema = &form["params"]["requestedSchema"];
    ensure!(schema["properties"]["approve"]["type"] == "boolean", "{schema}");
    ensure!(schema["required"] == json!(["approve"]), "{schema}");
    ensure!(recipient(&app)?.is_empty(), "asking changed nothing");
    Ok(())
}

#[tokio::test]
async fn s5_6_a_2026_decline_changes_nothing() -> Result<()> {
    let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(5))?;
    let agent = Agent::modern_eliciting(&app, Elicitation::new(Elicit::Approve(false))).await?;
    let before = app.snapshot_json()?;
    let declined = agent.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await?;
    ensure!(declined.is_error && declined.code() == Some("approval_denied"), "{declined:?}");
    ensure!(declined.structured["reason"] == "declined", "{declined:?}");
    ensure!(app.snapshot_json()? == before, "a declined call changed the state");
    // A retry that brings no answer at all is no yes either.
    let asked = question(&agent, details("Ada", 7)).await?;
    let (is_error, silent) = answer(&agent, details("Ada", 7), &state_of(&asked)?, None).await?;
    ensure!(is_error && silent["reason"] == "declined", "{silent}");
    ensure!(app.snapshot_json()? == before);
    Ok(())
}

#[tokio::test]
async fn s7_1_a_2026_yes_for_a_window_that_moved_applies_nothing() -> Result<()> {
    let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(5))?;
    let agent = Agent::modern_eliciting(&app, Elicitation::new(Elicit::Decline)).await?;
    let asked = question(&agent, details("Ada", 7)).await?;
    // While the person decides, someone edits the editor.
    let editor = app.window::<Editor>("w1")?;
    editor.update(|e| e.recipient = "Bo".into())?;
    let now = editor.version()?;
    let (is_error, stale) =
        answer(&agent, details("Ada", 7), &state_of(&asked)?, Some(true)).await?;
    ensure!(is_error && stale["code"] == "stale_state", "{stale}");
    ensure!(stale["currentVersion"] == now, "{stale}");
    ensure!(recipient(&app)? == "Bo", "the newer edit stands");
    Ok(())
}

#[tokio::test]
async fn s5_6_a_2026_state_that_was_altered_replayed_or_late_is_refused() -> Result<()> {
    let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_millis(400))?;
    let agent = Agent::modern_eliciting(&app, Elicitation::new(Elicit::Decline)).await?;
    let state = state_of(&question(&agent, details("Ada", 7)).await?)?;
    let before = app.snapshot_json()?;
    // One character changed.
    let mut altered = state.clone().into_bytes();
    let last = altered.len() - 1;
    altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
    let altered = String::from_utf8(altered)?;
    let (is_error, refused) = answer(&agent, details("Ada", 7), &altered, Some(true)).await?;
    ensure!(is_error && refused["reason"] == "invalid", "{refused}");
    // The person approved 7, not 7,000.
    let (is_error, refused) = answer(&agent, details("Ada", 7000), &state, Some(true)).await?;
    ensure!(is_error && refused["reason"] == "invalid", "{refused}");
    ensure!(app.snapshot_json()? == before, "a refused answer changed the state");
    // The genuine answer applies once; the same answer again does not.
    let (is_error, applied) = answer(&agent, details("Ada", 7), &state, Some(true)).await?;
    ensure!(!is_error && applied["approvedBy"] == "client", "{applied}");
    app.window::<Editor>("w1")?.update(|e| e.recipient = "Bo".into())?;
    let (is_error, replayed) = answer(&agent, details("Ada", 7), &state, Some(true)).await?;
    ensure!(is_error && replayed["reason"] == "replayed", "{replayed}");
    ensure!(recipient(&app)? == "Bo", "a replayed yes changed the state");
    // An answer after the question expired.
    let late = state_of(&question(&agent, details("Cy", 8)).await?)?;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let (is_error, expired) = answer(&agent, details("Cy", 8), &late, Some(true)).await?;
    ensure!(is_error && expired["reason"] == "expired", "{expired}");
    ensure!(recipient(&app)? == "Bo");
    Ok(())
}

#[tokio::test]
async fn s5_6_a_2026_state_from_another_app_does_not_open() -> Result<()> {
    let first = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(5))?;
    let second = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(5))?;
    let asker = Agent::modern_eliciting(&first, Elicitation::new(Elicit::Decline)).await?;
    let state = state_of(&question(&asker, details("Ada", 7)).await?)?;
    let other = Agent::modern_eliciting(&second, Elicitation::new(Elicit::Decline)).await?;
    let (is_error, refused) = answer(&other, details("Ada", 7), &state, Some(true)).await?;
    ensure!(is_error && refused["reason"] == "invalid", "{refused}");
    ensure!(recipient(&second)?.is_empty());
    // With one key for both (replicas behind one address), it does.
    let key = [42u8; 32];
    let build = || -> Result<App> {
        let app =
            demo_builder().require_approval::<Editor>("set_details").approval_key(key).build();
        app.open(Editor::default())?;
        Ok(app)
    };
    let (one, two) = (build()?, build()?);
    let asker = Agent::modern_eliciting(&one, Elicitation::new(Elicit::Decline)).await?;
    let state = state_of(&question(&asker, details("Ada", 7)).await?)?;
    let replica = Agent::modern_eliciting(&two, Elicitation::new(Elicit::Decline)).await?;
    let (is_error, applied) = answer(&replica, details("Ada", 7), &state, Some(true)).await?;
    ensure!(!is_error, "{applied}");
    ensure!(recipient(&two)? == "Ada");
    Ok(())
}

#[test]
fn s5_6_a_short_approval_key_is_refused_when_the_app_is_built() {
    let err = App::builder().approval_key(b"short").try_build().unwrap_err();
    assert!(err.to_string().contains("at least 32"), "{err}");
}

#[tokio::test]
async fn s5_6_a_client_answering_itself_is_refused_when_only_the_person_at_the_app_counts()
-> Result<()> {
    let app = app_trusting(WhoApproves::InApp, Duration::from_secs(5))?;
    // A headless client that says yes to everything, on both generations.
    let yes = Elicitation::new(Elicit::Approve(true));
    let modern = Agent::modern_eliciting(&app, yes.clone()).await?;
    let refused = modern.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await?;
    ensure!(refused.structured["reason"] == "no_approver", "{refused:?}");
    let legacy = Agent::eliciting(&app, yes.clone()).await?;
    let refused = legacy.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await?;
    ensure!(refused.structured["reason"] == "no_approver", "{refused:?}");
    ensure!(yes.messages().is_empty(), "the client was asked: {:?}", yes.messages());
    ensure!(recipient(&app)?.is_empty());
    // The person at the app decides instead, and the result says so.
    let queue = ApprovalQueue::new();
    app.set_approver(queue.clone());
    let answering = {
        let queue = queue.clone();
        tokio::spawn(async move {
            let pending = next_question(&queue).await;
            queue.answer(pending.id, Approval::Approve);
        })
    };
    let done = modern.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await?;
    answering.await?;
    ensure!(done.structured["approvedBy"] == "in_app", "{done:?}");
    ensure!(yes.messages().is_empty());
    Ok(())
}

#[tokio::test]
async fn s5_6_a_client_answering_itself_is_accepted_when_the_app_trusts_clients() -> Result<()> {
    let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(5))?;
    let yes = Elicitation::new(Elicit::Approve(true));
    let legacy = Agent::eliciting(&app, yes.clone()).await?;
    let done = legacy.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await?;
    ensure!(!done.is_error, "{done:?}");
    ensure!(done.structured["approvedBy"] == "client", "{done:?}");
    ensure!(yes.messages().len() == 1);
    // Results of actions without approval say nothing of it.
    let plain = legacy.call("w1__edit_field", json!({"field": "recipient", "value": "Bo"})).await?;
    ensure!(plain.structured.get("approvedBy").is_none(), "{plain:?}");
    // The output schema of an approval action describes the field.
    let tools = legacy.tools().await?;
    let tool = tools.iter().find(|t| t.name == "w1__set_details").context("listed")?;
    let schema = serde_json::to_value(tool.output_schema.as_deref())?;
    ensure!(schema["properties"]["approvedBy"]["enum"] == json!(["in_app", "client", "policy"]));
    Ok(())
}

#[tokio::test]
async fn s5_6_the_apps_own_policy_decides_without_asking() -> Result<()> {
    let policy = WhoApproves::policy(|request: &ApprovalRequest| {
        if request.arguments["amount"].as_f64() < Some(100.0) {
            Approval::Approve
        } else {
            Approval::Decline
        }
    });
    let app = app_trusting(policy, Duration::from_secs(5))?;
    let asked = Elicitation::new(Elicit::Approve(true));
    let agent = Agent::modern_eliciting(&app, asked.clone()).await?;
    let small = agent.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await?;
    ensure!(small.structured["approvedBy"] == "policy", "{small:?}");
    let large = agent.call("w1__set_details", json!({"recipient": "Bo", "amount": 700})).await?;
    ensure!(large.structured["reason"] == "declined", "{large:?}");
    ensure!(recipient(&app)? == "Ada");
    ensure!(asked.messages().is_empty(), "no one is asked under a policy");
    Ok(())
}

#[tokio::test]
async fn s5_6_a_2026_question_over_http_is_answered_on_retry() -> Result<()> {
    let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(5))?;
    let server = app.serve_http(HttpOptions::default()).await?;
    let url = server.url();
    let yes = Elicitation::new(Elicit::Approve(true));
    let agent =
        Agent::modern_over_with(StreamableHttpClientTransport::from_uri(url), Some(yes.clone()))
            .await?;
    let done = agent.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await?;
    ensure!(done.structured["approvedBy"] == "client", "{done:?}");
    ensure!(recipient(&app)? == "Ada");
    ensure!(yes.messages().len() == 1);
    // Every request is its own server there: the replay is still caught.
    let state = state_of(&question(&agent, details("Bo", 8)).await?)?;
    let (is_error, _) = answer(&agent, details("Bo", 8), &state, Some(true)).await?;
    ensure!(!is_error && recipient(&app)? == "Bo");
    app.window::<Editor>("w1")?.update(|e| e.recipient = "Cy".into())?;
    let (is_error, replayed) = answer(&agent, details("Bo", 8), &state, Some(true)).await?;
    ensure!(is_error && replayed["reason"] == "replayed", "{replayed}");
    ensure!(recipient(&app)? == "Cy");
    Ok(())
}

#[tokio::test]
async fn s10_2_an_app_level_approval_is_voided_by_a_change_to_the_apps_windows() -> Result<()> {
    let app = demo_builder()
        .tool_surface(ToolSurface::Both)
        .require_approval::<AppMenu>("new_editor")
        .build();
    // In-app: while the person decides, a window opens.
    let queue = ApprovalQueue::new();
    app.set_approver(queue.clone());
    let calling = tokio::spawn(call_new_editor(app.clone()));
    let pending = next_question(&queue).await;
    app.open(Editor::default())?;
    queue.answer(pending.id, Approval::Approve);
    let voided = calling.await?.unwrap_err();
    ensure!(voided.code == ErrorCode::ApprovalDenied, "{voided:?}");
    ensure!(voided.reason.map(|r| r.to_string()).as_deref() == Some("changed"), "{voided:?}");
    ensure!(app.snapshot()?.windows.len() == 1, "the action ran anyway");
    // An unchanged app: the same yes holds.
    let calling = tokio::spawn(call_new_editor(app.clone()));
    let pending = next_question(&queue).await;
    queue.answer(pending.id, Approval::Approve);
    let done = calling.await?.map_err(|e| anyhow!("{e:?}"))?;
    ensure!(done.approved_by == Some(purview::model::ApprovedBy::InApp));
    ensure!(app.snapshot()?.windows.len() == 2);
    Ok(())
}

#[tokio::test]
async fn s10_2_a_2026_app_level_question_binds_the_apps_windows() -> Result<()> {
    let app = demo_builder()
        .tool_surface(ToolSurface::Both)
        .require_approval::<AppMenu>("new_editor")
        .build();
    let agent = Agent::modern_eliciting(&app, Elicitation::new(Elicit::Decline)).await?;
    let new_editor = || CallToolRequestParams::new("app__new_editor");
    let state = state_of(&question(&agent, new_editor()).await?)?;
    app.open(Editor::default())?;
    let (is_error, voided) = answer(&agent, new_editor(), &state, Some(true)).await?;
    ensure!(is_error && voided["reason"] == "changed", "{voided}");
    ensure!(app.snapshot()?.windows.len() == 1);
    let state = state_of(&question(&agent, new_editor()).await?)?;
    let (is_error, done) = answer(&agent, new_editor(), &state, Some(true)).await?;
    ensure!(!is_error && done["approvedBy"] == "client", "{done}");
    ensure!(app.snapshot()?.windows.len() == 2);
    Ok(())
}

// ---------------------------------------------------------------------------
// Property: under any interleaving of the person's edits, agents' questions
// and answers (2026-07-28 retries, replays included), an approved call
// applies at most once, and only to the state that was approved.

#[derive(Debug, Clone)]
enum Op {
    /// The person edits the editor (its version moves).
    PersonEdit,
    /// An agent asks to set the recipient to `Agent{n}`.
    Ask,
    /// The answer to question `i` (modulo those asked), yes or no.
    Answer { i: usize, approve: bool },
    /// The answer to question `i` sent again.
    Replay { i: usize },
    /// Question `i`'s state sent with other arguments.
    Swap { i: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::PersonEdit),
        3 => Just(Op::Ask),
        4 => (0..8usize, any::<bool>()).prop_map(|(i, approve)| Op::Answer { i, approve }),
        2 => (0..8usize).prop_map(|i| Op::Replay { i }),
        1 => (0..8usize).prop_map(|i| Op::Swap { i }),
    ]
}

/// One question as the model of the test knows it.
struct Asked {
    state: String,
    recipient: String,
    version: u64,
    /// Whether a yes to it was used (a decline is recorded nowhere, so a
    /// declined question may still be answered yes, once).
    yes_used: bool,
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async move {
        let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(30)).unwrap();
        let editor = app.window::<Editor>("w1").unwrap();
        let agent = Agent::modern_eliciting(&app, Elicitation::new(Elicit::Decline)).await.unwrap();
        let mut asked: Vec<Asked> = Vec::new();
        let mut edits = 0u32;
        for op in ops {
            match op {
                Op::PersonEdit => {
                    edits += 1;
                    editor.update(|e| e.recipient = format!("Person{edits}")).unwrap();
                }
                Op::Ask => {
                    let recipient = format!("Agent{}", asked.len());
                    let params = details(&recipient, 1);
                    let version = editor.version().unwrap();
                    let question = question(&agent, params).await.unwrap();
                    let state = question.request_state.unwrap();
                    asked.push(Asked { state, recipient, version, yes_used: false });
                }
                Op::Answer { .. } | Op::Replay { .. } | Op::Swap { .. } if asked.is_empty() => {}
                Op::Answer { i, approve } => {
                    let i = i % asked.len();
                    let before = app.snapshot_json().unwrap();
                    let version_now = editor.version().unwrap();
                    let q = &mut asked[i];
                    let (is_error, outcome) =
                        answer(&agent, details(&q.recipient, 1), &q.state, Some(approve))
                            .await
                            .unwrap();
                    let first = !q.yes_used;
                    q.yes_used |= approve;
                    let applies = first && approve && version_now == q.version;
                    prop_assert_eq!(
                        !is_error,
                        applies,
                        "answer {} of {:?}: {}",
                        i,
                        approve,
                        outcome
                    );
                    if applies {
                        prop_assert_eq!(
                            editor.read(|e| e.recipient.clone()).unwrap(),
                            q.recipient.clone()
                        );
                        prop_assert_eq!(&outcome["approvedBy"], "client");
                    } else {
                        prop_assert_eq!(
                            app.snapshot_json().unwrap(),
                            before,
                            "a refused answer changed the state: {}",
                            outcome
                        );
                        let expected = if !first {
                            "replayed"
                        } else if !approve {
                            "declined"
                        } else {
                            "stale"
                        };
                        if expected == "stale" {
                            prop_assert_eq!(&outcome["code"], "stale_state", "{}", outcome);
                        } else {
                            prop_assert_eq!(&outcome["reason"], expected, "{}", outcome);
                        }
                    }
                }
                Op::Replay { i } => {
                    let i = i % asked.len();
                    let q = &asked[i];
                    if !q.yes_used {
                        continue;
                    }
                    let before = app.snapshot_json().unwrap();
                    let (is_error, outcome) =
                        answer(&agent, details(&q.recipient, 1), &q.state, Some(true))
                            .await
                            .unwrap();
                    prop_assert!(is_error, "a replayed answer applied: {}", outcome);
                    prop_assert_eq!(&outcome["reason"], "replayed", "{}", outcome);
                    prop_assert_eq!(app.snapshot_json().unwrap(), before);
                }
                Op::Swap { i } => {
                    let i = i % asked.len();
                    let before = app.snapshot_json().unwrap();
                    let q = &asked[i];
                    let (is_error, outcome) =
                        answer(&agent, details("Mallory", 1), &q.state, Some(true)).await.unwrap();
                    prop_assert!(is_error, "a state applied to other arguments: {}", outcome);
                    prop_assert_eq!(&outcome["reason"], "invalid", "{}", outcome);
                    prop_assert_eq!(app.snapshot_json().unwrap(), before);
                }
            }
        }
        Ok(())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn s5_6_an_approved_call_applies_at_most_once_and_only_to_the_approved_state(
        ops in proptest::collection::vec(op(), 1..24)
    ) {
        run(ops)?;
    }
}

/// RELIABILITY.md "Fair shares": the record of used 2026-07-28 answers
/// was one table of 4,096 for the whole app, declines included, and one
/// client filled it with its own asks and declines: every other client's
/// honest yes was refused with `limit_reached` for two minutes.
#[tokio::test]
async fn s5_6_one_client_asking_and_answering_without_end_never_refuses_anothers_yes() -> Result<()>
{
    let app = app_trusting(WhoApproves::InAppOrClient, Duration::from_secs(120))?;
    let flood = Agent::modern_eliciting(&app, Elicitation::new(Elicit::Decline)).await?;
    let honest = Agent::modern_eliciting(&app, Elicitation::new(Elicit::Decline)).await?;
    let asked = state_of(&question(&honest, details("Ada", 7)).await?)?;
    // More than the old table held: declines, and yeses that applied.
    for i in 0..4_200u32 {
        let params = details(&format!("Flood{i}"), 1);
        let state = state_of(&question(&flood, params.clone()).await?)?;
        let (is_error, outcome) = answer(&flood, params, &state, Some(i % 2 == 0)).await?;
        ensure!(is_error == (i % 2 == 1), "{outcome}");
    }
    // The honest question was asked before all that; the window moved
    // meanwhile, so its yes is stale_state, not limit_reached.
    let (is_error, outcome) = answer(&honest, details("Ada", 7), &asked, Some(true)).await?;
    ensure!(is_error && outcome["code"] == "stale_state", "{outcome}");
    let state = state_of(&question(&honest, details("Ada", 7)).await?)?;
    let (is_error, outcome) = answer(&honest, details("Ada", 7), &state, Some(true)).await?;
    ensure!(!is_error && outcome["approvedBy"] == "client", "{outcome}");
    ensure!(recipient(&app)? == "Ada");
    Ok(())
}

/// RELIABILITY.md "Fair shares": one client opened 16 sessions and asked 4
/// approval questions in each, and the pool of 64 waiting questions was
/// full for everyone: a second client's approval calls all got
/// `limit_reached`.
#[tokio::test]
async fn s5_6_a_client_with_many_sessions_cannot_take_every_approval_place() -> Result<()> {
    let app = demo_builder()
        .tool_surface(ToolSurface::Both)
        .require_approval::<Editor>("set_details")
        .limits(purview::settings::Limits::default().max_pending_approvals(8))
        .build();
    app.open(Editor::default())?;
    let queue = ApprovalQueue::new();
    app.set_approver(queue.clone());
    // Two sessions of the hog, four unanswered questions each: all 8 places.
    let mut hog = Vec::new();
    for _ in 0..2 {
        let agent = std::sync::Arc::new(Agent::legacy(&app).await?);
        for i in 0..4 {
            let agent = agent.clone();
            hog.push(tokio::spawn(async move {
                let arguments = json!({"recipient": format!("Hog{i}"), "amount": 1});
                agent.call("w1__set_details", arguments).await
            }));
        }
    }
    while queue.pending().len() < 8 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The second client is asked, not refused.
    let good = std::sync::Arc::new(Agent::legacy(&app).await?);
    let call = {
        let good = good.clone();
        tokio::spawn(async move {
            good.call("w1__set_details", json!({"recipient": "Ada", "amount": 7})).await
        })
    };
    let mut withdrawn = None;
    for _ in 0..400 {
        if let Some(done) = hog.iter().position(tokio::task::JoinHandle::is_finished) {
            withdrawn = Some(hog.swap_remove(done).await??);
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let withdrawn = withdrawn.context("no hog question made room")?;
    ensure!(withdrawn.code() == Some("limit_reached"), "{withdrawn:?}");
    ensure!(withdrawn.structured["message"].to_string().contains("withdrawn"), "{withdrawn:?}");
    let asked = loop {
        let pending = queue.pending();
        if let Some(mine) = pending.into_iter().find(|p| p.request.describe().contains("Ada")) {
            break mine;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    queue.answer(asked.id, Approval::Approve);
    let done = call.await??;
    ensure!(!done.is_error && done.structured["approvedBy"] == "in_app", "{done:?}");
    ensure!(queue.pending().len() == 7, "the hog's seven others still wait");
    for pending in queue.pending() {
        queue.answer(pending.id, Approval::Decline);
    }
    for question in hog {
        ensure!(question.await??.is_error);
    }
    Ok(())
}

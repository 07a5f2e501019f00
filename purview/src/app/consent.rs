//! The yes an approval-requiring call needs, in the ask phase of a
//! call (call.rs), from whom the app accepts it ([`WhoApproves`]): the
//! app's own approver, the calling client's user, or the app's policy.
//!
//! The client's user is asked in one of two ways, by protocol generation:
//! - **2025-11-25**: an elicitation request, answered while the call waits;
//! - **2026-07-28**, which allows no server-to-client request: the call
//!   ends with a [`Question`] (the transport answers `input_required` with
//!   the same form and a sealed `requestState`), and the client calls again
//!   with the answer and that state ([`Resume`]). The state carries a
//!   [`Ticket`]: the window, its version (or, for an app-level action, a
//!   [`pin`] of what the app looks like), the action and a once-only nonce.
//!   The transport seals it, with the call's arguments as associated data,
//!   so an altered state or other arguments do not open; the record of
//!   used answers (`answers.rs`) refuses a second use of the same yes and,
//!   by its own monotonic clock, a late answer.
//!
//! A person is never asked about less than the yes applies: the question
//! shows every argument whole, and a call whose arguments are too long to
//! show is refused (`validation_failed`) before anyone is asked.
//!
//! Whatever way the yes came, it holds only for what was asked about: the
//! call then expects the window's version as it was (else `stale_state`),
//! and an app-level action expects the same pin (else `approval_denied`
//! with reason `changed`).

use crate::lock::lock_unpoisoned;
use std::{
    hash::{Hash, Hasher},
    panic::{AssertUnwindSafe, catch_unwind},
    sync::Arc,
    sync::atomic::Ordering,
};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{
    Approval, ApprovalRequest, WhoApproves,
    answers::NotUsable,
    approval::{AgentSession, Answer},
    registry::State,
    route::ActionCall,
    shared::Shared,
};
use crate::{
    model::{ApprovedBy, DenialReason, ToolError},
    refusals,
};

/// What the check phase learned, for the ask phase.
pub(super) struct Checked {
    pub needs_approval: bool,
    /// The window's version when checked; `None` for app-level actions.
    pub version: Option<u64>,
    /// For an app-level action, what the app looked like when checked
    /// ([`consent::pin`]).
    pub pin: Option<u64>,
    pub window_title: Option<String>,
    pub window_summary: Option<String>,
    pub action_title: String,
    pub params: Arc<[String]>,
    pub check: Arc<crate::validate::ArgumentCheck>,
    /// The app's own question (`question = method`), once written.
    pub question: Option<String>,
}

/// Why a call stopped short of a result: refused, or (2026-07-28) waiting
/// for the answer to an approval question the client is to put.
pub(crate) enum Stop {
    Refused(ToolError),
    Ask(Box<Question>),
}

impl From<ToolError> for Stop {
    fn from(error: ToolError) -> Self {
        Self::Refused(error)
    }
}

pub(crate) use super::ticket::{Question, Resume, StateSeal, Ticket};

/// What a yes holds for.
pub(super) struct Approved {
    pub by: ApprovedBy,
    /// For an app-level action, the [`pin`] it was given for.
    pub pin: Option<u64>,
}

/// What an app-level action's approval depends on: the open windows (ids,
/// which are modal, and their owners) and the app-level state's revision.
/// A window opening or closing, a modal coming or going, or the app's own
/// state changing gives another pin.
pub(super) fn pin(state: &State) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    state.app.as_ref().map(|app| app.revision).hash(&mut hasher);
    for entry in state.windows.values() {
        (&*entry.id, entry.modal, entry.owner.as_deref()).hash(&mut hasher);
    }
    hasher.finish()
}

/// Before anyone is asked: the app's own question, written by the
/// action's `question = method` from the window as it is now and the
/// checked arguments, or its refusal, which ends the call with no one
/// asked. What the person is shown (the window's version, title and
/// summary, the app's pin) is taken again in the same read, so the
/// question and what a yes holds for describe one moment. The state lock
/// is held only while the method runs, never while the person decides.
pub(super) fn write_question(
    shared: &Shared,
    call: &ActionCall,
    checked: &mut Checked,
) -> Result<(), ToolError> {
    shared.try_read(|state| {
        let super::gates::Admitted { target, index, actor, entry } =
            super::gates::admit(state, call)?;
        let asked = catch_unwind(AssertUnwindSafe(|| actor.vm.question_at(index, &call.arguments)));
        let question = match asked {
            Ok(None) => return Ok(()),
            Ok(Some(Ok(question))) => question,
            Ok(Some(Err(refusal))) => {
                tracing::info!(action = %call.action, "the action's question refused the call; no one asked");
                return Err(refusal);
            }
            Err(_) => {
                tracing::error!(action = %call.action, "the action's question panicked; refusing");
                return Err(refusals::failed_inside(&call.action));
            }
        };
        checked.version = entry.map(|e| e.version);
        checked.pin = matches!(target, super::gates::Target::App).then(|| pin(state));
        checked.window_title = entry.map(|e| e.title.to_string());
        checked.window_summary = entry.and_then(|e| e.summary.as_deref().map(str::to_owned));
        checked.question = Some(question);
        Ok(())
    })
}

/// Gets the yes `call` needs, or the refusal; on 2026-07-28 the first
/// call ends in a [`Stop::Ask`] instead. A yes makes the call expect
/// the window's version as it was asked about.
pub(super) async fn approve(
    shared: &Shared,
    call: &mut ActionCall,
    checked: &Checked,
    session: Option<&dyn AgentSession>,
    resume: Option<Resume>,
    cancel: &CancellationToken,
) -> Result<Approved, Stop> {
    let who = shared.config.who_approves.clone();
    let timeout = shared.config.approval_timeout;
    if let Some(resume) = resume {
        return Ok(redeem(shared, call, &who, resume)?);
    }
    let request = approval_request(shared, call, checked, session);
    if !matches!(who, WhoApproves::Policy(_)) {
        // A person would read the question: it shows every argument
        // whole, or no one is asked.
        let too_long = request.too_long_to_show();
        if !too_long.is_empty() {
            tracing::info!(action = %call.action, "arguments too long to show in an approval question; refused");
            return Err(ToolError::validation(too_long).into());
        }
    }
    let approver = lock_unpoisoned(&shared.approver).clone();
    // The logs name the asker as the question does: by its credential.
    let client =
        session.and_then(|s| s.client()).map_or_else(|| "in-process".into(), |c| c.to_string());
    tracing::info!(action = %call.action, %client, "asking for approval");
    let answer = match (&who, approver, session) {
        (WhoApproves::Policy(rule), ..) => {
            match catch_unwind(AssertUnwindSafe(|| rule(&request))) {
                Ok(Approval::Approve) => Ok(ApprovedBy::Policy),
                Ok(Approval::Decline) => Err(DenialReason::Declined),
                Err(_) => {
                    tracing::error!(action = %call.action, "the app's approval policy panicked; refusing");
                    Err(DenialReason::Declined)
                }
            }
        }
        (_, Some(approver), _) => {
            let place = take_place(shared, call, session)?;
            tokio::select! {
                () = cancel.cancelled() => return Err(refusals::cancelled(&call.action).into()),
                () = place.cut.cancelled() => return Err(withdrawn(call)),
                answer = tokio::time::timeout(timeout, approver.ask(request)) => match answer {
                    Ok(Approval::Approve) => Ok(ApprovedBy::InApp),
                    Ok(Approval::Decline) => Err(DenialReason::Declined),
                    Err(_) => Err(DenialReason::Timeout),
                },
            }
        }
        (who, None, Some(session)) if who.trusts_client() => {
            let message = question_text(&request);
            if session.asks_on_retry() {
                return Err(Stop::Ask(Box::new(question(shared, call, checked, message))));
            }
            let place = take_place(shared, call, Some(session))?;
            let asked = tokio::select! {
                () = cancel.cancelled() => return Err(refusals::cancelled(&call.action).into()),
                () = place.cut.cancelled() => return Err(withdrawn(call)),
                answer = session.elicit(message, timeout) => answer,
            };
            match asked {
                Some(Answer::Given(Approval::Approve)) => Ok(ApprovedBy::Client),
                Some(Answer::Given(Approval::Decline)) => Err(DenialReason::Declined),
                Some(Answer::TimedOut) => Err(DenialReason::Timeout),
                None => no_one_asked(shared, call),
            }
        }
        _ => no_one_asked(shared, call),
    };
    match answer {
        Ok(by) => {
            tracing::info!(action = %call.action, %client, approved_by = %by, "approval given");
            if call.expected_version.is_none() {
                call.expected_version = checked.version.map(Value::from);
            }
            Ok(Approved { by, pin: checked.pin })
        }
        Err(reason) => {
            tracing::info!(action = %call.action, %client, %reason, "approval not given");
            Err(refusals::denied(&call.action, reason, timeout).into())
        }
    }
}

/// A 2026-07-28 retry: the answer holds only once, only for the call it
/// was asked about, and only from a client the app trusts.
fn redeem(
    shared: &Shared,
    call: &mut ActionCall,
    who: &WhoApproves,
    resume: Resume,
) -> Result<Approved, ToolError> {
    let timeout = shared.config.approval_timeout;
    let refuse = |reason| {
        tracing::info!(action = %call.action, %reason, "approval answer refused");
        refusals::denied(&call.action, reason, timeout)
    };
    let (ticket, answer) = match resume {
        Resume::Unusable(reason) => return Err(refuse(reason)),
        Resume::Answered { ticket, answer } => (ticket, answer),
    };
    if ticket.window != call.window || ticket.action != call.action || !who.trusts_client() {
        return Err(refuse(DenialReason::Invalid));
    }
    // A decline is recorded nowhere: only a yes is used up.
    let yes = answer == Some(Approval::Approve);
    let answers = &shared.used_answers;
    let usable = if yes { answers.use_yes(&ticket.nonce) } else { answers.check(&ticket.nonce) };
    match usable {
        Ok(()) if yes => {}
        Ok(()) => return Err(refuse(DenialReason::Declined)),
        Err(NotUsable::Used) => return Err(refuse(DenialReason::Replayed)),
        Err(NotUsable::Expired) => return Err(refuse(DenialReason::Expired)),
        Err(NotUsable::Foreign) => return Err(refuse(DenialReason::Invalid)),
        Err(NotUsable::Crowded) => return Err(refusals::too_many_replica_answers(timeout)),
    }
    tracing::info!(action = %call.action, approved_by = %ApprovedBy::Client, "approval given");
    call.expected_version = ticket.version.map(Value::from);
    Ok(Approved { by: ApprovedBy::Client, pin: ticket.pin })
}

/// What the person is asked, with the app's own wording if it has one.
fn approval_request(
    shared: &Shared,
    call: &ActionCall,
    checked: &Checked,
    session: Option<&dyn AgentSession>,
) -> ApprovalRequest {
    let mut request = ApprovalRequest {
        window_id: checked.version.map(|_| call.window.clone()),
        window_title: checked.window_title.clone(),
        window_summary: checked.window_summary.clone(),
        action: call.action.clone(),
        action_title: checked.action_title.clone(),
        arguments: checked.check.shown(&call.arguments),
        agent: session.map_or_else(|| "An agent".to_owned(), |s| s.describe()),
        client: session.and_then(|s| s.client()),
        question: checked.question.clone(),
        wording: None,
    };
    let wording = lock_unpoisoned(&shared.approval_wording).clone();
    if let Some(wording) = wording {
        // The app's own code: a panic in it is its wording left out.
        let worded = catch_unwind(AssertUnwindSafe(|| wording(&request)));
        request.wording = worded.ok().flatten();
    }
    request
}

fn question(shared: &Shared, call: &ActionCall, checked: &Checked, message: String) -> Question {
    let ticket = Ticket {
        nonce: shared.used_answers.nonce(),
        window: call.window.clone(),
        action: call.action.clone(),
        version: checked.version,
        pin: checked.pin,
    };
    tracing::info!(action = %call.action, "approval asked of the client's user, to answer on retry");
    Question { ticket, message, expires_in: shared.config.approval_timeout }
}

/// A place among the questions waiting, or `limit_reached`.
fn take_place(
    shared: &Shared,
    call: &ActionCall,
    session: Option<&dyn AgentSession>,
) -> Result<super::approval::PendingPlace, ToolError> {
    // Charged to the client, where the transport knows one: a client's
    // sessions (and 2026-07-28 requests, each its own) share one share.
    let asker = match session {
        Some(session) => match session.client() {
            Some(client) => super::approval::Asker::Client(client),
            None => super::approval::Asker::Session(session.number()),
        },
        None => super::approval::Asker::Session(0),
    };
    shared
        .pending_approvals
        .take(asker)
        .map_err(|too_many| refusals::too_many_questions(&call.action, too_many))
}

/// No one the app accepts could be asked: its policy for that decides.
fn no_one_asked(shared: &Shared, call: &ActionCall) -> Result<ApprovedBy, DenialReason> {
    match shared.config.no_approver {
        Approval::Approve => {
            tracing::warn!(action = %call.action, "no one can approve; the app's policy lets it go ahead");
            Ok(ApprovedBy::Policy)
        }
        Approval::Decline => Err(DenialReason::NoApprover),
    }
}

/// The seal of this app's 2026-07-28 approval questions, made by `make`
/// from the app's key ([`AppBuilder::approval_key`](crate::AppBuilder::approval_key))
/// the first time it is needed.
pub(super) fn state_seal(
    shared: &Shared,
    make: impl FnOnce(Option<&[u8]>) -> Arc<dyn StateSeal>,
) -> Arc<dyn StateSeal> {
    let key = shared.config.approval_key.as_deref();
    shared.state_seal.get_or_init(|| make(key)).clone()
}

/// Logs, once, when an action needs approval and, as the app is set up
/// now, no one whose yes it accepts can give one: every such call would
/// be refused, or a client with no person behind it could approve its
/// own.
pub(super) fn warn_if_no_one_can_approve(shared: &Shared) {
    let guarded = shared.read(needs_approval).unwrap_or_default();
    let has_approver = lock_unpoisoned(&shared.approver).is_some();
    let Some(action) = guarded else { return };
    let who = &shared.config.who_approves;
    if has_approver
        || matches!(who, WhoApproves::Policy(_))
        || shared.approval_warned.swap(true, Ordering::Relaxed)
    {
        return;
    }
    match who {
        WhoApproves::InApp => tracing::warn!(
            %action,
            "actions need the approval of the person at the app, but it has no approver: every agent's call of them is refused until App::set_approver"
        ),
        _ => tracing::warn!(
            %action,
            "actions need approval and the app has no approver, so the calling client's user is asked; a client with no person behind it can approve its own calls. Register an approver, or choose AppBuilder::who_approves(WhoApproves::InApp)"
        ),
    }
}

/// The refusal of a call whose question was withdrawn for another
/// session's.
fn withdrawn(call: &ActionCall) -> Stop {
    tracing::info!(action = %call.action, "approval question withdrawn for another session's");
    refusals::too_many_questions(&call.action, refusals::QuestionLimit::Withdrawn).into()
}

/// The first action of the app's window types (or app-level ones) that
/// needs approval, if any.
fn needs_approval(state: &State) -> Option<String> {
    let required = state.required_approvals.first().map(|(_, action)| action.clone());
    required.or_else(|| {
        let specs = state.types.values().filter_map(|spec| spec.as_ref().ok());
        let app = state.app.iter().map(|actor| &actor.spec);
        specs
            .chain(app)
            .flat_map(|spec| spec.actions.iter())
            .find(|action| action.spec.needs_approval())
            .map(|action| action.spec.name.to_string())
    })
}

/// The question as a person reads it, with how to answer the form.
fn question_text(request: &ApprovalRequest) -> String {
    format!(
        "{}\nReply with approve = true to let it go ahead, false to refuse.",
        request.describe()
    )
}

/// The wire form of an approval answer: an elicitation result whose
/// `action` is `accept` and whose form says `approve: true` is a yes;
/// anything else is a no.
pub(crate) fn answer_of(response: &Value) -> Approval {
    let accepted = response.get("action").and_then(Value::as_str) == Some("accept");
    let approve = response.pointer("/content/approve").and_then(Value::as_bool) == Some(true);
    if accepted && approve { Approval::Approve } else { Approval::Decline }
}

/// A stable byte form of a call's arguments, for binding a question to
/// them: keys sorted at every level.
pub(crate) fn canonical(value: &Value) -> Vec<u8> {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_vec(&sorted(value)).unwrap_or_default()
}

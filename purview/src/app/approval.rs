//! A person's approval of an agent's action (a Purview extension; the
//! protocol leaves permission gates out of v0.1, §10.6).
//!
//! An action marked as needing approval (`#[action(approval, destructive)]`,
//! [`ActionSpec::approval`](crate::ActionSpec::approval) or
//! [`AppBuilder::require_approval`](crate::AppBuilder::require_approval))
//! asks before it runs, when an agent calls it — never when the person
//! does ([`Call::by_person`](crate::Call::by_person)). Whose yes counts is the
//! app's setting, [`WhoApproves`]: by default the app's own [`Approver`]
//! (its GUI) when it has one, otherwise the calling client's user (MCP
//! elicitation on 2025-11-25; on 2026-07-28 a question the client answers
//! when it calls again, see `consent.rs`), otherwise no one: the call is
//! refused. No answer within the app's approval timeout counts as a
//! refusal. A result says whose yes let the call run (`approvedBy`).
//!
//! The question says what the call would do: the action's title, the
//! arguments as a person reads them (secrets masked), and the window's
//! summary ([`ApprovalRequest::describe`]); an app can word it itself
//! ([`App::set_approval_wording`](crate::App::set_approval_wording)).
//! Questions waiting for an answer are bounded, per session and in all
//! ([`Limits::max_pending_approvals`](crate::settings::Limits::max_pending_approvals)),
//! shared fairly: beyond its session's share a call is refused with
//! `limit_reached` at once; when every place is taken, a session holding
//! fewer questions than another still gets one, and that other session's
//! oldest question is withdrawn (its call ends with `limit_reached`); a
//! question whose client has gone is withdrawn too.
//!
//! The question is asked before the call takes the operation lock, so the
//! app goes on meanwhile; the approval is for the window as it was when
//! asked, so if its version moved by the time the answer comes, the call
//! fails with `stale_state` instead of running (for an app-level action:
//! if the app's windows, modals or state changed, `approval_denied` with
//! reason `changed`).

use std::{
    fmt,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::lock::lock_unpoisoned;
use crate::model::FieldError;
use crate::refusals::QuestionLimit;
use crate::settings::Limits;
use crate::shares::{Pool, Refused, Share};
use crate::window::BoxFuture;

/// The longest argument an approval question shows, in characters as the
/// person reads it (text's quotes included, and a hidden character's
/// escape counted at its length):
/// 1,024. A call that needs approval with a longer argument is refused
/// (`validation_failed`, naming the argument and this bound) before
/// anyone is asked: the question never shows part of what a yes applies.
pub const MAX_SHOWN_ARGUMENT_CHARS: usize = 1024;

/// The most an approval question shows of all arguments together, counted
/// as [`MAX_SHOWN_ARGUMENT_CHARS`] counts: 4,096.
pub const MAX_SHOWN_ARGUMENTS_CHARS: usize = 4096;

/// A person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// Go ahead.
    Approve,
    /// Do not.
    Decline,
}

/// What the person is asked to approve.
///
/// ```
/// # let request = purview::approval::ApprovalRequest::example();
/// assert_eq!(request.action, "confirm");
/// assert_eq!(request.arguments["pin"], purview::model::MASK);
/// assert!(request.window_summary.as_deref().unwrap_or_default().contains("$100.00"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The window the action belongs to; `None` for an app-level action.
    pub window_id: Option<String>,
    /// That window's title.
    pub window_title: Option<String>,
    /// That window's summary as it stood when the question was asked (for
    /// a confirmation dialog, usually what is being confirmed).
    pub window_summary: Option<String>,
    /// The action's name (the tool is `{windowId}__{action}`).
    pub action: String,
    /// The action's human title.
    pub action_title: String,
    /// The arguments, whole, with secret (`writeOnly`) values masked.
    /// Nothing is shortened: a call whose arguments are too long to show
    /// ([`MAX_SHOWN_ARGUMENT_CHARS`], [`MAX_SHOWN_ARGUMENTS_CHARS`]) is
    /// refused before anyone is asked.
    pub arguments: Value,
    /// Who asks: the client its credential proves (a named client's name;
    /// else its address, or its connection), with the name it gives itself
    /// as a quoted aside when that differs (`hostile, calling itself
    /// "claude-code",`).
    pub agent: String,
    /// The client that asks, by the credential it called with (as every
    /// share counts it); `None` when no client's session asked. Views that
    /// show a client its own questions (the window card) filter by it.
    #[serde(skip)]
    pub client: Option<crate::app::ClientId>,
    /// The question the action's `question = method` wrote from the app's
    /// own state, in its words ("Cancel Max (dog), Monday 5 January at
    /// 10:30?"), after its checks passed; `None` when the action declares
    /// none. [`ApprovalRequest::describe`] puts it first, with the
    /// arguments as the agent sent them beneath it.
    pub question: Option<String>,
    /// The app's own wording of the question, when it gives one
    /// ([`App::set_approval_wording`](crate::App::set_approval_wording));
    /// [`ApprovalRequest::describe`] then says this instead.
    pub wording: Option<String>,
}

impl ApprovalRequest {
    /// What a person reads before deciding: who asks, to do what, where,
    /// what that window says, and every argument on a line of its own as
    /// `name: value`, whole (secrets masked): what a yes applies is what
    /// is shown. Text the agent wrote, and the app's text that may hold
    /// it (the window's title and summary, the app's own wording), is
    /// quoted, with quotes, backslashes and every character
    /// [`is_hidden_after`](crate::constraint::is_hidden_after) names (line
    /// separators, zero-width, format and other default-ignorable
    /// characters, controls, blanks other than one plain space) written
    /// as escapes, so no text can pose as the end of the question or push
    /// part of it out of sight. The in-app prompt and the elicitation both
    /// show this. When the app worded the question itself
    /// ([`ApprovalRequest::wording`]), that wording, quoted, follows who
    /// asks.
    ///
    /// ```
    /// let request = purview::approval::ApprovalRequest::example();
    /// let text = request.describe();
    /// assert!(text.contains("Confirm submission"));
    /// assert!(text.contains("to Ada for $100.00"), "{text}");
    /// assert!(text.contains("\n  pin: •"), "{text}");
    /// ```
    pub fn describe(&self) -> String {
        if let Some(wording) = &self.wording {
            return format!("{} asks: {}", visible(&self.agent), quoted(wording));
        }
        let place = match (&self.window_title, &self.window_id) {
            (Some(title), Some(id)) => format!(" in {} ({})", quoted(title), visible(id)),
            _ => " (application-wide)".to_owned(),
        };
        let summary = match &self.window_summary {
            Some(summary) if !summary.is_empty() && self.question.is_none() => {
                format!("\nThe window says: {}", quoted(summary))
            }
            _ => String::new(),
        };
        let arguments = match &self.arguments {
            Value::Object(map) if map.is_empty() => "\nIt takes no arguments.".to_owned(),
            Value::Object(map) => {
                let listed: String = map
                    .iter()
                    .map(|(name, value)| format!("\n  {}: {}", visible(name), readable(value)))
                    .collect();
                format!("\nIts arguments, as the agent sent them:{listed}")
            }
            Value::Null => String::new(),
            other => format!("\nIts argument, as the agent sent it: {}", readable(other)),
        };
        match &self.question {
            Some(question) => format!(
                "{} asks: {}\nThe action: {}{place}.{arguments}",
                visible(&self.agent),
                quoted(question),
                visible(&self.action_title.to_lowercase()),
            ),
            None => format!(
                "{} asks to {}{place}.{summary}{arguments}",
                visible(&self.agent),
                visible(&self.action_title.to_lowercase())
            ),
        }
    }
    /// The arguments the question could not show whole, as field errors
    /// telling the agent the bound: any one longer than
    /// [`MAX_SHOWN_ARGUMENT_CHARS`] as shown, or, when none is, all
    /// together longer than [`MAX_SHOWN_ARGUMENTS_CHARS`]. Empty when
    /// everything fits.
    pub(crate) fn too_long_to_show(&self) -> Vec<FieldError> {
        let Value::Object(map) = &self.arguments else { return Vec::new() };
        let lengths: Vec<(&String, usize)> =
            map.iter().map(|(name, value)| (name, readable(value).chars().count())).collect();
        let rule = format!(
            "an action that needs approval shows the person asked every argument whole, up to {MAX_SHOWN_ARGUMENT_CHARS} characters each and {MAX_SHOWN_ARGUMENTS_CHARS} in all (escapes of invisible or blank characters count), so no one was asked and nothing was changed; send a shorter value"
        );
        let too_long: Vec<FieldError> = lengths
            .iter()
            .filter(|(_, n)| *n > MAX_SHOWN_ARGUMENT_CHARS)
            .map(|(name, n)| {
                FieldError::new(
                    crate::validate::echo(name),
                    format!("is {n} characters as shown; {rule}"),
                )
            })
            .collect();
        let total: usize = lengths.iter().map(|(_, n)| n).sum();
        if too_long.is_empty() && total > MAX_SHOWN_ARGUMENTS_CHARS {
            return vec![FieldError::new(
                "arguments",
                format!("are {total} characters together as shown; {rule}"),
            )];
        }
        too_long
    }

    /// A made-up request (an agent asking to confirm order #12345), for
    /// trying an [`Approver`] or a face before any agent calls.
    ///
    /// ```
    /// assert_eq!(purview::approval::ApprovalRequest::example().action, "confirm");
    /// ```
    pub fn example() -> Self {
        Self {
            window_id: Some("w3".into()),
            window_title: Some("Confirm submission".into()),
            window_summary: Some("Confirm submitting order #12345 to Ada for $100.00".into()),
            action: "confirm".into(),
            action_title: "Confirm".into(),
            arguments: serde_json::json!({"pin": crate::redact::MASK}),
            agent: "claude-code".into(),
            client: None,
            question: None,
            wording: None,
        }
    }
}

/// A JSON value as a person reads it: text quoted ([`quoted`]), the mask
/// as it is, numbers and booleans as they are, anything else as compact
/// JSON (whose strings are escaped already, and hidden characters too).
fn readable(value: &Value) -> String {
    match value {
        Value::String(text) if text == crate::redact::MASK => text.clone(),
        Value::String(text) => quoted(text),
        Value::Null => "(none)".to_owned(),
        other => visible(&other.to_string()),
    }
}

/// `text` in double quotes, with `"` and `\` escaped and every hidden
/// character written as an escape ([`visible`]): how agent text, and app
/// text built from it, appears in the question.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    escape_into(&mut out, text, true);
    out.push('"');
    out
}

/// `text` with every character [`is_hidden_after`] names written as an
/// escape (`\u{3000}`): the same rule by which
/// [`plain_line`](crate::constraint::plain_line) refuses text.
///
/// [`is_hidden_after`]: crate::constraint::is_hidden_after
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text, false);
    out
}

fn escape_into(out: &mut String, text: &str, quoting: bool) {
    let mut previous = None;
    for c in text.chars() {
        match c {
            '"' if quoting => out.push_str("\\\""),
            '\\' if quoting => out.push_str("\\\\"),
            c if crate::constraint::is_hidden_after(previous, c) => {
                out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
            }
            c => out.push(c),
        }
        previous = Some(c);
    }
}

/// Who asks, as an approval question names it: by the client its
/// credential proves, with the name it gives itself (`clientInfo`, its own
/// text) only as a quoted aside, when that says something else. No session
/// number: a client's sessions, and its stateless requests, are one asker.
pub(crate) fn asker(client: &super::ClientId, calls_itself: Option<&str>) -> String {
    let who = client.as_told();
    match calls_itself {
        Some(name) if client.name() != Some(name) => {
            format!("{who}, calling itself {},", quoted(&crate::validate::echo(name)))
        }
        _ => who,
    }
}

/// How an app words approval questions itself: given the request, its own
/// sentence, or `None` for [`ApprovalRequest::describe`]'s.
pub(crate) type Wording = Arc<dyn Fn(&ApprovalRequest) -> Option<String> + Send + Sync>;

/// Who a waiting question is charged to: the asking client, where the
/// transport knows it (a named client, stdio, or any local process where
/// no token is required), else the asking session (`0`: a caller with
/// neither, in-process).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Asker {
    Client(super::ClientId),
    Session(u64),
}

/// Questions waiting for an answer, charged to the [`Asker`] and shared by
/// the rule of `crate::shares`: at most `per_session` each and `in_all`
/// together, and when all are taken, a client holding fewer than another
/// withdraws that one's oldest question rather than being refused.
pub(crate) struct PendingApprovals {
    pool: Arc<Pool<Asker>>,
}

/// A question's place among those waiting; given back on drop. Its `cut`
/// is cancelled if the question is withdrawn for another client's.
pub(crate) type PendingPlace = Share<Asker>;

impl PendingApprovals {
    pub fn new(limits: &Limits) -> Self {
        let pool =
            Pool::new(limits.max_pending_approvals, limits.max_pending_approvals_per_session);
        Self { pool }
    }

    /// Takes a place for a question from `asker`, or says which bound is
    /// reached. Check and take happen under one lock.
    pub fn take(&self, asker: Asker) -> Result<PendingPlace, QuestionLimit> {
        self.pool.admit(asker, 0).map_err(|refused| match refused {
            Refused::OverShare(n) => QuestionLimit::FromSession(n),
            Refused::Full(n) => QuestionLimit::InAll(n),
        })
    }
}

/// Decides on approval requests: the app's GUI, usually through an
/// [`ApprovalQueue`]. Any `Fn(ApprovalRequest) -> impl Future<Output =
/// Approval>` is one.
///
/// ```
/// use purview::{approval::Approval, approval::ApprovalRequest};
/// let app = purview::App::builder().build();
/// app.set_approver(|request: ApprovalRequest| async move {
///     if request.action == "confirm" { Approval::Approve } else { Approval::Decline }
/// });
/// ```
pub trait Approver: Send + Sync + 'static {
    /// Asks; resolves with the answer. Dropping the future means the
    /// question is no longer needed (the call timed out or was cancelled).
    fn ask(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval>;
}

impl<F, Fut> Approver for F
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Approval> + Send + 'static,
{
    fn ask(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        Box::pin(self(request))
    }
}

/// The app's own rule for approval questions, when no one is asked
/// ([`WhoApproves::Policy`]).
pub type ApprovalPolicy = Arc<dyn Fn(&ApprovalRequest) -> Approval + Send + Sync>;

/// Whose yes the app accepts for an action that needs approval
/// ([`AppBuilder::who_approves`](crate::AppBuilder::who_approves)).
///
/// Only the app's own approver is the app's word that a person answered:
/// a client asked by elicitation vouches for its user itself, and a client
/// with no person behind it can answer its own question. An app whose
/// agents may run unattended should accept only [`WhoApproves::InApp`].
///
/// Without a setting, the app takes its approver's yes when one is
/// registered, and otherwise its clients' users' (which is
/// [`WhoApproves::InAppOrClient`]).
///
/// ```
/// use purview::{App, approval::Approval, approval::WhoApproves};
/// let strict = App::builder().who_approves(WhoApproves::InApp).build();
/// let rule = App::builder()
///     .who_approves(WhoApproves::policy(|request| {
///         if request.action == "archive" { Approval::Approve } else { Approval::Decline }
///     }))
///     .build();
/// # drop((strict, rule));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum WhoApproves {
    /// Only the person at the app, through its [`Approver`]. With none
    /// registered, such calls are refused (`no_approver`), unless
    /// [`AppBuilder::when_no_one_can_approve`](crate::AppBuilder::when_no_one_can_approve)
    /// says otherwise; clients are never asked.
    InApp,
    /// The app's approver when one is registered, otherwise the calling
    /// client's user: by MCP elicitation on 2025-11-25 sessions, by a
    /// question the client answers on retry on 2026-07-28.
    InAppOrClient,
    /// No one is asked: the app's rule answers each request (the result
    /// says `approvedBy: "policy"`). A panicking rule is a refusal.
    Policy(ApprovalPolicy),
}

impl WhoApproves {
    /// [`WhoApproves::Policy`] from a closure.
    pub fn policy(rule: impl Fn(&ApprovalRequest) -> Approval + Send + Sync + 'static) -> Self {
        Self::Policy(Arc::new(rule))
    }

    /// Whether the calling client's user may be asked.
    pub(crate) fn trusts_client(&self) -> bool {
        matches!(self, Self::InAppOrClient)
    }
}

impl fmt::Debug for WhoApproves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InApp => "InApp",
            Self::InAppOrClient => "InAppOrClient",
            Self::Policy(_) => "Policy(..)",
        })
    }
}

impl fmt::Display for WhoApproves {
    /// How `--help` texts and logs say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InApp => "only the person at the app",
            Self::InAppOrClient => "the person at the app, or else the calling client's user",
            Self::Policy(_) => "the app's own policy (no one is asked)",
        })
    }
}

/// One question waiting in an [`ApprovalQueue`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PendingApproval {
    /// Pass it to [`ApprovalQueue::answer`].
    pub id: u64,
    /// What is asked.
    pub request: ApprovalRequest,
}

type Waiting = (u64, ApprovalRequest, oneshot::Sender<Approval>);

#[derive(Default)]
struct Queue {
    next: AtomicU64,
    waiting: Mutex<Vec<Waiting>>,
    wake: Mutex<Vec<Arc<dyn Fn() + Send + Sync>>>,
}

/// An [`Approver`] for a GUI: questions wait in a list the GUI draws, and
/// the person's click answers them.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use purview::{approval::Approval, approval::ApprovalQueue, approval::Approver, approval::ApprovalRequest};
/// let queue = ApprovalQueue::new();
/// let asking = queue.ask(ApprovalRequest::example());
/// let pending = queue.pending();
/// assert_eq!(pending.len(), 1);
/// queue.answer(pending[0].id, Approval::Approve);
/// assert_eq!(asking.await, Approval::Approve);
/// assert!(queue.pending().is_empty());
/// # });
/// ```
#[derive(Clone, Default)]
pub struct ApprovalQueue {
    queue: Arc<Queue>,
}

impl fmt::Debug for ApprovalQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalQueue").field("pending", &self.pending().len()).finish()
    }
}

impl ApprovalQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// The questions waiting for an answer, oldest first.
    pub fn pending(&self) -> Vec<PendingApproval> {
        lock_unpoisoned(&self.queue.waiting)
            .iter()
            .map(|(id, request, _)| PendingApproval { id: *id, request: request.clone() })
            .collect()
    }

    /// Answers a question; `false` if it is no longer waiting.
    pub fn answer(&self, id: u64, approval: Approval) -> bool {
        let mut waiting = lock_unpoisoned(&self.queue.waiting);
        let Some(i) = waiting.iter().position(|(w, ..)| *w == id) else { return false };
        let (_, _, reply) = waiting.remove(i);
        drop(waiting);
        self.wake();
        reply.send(approval).is_ok()
    }

    /// Calls `f` whenever a question arrives or leaves (to repaint a GUI).
    pub fn on_change(&self, f: impl Fn() + Send + Sync + 'static) {
        lock_unpoisoned(&self.queue.wake).push(Arc::new(f));
    }

    fn wake(&self) {
        let wake: Vec<_> = lock_unpoisoned(&self.queue.wake).clone();
        for f in wake {
            f();
        }
    }
}

/// Takes a question off the queue when its asker stops waiting.
struct Withdraw {
    queue: Arc<Queue>,
    id: u64,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let mut waiting = lock_unpoisoned(&self.queue.waiting);
        let before = waiting.len();
        waiting.retain(|(w, ..)| *w != self.id);
        let removed = waiting.len() != before;
        drop(waiting);
        if removed {
            ApprovalQueue { queue: self.queue.clone() }.wake();
        }
    }
}

impl Approver for ApprovalQueue {
    fn ask(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        let id = self.queue.next.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        lock_unpoisoned(&self.queue.waiting).push((id, request, reply));
        self.wake();
        let withdraw = Withdraw { queue: self.queue.clone(), id };
        Box::pin(async move {
            let approval = answer.await.unwrap_or(Approval::Decline);
            drop(withdraw);
            approval
        })
    }
}

/// The calling agent's session, as the transport presents it, for asking
/// its user (MCP elicitation).
pub(crate) trait AgentSession: Send + Sync {
    /// Who asks, by the client its credential proves ([`asker`]).
    fn describe(&self) -> String;
    /// The session's number.
    fn number(&self) -> u64;
    /// The client the session belongs to, where the transport knows it
    /// (its share of the pending questions, and [`Context::client`]).
    fn client(&self) -> Option<super::ClientId> {
        None
    }
    /// Asks the client's user `message`; `None` when this client cannot.
    fn elicit(&self, message: String, timeout: Duration) -> BoxFuture<'_, Option<Answer>>;
    /// Whether this client is asked by a question it answers on retry
    /// instead (2026-07-28, which allows no server-to-client request),
    /// and can put a form to its user.
    fn asks_on_retry(&self) -> bool {
        false
    }
}

/// What an elicitation came back with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    Given(Approval),
    TimedOut,
}

#[cfg(test)]
#[path = "approval_tests.rs"]
mod tests;

//! An agent's call — and the person's ([`Call::by_person`](crate::Call::by_person)) — in named phases,
//! always in this order (ARCHITECTURE.md uses the same names):
//!
//! - **route** (route.rs): the tool name (or `app__act`'s `window`/`action`)
//!   says which window and action are meant; `app__read_windows` is
//!   answered at once;
//! - **check**, outside the operation lock: the gates (gates.rs) and the
//!   arguments against the action's schema, so a bad or oversized request
//!   never holds up anyone else;
//! - **ask** (consent.rs), only when an agent calls an action that needs a
//!   person's yes: the question, still outside the lock;
//! - **prepare**, under the operation lock: the gates again, then a working
//!   copy of the view-model;
//! - **run** (run.rs): the handler on the working copy, with timeout,
//!   cancellation and panic guard, ending in one outcome;
//! - **commit** (commit.rs): the gates once more, then every effect in one
//!   step through [`Shared::mutate_and`](super::shared::Shared::mutate_and), which
//!   settles and notifies;
//! - **respond**: the result, with what can be operated next — or an error
//!   that says what to do next on the agent's tool surface (advice.rs).
use std::{sync::Arc, time::Duration};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{
    Error, advice,
    approval::AgentSession,
    catalog,
    commit::{Finished, apply},
    consent::{self, Approved, Checked, Question, Resume, Stop},
    gates::{self, Target},
    progress::ProgressFeed,
    route::{ActionCall, Request},
    run::{handler_output, refuse_reentry, run_handler},
    seen,
    shared::Shared,
    spec::ResultShape,
};
use crate::{
    Args,
    model::{DenialReason, ErrorCode, Next, ToolError, ToolOutcome, ToolResult},
    refusals,
    window::{Context, DynActions},
};

/// Who is calling: agents are recorded as activity and asked for approval,
/// the person is not. An agent's session, when the transport knows it, can
/// be asked to approve; its progress reports go to `progress` when its
/// client asked for them.
#[derive(Clone)]
pub(crate) enum Caller {
    Agent {
        session: Option<Arc<dyn AgentSession>>,
        progress: Option<Arc<ProgressFeed>>,
        /// A 2026-07-28 retry's answer to an approval question.
        resume: Option<Resume>,
    },
    Person,
}

impl Caller {
    /// An agent the transport knows nothing about (in-process calls).
    pub(super) const ANONYMOUS: Self = Self::Agent { session: None, progress: None, resume: None };

    fn is_agent(&self) -> bool {
        matches!(self, Self::Agent { .. })
    }
}

/// A call that passed the gates under the operation lock.
struct Prepared {
    target: Target,
    index: usize,
    working: Box<dyn DynActions>,
    base_revision: u64,
    params: Arc<[String]>,
    result_shape: ResultShape,
    timeout: Duration,
}

/// How a call ended: the one form every way of calling reads
/// ([`Call`](crate::Call)'s `.await` and `.outcome()`, the MCP layer).
pub(crate) enum Answer {
    Settled(Settled),
    /// (2026-07-28) An approval question for the client to put to its user,
    /// the call to be retried with the answer.
    Ask(Box<Question>),
}

/// A call that ended here, with no question left to put.
pub(crate) enum Settled {
    /// The action ran and its effects committed (a typed call's own value
    /// waits in its slot).
    Applied { result: ToolResult },
    /// `app__read_windows`'s answer.
    Read(Value),
    /// Refused, with advice on what to do next.
    Refused(ToolError),
}

impl Answer {
    /// For callers no question can be put to by round trip (the person,
    /// in-process agents): a question is a refusal, as for a client that
    /// cannot put it.
    pub(crate) fn unasked(self, action: &str, timeout: Duration) -> Settled {
        match self {
            Self::Settled(settled) => settled,
            Self::Ask(_) => {
                Settled::Refused(refusals::denied(action, DenialReason::NoApprover, timeout))
            }
        }
    }
}

impl Settled {
    /// The answer as the protocol carries it, `structuredContent` and
    /// `isError`: the one place a call's response takes its wire form.
    pub(crate) fn wire(self) -> ToolOutcome {
        let (is_error, structured) = match self {
            Self::Applied { result, .. } => (false, serde_json::to_value(result)),
            Self::Read(value) => (false, Ok(value)),
            Self::Refused(error) => (true, serde_json::to_value(error)),
        };
        ToolOutcome { is_error, structured: structured.unwrap_or_default() }
    }
}

/// Runs a call to its answer: the route phase's `request` (or why it names
/// nothing), as `caller`. Every call ends here, whoever makes it.
pub(super) async fn perform(
    shared: &Arc<Shared>,
    request: Result<Request, ToolError>,
    caller: Caller,
    cancel: CancellationToken,
) -> Answer {
    let call = match request {
        Err(error) => return Answer::Settled(Settled::Refused(explain(shared, error))),
        Ok(Request::ReadWindows { only, schemas }) => {
            return agent_reads_windows(shared, only.as_deref(), schemas);
        }
        Ok(Request::Action(call)) => call,
    };
    let dispatched = call.dispatched.then(|| (call.window.clone(), call.action.clone()));
    match run_phases(shared, call, caller, cancel).await {
        Ok(result) => Answer::Settled(Settled::Applied { result }),
        Err(Stop::Ask(question)) => Answer::Ask(question),
        Err(Stop::Refused(error)) => {
            let mut error = explain(shared, error);
            if let Some((window, action)) = dispatched
                && error.code == ErrorCode::ValidationFailed
            {
                // The line the agent built its call from, to correct it by.
                error.signature = shared
                    .read(|state| catalog::signature_of(state, &window, &action))
                    .ok()
                    .flatten()
                    .map(|s| Box::from(&*s));
            }
            Answer::Settled(Settled::Refused(error))
        }
    }
}

/// `app__read_windows`: unfiltered, the answer kept since the last change
/// (copied out of the lock); narrowed to `only`, built for the call.
pub(super) fn read_windows(
    shared: &Shared,
    only: Option<&[String]>,
    schemas: bool,
) -> Result<Value, Error> {
    match only {
        // The lock is held only to take the kept answer's handle: the
        // copy the call answers with is made after it is let go.
        None => shared.read(|state| state.windows_read(schemas)).map(|kept| Value::clone(&kept)),
        Some(only) => shared.read(|state| catalog::read_windows(state, Some(only), schemas)),
    }
}

/// An agent's `app__read_windows`: no more windows named than can ever be
/// open (a longer list names windows that cannot exist, and costs a
/// lookup each).
fn agent_reads_windows(shared: &Shared, only: Option<&[String]>, schemas: bool) -> Answer {
    let max = shared.config.limits.max_windows;
    if let Some(only) = only
        && only.len() > max
    {
        return Answer::Settled(Settled::Refused(refusals::too_many_windows_asked(
            only.len(),
            max,
        )));
    }
    Answer::Settled(match read_windows(shared, only, schemas) {
        Ok(value) => Settled::Read(value),
        Err(error) => Settled::Refused(error.into()),
    })
}

async fn run_phases(
    shared: &Arc<Shared>,
    mut call: ActionCall,
    mut caller: Caller,
    cancel: CancellationToken,
) -> Result<ToolResult, Stop> {
    refuse_reentry(&call)?;
    let mut checked = check(shared, &mut call)?;
    let mut approved = None;
    if checked.needs_approval
        && let Caller::Agent { session, resume, .. } = &mut caller
    {
        if call.typed.is_some() {
            // The approver would be shown no arguments: ask no one.
            return Err(refusals::typed_call_cannot_be_approved(&call.action).into());
        }
        let resume = resume.take();
        if resume.is_none() {
            // The app's own checks first: a call they refuse asks no one.
            consent::write_question(shared, &call, &mut checked)?;
        }
        // Rare, and its future is large: it waits behind a pointer, so
        // every other call's future stays small.
        let approving =
            consent::approve(shared, &mut call, &checked, session.as_deref(), resume, &cancel);
        approved = Some(Box::pin(approving).await?);
    }
    let _serialized = shared.op_lock.lock().await;
    let pin = approved.as_ref().and_then(|a| a.pin);
    let Prepared { target, index, mut working, base_revision, params, result_shape, timeout } =
        prepare(shared, &call, pin)?;
    let ActionCall { action, arguments, typed, .. } = call;
    let window = match &target {
        Target::Window { id, .. } => Some(id.clone()),
        Target::App => None,
    };
    let mut cx = context_for(shared, window.clone(), &caller);
    let args = Args::new(arguments, params).with_typed(typed);
    let outcome = run_handler(&mut working, index, &action, args, &mut cx, timeout, &cancel).await;
    let output = handler_output(outcome, &action, timeout, &cancel)?;
    if !cx.invalid.is_empty() {
        return Err(ToolError::validation(std::mem::take(&mut cx.invalid)).into());
    }
    if !cx.failures.is_empty() {
        tracing::error!(action = %action, failures = ?cx.failures, "an action used its context wrongly");
        return Err(refusals::context_misused(&action, &cx.failures).into());
    }
    if cancel.is_cancelled() {
        return Err(refusals::cancelled(&action).into());
    }
    let effects = std::mem::take(&mut cx.effects);
    let finished =
        Finished { target, action: action.clone(), index, working, base_revision, effects };
    let (opened, next) = commit(shared, finished)?;
    tracing::info!(action = %action, opened = opened.len(), "action applied");
    if caller.is_agent() {
        seen::record(shared, window.map(|w| w.to_string()), &action, cx.focus);
    }
    let message =
        output.message.or(cx.message.take()).unwrap_or_else(|| default_message(&action, &opened));
    let result = output.result.map(|value| result_shape.wrap(value));
    let approved_by = approved.map(|Approved { by, .. }| by);
    let result =
        ToolResult { message: Some(message), opened_window_ids: opened, result, next, approved_by };
    Ok(result)
}

/// The handler's context, for `caller`.
fn context_for(shared: &Arc<Shared>, window: Option<Arc<str>>, caller: &Caller) -> Context {
    let (called_by, client, progress) = match caller {
        Caller::Person => (crate::window::CalledBy::Person, None, None),
        Caller::Agent { session, progress, .. } => (
            crate::window::CalledBy::Agent { session: session.as_ref().map(|s| s.number()) },
            session.as_ref().and_then(|s| s.client()),
            progress.clone(),
        ),
    };
    let mut cx = Context::new(shared.clone(), window, called_by, progress);
    cx.client = client;
    cx
}

/// The check phase, outside the operation lock: the gates as they stand now, and
/// the arguments against the action's schema.
fn check(shared: &Shared, call: &mut ActionCall) -> Result<Checked, ToolError> {
    let (checked, key) = shared.try_read(|state| {
        let gates::Admitted { target, index, actor, entry } = gates::admit(state, call)?;
        let pin = matches!(target, Target::App).then(|| consent::pin(state));
        let action = &actor.spec.actions[index];
        let needs_approval = action.spec.needs_approval();
        // What the person is shown, copied only when someone is asked.
        let shown = entry.filter(|_| needs_approval);
        let checked = Checked {
            needs_approval,
            version: entry.map(|e| e.version),
            pin,
            window_title: shown.map(|e| e.title.to_string()),
            window_summary: shown.and_then(|e| e.summary.as_deref().map(str::to_owned)),
            action_title: if needs_approval { action.tool_title.clone() } else { String::new() },
            params: action.params.clone(),
            check: action.check.clone(),
            question: None,
        };
        Ok::<_, ToolError>((checked, index))
    })?;
    // Found once: from here on the call names its action by key (a
    // window's type, and so its actions, never change).
    call.key = Some(key);
    if call.typed.is_some() {
        // The compiler checked a typed call's arguments; there is no
        // JSON to check.
        return Ok(checked);
    }
    let limits = &shared.config.limits;
    let problems = checked.check.check(&checked.params, &mut call.arguments, limits);
    if problems.is_empty() { Ok(checked) } else { Err(ToolError::validation(problems)) }
}

/// The prepare phase, under the operation lock: the gates again (and, for an
/// app-level action approved at `pin`, the same pin), and a working copy.
fn prepare(shared: &Shared, call: &ActionCall, pin: Option<u64>) -> Result<Prepared, ToolError> {
    let default_timeout = shared.config.default_timeout;
    let approval_timeout = shared.config.approval_timeout;
    shared.read(|state| {
        let gates::Admitted { target, index, actor, .. } = gates::admit(state, call)?;
        if matches!(target, Target::App) && pin.is_some_and(|pin| pin != consent::pin(state)) {
            return Err(refusals::denied(&call.action, DenialReason::Changed, approval_timeout));
        }
        let compiled = &actor.spec.actions[index];
        let working = actor.working_copy().ok_or_else(|| {
            tracing::error!(action = %call.action, "cloning the view-model panicked");
            refusals::failed_inside(&call.action)
        })?;
        Ok(Prepared {
            target,
            index,
            working,
            base_revision: actor.revision,
            params: compiled.params.clone(),
            result_shape: compiled.result_shape,
            timeout: compiled.spec.timeout.unwrap_or(default_timeout),
        })
    })?
}

/// The commit phase: applies a finished call in one step, or nothing if the world
/// moved under it (user-first, §7.1). Returns the windows it opened and,
/// when it changed what can be operated, what can be operated now.
fn commit(shared: &Shared, finished: Finished) -> Result<(Vec<String>, Option<Next>), ToolError> {
    let max_windows = shared.config.limits.max_windows;
    shared.mutate_and(
        |state| apply(state, finished, max_windows),
        |state, change, opened| {
            let next = (change.tools || !opened.is_empty()).then(|| state.changed_next());
            (opened, next)
        },
    )
}

/// The respond phase for failures: the advice of advice.rs, on the state as it is.
fn explain(shared: &Shared, error: ToolError) -> ToolError {
    let surface = shared.config.surface;
    match shared.lock() {
        Ok(state) => advice::explain(surface, Some(&state), error),
        Err(_) => advice::explain(surface, None, error),
    }
}

/// A message for handlers that give none: the protocol says one SHOULD be there.
fn default_message(action: &str, opened: &[String]) -> String {
    let done = format!("Completed `{action}`.");
    match opened {
        [] => done,
        [one] => format!("{done} Opened window {one}."),
        many => format!("{done} Opened windows {}.", many.join(", ")),
    }
}

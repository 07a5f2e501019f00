//! An agent's call — and the person's [`App::perform`] — in named phases:
//!
//! 1. **route**: the tool name (or `app__act`'s `window`/`action`) says which
//!    window and action are meant; `app__read_windows` is answered at once;
//! 2. **check**, outside the operation lock: the gates (gates.rs) and the
//!    arguments against the action's schema, so a bad or oversized request
//!    never holds up anyone else;
//! 3. **prepare**, under the operation lock: the gates again, then a working
//!    copy of the view-model;
//! 4. **run**: the handler on the working copy, with timeout, cancellation
//!    and panic guard, ending in one [`HandlerOutcome`];
//! 5. **commit** (commit.rs): the gates once more, then every effect in one
//!    step through [`Shared::mutate`](super::shared::Shared::mutate), which
//!    settles and notifies;
//! 6. **respond**: the result, with what can be operated next — or an error
//!    that says what to do next on the agent's tool surface.

use std::{
    future::Future,
    panic::{AssertUnwindSafe, catch_unwind},
    pin::Pin,
    sync::Arc,
    task::Poll,
    time::Duration,
};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{
    App, ApprovalRequest, Error, Touched,
    actor::{DynActions, ResultShape},
    advice,
    approval::{self, AgentSession},
    catalog,
    commit::{Finished, apply},
    context::Context,
    gates::{self, Target, When},
    lock_unpoisoned,
    progress::ProgressFeed,
    route::{ActionCall, Request, route},
};
use crate::{
    ActionOutput, Args,
    action::JsonObject,
    model::{DenialReason, ErrorCode, Next, ToolError, ToolResult},
    validate,
};

tokio::task_local! {
    /// Set while an action handler runs: `App::call` from inside one would
    /// wait for the call it is part of.
    static IN_HANDLER: ();
}

/// Who is calling: agents are recorded as activity and asked for approval,
/// the person is not. An agent's session, when the transport knows it, can
/// be asked to approve; its progress reports go to `progress` when its
/// client asked for them.
#[derive(Clone)]
pub(crate) enum Caller {
    Agent { session: Option<Arc<dyn AgentSession>>, progress: Option<Arc<ProgressFeed>> },
    Person,
}

impl Caller {
    /// An agent the transport knows nothing about (in-process calls).
    const ANONYMOUS: Self = Self::Agent { session: None, progress: None };

    fn is_agent(&self) -> bool {
        matches!(self, Self::Agent { .. })
    }
}

/// What phase 2 learned, for asking approval.
struct Checked {
    needs_approval: bool,
    /// The window's version when checked; `None` for app-level actions.
    version: Option<u64>,
    /// What the person asked is shown; filled in only when the action
    /// needs approval.
    window_title: Option<String>,
    window_summary: Option<String>,
    action_title: String,
    params: Arc<[String]>,
    check: Arc<crate::validate::ArgumentCheck>,
}

/// What a tools/call returns on the wire: `structuredContent` and `isError`.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let app = purview::App::builder().build();
/// let outcome = app.call_tool("app__read_windows", None).await;
/// assert!(!outcome.is_error);
/// assert_eq!(outcome.structured["operableWindowIds"], serde_json::json!([]));
/// # });
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolOutcome {
    /// Whether the call failed (`structured` is then a
    /// [`ToolError`] object).
    pub is_error: bool,
    /// The `structuredContent`.
    pub structured: Value,
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

/// How a handler ended.
enum HandlerOutcome {
    Returned(ActionOutput),
    Failed(ToolError),
    Panicked,
    TimedOut,
    Cancelled,
}

impl App {
    /// Calls a tool as an agent would, without any transport: every gate,
    /// the serialized path, and the exact result or error the MCP layer
    /// sends. Accepts `{windowId}__{action}`, `app__{action}` and `app__act`
    /// (whose result is the action's). `app__read_windows` answers with a
    /// snapshot rather than a [`ToolResult`]: use [`App::read_windows`] or
    /// [`App::call_tool`] for it.
    ///
    /// ```
    /// # use purview::*;
    /// # #[derive(Clone)] struct W;
    /// # impl Window for W { fn title(&self) -> String { "W".into() } fn project(&self, _: &mut View) {} }
    /// # impl Actions for W { fn actions() -> Vec<ActionSpec> { vec![ActionSpec::new("close")] }
    /// #   fn call<'a>(&'a mut self, a: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a, ActionResult> {
    /// #     Box::pin(async move { args.finish()?; cx.close(); Ok(ActionOutput::message("closed")) }) } }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = App::builder().build();
    /// let w = app.open(W).unwrap();
    /// let ok = app.call(&format!("{}__close", w.id()), None).await.unwrap();
    /// assert_eq!(ok.message.as_deref(), Some("closed"));
    /// let err = app.call(&format!("{}__close", w.id()), None).await.unwrap_err();
    /// assert_eq!(err.code, model::ErrorCode::WindowNotFound);
    /// # });
    /// ```
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
    ) -> Result<ToolResult, ToolError> {
        self.call_cancellable(tool, arguments, CancellationToken::new()).await
    }

    /// The person's own use of an action — a GUI button wired to the same
    /// logic an agent calls: the same gates, working copy and effects as
    /// [`App::call`], but not recorded as agent activity.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = purview::App::builder().build();
    /// let err = app.perform("w9__submit", None).await.unwrap_err();
    /// assert_eq!(err.code, purview::model::ErrorCode::WindowNotFound);
    /// # });
    /// ```
    pub async fn perform(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
    ) -> Result<ToolResult, ToolError> {
        self.call_typed(tool, arguments, Caller::Person, CancellationToken::new()).await
    }

    /// [`App::call`] that gives up, changing nothing, when `cancel` fires
    /// (the client cancelled the request) before the call commits.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = purview::App::builder().build();
    /// let cancel = purview::CancellationToken::new();
    /// let result = app.call_cancellable("w1__anything", None, cancel).await;
    /// assert!(result.is_err());
    /// # });
    /// ```
    pub async fn call_cancellable(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        cancel: CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        self.call_typed(tool, arguments, Caller::ANONYMOUS, cancel).await
    }

    /// Calls any tool tools/list offers (`app__read_windows` included) and
    /// returns exactly what the MCP layer would send as `structuredContent`
    /// and `isError`: for in-process agents and conformance checks.
    pub async fn call_tool(&self, tool: &str, arguments: Option<JsonObject>) -> ToolOutcome {
        let outcome =
            self.call_tool_as(tool, arguments, Caller::ANONYMOUS, CancellationToken::new());
        match outcome.await {
            Ok(structured) => ToolOutcome { is_error: false, structured },
            Err(error) => ToolOutcome { is_error: true, structured: error_value(&error) },
        }
    }

    /// What `app__read_windows` returns: the `app://windows` snapshot
    /// (narrowed to `only`, when given; `operableWindowIds` stays whole) plus
    /// `actions`, each operable window's available actions (and `"app"`'s)
    /// as one-line signatures such as
    /// `edit_field(field: 'recipient'|'amount', value: string)`.
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// let view = app.read_windows(None).unwrap();
    /// assert_eq!(view["windows"], serde_json::json!([]));
    /// assert!(view.get("schemas").is_none());
    /// ```
    pub fn read_windows(&self, only: Option<&[String]>) -> Result<Value, Error> {
        self.shared.read(|state| catalog::read_windows(state, only, false))
    }

    /// [`App::read_windows`] with `schemas`, as `app__read_windows` answers
    /// `{"schemas": true}`: for each id under `actions`, its actions' title,
    /// description, full input schema and annotations by name — or, for a
    /// window whose type an earlier entry already describes, that entry's
    /// window id.
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// let view = app.read_windows_with_schemas(None).unwrap();
    /// assert_eq!(view["schemas"], serde_json::json!({}));
    /// ```
    pub fn read_windows_with_schemas(&self, only: Option<&[String]>) -> Result<Value, Error> {
        self.shared.read(|state| catalog::read_windows(state, only, true))
    }

    /// The transport's entry point: any tool, with who is calling.
    pub(crate) async fn call_tool_as(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        caller: Caller,
        cancel: CancellationToken,
    ) -> Result<Value, ToolError> {
        match route(self.shared.config.surface, tool, arguments.unwrap_or_default())
            .map_err(|e| self.explain(e))?
        {
            Request::ReadWindows { only, schemas } => self
                .shared
                .read(|state| catalog::read_windows(state, only.as_deref(), schemas))
                .map_err(ToolError::from),
            Request::Action(call) => {
                let (window, action) = (call.window.clone(), call.action.clone());
                let dispatched = call.dispatched;
                let result = self.call_action(call, caller, cancel).await;
                let result = match result {
                    Err(mut error) if dispatched && error.code == ErrorCode::ValidationFailed => {
                        // The line the agent built its call from, to correct it by.
                        error.signature = self
                            .shared
                            .read(|state| catalog::signature_of(state, &window, &action))
                            .ok()
                            .flatten()
                            .map(|s| Box::from(&*s));
                        Err(error)
                    }
                    other => other,
                }?;
                Ok(serde_json::to_value(result).unwrap_or_default())
            }
        }
    }

    async fn call_typed(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        caller: Caller,
        cancel: CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        match route(self.shared.config.surface, tool, arguments.unwrap_or_default())
            .map_err(|e| self.explain(e))?
        {
            Request::ReadWindows { .. } => Err(ToolError::new(
                ErrorCode::ActionNotAvailable,
                "app__read_windows answers with a snapshot, not an action result: use App::read_windows or App::call_tool.",
            )),
            Request::Action(call) => self.call_action(call, caller, cancel).await,
        }
    }

    async fn call_action(
        &self,
        call: ActionCall,
        caller: Caller,
        cancel: CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        self.run_phases(call, caller, cancel)
            .await
            .map(|(result, _)| result)
            .map_err(|e| self.explain(e))
    }

    /// A typed call of the person's ([`Call`](crate::Call)): the person's
    /// path, with arguments the compiler checked, and the handler's own
    /// result value beside the wire result.
    pub(super) async fn perform_typed(
        &self,
        call: ActionCall,
    ) -> Result<(ToolResult, Option<Box<dyn std::any::Any + Send>>), ToolError> {
        self.run_phases(call, Caller::Person, CancellationToken::new())
            .await
            .map_err(|e| self.explain(e))
    }

    async fn run_phases(
        &self,
        call: ActionCall,
        caller: Caller,
        cancel: CancellationToken,
    ) -> Result<(ToolResult, Option<Box<dyn std::any::Any + Send>>), ToolError> {
        refuse_reentry(&call)?;
        let checked = self.check(&call)?;
        let mut call = call;
        if checked.needs_approval
            && let Caller::Agent { session, .. } = &caller
        {
            self.approve(&mut call, &checked, session.as_deref(), &cancel).await?;
        }
        let _serialized = self.shared.op_lock.lock().await;
        let Prepared { target, index, mut working, base_revision, params, result_shape, timeout } =
            self.prepare(&call)?;
        let ActionCall { action, arguments, typed, .. } = call;
        let window = match &target {
            Target::Window { id, .. } => Some(id.clone()),
            Target::App => None,
        };
        let (called_by, progress) = match &caller {
            Caller::Person => (super::CalledBy::Person, None),
            Caller::Agent { session, progress } => (
                super::CalledBy::Agent { session: session.as_ref().map(|s| s.number()) },
                progress.clone(),
            ),
        };
        let mut cx = Context::new(self.shared.clone(), window.clone(), called_by, progress);
        let args = Args::new(arguments, params).with_typed(typed);
        let outcome = run_handler(&mut working, &action, args, &mut cx, timeout, &cancel).await;
        let output = handler_output(outcome, &action, timeout, &cancel)?;
        if !cx.invalid.is_empty() {
            return Err(ToolError::validation(std::mem::take(&mut cx.invalid)));
        }
        if !cx.failures.is_empty() {
            tracing::error!(action = %action, failures = ?cx.failures, "an action used its context wrongly");
            return Err(ToolError::new(
                ErrorCode::ActionFailed,
                format!(
                    "`{action}` could not complete ({}); nothing was changed. This is a defect in the application, not in your call.",
                    cx.failures.join("; ")
                ),
            ));
        }
        if cancel.is_cancelled() {
            return Err(cancelled(&action));
        }
        let effects = std::mem::take(&mut cx.effects);
        let finished =
            Finished { target, action: action.clone(), index, working, base_revision, effects };
        let (opened, next) = self.commit(finished)?;
        tracing::info!(action = %action, opened = opened.len(), "action applied");
        if caller.is_agent() {
            self.record_activity(window.map(|w| w.to_string()), &action, cx.focus);
        }
        let message = output
            .message
            .or(cx.message.take())
            .unwrap_or_else(|| default_message(&action, &opened));
        let result = output.result.map(|value| result_shape.wrap(value));
        let typed = output.typed.0;
        Ok((ToolResult { message: Some(message), opened_window_ids: opened, result, next }, typed))
    }

    /// Phase 2, outside the operation lock: the gates as they stand now, and
    /// the arguments against the action's schema.
    fn check(&self, call: &ActionCall) -> Result<Checked, ToolError> {
        let checked = self.shared.read(|state| {
            let (target, index) = gates::resolve(state, &call.window, &call.action)?;
            gates::check_operable(state, &target, index, &call.action, When::Before)?;
            gates::check_expected_version(state, &target, call.expected_version.as_ref())?;
            let (actor, entry) = match &target {
                Target::Window { id, .. } => {
                    let entry = state.entry_by_id(id).ok_or_else(|| window_gone(&call.window))?;
                    (&entry.actor, Some(entry))
                }
                Target::App => (state.app.as_ref().ok_or_else(|| window_gone(&call.window))?, None),
            };
            let action = &actor.spec.actions[index];
            let needs_approval = action.spec.needs_approval();
            // What the person is shown, copied only when someone is asked.
            let shown = entry.filter(|_| needs_approval);
            Ok::<_, ToolError>(Checked {
                needs_approval,
                version: entry.map(|e| e.version),
                window_title: shown.map(|e| e.title.to_string()),
                window_summary: shown.and_then(|e| e.summary.as_deref().map(str::to_owned)),
                action_title: if needs_approval {
                    action.tool_title.clone()
                } else {
                    String::new()
                },
                params: action.params.clone(),
                check: action.check.clone(),
            })
        })??;
        if call.typed.is_some() {
            // The compiler checked a typed call's arguments; there is no
            // JSON to check.
            return Ok(checked);
        }
        let limits = &self.shared.config.limits;
        let problems = checked.check.check(&checked.params, &call.arguments, limits);
        if problems.is_empty() { Ok(checked) } else { Err(ToolError::validation(problems)) }
    }

    /// Asks a person to approve the call (before the operation lock, so the
    /// app goes on meanwhile). A yes holds for the window as it was: the
    /// call then expects the version it had when asked.
    async fn approve(
        &self,
        call: &mut ActionCall,
        checked: &Checked,
        session: Option<&dyn AgentSession>,
        cancel: &CancellationToken,
    ) -> Result<(), ToolError> {
        let limits = &self.shared.config.limits;
        let asker = session.map_or(0, AgentSession::number);
        let _place = self
            .shared
            .pending_approvals
            .take(asker, limits.max_pending_approvals_per_session, limits.max_pending_approvals)
            .map_err(|too_many| too_many_questions(&call.action, too_many))?;
        let mut request = ApprovalRequest {
            window_id: checked.version.map(|_| call.window.clone()),
            window_title: checked.window_title.clone(),
            window_summary: checked.window_summary.clone(),
            action: call.action.clone(),
            action_title: checked.action_title.clone(),
            arguments: checked.check.shown(&call.arguments),
            agent: session.map_or_else(|| "An agent".to_owned(), |s| s.describe()),
            wording: None,
        };
        let wording = lock_unpoisoned(&self.shared.approval_wording).clone();
        if let Some(wording) = wording {
            // The app's own code: a panic in it is a refusal, not a crash.
            let worded =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| wording(&request)));
            request.wording = worded.ok().flatten();
        }
        let approver = lock_unpoisoned(&self.shared.approver).clone();
        let timeout = self.shared.config.approval_timeout;
        tracing::info!(action = %call.action, "asking a person to approve");
        let answer = tokio::select! {
            () = cancel.cancelled() => return Err(cancelled(&call.action)),
            answer = approval::ask(approver, session, request, timeout, self.shared.config.no_approver) => answer,
        };
        match answer {
            Ok(()) => {
                if call.expected_version.is_none() {
                    call.expected_version = checked.version.map(Value::from);
                }
                Ok(())
            }
            Err(reason) => {
                tracing::info!(action = %call.action, %reason, "approval not given");
                Err(denied(&call.action, reason, timeout))
            }
        }
    }

    /// Phase 3, under the operation lock: the gates again, and a working copy.
    fn prepare(&self, call: &ActionCall) -> Result<Prepared, ToolError> {
        let default_timeout = self.shared.config.default_timeout;
        self.shared.read(|state| {
            let (target, index) = gates::resolve(state, &call.window, &call.action)?;
            gates::check_operable(state, &target, index, &call.action, When::Before)?;
            gates::check_expected_version(state, &target, call.expected_version.as_ref())?;
            let actor = match &target {
                Target::Window { id, .. } => state.entry_by_id(id).map(|e| &e.actor),
                Target::App => state.app.as_ref(),
            }
            .ok_or_else(|| ToolError::new(ErrorCode::WindowNotFound, "The window is gone."))?;
            let compiled = &actor.spec.actions[index];
            let working = actor.working_copy().ok_or_else(|| {
                tracing::error!(action = %call.action, "cloning the view-model panicked");
                failed_inside(&call.action)
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

    /// Phase 5: applies a finished call in one step, or nothing if the world
    /// moved under it (user-first, §7.1). Returns the windows it opened and,
    /// when it changed what can be operated, what can be operated now.
    fn commit(&self, finished: Finished) -> Result<(Vec<String>, Option<Next>), ToolError> {
        let max_windows = self.shared.config.limits.max_windows;
        self.shared
            .mutate_and(
                |state| match apply(state, finished, max_windows) {
                    Ok((opened, touched)) => (Ok(opened), touched),
                    Err(e) => (Err(e), Touched::default()),
                },
                |state, change, opened| match opened {
                    Ok(opened) => {
                        let next = (change.tools || !opened.is_empty()).then(|| state.next());
                        Ok((opened, next))
                    }
                    Err(e) => Err(e),
                },
            )
            .map_err(ToolError::from)?
    }

    /// Phase 6 for failures: the advice of advice.rs, on the state as it is.
    fn explain(&self, error: ToolError) -> ToolError {
        let surface = self.shared.config.surface;
        match self.shared.lock() {
            Ok(state) => advice::explain(surface, Some(&state), error),
            Err(_) => advice::explain(surface, None, error),
        }
    }
}

/// Phase 4: the handler on the working copy, guarded against panics (in
/// its synchronous part too), timeouts and the client cancelling.
async fn run_handler(
    working: &mut Box<dyn DynActions>,
    action: &str,
    args: Args,
    cx: &mut Context,
    timeout: Duration,
    cancel: &CancellationToken,
) -> HandlerOutcome {
    let future = match catch_unwind(AssertUnwindSafe(move || working.call(action, args, cx))) {
        Err(_) => return HandlerOutcome::Panicked,
        Ok(future) => future,
    };
    let guarded = IN_HANDLER.scope((), catch_unwind_future(future));
    tokio::select! {
        biased;
        () = cancel.cancelled() => HandlerOutcome::Cancelled,
        result = tokio::time::timeout(timeout, guarded) => match result {
            Err(_) => HandlerOutcome::TimedOut,
            Ok(Err(())) => HandlerOutcome::Panicked,
            Ok(Ok(Err(error))) => HandlerOutcome::Failed(error),
            Ok(Ok(Ok(output))) => HandlerOutcome::Returned(output),
        },
    }
}

fn error_value(error: &ToolError) -> Value {
    serde_json::to_value(error).unwrap_or_default()
}

/// `App::call` from inside a handler would wait for the call it is part of.
fn refuse_reentry(call: &ActionCall) -> Result<(), ToolError> {
    if IN_HANDLER.try_with(|_| ()).is_ok() {
        return Err(ToolError::new(
            ErrorCode::ActionFailed,
            format!(
                "`{}` was called from inside another action's handler, which would wait for itself; nothing was changed. This is a defect in the application: a handler acts on other windows through its Context.",
                validate::echo(&call.action)
            ),
        ));
    }
    Ok(())
}

/// Turns how the handler ended into its output, or the error to return.
fn handler_output(
    outcome: HandlerOutcome,
    action: &str,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<ActionOutput, ToolError> {
    match outcome {
        HandlerOutcome::Returned(output) => Ok(output),
        HandlerOutcome::Failed(error) => Err(error),
        HandlerOutcome::Cancelled => {
            tracing::info!(action, "call cancelled by the client before it took effect");
            Err(cancelled(action))
        }
        HandlerOutcome::TimedOut => {
            tracing::warn!(action, "action timed out");
            Err(ToolError::new(
                ErrorCode::ActionTimeout,
                format!(
                    "`{action}` did not finish within {timeout:?} and was abandoned; nothing was changed."
                ),
            ))
        }
        HandlerOutcome::Panicked if cancel.is_cancelled() => Err(cancelled(action)),
        HandlerOutcome::Panicked => {
            tracing::error!(action, "action handler panicked; the call was rolled back");
            Err(failed_inside(action))
        }
    }
}

fn window_gone(window: &str) -> ToolError {
    ToolError::new(
        ErrorCode::WindowNotFound,
        format!("Window `{}` is not open.", validate::echo(window)),
    )
}

/// The `limit_reached` error for a question that was not asked because too
/// many already wait.
fn too_many_questions(action: &str, too_many: approval::TooMany) -> ToolError {
    let why = match too_many {
        approval::TooMany::FromSession(n) => format!(
            "your session already has {n} approval questions waiting for an answer, its limit"
        ),
        approval::TooMany::InAll(n) => {
            format!("{n} approval questions are already waiting for an answer, the app's limit")
        }
    };
    ToolError::new(
        ErrorCode::LimitReached,
        format!(
            "`{action}` needs a person's approval, but {why}. Nothing was changed and no one was asked; wait for an answer to the questions already asked before calling again."
        ),
    )
}

/// The `approval_denied` error, saying what happened and that calling again
/// asks again.
fn denied(action: &str, reason: DenialReason, timeout: Duration) -> ToolError {
    let message = match reason {
        DenialReason::Declined => format!(
            "The person declined `{action}`; nothing was changed. Calling again asks them again."
        ),
        DenialReason::NoApprover => format!(
            "`{action}` needs a person's approval, and no one could be asked: this application has no approver and your client cannot ask its user. Nothing was changed; ask the user to do it in the application themselves."
        ),
        DenialReason::Timeout => format!(
            "No one approved `{action}` within {} s; nothing was changed. Calling again asks again.",
            timeout.as_secs()
        ),
    };
    let mut error = ToolError::new(ErrorCode::ApprovalDenied, message);
    error.reason = Some(reason);
    error
}

fn cancelled(action: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!("`{action}` was cancelled before it took effect; nothing was changed."),
    )
}

fn failed_inside(action: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!(
            "`{action}` failed inside the application; nothing was changed. Retrying the same call will likely fail the same way."
        ),
    )
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

/// Polls a boxed future, turning a panic into `Err(())`.
async fn catch_unwind_future<T>(
    mut future: Pin<Box<dyn Future<Output = T> + Send + '_>>,
) -> Result<T, ()> {
    std::future::poll_fn(move |cx| {
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    })
    .await
}

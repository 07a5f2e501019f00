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
    App, Error,
    actor::{DynActions, ResultShape},
    advice,
    approval::AgentSession,
    catalog,
    commit::{Finished, apply},
    consent::{self, Approved, Checked, Resume, Stop},
    context::Context,
    gates::{self, Target},
    progress::ProgressFeed,
    route::{ActionCall, Request, route},
    run::{handler_output, refuse_reentry, run_handler},
};
use crate::{
    Args,
    action::JsonObject,
    model::{DenialReason, ErrorCode, Next, ToolError, ToolResult},
    refusals,
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

impl App {
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
        self.read_windows_as(only, false)
    }

    /// `app__read_windows`'s answer: unfiltered, the one kept since the
    /// last change (copied out of the lock); narrowed, built for the call.
    fn read_windows_as(&self, only: Option<&[String]>, schemas: bool) -> Result<Value, Error> {
        match only {
            None => Ok(Value::clone(&*self.shared.read(|state| state.windows_read(schemas))?)),
            Some(only) => {
                self.shared.read(|state| catalog::read_windows(state, Some(only), schemas))
            }
        }
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
        self.read_windows_as(only, true)
    }

    /// The transport's entry point: any tool, with who is calling.
    pub(crate) async fn call_tool_as(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        caller: Caller,
        cancel: CancellationToken,
    ) -> Result<Value, Stop> {
        let arguments = arguments.unwrap_or_default();
        let limits = &self.shared.config.limits;
        if tool == crate::naming::READ_WINDOWS_TOOL
            && let Some(problem) = crate::validate::over_limits(&arguments, limits)
        {
            // An action's arguments meet the same check in its gates.
            return Err(ToolError::validation(vec![problem]).into());
        }
        match route(self.shared.config.surface, tool, arguments).map_err(|e| self.explain(e))? {
            Request::ReadWindows { only, schemas } => {
                // No more windows than can ever be open: a longer list names
                // windows that cannot exist, and costs a lookup each.
                if let Some(only) = &only
                    && only.len() > limits.max_windows
                {
                    return Err(
                        refusals::too_many_windows_asked(only.len(), limits.max_windows).into()
                    );
                }
                self.read_windows_as(only.as_deref(), schemas)
                    .map_err(|e| ToolError::from(e).into())
            }
            Request::Action(call) => {
                let (window, action) = (call.window.clone(), call.action.clone());
                let dispatched = call.dispatched;
                let result = self.call_action(call, caller, cancel).await;
                let result = match result {
                    Err(Stop::Refused(mut error))
                        if dispatched && error.code == ErrorCode::ValidationFailed =>
                    {
                        // The line the agent built its call from, to correct it by.
                        error.signature = self
                            .shared
                            .read(|state| catalog::signature_of(state, &window, &action))
                            .ok()
                            .flatten()
                            .map(|s| Box::from(&*s));
                        Err(error.into())
                    }
                    other => other,
                }?;
                Ok(serde_json::to_value(result).unwrap_or_default())
            }
        }
    }

    /// Runs an action call as `caller`, for [`Call`](crate::Call): the
    /// refusal, if any, with advice on what to do next; the handler's own
    /// result value beside the wire result.
    pub(super) async fn run_call(
        &self,
        call: ActionCall,
        caller: Caller,
        cancel: CancellationToken,
    ) -> Result<(ToolResult, Option<Box<dyn std::any::Any + Send>>), ToolError> {
        let (action, timeout) = (call.action.clone(), self.shared.config.approval_timeout);
        self.run_phases(call, caller, cancel)
            .await
            .map_err(|stop| self.explain(stop.refusal(&action, timeout)))
    }

    /// The route phase for a tool name, with advice when it names nothing.
    pub(super) fn route_tool(
        &self,
        tool: &str,
        arguments: JsonObject,
    ) -> Result<Request, ToolError> {
        route(self.shared.config.surface, tool, arguments).map_err(|e| self.explain(e))
    }

    /// The transport's action calls: a question stays a question.
    async fn call_action(
        &self,
        call: ActionCall,
        caller: Caller,
        cancel: CancellationToken,
    ) -> Result<ToolResult, Stop> {
        self.run_phases(call, caller, cancel).await.map(|(result, _)| result).map_err(|stop| {
            match stop {
                Stop::Refused(error) => Stop::Refused(self.explain(error)),
                ask => ask,
            }
        })
    }

    async fn run_phases(
        &self,
        mut call: ActionCall,
        mut caller: Caller,
        cancel: CancellationToken,
    ) -> Result<(ToolResult, Option<Box<dyn std::any::Any + Send>>), Stop> {
        refuse_reentry(&call)?;
        let checked = self.check(&mut call)?;
        let mut approved = None;
        if checked.needs_approval
            && let Caller::Agent { session, resume, .. } = &mut caller
        {
            if call.typed.is_some() {
                // The approver would be shown no arguments: ask no one.
                return Err(refusals::typed_call_cannot_be_approved(&call.action).into());
            }
            let resume = resume.take();
            // Rare, and its future is large: it waits behind a pointer, so
            // every other call's future stays small.
            let approving = self.approve(&mut call, &checked, session.as_deref(), resume, &cancel);
            approved = Some(Box::pin(approving).await?);
        }
        let _serialized = self.shared.op_lock.lock().await;
        let pin = approved.as_ref().and_then(|a| a.pin);
        let Prepared { target, index, mut working, base_revision, params, result_shape, timeout } =
            self.prepare(&call, pin)?;
        let ActionCall { action, arguments, typed, .. } = call;
        let window = match &target {
            Target::Window { id, .. } => Some(id.clone()),
            Target::App => None,
        };
        let (called_by, client, progress) = match &caller {
            Caller::Person => (super::CalledBy::Person, None, None),
            Caller::Agent { session, progress, .. } => (
                super::CalledBy::Agent { session: session.as_ref().map(|s| s.number()) },
                session.as_ref().and_then(|s| s.client()),
                progress.clone(),
            ),
        };
        let mut cx = Context::new(self.shared.clone(), window.clone(), called_by, progress);
        cx.client = client;
        let args = Args::new(arguments, params).with_typed(typed);
        let outcome =
            run_handler(&mut working, index, &action, args, &mut cx, timeout, &cancel).await;
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
        let approved_by = approved.map(|Approved { by, .. }| by);
        Ok((
            ToolResult {
                message: Some(message),
                opened_window_ids: opened,
                result,
                next,
                approved_by,
            },
            typed,
        ))
    }

    /// The check phase, outside the operation lock: the gates as they stand now, and
    /// the arguments against the action's schema.
    fn check(&self, call: &mut ActionCall) -> Result<Checked, ToolError> {
        let (checked, key) = self.shared.try_read(|state| {
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
                action_title: if needs_approval {
                    action.tool_title.clone()
                } else {
                    String::new()
                },
                params: action.params.clone(),
                check: action.check.clone(),
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
        let limits = &self.shared.config.limits;
        let problems = checked.check.check(&checked.params, &mut call.arguments, limits);
        if problems.is_empty() { Ok(checked) } else { Err(ToolError::validation(problems)) }
    }

    /// The prepare phase, under the operation lock: the gates again (and, for an
    /// app-level action approved at `pin`, the same pin), and a working copy.
    fn prepare(&self, call: &ActionCall, pin: Option<u64>) -> Result<Prepared, ToolError> {
        let default_timeout = self.shared.config.default_timeout;
        let approval_timeout = self.shared.config.approval_timeout;
        self.shared.read(|state| {
            let gates::Admitted { target, index, actor, .. } = gates::admit(state, call)?;
            if matches!(target, Target::App) && pin.is_some_and(|pin| pin != consent::pin(state)) {
                return Err(refusals::denied(
                    &call.action,
                    DenialReason::Changed,
                    approval_timeout,
                ));
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
    fn commit(&self, finished: Finished) -> Result<(Vec<String>, Option<Next>), ToolError> {
        let max_windows = self.shared.config.limits.max_windows;
        self.shared.mutate_and(
            |state| apply(state, finished, max_windows),
            |state, change, opened| {
                let next = (change.tools || !opened.is_empty()).then(|| state.changed_next());
                (opened, next)
            },
        )
    }

    /// The respond phase for failures: the advice of advice.rs, on the state as it is.
    fn explain(&self, error: ToolError) -> ToolError {
        let surface = self.shared.config.surface;
        match self.shared.lock() {
            Ok(state) => advice::explain(surface, Some(&state), error),
            Err(_) => advice::explain(surface, None, error),
        }
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

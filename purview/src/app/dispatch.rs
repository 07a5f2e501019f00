//! An agent's call, gate by gate: tool name → window exists → operable →
//! action available → expectedVersion → handler on a working copy (timeout,
//! cancellation, panic guard) → commit (commit.rs) → settle → notify.

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
    App, State, Touched,
    commit::{Finished, Target, apply},
    context::Context,
    errors::{describe, stale, window_not_found},
};
use crate::{
    action::{Args, JsonObject, ResultShape},
    model::{ErrorCode, FieldError, ToolError, ToolResult},
    window::DynActions,
};

tokio::task_local! {
    /// Set while an action handler runs: `App::call` from inside one would
    /// wait for the call it is part of.
    static IN_HANDLER: ();
}

/// Who is calling: agents are recorded as activity, the person is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    Agent,
    Person,
}

/// Everything the gates found out, for running the handler.
struct Prepared {
    target: Target,
    action: String,
    index: usize,
    working: Box<dyn DynActions>,
    base_revision: u64,
    params: Arc<[String]>,
    schema: Arc<JsonObject>,
    result_shape: ResultShape,
    timeout: Duration,
}

fn failed_inside(action: &str, where_: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ActionFailed,
        format!(
            "`{action}` {where_} failed inside the application; nothing was changed. Re-read app://windows; retrying the same call will likely fail the same way."
        ),
    )
}

/// Clones a view-model for a working copy; a panicking `Clone` is an error.
fn working_copy(
    vm: &dyn DynActions,
    action: &str,
    where_: &str,
) -> Result<Box<dyn DynActions>, ToolError> {
    catch_unwind(AssertUnwindSafe(|| vm.clone_box())).map_err(|_| {
        tracing::error!(action, "cloning the view-model panicked");
        failed_inside(action, where_)
    })
}

impl App {
    /// Calls a tool as an agent would, without any transport: every gate,
    /// the serialized path, and the exact result or error the MCP layer
    /// sends. Useful in tests and for in-process agents.
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
    pub async fn perform(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
    ) -> Result<ToolResult, ToolError> {
        self.call_as(tool, arguments, CancellationToken::new(), Caller::Person).await
    }

    /// [`App::call`] that gives up, changing nothing, when `cancel` fires
    /// (the client cancelled the request) before the call commits.
    pub async fn call_cancellable(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        cancel: CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        self.call_as(tool, arguments, cancel, Caller::Agent).await
    }

    async fn call_as(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        cancel: CancellationToken,
        caller: Caller,
    ) -> Result<ToolResult, ToolError> {
        if IN_HANDLER.try_with(|_| ()).is_ok() {
            return Err(ToolError::new(
                ErrorCode::ActionFailed,
                format!(
                    "`{tool}` was called from inside another action's handler, which would wait for itself; nothing was changed. This is a defect in the application: a handler acts on other windows through its Context."
                ),
            ));
        }
        let _serialized = self.inner.op_lock.lock().await;
        let mut arguments = arguments.unwrap_or_default();
        let expected_version = arguments.remove("expectedVersion");
        let Prepared {
            target,
            action,
            index,
            mut working,
            base_revision,
            params,
            schema,
            result_shape,
            timeout,
        } = self.prepare(tool, expected_version)?;
        let where_ = match &target {
            Target::Window { id, .. } => format!("on window `{id}`"),
            Target::App => "(app-level)".to_owned(),
        };
        let origin = match &target {
            Target::Window { id, .. } => Some(id.clone()),
            Target::App => None,
        };
        let mut cx = Context::new(self.inner.clone(), origin);
        let outcome = {
            let args = Args::new(arguments, params, Some(schema));
            // The synchronous part of a hand-written `call` can panic too.
            let (vm, context, name) = (&mut working, &mut cx, action.as_str());
            match catch_unwind(AssertUnwindSafe(move || vm.call(name, args, context))) {
                Err(_) => Ok(Some(Err(()))),
                Ok(future) => {
                    let guarded = IN_HANDLER.scope((), catch_unwind_future(future));
                    tokio::select! {
                        biased;
                        () = cancel.cancelled() => Err(()),
                        result = tokio::time::timeout(timeout, guarded) => Ok(result.ok()),
                    }
                }
            }
        };
        let output = match outcome {
            Err(()) => {
                tracing::info!(tool, "call cancelled by the client before it took effect");
                return Err(ToolError::new(
                    ErrorCode::ActionFailed,
                    format!(
                        "`{action}` {where_} was cancelled before it took effect; nothing was changed."
                    ),
                ));
            }
            Ok(None) => {
                tracing::warn!(tool, "action timed out");
                return Err(ToolError::new(
                    ErrorCode::ActionTimeout,
                    format!(
                        "`{action}` {where_} did not finish within {timeout:?} and was abandoned; nothing was changed. Re-read app://windows before deciding whether to retry."
                    ),
                ));
            }
            Ok(Some(Err(()))) => {
                tracing::error!(tool, "action handler panicked; the call was rolled back");
                return Err(failed_inside(&action, &where_));
            }
            Ok(Some(Ok(Err(error)))) => return Err(error),
            Ok(Some(Ok(Ok(output)))) => output,
        };
        if !cx.invalid.is_empty() {
            return Err(ToolError::validation(std::mem::take(&mut cx.invalid)));
        }
        if !cx.failures.is_empty() {
            tracing::error!(tool, failures = ?cx.failures, "action used its context wrongly");
            return Err(ToolError::new(
                ErrorCode::ActionFailed,
                format!(
                    "`{action}` {where_} could not complete ({}); nothing was changed. This is a defect in the application, not in your call.",
                    cx.failures.join("; ")
                ),
            ));
        }
        if cancel.is_cancelled() {
            return Err(ToolError::new(
                ErrorCode::ActionFailed,
                format!(
                    "`{action}` {where_} was cancelled before it took effect; nothing was changed."
                ),
            ));
        }
        let effects = std::mem::take(&mut cx.effects);
        let window = match &target {
            Target::Window { id, .. } => Some(id.to_string()),
            Target::App => None,
        };
        let finished =
            Finished { target, action: action.clone(), index, working, base_revision, effects };
        let opened = self.commit(finished)?;
        tracing::info!(tool, opened = opened.len(), "action applied");
        if caller == Caller::Agent {
            self.record_activity(window, &action, cx.focus);
        }
        let message = output
            .message
            .or(cx.message.take())
            .unwrap_or_else(|| default_message(&action, &opened));
        let result = output.result.map(|value| result_shape.wrap(value));
        Ok(ToolResult { message: Some(message), opened_window_ids: opened, result })
    }

    /// The gates that run before the handler (§7.2, §7.4).
    fn prepare(&self, tool: &str, expected_version: Option<Value>) -> Result<Prepared, ToolError> {
        let state = self
            .inner
            .lock()
            .map_err(|e| ToolError::new(ErrorCode::ActionFailed, e.to_string()))?;
        let Some((window_part, action)) = tool.split_once("__") else {
            return Err(ToolError::new(
                ErrorCode::ActionNotAvailable,
                format!(
                    "There is no tool `{tool}`: tool names are `{{windowId}}__{{action}}` or `app__{{action}}`. Call tools/list for the tools on offer now."
                ),
            ));
        };
        let default_timeout = self.inner.config.default_timeout;
        if window_part == "app" {
            return prepare_app(&state, action, default_timeout);
        }
        let Some(entry) = state.entry_by_id(window_part) else {
            return Err(window_not_found(window_part));
        };
        let Some((index, compiled)) = entry.actor.spec.action(action) else {
            let names: Vec<&str> =
                entry.actor.spec.actions.iter().map(|a| a.spec.name.as_ref()).collect();
            return Err(ToolError::new(
                ErrorCode::ActionNotAvailable,
                format!(
                    "Window {} has no action `{action}`; its actions are: {}. Call tools/list for those on offer now.",
                    describe(&state, window_part),
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                ),
            ));
        };
        if !state.is_operable(&entry.id) {
            let topology = state.topology();
            let blocker = topology.blocker_of(&entry.id).to_owned();
            let mut e = ToolError::new(
                ErrorCode::BlockedByModal,
                format!(
                    "Window {} is blocked by a modal; {} is operable in its place. Operate `{blocker}` first (its tools are in tools/list), or re-read app://windows.",
                    describe(&state, &entry.id),
                    describe(&state, &blocker),
                ),
            );
            e.blocked_by = Some(blocker);
            return Err(e);
        }
        if !entry.actor.available[index] {
            return Err(ToolError::new(
                ErrorCode::ActionNotAvailable,
                format!(
                    "`{action}` is not available on window {} right now. Re-read app://windows to see its state, and call tools/list for what can be done.",
                    describe(&state, &entry.id)
                ),
            ));
        }
        match expected_version {
            None | Some(Value::Null) => {}
            Some(value) => match value.as_u64() {
                None => {
                    return Err(ToolError::validation(vec![FieldError::new(
                        "expectedVersion",
                        "must be a non-negative integer: the window's version from app://windows",
                    )]));
                }
                Some(expected) if expected != entry.version => {
                    return Err(stale(&state, &entry.id, entry.version, Some(expected)));
                }
                Some(_) => {}
            },
        }
        let where_ = format!("on window `{}`", entry.id);
        Ok(Prepared {
            target: Target::Window { seq: entry.seq, id: entry.id.clone() },
            action: action.to_owned(),
            index,
            working: working_copy(entry.actor.vm.as_ref(), action, &where_)?,
            base_revision: entry.actor.revision,
            params: compiled.params.clone(),
            schema: compiled.input_schema.clone(),
            result_shape: compiled.result_shape,
            timeout: compiled.spec.timeout.unwrap_or(default_timeout),
        })
    }

    fn record_activity(&self, window: Option<String>, action: &str, focus: bool) {
        {
            let mut activity = super::lock_unpoisoned(&self.inner.activity);
            let serial = activity.as_ref().map_or(1, |a| a.serial + 1);
            let focus_request = match (&window, focus) {
                (Some(w), true) => Some((w.clone(), serial)),
                _ => activity.as_ref().and_then(|a| a.focus_request.clone()),
            };
            *activity = Some(super::AgentActivity {
                window,
                action: action.to_owned(),
                focus,
                serial,
                focus_request,
            });
        }
        self.inner.hub.signal(super::Change { agent: true, ..Default::default() });
    }

    /// Applies a finished call in one step, or nothing if the world moved
    /// under it (user-first, §7.1).
    fn commit(&self, finished: Finished) -> Result<Vec<String>, ToolError> {
        self.inner
            .mutate(|state| match apply(state, finished) {
                Ok((opened, touched)) => (Ok(opened), touched),
                Err(e) => (Err(e), Touched::default()),
            })
            .map_err(|e| ToolError::new(ErrorCode::ActionFailed, e.to_string()))?
    }
}

/// The gates for an `app__{action}` tool.
fn prepare_app(
    state: &State,
    action: &str,
    default_timeout: Duration,
) -> Result<Prepared, ToolError> {
    let Some(app) = &state.app else {
        return Err(ToolError::new(
            ErrorCode::ActionNotAvailable,
            "This application has no app-level actions. Call tools/list for the tools on offer now.",
        ));
    };
    let Some((index, compiled)) = app.spec.action(action) else {
        return Err(ToolError::new(
            ErrorCode::ActionNotAvailable,
            format!(
                "The application has no app-level action `{action}`. Call tools/list for the tools on offer now."
            ),
        ));
    };
    if state.app_modal_open() {
        let topology = state.topology();
        let modal = topology.app_modal().unwrap_or_default();
        let top = topology.top_of(modal);
        let mut e = ToolError::new(
            ErrorCode::BlockedByModal,
            format!(
                "App-level actions are blocked while the app-level modal {} is open. Operate {} (its tools are in tools/list) and try again once it is closed.",
                describe(state, modal),
                describe(state, top)
            ),
        );
        e.blocked_by = Some(top.to_owned());
        return Err(e);
    }
    if !app.available[index] {
        return Err(ToolError::new(
            ErrorCode::ActionNotAvailable,
            format!(
                "The app-level action `{action}` is not available right now. Re-read app://windows and call tools/list for what can be done."
            ),
        ));
    }
    Ok(Prepared {
        target: Target::App,
        action: action.to_owned(),
        index,
        working: working_copy(app.vm.as_ref(), action, "(app-level)")?,
        base_revision: app.revision,
        params: compiled.params.clone(),
        schema: compiled.input_schema.clone(),
        result_shape: compiled.result_shape,
        timeout: compiled.spec.timeout.unwrap_or(default_timeout),
    })
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

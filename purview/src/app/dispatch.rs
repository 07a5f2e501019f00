//! An agent's call, gate by gate: tool name → window exists → operable →
//! action available → expectedVersion → handler on a working copy (timeout,
//! panic guard) → commit (conflict re-check, effects) → settle → notify.

use std::{
    collections::HashSet,
    future::Future,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::Arc,
    task::Poll,
    time::Duration,
};

use serde_json::Value;

use super::{
    App, State, Touched,
    context::{Context, Effect},
    registry::Placement,
};
use crate::{
    action::{Args, JsonObject},
    model::{ErrorCode, FieldError, ToolError, ToolResult},
    window::DynActions,
};

/// Which actor a tool belongs to.
#[derive(Debug, Clone)]
enum Target {
    Window { seq: u64, id: Arc<str> },
    App,
}

struct Prepared {
    target: Target,
    action: String,
    working: Box<dyn DynActions>,
    base_revision: u64,
    params: Arc<[String]>,
    schema: Arc<JsonObject>,
    timeout: Duration,
}

fn window_not_found(id: &str) -> ToolError {
    ToolError::new(
        ErrorCode::WindowNotFound,
        format!(
            "Window `{id}` is not open (it was closed, or never existed). Re-read app://windows for the open windows and their ids, and call tools/list for what can be done now."
        ),
    )
}

fn describe(state: &State, id: &str) -> String {
    match state.entry_by_id(id) {
        Some(e) if !e.title.is_empty() => format!("`{id}` (\"{}\")", e.title),
        _ => format!("`{id}`"),
    }
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
        let _serialized = self.inner.op_lock.lock().await;
        let mut arguments = arguments.unwrap_or_default();
        let expected_version = arguments.remove("expectedVersion");
        let prepared = self.prepare(tool, expected_version)?;
        let origin = match &prepared.target {
            Target::Window { id, .. } => Some(id.clone()),
            Target::App => None,
        };
        let Prepared { target, action, mut working, base_revision, params, schema, timeout } =
            prepared;
        let mut cx = Context::new(self.inner.clone(), origin);
        let outcome = {
            let args = Args::new(arguments, params, Some(schema));
            let call = working.call(&action, args, &mut cx);
            tokio::time::timeout(timeout, catch_unwind_future(call)).await
        };
        let where_ = match &target {
            Target::Window { id, .. } => format!("on window `{id}`"),
            Target::App => "(app-level)".to_owned(),
        };
        let output = match outcome {
            Err(_elapsed) => {
                tracing::warn!(tool, "action timed out");
                return Err(ToolError::new(
                    ErrorCode::ActionTimeout,
                    format!(
                        "`{action}` {where_} did not finish within {timeout:?} and was abandoned; nothing was changed. Re-read app://windows before deciding whether to retry."
                    ),
                ));
            }
            Ok(Err(())) => {
                tracing::error!(tool, "action handler panicked; the call was rolled back");
                return Err(ToolError::new(
                    ErrorCode::ActionFailed,
                    format!(
                        "`{action}` {where_} failed inside the application; nothing was changed. Re-read app://windows; retrying the same call will likely fail the same way."
                    ),
                ));
            }
            Ok(Ok(Err(error))) => return Err(error),
            Ok(Ok(Ok(output))) => output,
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
        let opened = self.commit(&target, &action, working, base_revision, cx.effects)?;
        tracing::info!(tool, opened = opened.len(), "action applied");
        let message = output
            .message
            .or(cx.message.take())
            .unwrap_or_else(|| default_message(&action, &opened));
        Ok(ToolResult { message: Some(message), opened_window_ids: opened, result: output.result })
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
                        describe(&state, modal),
                        describe(&state, top)
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
            return Ok(Prepared {
                target: Target::App,
                action: action.to_owned(),
                working: app.vm.clone_box(),
                base_revision: app.revision,
                params: compiled.params.clone(),
                schema: compiled.input_schema.clone(),
                timeout: compiled.spec.timeout.unwrap_or(default_timeout),
            });
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
                    "Window {} is blocked by a modal; {} is operable in its place. Operate {blocker_id} first (its tools are in tools/list), or re-read app://windows.",
                    describe(&state, &entry.id),
                    describe(&state, &blocker),
                    blocker_id = format_args!("`{blocker}`"),
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
        Ok(Prepared {
            target: Target::Window { seq: entry.seq, id: entry.id.clone() },
            action: action.to_owned(),
            working: entry.actor.vm.clone_box(),
            base_revision: entry.actor.revision,
            params: compiled.params.clone(),
            schema: compiled.input_schema.clone(),
            timeout: compiled.spec.timeout.unwrap_or(default_timeout),
        })
    }

    /// Applies a finished call in one step, or nothing if the world moved
    /// under it (user-first, §7.1).
    fn commit(
        &self,
        target: &Target,
        action: &str,
        working: Box<dyn DynActions>,
        base_revision: u64,
        effects: Vec<Effect>,
    ) -> Result<Vec<String>, ToolError> {
        self.inner
            .mutate(|state| match apply(state, target, action, working, base_revision, effects) {
                Ok((opened, touched)) => (Ok(opened), touched),
                Err(e) => (Err(e), Touched::default()),
            })
            .map_err(|e| ToolError::new(ErrorCode::ActionFailed, e.to_string()))?
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

fn stale(state: &State, id: &str, current: u64, expected: Option<u64>) -> ToolError {
    let why = match expected {
        Some(expected) => {
            format!("is at version {current}, not {expected}: it changed since you read it")
        }
        None => format!(
            "was changed by someone else while your action ran (now version {current}); your action was not applied"
        ),
    };
    let mut e = ToolError::new(
        ErrorCode::StaleState,
        format!(
            "Window {} {why}. Re-read app://windows, decide again, and retry with expectedVersion {current} if it still makes sense.",
            describe(state, id)
        ),
    );
    e.current_version = Some(current);
    e
}

fn apply(
    state: &mut State,
    target: &Target,
    action: &str,
    working: Box<dyn DynActions>,
    base_revision: u64,
    effects: Vec<Effect>,
) -> Result<(Vec<String>, Touched), ToolError> {
    // Re-check what may have changed while the handler ran without the lock.
    match target {
        Target::Window { id, .. } => {
            let entry = state.entry_by_id(id).ok_or_else(|| window_not_found(id))?;
            if entry.actor.revision != base_revision {
                return Err(stale(state, id, entry.version, None));
            }
            if !state.is_operable(id) {
                let blocker = state.topology().blocker_of(id).to_owned();
                let mut e = ToolError::new(
                    ErrorCode::BlockedByModal,
                    format!(
                        "Window {} was blocked by a modal while `{action}` ran, so nothing was applied. Operate `{blocker}` first, or re-read app://windows.",
                        describe(state, id)
                    ),
                );
                e.blocked_by = Some(blocker);
                return Err(e);
            }
        }
        Target::App => {
            let app = state.app.as_ref().ok_or_else(|| {
                ToolError::new(ErrorCode::ActionNotAvailable, "no app-level actions")
            })?;
            if app.revision != base_revision {
                return Err(ToolError::new(
                    ErrorCode::StaleState,
                    "The application state changed while your action ran; nothing was applied. Re-read app://windows and retry.",
                ));
            }
        }
    }
    check_effects(state, &effects)?;
    let (working, staged, effects) = stage_updates(state, target, working, effects)?;

    let mut touched = Touched { windows: Vec::new(), app: false, topology: false };
    for (seq, vm) in staged {
        if let Some(entry) = state.windows.get_mut(&seq) {
            entry.actor.vm = vm;
            entry.actor.revision += 1;
            touched.windows.push(seq);
        }
    }
    match target {
        Target::Window { seq, .. } => {
            if let Some(entry) = state.windows.get_mut(seq) {
                entry.actor.vm = working;
                entry.actor.revision += 1;
                touched.windows.push(*seq);
            }
        }
        Target::App => {
            if let Some(app) = state.app.as_mut() {
                app.vm = working;
                app.revision += 1;
                touched.app = true;
            }
        }
    }
    let mut opened = Vec::new();
    for effect in effects {
        match effect {
            Effect::Open { seq, id, actor, placement } => {
                state.insert(seq, id.clone(), None, actor, placement);
                touched.windows.push(seq);
                touched.topology = true;
                opened.push(id);
            }
            Effect::Close(id) => {
                if !state.close_cascade(&id).is_empty() {
                    touched.topology = true;
                }
            }
            Effect::Update { .. } => {} // staged above
            Effect::SetAvailable { window, action, available } => {
                let actor = match &window {
                    Some(id) => state.entry_by_id_mut(id).map(|e| {
                        touched.windows.push(e.seq);
                        &mut e.actor
                    }),
                    None => {
                        touched.app = true;
                        state.app.as_mut()
                    }
                };
                if let Some(actor) = actor {
                    if available {
                        actor.hidden.remove(&action);
                    } else {
                        actor.hidden.insert(action);
                    }
                }
            }
        }
    }
    let opened = opened
        .into_iter()
        .filter(|id| state.by_id.contains_key(id))
        .map(|id| id.to_string())
        .collect();
    Ok((opened, touched))
}

/// Runs every `Context::update` edit on a copy of its target, before anything
/// is applied, so a panicking edit or a missing target fails the whole call.
/// Edits of the calling window itself apply to its working copy.
#[allow(clippy::type_complexity)]
fn stage_updates(
    state: &State,
    target: &Target,
    mut working: Box<dyn DynActions>,
    effects: Vec<Effect>,
) -> Result<(Box<dyn DynActions>, Vec<(u64, Box<dyn DynActions>)>, Vec<Effect>), ToolError> {
    let mut staged: Vec<(u64, Box<dyn DynActions>)> = Vec::new();
    let mut rest = Vec::with_capacity(effects.len());
    let fail = |what: String| {
        ToolError::new(
            ErrorCode::ActionFailed,
            format!(
                "{what}; nothing was changed. Re-read app://windows before deciding what to do."
            ),
        )
    };
    for effect in effects {
        let Effect::Update { id, type_id, type_name, edit } = effect else {
            rest.push(effect);
            continue;
        };
        let own = matches!(target, Target::Window { id: origin, .. } if *origin == id);
        let vm: &mut Box<dyn DynActions> = if own {
            &mut working
        } else {
            let entry = state.entry_by_id(&id).ok_or_else(|| {
                fail(format!("the action edits window `{id}`, which is no longer open"))
            })?;
            let slot = match staged.iter().position(|(seq, _)| *seq == entry.seq) {
                Some(i) => i,
                None => {
                    staged.push((entry.seq, entry.actor.vm.clone_box()));
                    staged.len() - 1
                }
            };
            &mut staged[slot].1
        };
        if vm.as_any().type_id() != type_id {
            return Err(fail(format!("window `{id}` is not a `{type_name}`")));
        }
        if catch_unwind(AssertUnwindSafe(|| edit(vm.as_any_mut()))).is_err() {
            tracing::error!(window = %id, "an edit made through Context::update panicked");
            return Err(fail(format!("editing window `{id}` failed inside the application")));
        }
    }
    Ok((working, staged, rest))
}

/// Rejects effect lists that cannot apply in full, before anything applies.
fn check_effects(state: &State, effects: &[Effect]) -> Result<(), ToolError> {
    let mut opened: HashSet<&str> = HashSet::new();
    let mut closed: HashSet<&str> = HashSet::new();
    let exists = |id: &str, opened: &HashSet<&str>, closed: &HashSet<&str>| {
        !closed.contains(id) && (opened.contains(id) || state.by_id.contains_key(id))
    };
    let fail = |what: String| {
        Err(ToolError::new(
            ErrorCode::ActionFailed,
            format!(
                "{what}; nothing was changed. This is a defect in the application, not in your call."
            ),
        ))
    };
    for effect in effects {
        match effect {
            Effect::Open { id, placement, .. } => {
                if let Placement::Modal { owner } = placement
                    && !exists(owner, &opened, &closed)
                {
                    return fail(format!(
                        "a modal was opened on window `{owner}`, which is not open"
                    ));
                }
                opened.insert(id);
            }
            Effect::Close(id) => {
                // Closing cascades: anything owned below is gone too, which
                // the ownership check above cannot see; a rare case that the
                // final filter of opened ids handles.
                closed.insert(id);
            }
            Effect::SetAvailable { window, action, .. } => {
                let known = match window {
                    Some(id) => {
                        state.entry_by_id(id).is_some_and(|e| e.actor.spec.action(action).is_some())
                    }
                    None => state.app.as_ref().is_some_and(|a| a.spec.action(action).is_some()),
                };
                if !known {
                    return fail(format!("set_available named an unknown action `{action}`"));
                }
            }
            Effect::Update { .. } => {} // checked while staging
        }
    }
    Ok(())
}

/// Polls a boxed future, turning a panic into `Err(())`.
async fn catch_unwind_future<T>(
    mut future: std::pin::Pin<Box<dyn Future<Output = T> + Send + '_>>,
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

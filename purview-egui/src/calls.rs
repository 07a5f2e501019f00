//! The person's calls: run off the GUI thread, their failures kept where
//! the GUI shows them (per window, per action, per field), and
//! [`WindowUi`], what a window's drawing code uses to start them.

use std::{
    collections::HashMap,
    future::{Future, IntoFuture},
    sync::{Arc, Mutex, MutexGuard},
};

use purview::{
    App, Call, Performed, ToolError,
    model::JsonObject,
    model::{ErrorCode, FieldError, WindowState},
};

use crate::{executor::Executor, schema::ActionDef, schema::FormValues};

/// Where a call belongs: a window's id, or `None` for the app's own actions.
pub(crate) type Scope = Option<String>;

/// A call that failed, kept until the next call in its scope succeeds.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    /// The action whose form the per-field errors belong to, if known.
    pub action: Option<String>,
    pub error: ToolError,
}

/// What finished calls left for the GUI.
#[derive(Debug, Default)]
pub(crate) struct Outcomes {
    pub failures: HashMap<Scope, Failure>,
    /// Actions that succeeded since the last frame: their forms close.
    pub succeeded: Vec<(Scope, String)>,
}

/// A page of a truncated table, loaded through the window's own loader.
#[derive(Debug, Clone)]
pub(crate) struct Page {
    pub offset: u64,
    pub rows: Vec<Vec<purview::serde_json::Value>>,
}

/// Pages by window id and block id.
pub(crate) type Pages = HashMap<(String, String), Page>;

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The state every window's drawing shares: the app, where calls run, and
/// what the person has typed, opened or asked to confirm.
pub(crate) struct Core {
    pub app: App,
    pub executor: Executor,
    pub outcomes: Arc<Mutex<Outcomes>>,
    /// Open action forms and what is typed in them.
    pub forms: HashMap<(Scope, String), FormValues>,
    /// A destructive action waiting for the person's "yes", with its arguments.
    pub confirming: Option<(Scope, String, JsonObject)>,
    pub pages: Arc<Mutex<Pages>>,
}

impl Core {
    /// Runs `call` in the background; a failure is kept for `scope` (and
    /// `action`'s form), a success clears it and hands the value to `then`.
    pub(crate) fn start<T: Send + 'static>(
        &self,
        ctx: &egui::Context,
        scope: Scope,
        action: Option<String>,
        call: impl Future<Output = Result<T, ToolError>> + Send + 'static,
        then: impl FnOnce(T) + Send + 'static,
    ) {
        let outcomes = self.outcomes.clone();
        let repaint = ctx.clone();
        let (failed_scope, failed_action) = (scope.clone(), action.clone());
        let started = self.executor.spawn(async move {
            let outcome = call.await;
            let mut kept = lock(&outcomes);
            match outcome {
                Ok(value) => {
                    kept.failures.remove(&scope);
                    if let Some(action) = action {
                        kept.succeeded.push((scope, action));
                    }
                    drop(kept);
                    then(value);
                }
                Err(error) => {
                    kept.failures.insert(scope, Failure { action, error });
                }
            }
            repaint.request_repaint();
        });
        if let Err(why) = started {
            self.fail(failed_scope, failed_action, ToolError::new(ErrorCode::ActionFailed, why));
        }
    }

    /// Runs `call` in the background, always as the person at this screen
    /// (whatever the call was made as): its failure is kept for its window
    /// (the main panel for an app-level action) and its action's form; a
    /// success hands what it performed to `then`.
    pub(crate) fn run<R: Send + 'static>(
        &self,
        ctx: &egui::Context,
        call: Call<R>,
        then: impl FnOnce(Performed<R>) + Send + 'static,
    ) {
        let call = call.by_person();
        let scope = call.window_id().map(str::to_owned);
        let action = Some(call.action().to_owned());
        self.start(ctx, scope, action, call.into_future(), then);
    }

    /// The person's call of `action` with JSON arguments (the default
    /// buttons and forms, which know actions as the scene listed them), by
    /// the action's window and key: no tool name is written for the core
    /// to parse again.
    pub(crate) fn person_call(&self, action: &ActionDef, arguments: JsonObject) -> Call {
        action.info.call(&self.app, arguments).by_person()
    }

    /// [`Core::person_call`], run with nothing to do after.
    pub(crate) fn perform(&self, ctx: &egui::Context, action: &ActionDef, arguments: JsonObject) {
        self.run(ctx, self.person_call(action, arguments), drop);
    }

    /// Keeps a failure found before any call was made (a form's own checks).
    pub(crate) fn fail(&self, scope: Scope, action: Option<String>, error: ToolError) {
        lock(&self.outcomes).failures.insert(scope, Failure { action, error });
    }

    pub(crate) fn failure(&self, scope: &Scope) -> Option<Failure> {
        lock(&self.outcomes).failures.get(scope).cloned()
    }
}

/// One window as this frame draws it.
pub(crate) struct WindowView {
    pub state: WindowState,
    /// Its actions: the available ones, or, while it is blocked, the ones it
    /// had when last operable (drawn disabled).
    pub actions: Vec<ActionDef>,
    pub operable: bool,
    /// While it is not operable, the window operable in its place.
    pub blocked_by: Option<String>,
    /// Which action loads each paged table's pages: `(block id, action)`.
    pub paged_by: Vec<(String, String)>,
}

/// What a window's drawing code gets besides the [`egui::Ui`]: the window's
/// projection, and a way to start calls whose failures the window shows.
///
/// Handed to the closures given to [`Desk::draw`](crate::Desk::draw). Calls
/// started here run in the background; the window shows the last failure
/// (and, for `validation_failed`, each field's error) until a later call in
/// the same window succeeds.
///
/// ```
/// # use purview::prelude::*;
/// # #[window(summary = "Counts to {count}")]
/// # #[derive(Clone, Default)]
/// # struct Counter { #[block(field)] count: u32 }
/// # #[actions] impl Counter { /// Count one more.
/// #   #[action] fn increment(&mut self) { self.count += 1; } }
/// let desk = purview_egui::Desk::new(App::builder().build()).draw::<Counter>(|ui, counter, cx| {
///     let count = counter.read(|c| c.count).unwrap_or_default();
///     ui.heading(format!("{count} so far"));
///     if ui.button("One more").clicked() {
///         cx.run(counter.act().increment());
///     }
///     cx.action_bar(ui); // the default buttons for everything else
/// });
/// # drop(desk);
/// ```
pub struct WindowUi<'a> {
    pub(crate) core: &'a mut Core,
    pub(crate) view: &'a WindowView,
    pub(crate) ctx: egui::Context,
}

impl WindowUi<'_> {
    /// The window's id, as agents know it.
    pub fn id(&self) -> &str {
        &self.view.state.id
    }

    /// The application.
    pub fn app(&self) -> &App {
        &self.core.app
    }

    /// The window as agents read it now: title, summary, version and blocks.
    pub fn state(&self) -> &WindowState {
        &self.view.state
    }

    /// Whether the window may be operated now (no modal blocks it).
    pub fn is_operable(&self) -> bool {
        self.view.operable
    }

    /// Runs a [`purview::Call`] in the background — a typed call from
    /// `handle.act()` or `app.act::<A>()`, or `app.call(tool, arguments)` —
    /// always as the person at this screen
    /// ([`by_person`](purview::Call::by_person)): a click is never taken for
    /// an agent's call. A failure is shown in
    /// the call's window (the main panel for an app-level action), its
    /// per-field errors on that action's form, until a later call there
    /// succeeds. The only way a window's drawing code starts a call.
    ///
    /// ```
    /// # use purview::prelude::*;
    /// # #[window(summary = "Counts to {count}")]
    /// # #[derive(Clone, Default)]
    /// # struct Counter { #[block(field)] count: u32 }
    /// # #[actions] impl Counter { /// Count one more.
    /// #   #[action] fn increment(&mut self) { self.count += 1; } }
    /// let desk = purview_egui::Desk::new(App::builder().build()).draw::<Counter>(|ui, counter, cx| {
    ///     if ui.button("One more").clicked() {
    ///         cx.run(counter.act().increment());
    ///     }
    /// });
    /// # drop(desk);
    /// ```
    pub fn run<R: Send + 'static>(&mut self, call: Call<R>) {
        self.core.run(&self.ctx, call, drop);
    }

    /// Draws the window the default way: its blocks, then its action bar.
    /// For the windows a [`Desk::draw_kind`](crate::Desk::draw_kind)
    /// closure leaves alone.
    pub fn default_contents(&mut self, ui: &mut egui::Ui) {
        self.blocks(ui);
        ui.add_space(4.0);
        self.action_bar(ui);
    }

    /// The last failure of a call in this window, if the latest did not
    /// succeed.
    pub fn last_error(&self) -> Option<ToolError> {
        self.core.failure(&Some(self.view.state.id.clone())).map(|f| f.error)
    }

    /// What the last failure said about the argument `field`, if anything
    /// (`validation_failed`, §7.3).
    pub fn field_error(&self, field: &str) -> Option<String> {
        field_error(self.last_error().as_ref(), field)
    }
}

/// The error a failure gives for one argument.
pub(crate) fn field_error(error: Option<&ToolError>, field: &str) -> Option<String> {
    error?.fields.as_ref()?.iter().find(|f| f.field == field).map(|f| f.error.clone())
}

/// A failure found by the form itself, shaped as the runtime's would be.
pub(crate) fn form_problems(problems: Vec<FieldError>) -> ToolError {
    ToolError::validation(problems)
}

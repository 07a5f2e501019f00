//! Where the person's calls run: off the GUI thread, on the desk's
//! executor, their outcomes kept (outcomes.rs) where the GUI shows them
//! (per window, per action, per field). [`Core`] is also what every
//! window's drawing shares: the forms open, the confirmation asked, the
//! pages loaded.

use std::{
    future::{Future, IntoFuture},
    sync::{Arc, Mutex},
};

use purview::{App, Call, Performed, ToolError, model::ErrorCode, model::JsonObject};

use crate::{
    executor::Executor,
    held::{Confirming, Forms, Pages},
    lock::lock,
    outcomes::{Failure, Outcomes, Scope},
    schema::ActionDef,
};

/// The state every window's drawing shares: the app, where calls run, and
/// what the person has typed, opened or asked to confirm.
pub(crate) struct Core {
    pub app: App,
    pub executor: Executor,
    pub outcomes: Arc<Mutex<Outcomes>>,
    /// Open action forms and what is typed in them.
    pub forms: Forms,
    /// A destructive action waiting for the person's "yes".
    pub confirming: Option<Confirming>,
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

//! Where the person's intents go and their calls run: every click becomes
//! an intent for the person's model (`purview_person::Person::intend`),
//! and the call it asks for runs off the GUI thread, on the desk's
//! executor, its outcome handed back to the model. [`Core`] is what every
//! window's drawing shares: the app, the model of this frame and what the
//! person holds.

use std::{
    collections::HashMap,
    future::IntoFuture,
    sync::{Arc, Mutex},
};

use purview::{
    App, Call, ToolError, approval::Approval, approval::ApprovalQueue, model::ErrorCode,
};
use purview_person::{Effect, Intent, Model, Person, PersonCall};

use crate::{executor::Executor, lock::lock};

/// The state every window's drawing shares.
pub(crate) struct Core {
    pub app: App,
    pub executor: Executor,
    pub approvals: Option<ApprovalQueue>,
    /// What the person holds: open forms, the question asked, pages
    /// loaded, failures kept. Calls finishing off the GUI thread write it.
    pub person: Arc<Mutex<Person>>,
    /// The model this frame draws.
    pub model: Arc<Model>,
    /// What is typed into each table's "Go to row" field, by window and
    /// table: text being typed, which only the model gives a meaning.
    pub go_to: HashMap<(String, String), String>,
}

impl Core {
    /// Does what the person meant.
    pub(crate) fn intend(&mut self, ctx: &egui::Context, intent: Intent) {
        let effect = lock(&self.person).intend(&self.model, intent);
        match effect {
            Effect::Redraw => ctx.request_repaint(),
            Effect::Call(call) => self.make(ctx, call),
            Effect::Answer { id, approve } => {
                if let Some(queue) = &self.approvals {
                    queue.answer(id, if approve { Approval::Approve } else { Approval::Decline });
                }
            }
        }
    }

    /// Makes `call` as the person, in the background; its outcome goes
    /// back to the model.
    pub(crate) fn make(&self, ctx: &egui::Context, call: PersonCall) {
        let Some(action) = self.model.action(call.scope.as_deref(), &call.action) else { return };
        let made = action.info.call(&self.app, call.arguments.clone()).by_person();
        let (person, repaint) = (self.person.clone(), ctx.clone());
        self.spawn(call.clone(), async move {
            let outcome = made.await.map(|performed| performed.value);
            lock(&person).finished(&call, outcome);
            repaint.request_repaint();
        });
    }

    /// Runs `call` in the background, always as the person at this screen
    /// (whatever the call was made as): its failure is kept for its window
    /// (the main panel for an app-level action) and its action's form.
    pub(crate) fn run<R: Send + 'static>(&self, ctx: &egui::Context, call: Call<R>) {
        let call = call.by_person();
        let made = PersonCall {
            scope: call.window_id().map(str::to_owned),
            action: call.action().to_owned(),
            arguments: purview::model::JsonObject::new(),
            load: None,
        };
        let (person, repaint, future) = (self.person.clone(), ctx.clone(), call.into_future());
        self.spawn(made.clone(), async move {
            let outcome = future.await.map(|_| None);
            lock(&person).finished(&made, outcome);
            repaint.request_repaint();
        });
    }

    fn spawn(
        &self,
        call: PersonCall,
        work: impl std::future::Future<Output = ()> + Send + 'static,
    ) {
        if let Err(why) = self.executor.spawn(work) {
            let error = ToolError::new(ErrorCode::ActionFailed, why);
            lock(&self.person).finished(&call, Err(error));
        }
    }
}

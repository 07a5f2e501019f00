//! The scene as the page draws it: [`App::scene`] (each window's
//! projection as agents read it, so masked values are masks already), with
//! operability, blockers, forms from the input schemas, where the agent
//! works and the questions waiting for the person, as one JSON document.

use purview::{
    App,
    activity::{ActionInfo, ClientId, Scene, SceneWindow},
    approval::{ApprovalQueue, PendingApproval},
    serde_json::{Value, json},
};

use crate::form;

/// The JSON the page draws from, or why the app could not be read.
pub(crate) fn document(app: &App, approvals: Option<&ApprovalQueue>) -> Value {
    document_for(app, approvals, None)
}

/// The JSON a view draws from: with `asker`, only the questions that client
/// asked (a card shows its host's own calls waiting, never another
/// client's call and arguments); the person's page passes `None`.
pub(crate) fn document_for(
    app: &App,
    approvals: Option<&ApprovalQueue>,
    asker: Option<&ClientId>,
) -> Value {
    let scene: std::sync::Arc<Scene> = match app.scene() {
        Ok(scene) => scene,
        Err(error) => return json!({ "error": error.to_string() }),
    };
    let mut pending = approvals.map(ApprovalQueue::pending).unwrap_or_default();
    if let Some(asker) = asker {
        pending.retain(|p| p.request.client.as_ref() == Some(asker));
    }
    let activity = app.agent_activity();
    let agent_window = activity.as_ref().and_then(|a| a.window.clone());
    let open = |id: &str| scene.windows.iter().any(|w| w.state.id == id);
    let app_questions: Vec<Value> = pending
        .iter()
        .filter(|p| p.request.window_id.as_deref().is_none_or(|w| !open(w)))
        .map(question)
        .collect();
    let windows: Vec<Value> = scene
        .windows
        .iter()
        .map(|window| {
            let asking: Vec<Value> = pending
                .iter()
                .filter(|p| p.request.window_id.as_deref() == Some(&window.state.id))
                .map(question)
                .collect();
            let agent_here = agent_window.as_deref() == Some(window.state.id.as_str());
            window_json(&scene, window, agent_here, asking)
        })
        .collect();
    // The app-level modal: a modal window without an owner, operable while
    // every other window waits for it.
    let app_modal = scene
        .windows
        .iter()
        .find(|w| w.state.modal && w.state.owner_id.is_none() && w.operable)
        .map(|w| w.state.id.clone());
    json!({
        "name": app.name(),
        "answering": approvals.is_some(),
        "windows": windows,
        "appActions": scene.app_actions.as_deref().map(actions_json),
        "appModal": app_modal,
        "questions": app_questions,
        "agent": activity.map(|a| json!({"window": a.window, "action": a.action})),
    })
}

/// One window as the page draws it.
fn window_json(scene: &Scene, window: &SceneWindow, agent_here: bool, asking: Vec<Value>) -> Value {
    let state = &window.state;
    let blocker_title = window
        .blocked_by
        .as_deref()
        .and_then(|id| scene.windows.iter().find(|w| w.state.id == id))
        .map(|w| w.state.title.clone());
    let paged: purview::serde_json::Map<String, Value> = window
        .paged_by
        .iter()
        .map(|(block, action)| (block.clone(), Value::String(action.clone())))
        .collect();
    json!({
        "id": state.id,
        "title": state.title,
        "summary": state.summary,
        "version": state.version,
        "modal": state.modal,
        "ownerId": state.owner_id,
        "operable": window.operable,
        "blockedBy": window.blocked_by,
        "blockedByTitle": blocker_title,
        "blocks": state.blocks,
        "actions": actions_json(&window.actions),
        "paged": paged,
        "agentHere": agent_here,
        "asking": asking,
    })
}

fn actions_json(actions: &[ActionInfo]) -> Value {
    actions
        .iter()
        .map(|action| {
            let mut params = form::params(&action.input_schema);
            for param in &mut params {
                // The person picks the row: the sentence telling agents where
                // to look gives way to the page's own hint.
                let source = action.sources.iter().find(|s| s.argument == param.name);
                if let (Some(source), Some(said)) = (source, &param.description) {
                    let help = source.persons_help(said);
                    param.description = (!help.is_empty()).then(|| help.to_owned());
                }
            }
            let params: Vec<Value> = params.iter().map(form::Param::to_json).collect();
            // Arguments whose value is a cell of one of the window's tables:
            // the page lets the person pick the row.
            let sources: Vec<Value> = action
                .sources
                .iter()
                .map(|source| {
                    json!({
                        "argument": source.argument,
                        "table": source.table,
                        "tableTitle": purview::naming::humanize(&source.table),
                        "column": source.column,
                    })
                })
                .collect();
            json!({
                "name": action.name,
                "title": action.title,
                "description": action.description,
                "destructive": action.destructive,
                "params": params,
                "sources": sources,
            })
        })
        .collect()
}

/// A question for the person, in the words every prompt uses (secret
/// arguments masked): never the arguments themselves.
fn question(pending: &PendingApproval) -> Value {
    json!({"id": pending.id, "text": pending.request.describe()})
}

#[cfg(test)]
mod tests {
    use purview::prelude::*;

    use super::*;

    #[window(summary = "Signed in as {user}")]
    #[derive(Clone)]
    struct Login {
        #[block(field)]
        user: String,
        #[block(field, sensitive)]
        password: Secret<String>,
    }

    #[actions]
    impl Login {
        /// Sign in.
        #[action]
        fn sign_in(&mut self, user: String, password: Secret<String>) {
            self.user = user;
            self.password = password;
        }
    }

    #[tokio::test]
    async fn s4_5_a_masked_field_reaches_the_page_only_as_its_mask() {
        let app = App::builder().build();
        let login =
            app.open(Login { user: String::new(), password: Secret::new(String::new()) }).unwrap();
        let arguments = json!({"user": "ada", "password": "hunter2-secret"});
        let call = app.scene().unwrap().windows[0].actions[0]
            .call(&app, arguments.as_object().cloned().unwrap())
            .by_person();
        call.await.unwrap();
        assert_eq!(login.read(|l| l.password.expose().clone()).unwrap(), "hunter2-secret");
        let page = document(&app, None).to_string();
        assert!(!page.contains("hunter2-secret"), "{page}");
        assert!(page.contains(purview::model::MASK), "{page}");
        assert!(page.contains("Signed in as ada"), "{page}");
        assert!(page.contains(r#""kind":"secret""#), "{page}");
    }
}

//! The scene as the page draws it: the model of the person's side
//! (`purview_person`), made once per change from [`App::scene`] (each
//! window's projection as agents read it, so masked values are masks
//! already), as one JSON document with the words the page's buttons say.
//! The page reads no schema and decides nothing: it draws this.

use purview::{
    App,
    activity::ClientId,
    approval::ApprovalQueue,
    serde_json::{self, Value, json},
};
use purview_person::{Around, Model, Reader, words};

/// The model of what the person sees now, or why the app could not be read.
pub(crate) fn model(
    app: &App,
    approvals: Option<&ApprovalQueue>,
    reader: &mut Reader,
) -> Result<Model, String> {
    let scene = app.scene().map_err(|error| error.to_string())?;
    let pending = approvals.map(ApprovalQueue::pending).unwrap_or_default();
    let activity = app.agent_activity();
    let around = Around { pending: &pending, activity: activity.as_ref() };
    Ok(reader.read(&scene, around))
}

/// The JSON the page draws from (`model`, with the app's `name`, whether
/// the person answers here, and the page's words), or why the app could
/// not be read.
pub(crate) fn document(model: &Result<Model, String>, name: &str, answering: bool) -> Value {
    let model = match model {
        Ok(model) => model,
        Err(error) => return json!({ "error": error }),
    };
    let mut document = serde_json::to_value(model).unwrap_or_default();
    if let Some(object) = document.as_object_mut() {
        object.insert("name".into(), name.into());
        object.insert("answering".into(), answering.into());
        object.insert("words".into(), page_words());
    }
    document
}

/// `document` (the page's, made once per change) with every approval
/// question left out: what the card shows every client alike.
pub(crate) fn without_questions(document: &Value) -> Value {
    let mut shared = document.clone();
    if let Some(questions) = shared.get_mut("questions") {
        *questions = Value::Array(Vec::new());
    }
    for window in shared.get_mut("windows").and_then(Value::as_array_mut).into_iter().flatten() {
        if let Some(questions) = window.get_mut("questions") {
            *questions = Value::Array(Vec::new());
        }
    }
    shared
}

/// The questions of `document` that `asker`'s own calls wait on: the
/// app's (`questions`) and each window's, in the order of the document's
/// windows (`windowQuestions`: an index, never a window's id, so no id
/// can name something the card's script already has), so a card never
/// shows another client's call and its arguments.
pub(crate) fn questions_for(
    document: &Value,
    approvals: Option<&ApprovalQueue>,
    asker: &ClientId,
) -> (Value, Value) {
    let own: Vec<u64> = approvals
        .map(ApprovalQueue::pending)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.request.client.as_ref() == Some(asker))
        .map(|p| p.id)
        .collect();
    let keep_own = |questions: Option<&Value>| -> Vec<Value> {
        questions
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|q| q.get("id").and_then(Value::as_u64).is_some_and(|id| own.contains(&id)))
            .cloned()
            .collect()
    };
    let app = keep_own(document.get("questions"));
    let windows = document.get("windows").and_then(Value::as_array).into_iter().flatten();
    let windows = windows.map(|window| Value::Array(keep_own(window.get("questions"))));
    (Value::Array(app), Value::Array(windows.collect()))
}

/// The page's words (`page_words`) as JSON text, written once.
pub(crate) fn words_text() -> &'static str {
    static TEXT: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| page_words().to_string());
    &TEXT
}

/// The words the page's own controls say, from the one file that words
/// them; `{action}` is filled in by the page where a sentence names the
/// form it closes. What a table's and a form's controls say for the
/// person's own state comes with the window drawn for that page.
fn page_words() -> Value {
    json!({
        "cancel": words::CANCEL,
        "approve": words::APPROVE,
        "decline": words::DECLINE,
        "choosePlaceholder": words::CHOOSE_PLACEHOLDER,
        "details": words::DETAILS,
        "firstRows": words::FIRST_ROWS,
        "previousRows": words::PREVIOUS_ROWS,
        "nextRows": words::NEXT_ROWS,
        "lastRows": words::LAST_ROWS,
        "goToRow": words::GO_TO_ROW,
        "go": words::GO,
        "unreachable": words::UNREACHABLE,
        "closeForm": words::close_form("{action}"),
        "answerElsewhere": words::ANSWER_ELSEWHERE,
        "working": words::WORKING,
        "regions": words::REGIONS,
    })
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
        let model = model(&app, None, &mut Reader::default());
        let page = document(&model, app.name(), false).to_string();
        assert!(!page.contains("hunter2-secret"), "{page}");
        assert!(page.contains(purview::model::MASK), "{page}");
        assert!(page.contains("Signed in as ada"), "{page}");
        assert!(page.contains(r#""kind":"secret""#), "{page}");
    }
}

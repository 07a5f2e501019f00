//! The person's intents, as a page reports them (`POST {prefix}/intent`):
//! each goes through the page's [`purview_person::Person::intend`], and
//! what it asks for is done here: the page drawn again, a call made as
//! the person (its outcome handed back), or an approval answered.

use std::sync::Arc;

use axum::{
    body::Bytes,
    extract::State,
    http::{HeaderMap, Method, StatusCode},
    response::Response,
};
use purview::{
    approval::Approval,
    model::{ErrorCode, ToolError},
    serde_json::json,
};
use purview_person::{Effect, Intent, PersonCall};

use crate::{
    Inner, Made,
    access::{self, refused},
    calls_lock,
    page::{self, Handle, Own},
    routes::{body_object, json_answer},
};

/// `POST {prefix}/intent`: `{"kind": …}` as [`page::intent`] reads it,
/// for the page named in the `x-purview-page` header. Answered once what
/// it asked for is done (a call made, or refused), with `{"done": true}`
/// (and, for an answer to an approval question, whether it was the one
/// that answered it: `"answered"`); what the page draws then comes on its
/// stream.
pub(crate) async fn intent(
    State(inner): State<Arc<Inner>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = match access::check(&inner.access, &method, &headers) {
        Ok(session) => session,
        Err(why) => return refused(why),
    };
    let Some(intent) = body_object(&body).as_ref().and_then(page::intent) else {
        let error = ToolError::new(ErrorCode::ActionFailed, "The page's request was not understood.");
        return json_answer(StatusCode::BAD_REQUEST, &json!({ "error": error }));
    };
    let handle = inner.page(&session, &headers);
    let made = inner.kept();
    let answered = match intend(&made, &handle, intent) {
        Effect::Redraw => None,
        Effect::Call(call) => {
            // Made to its end even if the page goes away meanwhile.
            let _ = make(&inner, &handle, &made, call).await;
            None
        }
        Effect::Answer { id, approve } => Some(inner.approvals.as_ref().is_some_and(|queue| {
            queue.answer(id, if approve { Approval::Approve } else { Approval::Decline })
        })),
    };
    json_answer(StatusCode::OK, &json!({ "done": true, "answered": answered }))
}

/// `intent` through the page's person, against `made`'s model: what it
/// does. The page is woken to draw again, except for what the person
/// typed, which it shows already.
pub(crate) fn intend(made: &Made, handle: &Handle, intent: Intent) -> Effect {
    let Ok(model) = made.model() else { return Effect::Redraw };
    if page::held_back(model, &intent) {
        return Effect::Redraw;
    }
    let mut page = calls_lock(&handle.page);
    let typed = match &intent {
        Intent::Type { scope, .. } => Some(scope.clone()),
        _ => None,
    };
    let before = typed.as_ref().map(|_| Own::of(Some(model), &page.person));
    let effect = page.person.intend(model, intent);
    match (typed, before) {
        (Some(scope), Some(before)) => {
            let after = Own::of(Some(model), &page.person);
            page.typed(scope.as_deref(), &before, &after);
        }
        _ => handle.wake(),
    }
    effect
}

/// Makes `call` as the person, against `made`'s model, and hands its
/// outcome to the page's person: on a task of its own, so a page that
/// goes away never cuts a call short.
pub(crate) fn make(
    inner: &Arc<Inner>,
    handle: &Arc<Handle>,
    made: &Arc<Made>,
    call: PersonCall,
) -> tokio::task::JoinHandle<()> {
    let made_call = made
        .model()
        .map_err(|why| ToolError::new(ErrorCode::ActionFailed, why))
        .and_then(|model| page::action_of(model, &call))
        .map(|action| action.info.call(&inner.app, call.arguments.clone()).by_person());
    let handle = handle.clone();
    tokio::spawn(async move {
        let outcome = match made_call {
            Ok(running) => running.await.map(|performed| performed.value),
            Err(error) => Err(error),
        };
        handle.finished(&call, outcome);
    })
}

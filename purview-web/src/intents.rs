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
    serde_json::{Value, json},
};
use purview_person::{Effect, Intent, PersonCall};

use crate::{
    Inner, Made,
    access::{self, body_object, json_answer, refused},
    calls_lock,
    page::{self, Handle},
};

/// `POST {prefix}/intent`: `{"kind": …}` as [`page::intent`] reads it,
/// for the page named in the `x-purview-page` header, numbered by the page
/// (`seq`, rising) so one sent again is taken once. Answered once what
/// it asked for is done (a call made, or refused), with `{"done": true}`,
/// whether the call it asked for succeeded (`"ok"`, `null` for none) and,
/// for an answer to an approval question, whether it was the one that
/// answered it (`"answered"`); what the page draws then comes on its
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
    let request = body_object(&body);
    let Some(intent) = request.as_ref().and_then(page::intent) else {
        let error =
            ToolError::new(ErrorCode::ActionFailed, "The page's request was not understood.");
        return json_answer(StatusCode::BAD_REQUEST, &json!({ "error": error }));
    };
    let handle = inner.page(&session, &headers);
    // An intent the page numbered and sent again, its first answer cut on
    // the way back, was taken already.
    let number = request.as_ref().and_then(|r| r.get("seq")).and_then(Value::as_u64);
    if let Some(number) = number {
        let mut page = calls_lock(&handle.page);
        if number <= page.taken {
            return json_answer(StatusCode::OK, &json!({ "done": true, "repeated": true }));
        }
        page.taken = number;
    }
    let made = inner.kept();
    let (ok, answered) = match intend(&made, &handle, intent) {
        Effect::Redraw => (None, None),
        // Made to its end even if the page goes away meanwhile.
        Effect::Call(call) => {
            (Some(make(&inner, &handle, &made, call).await.unwrap_or(false)), None)
        }
        Effect::Answer { id, approve } => (
            None,
            Some(inner.approvals.as_ref().is_some_and(|queue| {
                queue.answer(id, if approve { Approval::Approve } else { Approval::Decline })
            })),
        ),
    };
    json_answer(StatusCode::OK, &json!({ "done": true, "ok": ok, "answered": answered }))
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
    // Typing redraws its own scope, and only to note it is shown already.
    let before = typed.as_ref().map(|scope| page::own_scope(model, &page.person, scope.as_deref()));
    let effect = page.person.intend(model, intent);
    match (typed, before) {
        (Some(scope), Some(before)) => {
            let after = page::own_scope(model, &page.person, scope.as_deref());
            page.typed(scope.as_deref(), before.as_ref(), after.as_ref());
        }
        _ => handle.wake(),
    }
    effect
}

/// Makes `call` as the person, against `made`'s model, and hands its
/// outcome to the page's person: on a task of its own, so a page that
/// goes away never cuts a call short. The task ends with whether the call
/// succeeded.
pub(crate) fn make(
    inner: &Arc<Inner>,
    handle: &Arc<Handle>,
    made: &Arc<Made>,
    call: PersonCall,
) -> tokio::task::JoinHandle<bool> {
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
        let ok = outcome.is_ok();
        handle.finished(&call, outcome);
        ok
    })
}

#[cfg(test)]
mod tests {
    use purview::{prelude::*, serde_json::Value};

    use super::*;

    #[window(summary = "Counts to {count}")]
    #[derive(Clone, Default)]
    struct Till {
        #[block(field)]
        count: u32,
    }

    #[actions]
    impl Till {
        /// Count from here.
        #[action]
        fn set(&mut self, #[arg(range(max = 99))] count: u32) {
            self.count = count;
        }
        /// Open the till.
        #[action]
        fn unlock(&mut self, pin: Secret<String>) {
            let _ = pin;
        }
    }

    fn intent(value: Value) -> Intent {
        page::intent(value.as_object().unwrap()).expect("an intent")
    }

    /// What a stream of `handle`'s page is sent now, and notes it sent.
    fn event(made: &Made, handle: &Handle) -> Option<String> {
        let mut page = calls_lock(&handle.page);
        let own = page::own(made.model().ok(), &page.person);
        let (text, sent) = made.cut().event(page.sent.as_ref(), "{}", own)?;
        page.sent = Some(sent);
        Some(text)
    }

    #[test]
    fn s7_what_the_person_holds_open_is_their_pages_own_and_their_typing_redraws_nothing() {
        let app = App::builder().build();
        let till = app.open(Till::default()).unwrap().id().to_owned();
        let face = crate::Face::new(app);
        let made = face.inner.kept();
        let (mine, other) = (face.inner.pages.get("a".into()), face.inner.pages.get("b".into()));
        let (_, _) = (event(&made, &mine), event(&made, &other));

        let press = json!({"kind": "press", "window": till, "action": "set"});
        assert_eq!(intend(&made, &mine, intent(press)), Effect::Redraw);
        let opened = event(&made, &mine).expect("the form opened");
        assert!(opened.contains(r#""open":true"#), "{opened}");
        assert!(event(&made, &other).is_none(), "another page saw this one's form");

        let typed = json!({"kind": "type", "window": till, "action": "set", "field": "count", "text": "abc"});
        assert_eq!(intend(&made, &mine, intent(typed)), Effect::Redraw);
        assert!(event(&made, &mine).is_none(), "the page's own typing was sent back to it");

        let submit = json!({"kind": "submit", "window": till, "action": "set"});
        assert_eq!(intend(&made, &mine, intent(submit)), Effect::Redraw, "refused before any call");
        let refused = event(&made, &mine).expect("the refusal is drawn");
        assert!(
            refused.contains(r#""value":"abc""#) && refused.contains(r#""problem":"Count: "#),
            "{refused}"
        );

        let cancel = json!({"kind": "cancel", "window": till, "action": "set"});
        intend(&made, &mine, intent(cancel));
        let closed = event(&made, &mine).expect("the form closed");
        assert!(!closed.contains(r#""open":true"#) && !closed.contains("problem"), "{closed}");
    }

    #[test]
    fn s4_5_a_typed_secret_goes_to_the_call_and_is_never_sent_back_to_the_page() {
        let app = App::builder().build();
        let till = app.open(Till::default()).unwrap().id().to_owned();
        let face = crate::Face::new(app);
        let made = face.inner.kept();
        let mine = face.inner.pages.get("a".into());
        intend(&made, &mine, intent(json!({"kind": "press", "window": till, "action": "unlock"})));
        let typed = json!({"kind": "type", "window": till, "action": "unlock", "field": "pin", "text": "hunter2-pin"});
        intend(&made, &mine, intent(typed));
        let drawn = event(&made, &mine).expect("the open form");
        assert!(drawn.contains(r#""open":true"#) && !drawn.contains("hunter2-pin"), "{drawn}");
        let submit = json!({"kind": "submit", "window": till, "action": "unlock"});
        let Effect::Call(call) = intend(&made, &mine, intent(submit)) else { panic!("a call") };
        assert_eq!(call.arguments["pin"], "hunter2-pin", "the secret reaches the call");
        let after = page::own(made.model().ok(), &calls_lock(&mine.page).person);
        assert!(!after.windows.values().any(|t| t.contains("hunter2-pin")), "kept after the call");
    }

    #[window(title = "Kennel", summary = "{count} dogs")]
    #[derive(Clone)]
    struct Kennel {
        count: usize,
        #[block(table, limit = 5, load = load_rows, columns = ["Dog", "Name"])]
        dogs: Vec<(u32, String)>,
    }

    #[actions]
    impl Kennel {
        /// Fetch a range of dogs.
        #[action(read_only, idempotent)]
        fn load_rows(
            &self,
            offset: usize,
            limit: usize,
        ) -> purview::projection::Page<(u32, String)> {
            purview::projection::Page::slice(&self.dogs, offset, limit)
        }
    }

    #[tokio::test]
    async fn s9_a_page_of_rows_chosen_is_loaded_again_after_a_change() {
        let app = App::builder().build();
        let dogs = (1..=30).map(|i| (i, format!("Dog {i}"))).collect();
        let kennel = app.open(Kennel { count: 30, dogs }).unwrap();
        let face = crate::Face::new(app);
        let made = face.inner.kept();
        let mine = face.inner.pages.get("a".into());
        let last = json!({"kind": "page", "window": kennel.id(), "table": "dogs", "offset": 25});
        let Effect::Call(call) = intend(&made, &mine, intent(last)) else { panic!("a load") };
        assert!(make(&face.inner, &mine, &made, call).await.unwrap(), "the load failed");
        let shown = page::own(made.model().ok(), &calls_lock(&mine.page).person);
        assert!(shown.windows[kennel.id()].contains("Dog 30"), "{:?}", shown.windows);
        // A change the window shows (its summary), and a row on the page.
        kennel
            .update(|k| {
                k.dogs[27].1 = "Renamed".into();
                k.count = 31;
            })
            .unwrap();
        let made = face.inner.kept();
        let again = calls_lock(&mine.page).person.settle(made.model().unwrap());
        assert_eq!(again.len(), 1, "the page is not loaded again");
        let call = again.into_iter().next().unwrap();
        assert!(make(&face.inner, &mine, &made, call).await.unwrap(), "the load failed");
        let shown = page::own(made.model().ok(), &calls_lock(&mine.page).person);
        assert!(shown.windows[kennel.id()].contains("Renamed"), "{:?}", shown.windows);
    }

    #[test]
    fn s7_2_only_a_field_the_form_has_is_kept_and_only_up_to_its_size() {
        let app = App::builder().build();
        let till = app.open(Till::default()).unwrap().id().to_owned();
        let face = crate::Face::new(app);
        let made = face.inner.kept();
        let mine = face.inner.pages.get("a".into());
        intend(&made, &mine, intent(json!({"kind": "press", "window": till, "action": "set"})));
        let typed = |field: &str, text: String| json!({"kind": "type", "window": till, "action": "set", "field": field, "text": text});
        intend(&made, &mine, intent(typed("count", "7".into())));
        intend(&made, &mine, intent(typed("elsewhere", "kept?".into())));
        intend(&made, &mine, intent(typed("count", "9".repeat(purview_person::MAX_TYPED + 1))));
        let page = calls_lock(&mine.page);
        let form = page.person.form(&Some(till.clone()), "set").expect("open");
        assert_eq!(form.len(), 1, "{form:?}");
        assert_eq!(form["count"], "7", "an oversized text replaced the field");
    }

    #[test]
    fn s7_2_an_intent_in_a_window_a_modal_blocks_changes_nothing_and_a_page_refuses_nonsense() {
        assert!(page::intent(json!({"kind": "press"}).as_object().unwrap()).is_none());
        assert!(page::intent(json!({"kind": "explode"}).as_object().unwrap()).is_none());
        assert!(
            page::intent(
                json!({"kind": "press", "window": 5, "action": "set"}).as_object().unwrap()
            )
            .is_none()
        );
        let app = App::builder().build();
        let till = app.open(Till::default()).unwrap();
        till.open_modal(Till::default()).unwrap();
        let face = crate::Face::new(app);
        let made = face.inner.kept();
        let mine = face.inner.pages.get("a".into());
        let press = json!({"kind": "press", "window": till.id(), "action": "set"});
        intend(&made, &mine, intent(press));
        assert!(!calls_lock(&mine.page).person.holds(&Some(till.id().to_owned())));
    }
}

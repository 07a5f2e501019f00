//! One page of the person's: a browser tab of the face, or one card in a
//! host. What the person holds open in it (forms and their text, the
//! question a destructive action asks, failures, pages of rows) is a
//! [`Person`] kept here, on the server, and every intent the page reports
//! goes through [`Person::intend`]: the page's script only draws and
//! reports. A window the person holds nothing in is drawn as everyone
//! sees it (its text shared, written once per change); one they hold
//! something in is drawn for this page alone ([`Own`]).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use purview::{
    model::{ErrorCode, JsonObject, ToolError},
    serde_json::{self, Value, json},
};
use purview_person::{Action, Intent, Model, Person, PersonCall, Scope, Shown, Window};
use tokio::sync::watch;

use crate::{
    calls_lock,
    cut::{Own, Sent},
};

/// Pages kept at once for one of the person's sessions (its tabs), or for
/// one client's cards; past it, the one used longest ago that nothing is
/// drawing goes first. A page whose stream is open is never dropped.
///
/// ```
/// assert_eq!(purview_web::MAX_PAGES, 8);
/// ```
pub const MAX_PAGES: usize = 8;

/// Pages kept at once for one face, every session's and client's together.
const MAX_ALL_PAGES: usize = 256;

/// One page's person, and what it was last sent.
#[derive(Default)]
pub(crate) struct Page {
    pub person: Person,
    /// What the face's stream for this page sent last.
    pub sent: Option<Sent>,
    /// The number of the page's stream: a page has one, and a newer one
    /// (the same page drawn anew) ends the one before.
    pub stream: u64,
    /// The number of the last intent the page sent that was taken: one
    /// sent again (its connection cut before the answer) is not taken twice.
    pub taken: u64,
    /// The call the card's last intent asked for, not yet made.
    pub making: Option<PersonCall>,
    /// The call the card is making as its client's own, by the card's
    /// number for it; its outcome comes back through the card.
    pub in_flight: Option<(u64, PersonCall)>,
    /// Pages of rows to load again after a change (a card loads them).
    pub again: Vec<PersonCall>,
    /// For a card: by window id (or [`APP`]), the text it was last given
    /// and the text it shows now (what the person typed since included).
    pub card: HashMap<String, (Arc<str>, Arc<str>)>,
}

/// The key of the app's own actions among a card's texts (no window id
/// is empty).
pub(crate) const APP: &str = "";

impl Page {
    /// Notes that the page shows `scope` drawn as `after`, since the
    /// person typed there, if it showed it as `before` ([`own_scope`]):
    /// nothing else changed there, so it need not be drawn again (the
    /// field being typed into keeps its node).
    pub fn typed(
        &mut self,
        scope: Option<&str>,
        before: Option<&Arc<str>>,
        after: Option<&Arc<str>>,
    ) {
        let (Some(was), Some(now)) = (before, after) else { return };
        if let Some(sent) = self.sent.as_mut() {
            sent.shown(scope, was, now);
        }
        if let Some(card) = self.card.get_mut(scope.unwrap_or(APP))
            && card.1 == *was
        {
            card.1 = now.clone();
        }
    }

    /// The text a card is given for `key` (a window's id, or [`APP`]) whose
    /// person's drawing is `now`: the text it has when that is what it
    /// shows, so it keeps what it drew.
    pub fn for_card(&mut self, key: &str, now: &Arc<str>) -> Arc<str> {
        match self.card.get(key) {
            Some((given, shown)) if shown == now => given.clone(),
            _ => {
                self.card.insert(key.to_owned(), (now.clone(), now.clone()));
                now.clone()
            }
        }
    }
}

/// A page, shared by its stream and its intents.
pub(crate) struct Handle {
    pub page: Mutex<Page>,
    /// Bumped when the person's own state changed: the stream draws again.
    pub woken: watch::Sender<u64>,
}

impl Handle {
    /// Wakes the page's stream.
    pub fn wake(&self) {
        self.woken.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Hands a call's outcome to the page's person, and wakes the stream.
    pub fn finished(&self, call: &PersonCall, outcome: Result<Option<Value>, ToolError>) {
        calls_lock(&self.page).person.finished(call, outcome);
        self.wake();
    }
}

/// Every page kept, by key: the face's session number and the page's own
/// name, or the card's client and its name.
#[derive(Default)]
pub(crate) struct Pages {
    kept: Mutex<Vec<(String, Arc<Handle>)>>,
}

impl Pages {
    /// The page `name`d by its page (letters and digits, at most 64 are
    /// kept) of `owner` (a person's session, or a client's cards).
    pub fn of(&self, owner: &str, name: &str) -> Arc<Handle> {
        let name: String = name.chars().filter(char::is_ascii_alphanumeric).take(64).collect();
        self.get(format!("{owner}:{name}"))
    }

    /// The page named `key` (its owner, then `:` and its name), made if
    /// new. Past [`MAX_PAGES`] for its owner, or [`MAX_ALL_PAGES`] in all,
    /// the one used longest ago that nothing holds (no stream, no intent
    /// under way, no card's call out) is dropped.
    pub fn get(&self, key: String) -> Arc<Handle> {
        let mut kept = calls_lock(&self.kept);
        if let Some(at) = kept.iter().position(|(k, _)| *k == key) {
            let found = kept.remove(at);
            let handle = found.1.clone();
            kept.push(found);
            return handle;
        }
        // The name after the last `:` is letters and digits only; an owner
        // (a client's address or name) may hold colons of its own.
        let owner = |k: &str| k.rsplit_once(':').map_or(k, |(owner, _)| owner).to_owned();
        let mine = owner(&key);
        // Held by a stream or an intent under way, or with a card's call
        // out: never dropped.
        let free = |(_, h): &(String, Arc<Handle>)| {
            Arc::strong_count(h) == 1 && h.page.try_lock().is_ok_and(|p| p.in_flight.is_none())
        };
        if kept.iter().filter(|(k, _)| owner(k) == mine).count() >= MAX_PAGES
            && let Some(at) = kept.iter().position(|p| owner(&p.0) == mine && free(p))
        {
            kept.remove(at);
        }
        if kept.len() >= MAX_ALL_PAGES
            && let Some(at) = kept.iter().position(free)
        {
            kept.remove(at);
        }
        let (woken, _) = watch::channel(0);
        let handle = Arc::new(Handle { page: Mutex::new(Page::default()), woken });
        kept.push((key, handle.clone()));
        handle
    }
}

/// What `person` holds in `model`, drawn: each window they hold something
/// in, as they see it, and the app's own actions as they have them.
pub(crate) fn own(model: Option<&Model>, person: &Person) -> Own {
    let Some(model) = model else { return Own::default() };
    let windows = model
        .windows
        .iter()
        .filter(|w| person.holds(&Some(w.id.clone())))
        .map(|w| (w.id.clone(), Arc::from(held_window(model, person, w).to_string())))
        .collect();
    let app = own_scope(model, person, None).unwrap_or_else(|| "null".into());
    Own { windows, app }
}

/// One scope of [`own`]: the window `scope` as `person` sees it when they
/// hold anything in it, or (`None`) the app's own actions as they have
/// them. What typing in one field redraws, and nothing else (it finds its
/// window by id; [`own`] walks the windows instead).
pub(crate) fn own_scope(model: &Model, person: &Person, scope: Option<&str>) -> Option<Arc<str>> {
    let drawn = match scope {
        None => held_scope(model, person, &None, &model.app_actions),
        Some(id) => {
            let window = model.window(id).filter(|_| person.holds(&Some(id.to_owned())))?;
            held_window(model, person, window)
        }
    };
    Some(drawn.to_string().into())
}

/// A scope's actions with the person's open forms (what is typed, never
/// a secret; each field's problem), the failure kept there and the
/// question waiting.
fn held_scope(model: &Model, person: &Person, scope: &Scope, actions: &[Action]) -> Value {
    let actions: Vec<Value> = actions
        .iter()
        .map(|action| {
            let mut drawn = serde_json::to_value(action).unwrap_or_default();
            let Some(typed) = person.form(scope, &action.name) else { return drawn };
            let fields = action.fields.iter().map(|field| {
                let mut f = serde_json::to_value(field).unwrap_or_default();
                if !field.is_secret() {
                    f["value"] = typed.get(&field.name).cloned().unwrap_or_default().into();
                }
                f["problem"] = person.field_problem(scope, action, &field.name).into();
                f
            });
            drawn["fields"] = Value::Array(fields.collect());
            drawn["open"] = true.into();
            drawn
        })
        .collect();
    json!({
        "actions": actions,
        "failure": person.failure_said(scope, model),
        "confirm": person.confirmation(scope),
    })
}

/// `window` as `person` sees it: its forms, failure and question, and
/// each table's rows as chosen, with their paging and who picks from them.
fn held_window(model: &Model, person: &Person, window: &Window) -> Value {
    let scope = Some(window.id.clone());
    let mut drawn = serde_json::to_value(window).unwrap_or_default();
    let held = held_scope(model, person, &scope, &window.actions);
    if let (Some(drawn), Value::Object(held)) = (drawn.as_object_mut(), held) {
        drawn.extend(held);
    }
    for (at, block) in window.blocks.iter().enumerate() {
        let Shown::Table(table) = block else { continue };
        let rows = person.rows(window, table);
        let pickers: Vec<Value> = rows
            .pickers
            .iter()
            .map(|p| {
                let buttons = rows.rows.iter().map(|row| {
                    let (text, chosen, name) =
                        p.button(row.get(p.column).map_or("", String::as_str));
                    json!([text, chosen, name])
                });
                json!({ "note": p.note, "buttons": buttons.collect::<Vec<_>>() })
            })
            .collect();
        let shown = &mut drawn["blocks"][at];
        shown["rows"] = json!(rows.rows);
        shown["paging"] = json!(rows.paging);
        shown["pickers"] = Value::Array(pickers);
        shown["refused"] = json!(rows.refused);
    }
    drawn
}

/// An intent as a page reports it: `{"kind": "press", "window": …,
/// "action": …}` and the like (kinds `press`, `type`, `choose`, `page`,
/// `goTo`, `submit`, `confirm`, `refuse`, `cancel`, `approve`,
/// `decline`), or `None` when it says no intent.
pub(crate) fn intent(request: &JsonObject) -> Option<Intent> {
    let text = |key: &str| request.get(key).and_then(Value::as_str).map(str::to_owned);
    let number =
        |key: &str| request.get(key).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
    let scope = || match request.get("window") {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(id)) => Some(Some(id.clone())),
        Some(_) => None,
    };
    let kind = request.get("kind").and_then(Value::as_str)?;
    Some(match kind {
        "press" => Intent::Press { scope: scope()?, action: text("action")? },
        "type" => Intent::Type {
            scope: scope()?,
            action: text("action")?,
            field: text("field")?,
            text: match request.get("text")? {
                Value::Bool(on) => on.to_string(),
                Value::String(text) => text.clone(),
                _ => return None,
            },
        },
        "choose" => Intent::ChooseRow {
            window: text("window")?,
            table: text("table")?,
            row: number("row")?,
            picker: number("picker")?,
        },
        "page" => Intent::Page {
            window: text("window")?,
            table: text("table")?,
            offset: number("offset")?,
        },
        "goTo" => {
            Intent::GoToRow { window: text("window")?, table: text("table")?, typed: text("text")? }
        }
        "submit" => Intent::Submit { scope: scope()?, action: text("action")? },
        "confirm" => Intent::Confirm,
        "refuse" => Intent::Refuse,
        "cancel" => Intent::Cancel { scope: scope()?, action: text("action")? },
        "approve" => Intent::Approve(request.get("id")?.as_u64()?),
        "decline" => Intent::Decline(request.get("id")?.as_u64()?),
        _ => return None,
    })
}

/// Whether `intent` acts where the person may not act now (a window a
/// modal blocks, or the app's own actions under an app-level modal): it
/// then changes nothing, for the page draws what can be done. Closing a
/// form, refusing and answering are never held back.
pub(crate) fn held_back(model: &Model, intent: &Intent) -> bool {
    let scope = match intent {
        Intent::Press { scope, .. } | Intent::Type { scope, .. } | Intent::Submit { scope, .. } => {
            scope.as_deref()
        }
        Intent::ChooseRow { window, .. }
        | Intent::Page { window, .. }
        | Intent::GoToRow { window, .. } => Some(window.as_str()),
        Intent::Confirm
        | Intent::Refuse
        | Intent::Cancel { .. }
        | Intent::Approve(_)
        | Intent::Decline(_) => return false,
    };
    !may_act(model, scope)
}

/// Whether the person may act in `scope` now: an operable window, or the
/// app's own actions while no app-level modal holds them. An intent
/// elsewhere changes nothing (the page draws what can be done).
pub(crate) fn may_act(model: &Model, scope: Option<&str>) -> bool {
    match scope {
        Some(id) => model.window(id).is_some_and(|w| w.operable),
        None => model.app_actions_enabled,
    }
}

/// The action a call names, made by the person, or why not.
pub(crate) fn action_of<'a>(model: &'a Model, call: &PersonCall) -> Result<&'a Action, ToolError> {
    model
        .action(call.scope.as_deref(), &call.action)
        .filter(|_| may_act(model, call.scope.as_deref()))
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::ActionNotAvailable,
                "That action is not available now; the page shows what can be done.",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s10_1_a_page_something_holds_is_never_dropped_and_one_owner_never_drops_anothers() {
        let pages = Pages::default();
        // Held, as a stream holds its page.
        let held = pages.get("person-1:tab".into());
        let idle = Arc::downgrade(&pages.get("card-a:one".into()));
        for i in 0..MAX_PAGES * 3 {
            pages.get(format!("person-1:other{i}"));
            pages.get(format!("card-b:card{i}"));
        }
        assert!(Arc::ptr_eq(&held, &pages.get("person-1:tab".into())), "a held page was dropped");
        assert!(idle.upgrade().is_some(), "another owner's pages dropped this one's");
        let kept = calls_lock(&pages.kept);
        let of = |owner: &str| kept.iter().filter(|(k, _)| k.starts_with(owner)).count();
        assert!(of("person-1:") <= MAX_PAGES + 1 && of("card-b:") == MAX_PAGES, "{}", kept.len());
    }

    #[test]
    fn s10_1_a_clients_address_with_colons_is_one_owner_and_not_anothers() {
        let pages = Pages::default();
        let mine = Arc::downgrade(&pages.get("card-2001:db8::1:first".into()));
        // Another client whose address shares the first part of this one's.
        for i in 0..MAX_PAGES * 2 {
            pages.get(format!("card-2001:db8::2:card{i}"));
        }
        assert!(mine.upgrade().is_some(), "another address's cards dropped this one's");
        for i in 0..MAX_PAGES {
            pages.get(format!("card-2001:db8::1:card{i}"));
        }
        assert!(mine.upgrade().is_none(), "its own cards past the limit kept the oldest");
    }
}

//! What the live page is sent at each change: the model cut into its top
//! (everything but the windows and the page's words), the windows' ids in
//! their order, and each window's own JSON text with the change it last
//! differed at. A change is cut once, however many streams are open; a
//! window the model shares unchanged (the same `Arc`) keeps its text
//! without being written again. Each stream then sends the top, the ids
//! if they changed, and only the windows that changed since the change it
//! last sent, and the page keeps the others: an event weighs what
//! changed, not what is open.

use std::{collections::HashMap, sync::Arc};

use purview::serde_json::{self, Value, json};
use purview_person::{Model, Window};

/// What one page is drawn with beside what everyone sees: each window
/// the person holds something in, as this person sees it, and the app's
/// own actions with the person's forms, failure and question.
#[derive(Clone)]
pub(crate) struct Own {
    pub windows: HashMap<String, Arc<str>>,
    pub app: Arc<str>,
}

impl Default for Own {
    fn default() -> Self {
        Self { windows: HashMap::new(), app: "null".into() }
    }
}

/// One change, cut.
pub(crate) struct Cut {
    change: u64,
    /// The model without its windows, or the error the app was read with.
    top: Arc<str>,
    /// The windows' ids, in order, as a JSON array.
    ids: Arc<str>,
    windows: Vec<Part>,
}

/// One window's text, and what it was made from.
struct Part {
    id: String,
    made_from: Arc<Window>,
    text: Arc<str>,
    /// The change at which its text last differed from the cut before.
    since: u64,
}

/// What a stream last sent: the page holds every window as of `change`,
/// and what the person holds in it as `own`.
pub(crate) struct Sent {
    change: u64,
    top: Arc<str>,
    ids: Arc<str>,
    own: Own,
}

impl Sent {
    /// Notes that the page already shows `scope` drawn as `now` (what the
    /// person typed there), if it was sent as `was`: nothing else changed
    /// there since, so nothing need be sent again.
    pub fn shown(&mut self, scope: Option<&str>, was: &Arc<str>, now: &Arc<str>) {
        match scope {
            None if self.own.app == *was => self.own.app = now.clone(),
            Some(id) if self.own.windows.get(id) == Some(was) => {
                self.own.windows.insert(id.to_owned(), now.clone());
            }
            _ => {}
        }
    }
}

impl Cut {
    /// `model` at `change` (with the app's name and whether the person
    /// answers here), cut beside `before` (the last cut kept): a window's
    /// text is taken from it when the model shares the window unchanged,
    /// and its `since` when the text is the same.
    pub fn new(
        model: &Result<Model, String>,
        (name, answering): (&str, bool),
        change: u64,
        before: Option<&Cut>,
    ) -> Self {
        let old: HashMap<&str, &Part> =
            before.iter().flat_map(|b| &b.windows).map(|p| (p.id.as_str(), p)).collect();
        let keep = |text: String, old: Option<&Arc<str>>| match old {
            Some(old) if **old == *text => old.clone(),
            _ => Arc::from(text),
        };
        let (top, windows) = match model {
            Err(error) => (json!({ "error": error }).to_string(), Vec::new()),
            Ok(model) => {
                let rest = Model { windows: Vec::new(), ..model.clone() };
                let mut top = serde_json::to_value(&rest).unwrap_or_default();
                if let Some(object) = top.as_object_mut() {
                    object.remove("windows");
                    object.insert("name".into(), name.into());
                    object.insert("answering".into(), answering.into());
                }
                let windows = model.windows.iter().map(|window| {
                    let old = old.get(window.id.as_str());
                    match old {
                        Some(old) if Arc::ptr_eq(&old.made_from, window) => Part {
                            id: window.id.clone(),
                            made_from: window.clone(),
                            text: old.text.clone(),
                            since: old.since,
                        },
                        _ => {
                            let text = keep(window_text(window), old.map(|o| &o.text));
                            let same = old.is_some_and(|o| Arc::ptr_eq(&o.text, &text));
                            Part {
                                id: window.id.clone(),
                                made_from: window.clone(),
                                text,
                                since: if same { old.map_or(change, |o| o.since) } else { change },
                            }
                        }
                    }
                });
                (top.to_string(), windows.collect())
            }
        };
        let ids: Vec<&str> = windows.iter().map(|p: &Part| p.id.as_str()).collect();
        let ids = serde_json::to_string(&ids).unwrap_or_else(|_| "[]".to_owned());
        Self {
            change,
            top: keep(top, before.map(|b| &b.top)),
            ids: keep(ids, before.map(|b| &b.ids)),
            windows,
        }
    }

    /// The change this cut was made at.
    pub fn change(&self) -> u64 {
        self.change
    }

    /// The event for a stream that last sent `sent` (`None`: nothing yet,
    /// so every window and the page's `words`), whose person holds `own`,
    /// and what it will then have sent; `None` when nothing the page draws
    /// changed since. A window the person holds something in is sent as
    /// they see it, when that changed; one they no longer hold anything
    /// in goes back to everyone's text.
    pub fn event(&self, sent: Option<&Sent>, words: &str, own: Own) -> Option<(String, Sent)> {
        let after = sent.map(|s| s.change);
        let was = |id: &str| sent.and_then(|s| s.own.windows.get(id));
        let changed: Vec<&str> = self
            .windows
            .iter()
            .filter_map(|p| match own.windows.get(&p.id) {
                Some(mine) => (was(&p.id) != Some(mine)).then_some(&**mine),
                None => (after.is_none_or(|after| is_later(p.since, after))
                    || was(&p.id).is_some())
                .then_some(&*p.text),
            })
            .collect();
        let app_changed = sent.is_none_or(|sent| sent.own.app != own.app);
        if let Some(sent) = sent
            && changed.is_empty()
            && !app_changed
            && Arc::ptr_eq(&sent.top, &self.top)
            && Arc::ptr_eq(&sent.ids, &self.ids)
        {
            return None;
        }
        let mut event = String::with_capacity(
            self.top.len()
                + self.ids.len()
                + changed.iter().map(|t| t.len() + 1).sum::<usize>()
                + 48,
        );
        event.push_str("{\"top\":");
        event.push_str(&self.top);
        // The order, when the open windows changed (the page keeps it).
        if sent.is_none_or(|sent| !Arc::ptr_eq(&sent.ids, &self.ids)) {
            event.push_str(",\"ids\":");
            event.push_str(&self.ids);
        }
        event.push_str(",\"windows\":[");
        event.push_str(&changed.join(","));
        event.push(']');
        // The app's own actions as this person has them, when that changed.
        if app_changed {
            event.push_str(",\"app\":");
            event.push_str(&own.app);
        }
        if sent.is_none() {
            event.push_str(",\"words\":");
            event.push_str(words);
        }
        event.push('}');
        let now = Sent { change: self.change, top: self.top.clone(), ids: self.ids.clone(), own };
        Some((event, now))
    }
}

/// Whether change `a` came after change `b` (the counter wraps).
pub(crate) fn is_later(a: u64, b: u64) -> bool {
    a.wrapping_sub(b).cast_signed() > 0
}

fn window_text(window: &Window) -> String {
    serde_json::to_string(window).unwrap_or_else(|_| Value::Null.to_string())
}

#[cfg(test)]
mod tests {
    use purview::prelude::*;
    use purview_person::{Around, Reader};

    use super::*;
    use crate::fixture::Counter;

    /// The model of `app` now, as the face's reader makes it.
    fn model(app: &App, reader: &mut Reader) -> Result<Model, String> {
        let scene = app.scene().map_err(|e| e.to_string())?;
        Ok(reader.read(&scene, Around::default()))
    }

    fn parsed(event: &str) -> Value {
        serde_json::from_str(event).expect("an event is JSON")
    }

    /// The ids of the windows an event carries.
    fn carried(event: &Value) -> Vec<String> {
        event["windows"].as_array().unwrap().iter().map(|w| w["id"].to_string()).collect()
    }

    const ABOUT: (&str, bool) = ("counters", false);

    #[tokio::test]
    async fn an_event_carries_only_the_windows_changed_since_the_streams_last() {
        let app = App::builder().build();
        let windows: Vec<_> = (0..3).map(|_| app.open(Counter::default()).unwrap()).collect();
        let mut reader = Reader::default();
        let first = Cut::new(&model(&app, &mut reader), ABOUT, 1, None);
        let (text, sent) = first.event(None, "{\"go\":\"Go\"}", Own::default()).unwrap();
        let opened = parsed(&text);
        assert_eq!(carried(&opened).len(), 3, "the first event has every window: {text}");
        assert_eq!(opened["words"]["go"], "Go");
        assert_eq!(opened["top"]["name"], "counters");
        assert!(opened["top"].get("windows").is_none(), "{text}");
        assert!(
            first.event(Some(&sent), "{}", Own::default()).is_none(),
            "nothing changed, nothing sent"
        );

        windows[1].update(|c| c.count = 7).unwrap();
        let second = Cut::new(&model(&app, &mut reader), ABOUT, 2, Some(&first));
        let (text, sent) = second.event(Some(&sent), "{}", Own::default()).unwrap();
        let changed = parsed(&text);
        assert_eq!(carried(&changed), [format!("\"{}\"", windows[1].id())], "{text}");
        assert!(changed.get("words").is_none(), "{text}");
        assert!(changed.get("ids").is_none(), "the same windows: no order sent: {text}");
        assert!(text.contains("Counts to 7"), "{text}");

        // A stream that has not sent since the first change hears of both
        // windows that changed after it; one that is up to date hears of
        // the newest only.
        windows[2].update(|c| c.count = 1).unwrap();
        let third = Cut::new(&model(&app, &mut reader), ABOUT, 3, Some(&second));
        let (_, behind) = first.event(None, "{}", Own::default()).unwrap();
        let (text, _) = third.event(Some(&behind), "{}", Own::default()).unwrap();
        assert_eq!(carried(&parsed(&text)).len(), 2, "{text}");
        let (text, _) = third.event(Some(&sent), "{}", Own::default()).unwrap();
        assert_eq!(carried(&parsed(&text)), [format!("\"{}\"", windows[2].id())], "{text}");
    }

    #[tokio::test]
    async fn a_window_changed_and_changed_back_is_sent_to_a_stream_that_had_the_middle() {
        let app = App::builder().build();
        let counter = app.open(Counter::default()).unwrap();
        let mut reader = Reader::default();
        let first = Cut::new(&model(&app, &mut reader), ABOUT, 1, None);
        counter.update(|c| c.count = 5).unwrap();
        let second = Cut::new(&model(&app, &mut reader), ABOUT, 2, Some(&first));
        let (_, middle) = second.event(None, "{}", Own::default()).unwrap();
        counter.update(|c| c.count = 0).unwrap();
        let third = Cut::new(&model(&app, &mut reader), ABOUT, 3, Some(&second));
        let (text, _) =
            third.event(Some(&middle), "{}", Own::default()).expect("the window changed back");
        assert!(text.contains("Counts to 0"), "{text}");
    }

    #[tokio::test]
    async fn a_closed_window_leaves_the_ids_and_an_unreadable_app_sends_its_error() {
        let app = App::builder().build();
        let kept = app.open(Counter::default()).unwrap();
        let closed = app.open(Counter::default()).unwrap();
        let mut reader = Reader::default();
        let first = Cut::new(&model(&app, &mut reader), ABOUT, 1, None);
        let (_, sent) = first.event(None, "{}", Own::default()).unwrap();
        closed.close().unwrap();
        let second = Cut::new(&model(&app, &mut reader), ABOUT, 2, Some(&first));
        let (text, sent) = second.event(Some(&sent), "{}", Own::default()).unwrap();
        assert_eq!(parsed(&text)["ids"], json!([kept.id()]), "a window closed: {text}");
        assert!(carried(&parsed(&text)).is_empty(), "{text}");

        let broken = Cut::new(&Err("the app is gone".into()), ABOUT, 3, Some(&second));
        let (text, sent) = broken.event(Some(&sent), "{}", Own::default()).unwrap();
        assert_eq!(parsed(&text)["top"]["error"], "the app is gone");
        assert_eq!(parsed(&text)["ids"], json!([]));
        // Back again: every window is sent, for the page has none.
        let again = Cut::new(&model(&app, &mut reader), ABOUT, 4, Some(&broken));
        let (text, _) = again.event(Some(&sent), "{}", Own::default()).unwrap();
        assert_eq!(carried(&parsed(&text)), [format!("\"{}\"", kept.id())], "{text}");
    }

    #[test]
    fn changes_are_ordered_across_the_counters_wrap() {
        assert!(is_later(1, 0) && is_later(0, u64::MAX) && !is_later(u64::MAX, 0));
        assert!(!is_later(3, 3));
    }
}

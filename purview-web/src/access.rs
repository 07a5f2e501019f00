//! Who may open the face: the person holding a one-time link, whose key
//! the face's own page exchanges once for a session credential. The page's
//! script keeps that credential in its origin's storage and sends it in
//! [`SESSION_HEADER`] on every request, reads as well as writes.
//!
//! Why not a cookie: a browser sends a cookie to every port of the same
//! host (cookies are not isolated by port, RFC 6265 §8.5), so any server on
//! another local port the person visits would receive it and could replay
//! it with a plain client, `Origin` and all. Storage is per origin (scheme,
//! host *and* port), and a header is sent only by the script that sets it:
//! nothing another port receives can act as the person. The key itself
//! travels in the link's fragment, which a browser never sends to a
//! server, and the page removes it from the address bar.
//!
//! Nothing here looks at a bearer token: an agent's token never opens the
//! face, and the person's credential never reaches the MCP endpoint's
//! checks.

use std::{
    sync::{Mutex, MutexGuard},
    time::{Duration, Instant},
};

use axum::{
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
};

use crate::assets;

/// The header every request of the face's page carries the person's
/// session credential in. A page of another origin cannot send it without
/// a CORS preflight, which the face never grants.
pub(crate) const SESSION_HEADER: &str = "x-purview-session";

/// How long a one-time link stays usable.
const LINK_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// One-time links outstanding at once; a newer one retires the oldest.
const MAX_LINKS: usize = 8;

/// Sessions at once (browsers; the tabs of one browser share its stored
/// credential and count once); a newer one ends the oldest.
const MAX_SESSIONS: usize = 8;

/// One browser the person opened the face in.
#[derive(Clone)]
pub(crate) struct Session {
    pub id: String,
    /// Its place in the order sessions were opened: who its connections
    /// are charged to in the fair shares (never the secret `id`).
    pub number: u64,
}

/// The face's credentials.
#[derive(Default)]
pub(crate) struct Access {
    links: Mutex<Vec<(String, Instant)>>,
    sessions: Mutex<Vec<Session>>,
    opened: std::sync::atomic::AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// 32 random bytes from the operating system, in hex; `None` if it has none
/// to give (the face then opens for nobody).
pub(crate) fn random_hex() -> Option<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares without revealing, through timing, how much of a guess was right.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Access {
    /// A new one-time key.
    pub(crate) fn new_link(&self) -> Option<String> {
        let key = random_hex()?;
        let mut links = lock(&self.links);
        links.retain(|(_, made)| made.elapsed() < LINK_LIFETIME);
        if links.len() >= MAX_LINKS {
            links.remove(0);
        }
        links.push((key.clone(), Instant::now()));
        Some(key)
    }

    /// Exchanges a one-time key for a new session; the key is spent.
    pub(crate) fn exchange(&self, key: &str) -> Option<Session> {
        let mut links = lock(&self.links);
        links.retain(|(_, made)| made.elapsed() < LINK_LIFETIME);
        let found = links.iter().position(|(k, _)| same(k, key))?;
        links.remove(found);
        drop(links);
        let number = self.opened.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let session = Session { id: random_hex()?, number };
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= MAX_SESSIONS {
            sessions.remove(0);
        }
        sessions.push(session.clone());
        Some(session)
    }

    /// The session whose credential the request carries in
    /// [`SESSION_HEADER`] (exactly one such header).
    pub(crate) fn session(&self, headers: &HeaderMap) -> Option<Session> {
        let mut given = headers.get_all(SESSION_HEADER).iter();
        let (Some(given), None) = (given.next(), given.next()) else {
            return None;
        };
        let given = given.to_str().ok()?;
        let sessions = lock(&self.sessions);
        let mut found = None;
        for session in sessions.iter() {
            if same(&session.id, given) {
                found = Some(session.clone());
            }
        }
        found
    }
}

/// An answer of JSON, secured as every answer of the face.
pub(crate) fn json_answer(status: StatusCode, body: &purview::serde_json::Value) -> Response {
    let json = [(header::CONTENT_TYPE, "application/json")];
    secured((status, json, body.to_string()).into_response())
}

/// A person's request body, parsed as a JSON object.
pub(crate) fn body_object(body: &[u8]) -> Option<purview::model::JsonObject> {
    purview::serde_json::from_slice::<purview::serde_json::Value>(body).ok()?.as_object().cloned()
}

/// Why a request to the face is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// No session credential, or not one of ours (401).
    NoSession,
    /// From another site or origin, or not a JSON body (403).
    CrossSite,
}

/// A request from the face's own page: its script's session credential in
/// [`SESSION_HEADER`], `Sec-Fetch-Site` same-origin when sent, an `Origin`
/// equal to this server's own whenever one is sent (always, for a write),
/// and for a write a JSON body.
pub(crate) fn check(
    access: &Access,
    method: &Method,
    headers: &HeaderMap,
) -> Result<Session, Refused> {
    from_the_page(method, headers)?;
    access.session(headers).ok_or(Refused::NoSession)
}

/// The checks of [`check`] that need no session: also those of the
/// exchange of a one-time key.
pub(crate) fn from_the_page(method: &Method, headers: &HeaderMap) -> Result<(), Refused> {
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if fetch_site.is_some_and(|site| site != "same-origin" && site != "none") {
        return Err(Refused::CrossSite);
    }
    let reads = *method == Method::GET || *method == Method::HEAD;
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    match (origin, host) {
        (None, _) if reads => {}
        (Some(origin), Some(host)) if origin == format!("http://{host}") => {}
        _ => return Err(Refused::CrossSite),
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if reads || json { Ok(()) } else { Err(Refused::CrossSite) }
}

/// Headers on every answer: nothing but the face's own script and style
/// runs, nothing is framed or cached, no address leaks in a referrer.
pub(crate) fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let set = [
        (header::CONTENT_SECURITY_POLICY, assets::csp()),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in set {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    response
}

/// The answer to a refused request, saying what to do.
pub(crate) fn refused(why: Refused) -> Response {
    let (status, text) = match why {
        Refused::NoSession => (
            StatusCode::UNAUTHORIZED,
            "This page opens only with the one-time link the app printed when it started. Open that link in this browser; if it was used already, ask the app for a new one.",
        ),
        Refused::CrossSite => {
            (StatusCode::FORBIDDEN, "Refused: this request did not come from the app's own page.")
        }
    };
    secured((status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn a_link_opens_one_session_once() {
        let access = Access::default();
        let key = access.new_link().unwrap();
        let session = access.exchange(&key).unwrap();
        assert!(access.exchange(&key).is_none(), "a spent key opened a second session");
        assert!(access.session(&headers(&[(SESSION_HEADER, &session.id)])).is_some());
        assert!(access.session(&headers(&[(SESSION_HEADER, "guess")])).is_none());
        let twice = headers(&[(SESSION_HEADER, &session.id), (SESSION_HEADER, "guess")]);
        assert!(access.session(&twice).is_none(), "two credentials, one of them right");
    }

    #[test]
    fn a_cookie_opens_nothing() {
        let access = Access::default();
        let session = access.exchange(&access.new_link().unwrap()).unwrap();
        let cookie = format!("purview-person={}", session.id);
        let get = headers(&[("host", "127.0.0.1:8000"), ("cookie", &cookie)]);
        assert_eq!(check(&access, &Method::GET, &get).map(|_| ()), Err(Refused::NoSession));
    }

    #[test]
    fn a_write_needs_the_same_origin_json_and_the_session() {
        let access = Access::default();
        let session = access.exchange(&access.new_link().unwrap()).unwrap();
        let base = [("host", "127.0.0.1:8000"), (SESSION_HEADER, session.id.as_str())];
        let post = |extra: &[(&'static str, &str)]| {
            let all: Vec<_> = base.iter().chain(extra).copied().collect();
            check(&access, &Method::POST, &headers(&all)).map(|_| ())
        };
        let json = ("content-type", "application/json");
        let same_origin = ("origin", "http://127.0.0.1:8000");
        assert_eq!(post(&[json, same_origin]), Ok(()));
        assert_eq!(post(&[json]), Err(Refused::CrossSite));
        let other = ("origin", "http://127.0.0.1:9999");
        assert_eq!(post(&[json, other]), Err(Refused::CrossSite));
        let form = ("content-type", "application/x-www-form-urlencoded");
        assert_eq!(post(&[form, same_origin]), Err(Refused::CrossSite));
        let none = headers(&[("host", "127.0.0.1:8000"), json, same_origin]);
        assert_eq!(check(&access, &Method::POST, &none).map(|_| ()), Err(Refused::NoSession));
    }
}

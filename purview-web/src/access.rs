//! Who may open the face: the person holding a one-time link, exchanged
//! once for a session cookie (HttpOnly, SameSite=Strict) and a CSRF token
//! that only the face's own page is given. Nothing here looks at a bearer
//! token: an agent's token never opens the face, and the cookie never
//! reaches the MCP endpoint's checks.

use std::{
    sync::{Mutex, MutexGuard},
    time::{Duration, Instant},
};

use axum::{
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
};

use crate::assets;

/// The cookie holding the person's session.
pub(crate) const COOKIE: &str = "purview-person";

/// The header a state-changing request carries its CSRF token in.
pub(crate) const CSRF_HEADER: &str = "x-purview-csrf";

/// How long a one-time link stays usable.
const LINK_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// One-time links outstanding at once; a newer one retires the oldest.
const MAX_LINKS: usize = 8;

/// Sessions at once (browsers, tabs sharing a cookie count once); a newer
/// one ends the oldest.
const MAX_SESSIONS: usize = 8;

/// One browser the person opened the face in.
#[derive(Clone)]
pub(crate) struct Session {
    pub id: String,
    /// Its place in the order sessions were opened: who its connections
    /// are charged to in the fair shares (never the secret `id`).
    pub number: u64,
    /// What the page sends back on every state-changing request.
    pub csrf: String,
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
        let session = Session { id: random_hex()?, number, csrf: random_hex()? };
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= MAX_SESSIONS {
            sessions.remove(0);
        }
        sessions.push(session.clone());
        Some(session)
    }

    /// The session whose cookie the request carries.
    pub(crate) fn session(&self, headers: &HeaderMap) -> Option<Session> {
        let given = cookie(headers)?;
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

/// The value of the face's cookie, if the request carries exactly one.
fn cookie(headers: &HeaderMap) -> Option<&str> {
    let mut found = None;
    for value in headers.get_all(header::COOKIE) {
        for pair in value.to_str().ok()?.split(';') {
            if let Some((name, value)) = pair.trim().split_once('=')
                && name == COOKIE
            {
                if found.is_some() {
                    return None;
                }
                found = Some(value);
            }
        }
    }
    found
}

/// Why a request to the face is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// No session cookie, or not one of ours (401).
    NoSession,
    /// From another site or origin, or without the CSRF token (403).
    CrossSite,
}

/// A request from the face's own page: same origin (the `Origin` the
/// browser sends equals this server's own, `Sec-Fetch-Site` if sent says
/// same-origin), and for anything but a read, a JSON body and the session's
/// CSRF token in [`CSRF_HEADER`].
pub(crate) fn check(
    access: &Access,
    method: &Method,
    headers: &HeaderMap,
) -> Result<Session, Refused> {
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
    let session = access.session(headers).ok_or(Refused::NoSession)?;
    if reads {
        return Ok(session);
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let token = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
    match token {
        Some(token) if json && same(token, &session.csrf) => Ok(session),
        _ => Err(Refused::CrossSite),
    }
}

/// Headers on every answer: nothing but the face's own script and style
/// runs, nothing is framed or cached, no address leaks in a referrer.
pub(crate) fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let set = [
        (header::CONTENT_SECURITY_POLICY, assets::CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in set {
        headers.insert(name, HeaderValue::from_static(value));
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
        let cookie = format!("{COOKIE}={}", session.id);
        assert!(access.session(&headers(&[("cookie", &cookie)])).is_some());
        assert!(access.session(&headers(&[("cookie", "purview-person=guess")])).is_none());
    }

    #[test]
    fn a_post_needs_the_same_origin_json_and_the_csrf_token() {
        let access = Access::default();
        let session = access.exchange(&access.new_link().unwrap()).unwrap();
        let cookie = format!("{COOKIE}={}", session.id);
        let base = [("host", "127.0.0.1:8000"), ("cookie", cookie.as_str())];
        let post = |extra: &[(&'static str, &str)]| {
            let all: Vec<_> = base.iter().chain(extra).copied().collect();
            check(&access, &Method::POST, &headers(&all)).map(|_| ())
        };
        let json = ("content-type", "application/json");
        let same_origin = ("origin", "http://127.0.0.1:8000");
        assert_eq!(post(&[json, same_origin, (CSRF_HEADER, &session.csrf)]), Ok(()));
        assert_eq!(post(&[json, same_origin]), Err(Refused::CrossSite));
        assert_eq!(post(&[json, (CSRF_HEADER, &session.csrf)]), Err(Refused::CrossSite));
        let other = ("origin", "http://127.0.0.1:9999");
        assert_eq!(post(&[json, other, (CSRF_HEADER, &session.csrf)]), Err(Refused::CrossSite));
        let form = ("content-type", "application/x-www-form-urlencoded");
        assert_eq!(
            post(&[form, same_origin, (CSRF_HEADER, &session.csrf)]),
            Err(Refused::CrossSite)
        );
        let no_cookie = headers(&[("host", "127.0.0.1:8000"), json, same_origin]);
        assert_eq!(check(&access, &Method::POST, &no_cookie).map(|_| ()), Err(Refused::NoSession));
    }
}

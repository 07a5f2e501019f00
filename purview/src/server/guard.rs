//! The checks every HTTP request passes before it reaches MCP: exactly one
//! well-formed `Host` naming an allowed host, at most one well-formed and
//! allowed `Origin`, and one of the clients' bearer tokens when any is set
//! (which also says which client is calling). Pure functions of the
//! headers, so they are unit-tested and fuzzed on their own.
//!
//! Strict on purpose: a `Host` with userinfo (`evil.com@127.0.0.1`), two
//! `Host` headers, or an `Origin` with a path are refused rather than
//! interpreted, since two parsers that interpret them differently are how
//! DNS-rebinding protections get bypassed.

use axum::http::{HeaderMap, StatusCode, header};

/// Why a request is refused: the status and a short reason (never echoing
/// the header).
pub(crate) type Refusal = (StatusCode, &'static str);

/// What a request must satisfy.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    /// Allowed hosts, without port (`localhost`, `127.0.0.1`, `::1`, …).
    pub hosts: Vec<String>,
    /// Allowed origins as `scheme://host`, with `:port` or `:*`.
    pub origins: Vec<String>,
    /// The known clients' names and bearer tokens; when there is none, no
    /// token is required.
    pub tokens: Vec<(std::sync::Arc<str>, String)>,
}

/// Who passed the checks: the named client whose token came, or nobody in
/// particular where no token is required.
pub(crate) type Passed = Option<std::sync::Arc<str>>;

/// A host and optional port, parsed strictly from an authority (`Host`
/// header or the authority of an `Origin`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Authority<'a> {
    pub host: &'a str,
    pub port: Option<u16>,
}

/// Parses `host[:port]` or `[v6]:port`; refuses userinfo, paths, empty or
/// odd characters.
pub(crate) fn parse_authority(text: &str) -> Option<Authority<'_>> {
    if text.is_empty() || text.len() > 255 {
        return None;
    }
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if inside.is_empty()
            || !inside.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
        {
            return None;
        }
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        (inside, port)
    } else {
        let (host, port) = match text.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        };
        let valid = !host.is_empty()
            && host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
        if !valid {
            return None;
        }
        (host, port)
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => {
            Some(p.parse().ok()?)
        }
        Some(_) => return None,
    };
    Some(Authority { host, port })
}

/// Parses an `Origin`: `scheme://authority` and nothing more.
fn parse_origin(text: &str) -> Option<(&str, Authority<'_>)> {
    let (scheme, authority) = text.split_once("://")?;
    if !(scheme == "http" || scheme == "https") {
        return None;
    }
    Some((scheme, parse_authority(authority)?))
}

fn origin_allowed(allowed: &str, scheme: &str, origin: &Authority<'_>) -> bool {
    let Some((allowed_scheme, rest)) = allowed.split_once("://") else { return false };
    if allowed_scheme != scheme {
        return false;
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, "*")) => (host, None),
        _ => match parse_authority(rest) {
            Some(a) => (a.host, a.port),
            None => return false,
        },
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case(origin.host) && (port.is_none() || port == origin.port)
}

impl Guard {
    /// Checks one request's headers.
    pub fn check(&self, headers: &HeaderMap) -> Result<Passed, Refusal> {
        let mut hosts = headers.get_all(header::HOST).iter();
        let host = match (hosts.next(), hosts.next()) {
            (Some(host), None) => host,
            (None, _) => return Err((StatusCode::BAD_REQUEST, "a Host header is required")),
            (Some(_), Some(_)) => return Err((StatusCode::BAD_REQUEST, "send one Host header")),
        };
        let host = host
            .to_str()
            .ok()
            .and_then(parse_authority)
            .ok_or((StatusCode::BAD_REQUEST, "the Host header is malformed"))?;
        if !self.hosts.iter().any(|h| {
            h.trim_start_matches('[').trim_end_matches(']').eq_ignore_ascii_case(host.host)
        }) {
            return Err((StatusCode::FORBIDDEN, "this Host is not allowed"));
        }
        let mut origins = headers.get_all(header::ORIGIN).iter();
        match (origins.next(), origins.next()) {
            (None, _) => {}
            (Some(_), Some(_)) => return Err((StatusCode::BAD_REQUEST, "send one Origin header")),
            (Some(origin), None) => {
                let (scheme, authority) = origin
                    .to_str()
                    .ok()
                    .and_then(parse_origin)
                    .ok_or((StatusCode::FORBIDDEN, "the Origin header is malformed"))?;
                if !self.origins.iter().any(|o| origin_allowed(o, scheme, &authority)) {
                    return Err((StatusCode::FORBIDDEN, "this Origin is not allowed"));
                }
            }
        }
        if self.tokens.is_empty() {
            return Ok(None);
        }
        let mut given = headers.get_all(header::AUTHORIZATION).iter();
        let value = match (given.next(), given.next()) {
            (Some(value), None) => value.as_bytes(),
            (None, _) => return Err(MISSING_TOKEN),
            (Some(_), Some(_)) => return Err(WRONG_TOKEN),
        };
        let Some(given) = bearer(value) else { return Err(MISSING_TOKEN) };
        // Every token is compared, whichever matches, so the time taken
        // says nothing about which one came close.
        let mut found = None;
        for (name, token) in &self.tokens {
            if constant_time_eq(given, token.as_bytes()) {
                found = Some(name.clone());
            }
        }
        found.map(Some).ok_or(WRONG_TOKEN)
    }
}

/// No bearer token was sent (nothing was guessed, so nothing is slowed).
pub(crate) const MISSING_TOKEN: Refusal = (
    StatusCode::UNAUTHORIZED,
    "this server needs a bearer token: send `Authorization: Bearer <token>`",
);
/// A bearer token was sent and is none of the clients'.
pub(crate) const WRONG_TOKEN: Refusal = (StatusCode::UNAUTHORIZED, "wrong bearer token");

/// The token of an `Authorization` value `Bearer <token>`: the scheme in any
/// case (RFC 9110 §11.1), one space, then the token.
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, given) = value.split_at_checked(7)?;
    scheme.eq_ignore_ascii_case(b"bearer ").then_some(given)
}

/// The shortest bearer token accepted.
pub(crate) const MIN_TOKEN_CHARS: usize = 16;

/// Refuses a token too short to withstand guessing, saying how to make one.
pub(crate) fn check_token(token: &str) -> Result<(), String> {
    if token.chars().count() < MIN_TOKEN_CHARS {
        let got = if token.is_empty() {
            "an empty token".to_owned()
        } else {
            format!("one of {} characters", token.chars().count())
        };
        return Err(format!(
            "the bearer token must be at least {MIN_TOKEN_CHARS} characters, and this is {got}, which can be guessed; make one with `openssl rand -hex 32` (or `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        ));
    }
    Ok(())
}

/// Compares without revealing, through timing, how much of a guess was right.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn guard() -> Guard {
        Guard {
            hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
            ],
            tokens: vec![("agent".into(), "s3cret".into()), ("other".into(), "0ther".into())],
        }
    }

    fn agent() -> Passed {
        Some("agent".into())
    }

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    const TOKEN: (header::HeaderName, &str) = (header::AUTHORIZATION, "Bearer s3cret");

    #[test]
    fn s12_loopback_hosts_and_origins_pass() {
        for host in ["localhost", "localhost:8765", "127.0.0.1:80", "[::1]:8765", "LOCALHOST"] {
            let h = headers(&[(header::HOST, host), TOKEN]);
            assert_eq!(guard().check(&h), Ok(agent()), "{host}");
        }
        let h = headers(&[
            (header::HOST, "127.0.0.1:1"),
            (header::ORIGIN, "http://localhost:3000"),
            TOKEN,
        ]);
        assert_eq!(guard().check(&h), Ok(agent()));
    }

    #[test]
    fn s12_ambiguous_hosts_and_origins_are_refused() {
        let bad_hosts = [
            "evil.com@127.0.0.1",
            "127.0.0.1@evil.com",
            "localhost:99999",
            "local host",
            "",
            "localhost:",
            "[::1",
            "localhost/x",
        ];
        for host in bad_hosts {
            let h = headers(&[(header::HOST, host), TOKEN]);
            assert!(guard().check(&h).is_err(), "{host:?} passed");
        }
        let twice = headers(&[(header::HOST, "localhost"), (header::HOST, "evil.com"), TOKEN]);
        assert_eq!(guard().check(&twice).unwrap_err().0, StatusCode::BAD_REQUEST);
        for origin in [
            "http://evil.com",
            "http://localhost:3000/path",
            "http://user@localhost:3000",
            "null",
            "localhost:3000",
            "ftp://localhost:1",
        ] {
            let h = headers(&[(header::HOST, "localhost"), (header::ORIGIN, origin), TOKEN]);
            assert!(guard().check(&h).is_err(), "{origin:?} passed");
        }
    }

    #[test]
    fn s12_the_bearer_token_is_required_exactly() {
        for auth in [None, Some("Bearer wrong"), Some("Bearer  s3cret"), Some("Bearer s3cret ")] {
            let mut pairs = vec![(header::HOST, "localhost")];
            if let Some(auth) = auth {
                pairs.push((header::AUTHORIZATION, auth));
            }
            assert_eq!(guard().check(&headers(&pairs)).unwrap_err().0, StatusCode::UNAUTHORIZED);
        }
    }

    #[test]
    fn s12_each_clients_token_names_that_client_and_a_missing_one_is_told_apart() {
        let with =
            |auth: &str| headers(&[(header::HOST, "localhost"), (header::AUTHORIZATION, auth)]);
        assert_eq!(guard().check(&with("Bearer 0ther")), Ok(Some("other".into())));
        assert_eq!(guard().check(&with("Bearer s3cret")), Ok(agent()));
        assert_eq!(guard().check(&with("Bearer s3cre")), Err(WRONG_TOKEN));
        assert_eq!(guard().check(&with("Basic czNjcmV0")), Err(MISSING_TOKEN));
        assert_eq!(guard().check(&headers(&[(header::HOST, "localhost")])), Err(MISSING_TOKEN));
        let open = Guard { tokens: Vec::new(), ..guard() };
        assert_eq!(open.check(&headers(&[(header::HOST, "localhost")])), Ok(None));
    }

    #[test]
    fn s12_the_bearer_scheme_is_case_insensitive() {
        for auth in ["bearer s3cret", "BEARER s3cret", "Bearer s3cret"] {
            let h = headers(&[(header::HOST, "localhost"), (header::AUTHORIZATION, auth)]);
            assert_eq!(guard().check(&h), Ok(agent()), "{auth}");
        }
    }

    #[test]
    fn s12_short_or_empty_tokens_are_refused_with_a_way_to_make_one() {
        for token in ["", "ab", "fifteen-chars!!"] {
            let problem = check_token(token).unwrap_err();
            assert!(problem.contains("openssl rand"), "{problem}");
        }
        assert!(check_token("0123456789abcdef").is_ok());
    }
}

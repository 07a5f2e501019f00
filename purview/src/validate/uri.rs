//! The `uri`, `uri-reference`, `iri` and `iri-reference` formats: the
//! grammar of RFC 3986 (and RFC 3987, which also lets characters beyond
//! ASCII stand where RFC 3986 takes unreserved ones). A browser's URL
//! parser would repair what these refuse (a space, a lone `%`, a `"`), so
//! the grammar is checked as written.

/// Whether `text` is a URI (`reference`: or a relative reference; `iri`:
/// with characters beyond ASCII).
pub(crate) fn check(text: &str, reference: bool, iri: bool) -> bool {
    let (rest, fragment) = text.split_once('#').unwrap_or((text, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    if !chars_ok(fragment, ":@/?", iri) || !chars_ok(query, ":@/?", iri) {
        return false;
    }
    // A colon before any slash ends a scheme; a relative reference's
    // first segment has none.
    let before_slash = rest.split('/').next().unwrap_or_default();
    let hier = match before_slash.split_once(':') {
        Some((scheme, _)) => {
            if !is_scheme(scheme) {
                return false;
            }
            &rest[scheme.len() + 1..]
        }
        None if reference => rest,
        None => return false,
    };
    match hier.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            authority(&after[..end], iri) && chars_ok(&after[end..], ":@/", iri)
        }
        None => chars_ok(hier, ":@/", iri),
    }
}

fn is_scheme(scheme: &str) -> bool {
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

/// `[userinfo "@"] host [":" port]`.
fn authority(text: &str, iri: bool) -> bool {
    let (userinfo, host_port) = match text.split_once('@') {
        Some((userinfo, rest)) => (Some(userinfo), rest),
        None => (None, text),
    };
    if userinfo.is_some_and(|u| !chars_ok(u, ":", iri)) {
        return false;
    }
    let (host, port) = if let Some(literal) = host_port.strip_prefix('[') {
        let Some((inside, after)) = literal.split_once(']') else { return false };
        if !ip_literal(inside) {
            return false;
        }
        match after {
            "" => return true,
            _ => ("", after.strip_prefix(':').ok_or(())),
        }
    } else {
        match host_port.split_once(':') {
            Some((host, port)) => (host, Ok(port)),
            None => (host_port, Ok("")),
        }
    };
    let Ok(port) = port else { return false };
    chars_ok(host, "", iri) && port.bytes().all(|b| b.is_ascii_digit())
}

/// An IPv6 address, or `v` hex digits `.` something (IPvFuture).
fn ip_literal(text: &str) -> bool {
    if let Some(future) = text.strip_prefix(['v', 'V']) {
        return future.split_once('.').is_some_and(|(version, rest)| {
            !version.is_empty()
                && version.bytes().all(|b| b.is_ascii_hexdigit())
                && !rest.is_empty()
                && rest.chars().all(|c| unreserved(c, false) || sub_delim(c) || c == ':')
        });
    }
    text.parse::<std::net::Ipv6Addr>().is_ok()
}

fn unreserved(c: char, iri: bool) -> bool {
    c.is_ascii_alphanumeric()
        || "-._~".contains(c)
        || (iri && !c.is_ascii() && !c.is_control() && !c.is_whitespace())
}

fn sub_delim(c: char) -> bool {
    "!$&'()*+,;=".contains(c)
}

/// Whether every character of `text` is unreserved, a sub-delimiter, one
/// of `extra`, or a `%` with two hex digits.
fn chars_ok(text: &str, extra: &str, iri: bool) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let ok = if c == '%' {
            chars.next().is_some_and(|c| c.is_ascii_hexdigit())
                && chars.next().is_some_and(|c| c.is_ascii_hexdigit())
        } else {
            unreserved(c, iri) || sub_delim(c) || extra.contains(c)
        };
        if !ok {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn the_grammar_as_written() {
        for good in ["https://example.com/a?b#c", "urn:isbn:0451450523", "http://[::1]:80/", "a:b"]
        {
            assert!(check(good, false, false), "{good}");
        }
        for bad in ["/relative", "http://a b", "http://%zz", "http://a@b@c", "1a:b", "http://[::1"]
        {
            assert!(!check(bad, false, false), "{bad}");
        }
        for good in ["/relative", "../x", "#frag", "//host", "?q"] {
            assert!(check(good, true, false), "{good}");
        }
        assert!(!check("a:b:c/d", true, false) || check("a:b:c/d", false, false));
        assert!(check("http://ex.com/ü", false, true) && !check("http://ex.com/ü", false, false));
    }
}

//! The `format` values an argument is checked against.
//!
//! JSON Schema makes `format` an annotation unless a validator chooses to
//! assert it; Purview asserts the ones below, which are what the common
//! types' schemas carry (`chrono`'s dates and times, `uuid`, `url`,
//! `std::net`'s addresses, schemars' `email`). The others that JSON Schema
//! defines (`idn-email`, `idn-hostname`, `uri-template`) stay annotations:
//! the argument's own type still has to decode, so a value no `format`
//! stopped is refused then, by field, as `validation_failed`.

use std::net::{Ipv4Addr, Ipv6Addr};

/// Whether `text` is a valid `format`; `None` when the format is not one
/// Purview checks.
pub(crate) fn check(format: &str, text: &str) -> Option<bool> {
    Some(match format {
        "date-time" => date_time(text),
        "date" => date(text),
        "time" => time(text),
        "duration" => duration(text),
        "email" => email(text),
        "hostname" => hostname(text),
        "ipv4" => text.parse::<Ipv4Addr>().is_ok(),
        "ipv6" => text.parse::<Ipv6Addr>().is_ok(),
        "uuid" => uuid(text),
        "uri" => super::uri::check(text, false, false),
        "uri-reference" => super::uri::check(text, true, false),
        "iri" => super::uri::check(text, false, true),
        "iri-reference" => super::uri::check(text, true, true),
        "json-pointer" => json_pointer(text),
        "relative-json-pointer" => relative_json_pointer(text),
        "regex" => super::pattern::is_ecma_regex(text),
        _ => return None,
    })
}

/// Whether Purview checks `format` (the rest are annotations).
pub(crate) fn is_checked(format: &str) -> bool {
    check(format, "").is_some()
}

/// `n` ASCII digits at the start of `text`, as a number, and the rest.
fn digits(text: &str, n: usize) -> Option<(u32, &str)> {
    let head = text.get(..n)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &text[n..]))
}

/// `text` without its first character when that is `c` (either case).
fn expect(text: &str, c: char) -> Option<&str> {
    let mut chars = text.chars();
    chars.next().filter(|d| d.eq_ignore_ascii_case(&c)).map(|_| chars.as_str())
}

/// RFC 3339 `full-date`.
fn date(text: &str) -> bool {
    full_date(text) == Some("")
}

fn full_date(text: &str) -> Option<&str> {
    let (year, rest) = digits(text, 4)?;
    let (month, rest) = digits(expect(rest, '-')?, 2)?;
    let (day, rest) = digits(expect(rest, '-')?, 2)?;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&day).then_some(rest)
}

/// RFC 3339 `full-time`: a time with its offset.
fn time(text: &str) -> bool {
    full_time(text) == Some("")
}

fn full_time(text: &str) -> Option<&str> {
    let (hour, rest) = digits(text, 2)?;
    let (minute, rest) = digits(expect(rest, ':')?, 2)?;
    let (second, mut rest) = digits(expect(rest, ':')?, 2)?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    if let Some(fraction) = expect(rest, '.') {
        let n = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        rest = &fraction[n..];
    }
    let (offset, rest) = match expect(rest, 'z') {
        Some(rest) => (0, rest),
        None => {
            let (sign, after) = match expect(rest, '+') {
                Some(after) => (1, after),
                None => (-1, expect(rest, '-')?),
            };
            let (offset_hour, after) = digits(after, 2)?;
            let (offset_minute, after) = digits(expect(after, ':')?, 2)?;
            if offset_hour > 23 || offset_minute > 59 {
                return None;
            }
            (sign * i64::from(offset_hour * 60 + offset_minute), after)
        }
    };
    // A leap second is the last second of a UTC day.
    let utc_minute = (i64::from(hour * 60 + minute) - offset).rem_euclid(24 * 60);
    (second < 60 || utc_minute == 23 * 60 + 59).then_some(rest)
}

/// RFC 3339 `date-time`.
fn date_time(text: &str) -> bool {
    full_date(text).and_then(|rest| expect(rest, 't')).and_then(full_time) == Some("")
}

/// ISO 8601 durations as RFC 3339's appendix A writes them: `P1Y2M`,
/// `PT30S`, `P2W`.
fn duration(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('P') else { return false };
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    // Each part: numbers with their units, in this order and with none
    // skipped between the first and the last (`P1Y2D` is not one).
    let units = |part: &str, order: &str| -> Option<usize> {
        let (mut rest, mut next, mut count) = (part, None::<usize>, 0);
        while !rest.is_empty() {
            let n = rest.bytes().take_while(u8::is_ascii_digit).count();
            let unit = rest[n..].chars().next()?;
            let at = order.find(unit)?;
            if n == 0 || next.is_some_and(|next| at != next) {
                return None;
            }
            next = Some(at + 1);
            rest = &rest[n + unit.len_utf8()..];
            count += 1;
        }
        Some(count)
    };
    if date.is_empty() && time.is_none() {
        return false;
    }
    if let Some(weeks) = date.strip_suffix('W') {
        return time.is_none() && !weeks.is_empty() && weeks.bytes().all(|b| b.is_ascii_digit());
    }
    let Some(_) = units(date, "YMD") else { return false };
    match time {
        None => true,
        Some(time) => units(time, "HMS").is_some_and(|n| n > 0),
    }
}

/// An address `someone@example.com`: a dot-atom or quoted local part, and
/// a host name or an address literal in brackets.
fn email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else { return false };
    let local_ok = if let Some(quoted) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        !quoted.is_empty() && !quoted.chars().any(|c| c.is_control())
    } else {
        let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
        !local.is_empty()
            && local.split('.').all(|atom| !atom.is_empty() && atom.chars().all(atext))
    };
    let domain_ok = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.strip_prefix("IPv6:") {
            Some(v6) => v6.parse::<Ipv6Addr>().is_ok(),
            None => literal.parse::<Ipv4Addr>().is_ok(),
        },
        None => hostname(domain),
    };
    local.len() <= 64 && local_ok && domain_ok
}

/// RFC 1123 host names: dot-separated labels of letters, digits and
/// hyphens, none starting or ending with a hyphen, `--` in the third and
/// fourth places only for an A-label (`xn--`), which must decode.
fn hostname(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
                && (label.get(2..4) != Some("--") || a_label(label))
        })
}

/// An IDNA A-label: `xn--` and Punycode that decodes to a valid label.
fn a_label(label: &str) -> bool {
    label.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
        && idna::domain_to_ascii_strict(label).is_ok()
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in hexadecimal digits.
fn uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// RFC 6901: empty, or `/`-separated tokens in which `~` is only `~0` or
/// `~1`.
fn json_pointer(text: &str) -> bool {
    (text.is_empty() || text.starts_with('/'))
        && text.split('~').skip(1).all(|after| after.starts_with(['0', '1']))
}

/// A non-negative integer, then `#` or a JSON Pointer.
fn relative_json_pointer(text: &str) -> bool {
    let n = text.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || (n > 1 && text.starts_with('0')) {
        return false;
    }
    let rest = &text[n..];
    rest == "#" || json_pointer(rest)
}

#[cfg(test)]
mod tests {
    use super::check;

    fn ok(format: &str, good: &[&str], bad: &[&str]) {
        for text in good {
            assert_eq!(check(format, text), Some(true), "{format}: {text:?} is valid");
        }
        for text in bad {
            assert_eq!(check(format, text), Some(false), "{format}: {text:?} is not valid");
        }
    }

    #[test]
    fn dates_and_times() {
        ok(
            "date-time",
            &["2026-12-04T20:30:00Z", "2024-03-01t00:59:60.5+01:00", "2026-01-01T00:00:00-05:30"],
            &[
                "2026-12-04",
                "2026-02-29T00:00:00Z",
                "2026-12-04T24:00:00Z",
                "2026-12-04T20:30Z",
                "",
            ],
        );
        ok("date", &["2000-02-29", "2026-12-31"], &["1900-02-29", "2026-13-01", "2026-1-01"]);
        ok("time", &["08:30:00Z", "23:59:59.999+02:00"], &["08:30:00", "8:30:00Z"]);
        ok("duration", &["P1Y2M3D", "PT30S", "P2W", "P1DT2H"], &["P", "PT", "P1S", "1Y", "P1M1Y"]);
    }

    #[test]
    fn addresses_and_names() {
        ok(
            "email",
            &["ada@example.com", "a.b+c@sub.example.org", "\"x y\"@example.com", "a@[127.0.0.1]"],
            &["ada", "@example.com", "ada@", "a..b@example.com", "ada@-x.com"],
        );
        ok("hostname", &["example.com", "a-b.c", "localhost"], &["-a.com", "a_b.com", ""]);
        ok("ipv4", &["192.168.0.1"], &["256.0.0.1", "1.2.3"]);
        ok("ipv6", &["::1", "2001:db8::8a2e:370:7334"], &["::g", "1.2.3.4"]);
        ok("uuid", &["67e55044-10b1-426f-9247-bb680e5fe0c8"], &["67e55044-10b1-426f-9247", "x"]);
        ok(
            "uri",
            &["https://example.com/a?b#c", "urn:isbn:0451450523"],
            &["/relative", "no scheme"],
        );
        ok(
            "uri-reference",
            &["/relative", "../x", "https://example.com", "#frag"],
            &["a b", "\\x"],
        );
        ok("json-pointer", &["", "/a/b", "/a~0b/~1"], &["a", "/a~2"]);
        ok("relative-json-pointer", &["0", "1/a", "2#"], &["", "01", "-1", "/a"]);
        ok("regex", &["^[a-z]+$"], &["(unclosed"]);
    }

    proptest::proptest! {
        /// An agent's text cannot make a format check panic.
        #[test]
        fn any_text_gets_an_answer(text in "\\PC*|[0-9:.TZ+@\\[\\]/~#-]{0,40}") {
            for format in [
                "date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6",
                "uuid", "uri", "uri-reference", "json-pointer", "relative-json-pointer", "regex",
            ] {
                proptest::prop_assert!(check(format, &text).is_some());
            }
        }
    }

    #[test]
    fn other_formats_are_annotations() {
        assert_eq!(check("uri-template", "{x"), None);
        assert_eq!(check("made-up", "anything"), None);
    }
}

//! `pattern` and `patternProperties`: JSON Schema's regular expressions
//! (ECMA-262) run on the `regex` crate.
//!
//! The two dialects agree on most of what a schema's pattern holds. Where
//! they differ, [`purview_pattern::ecma_to_regex`] spells out the ECMA
//! meaning before compiling: `\d`, `\w` and `\b` are ASCII, `\s` is a fixed
//! set of spaces, `.` stops at every line terminator, and `\cX` is a
//! control character. So `^\d{4}$` does not take four Arabic-Indic digits
//! for a PIN. A pattern `regex` cannot run (look-around, back-references)
//! is refused when the schema is compiled, so no pattern is ever skipped;
//! `#[arg(pattern = "..")]` is checked against the same translation at
//! compile time.
//!
//! Compiled patterns are kept, so a pattern checked on every call is
//! compiled once.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
};

use regex::Regex;

/// The largest compiled program a pattern of the app's schemas may make:
/// the `regex` crate's own default, which a name in any script of up to a
/// hundred letters (`^\p{L}{1,100}$`) fits in, and a repetition such as
/// `\w{1000}{1000}` does not.
const SIZE_LIMIT: usize = 10 << 20;

/// The same for a pattern an agent sends as a value (the `regex` format):
/// it is only checked for being one, so a smaller program is enough.
const SENT_SIZE_LIMIT: usize = 1 << 20;

/// How many distinct patterns are kept compiled; an app has a handful.
const KEPT: usize = 256;

/// Whether `text`, sent by an agent, is an ECMA-262 regular expression
/// (the `regex` format). It is compiled with the smaller program limit and
/// not kept, so it does not fill the app's cache. A look-around or a
/// back-reference is ECMA-262 that the `regex` crate cannot run: then only
/// the text before it was parsed, and the text is taken as valid.
pub(crate) fn is_ecma_regex(text: &str) -> bool {
    use regex_syntax::ast::{ErrorKind, parse::Parser};
    if purview_pattern::check_ecma_pattern(text).is_err() {
        return false;
    }
    match build(text, SENT_SIZE_LIMIT) {
        Ok(_) | Err(regex::Error::CompiledTooBig(_)) => true,
        Err(_) => Parser::new().parse(&purview_pattern::ecma_to_regex(text)).is_err_and(|e| {
            matches!(
                e.kind(),
                ErrorKind::UnsupportedLookAround | ErrorKind::UnsupportedBackreference
            )
        }),
    }
}

fn build(pattern: &str, size_limit: usize) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(&purview_pattern::ecma_to_regex(pattern))
        .size_limit(size_limit)
        .build()
}

/// `pattern` compiled and kept, or why it cannot be.
pub(crate) fn compile(pattern: &str) -> Result<Arc<Regex>, String> {
    static KEPT_PATTERNS: OnceLock<Mutex<HashMap<String, Arc<Regex>>>> = OnceLock::new();
    let kept = KEPT_PATTERNS.get_or_init(Default::default);
    if let Some(regex) = kept.lock().unwrap_or_else(|e| e.into_inner()).get(pattern) {
        return Ok(regex.clone());
    }
    let regex = build(pattern, SIZE_LIMIT).map(Arc::new).map_err(|e| match e {
        // The parser's reason is its last line; the lines above show the
        // translated pattern, not the one the app wrote.
        regex::Error::Syntax(text) => {
            let reason = text.lines().last().unwrap_or_default();
            format!(
                "the pattern {pattern:?} is not one Purview can check ({}); patterns run \
                 without look-around or back-references",
                reason.trim_start_matches("error: ")
            )
        }
        _ => format!("the pattern {pattern:?} is too large to check"),
    })?;
    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() < KEPT {
        kept.insert(pattern.to_owned(), regex.clone());
    }
    Ok(regex)
}

/// Whether `text` matches `pattern` anywhere (JSON Schema's meaning);
/// `None` when the pattern cannot be compiled.
pub(crate) fn matches(pattern: &str, text: &str) -> Option<bool> {
    compile(pattern).ok().map(|regex| regex.is_match(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorthand_classes_take_their_ecma_meaning() {
        assert_eq!(matches(r"^\d{4}$", "1234"), Some(true));
        assert_eq!(matches(r"^\d{4}$", "١٢٣٤"), Some(false), "Arabic-Indic digits are not \\d");
        assert_eq!(matches(r"^\w+$", "é"), Some(false));
        assert_eq!(matches(r"^[^\W]+$", "ab_1"), Some(true), "inside a class too");
        assert_eq!(matches(r"^\s$", "\u{a0}"), Some(true));
        assert_eq!(matches(r"^\S$", "\u{a0}"), Some(false));
        assert_eq!(matches(r"^\\d$", r"\d"), Some(true), "an escaped backslash stays one");
    }

    #[test]
    fn a_dot_stops_at_every_line_terminator() {
        assert_eq!(matches("^a.b$", "a-b"), Some(true));
        for end in ["\n", "\r", "\u{2028}", "\u{2029}"] {
            assert_eq!(matches("^a.b$", &format!("a{end}b")), Some(false), "{end:?}");
        }
        assert_eq!(matches("^[.]$", "."), Some(true));
        assert_eq!(matches("^[.]$", "x"), Some(false));
    }

    #[test]
    fn word_boundaries_are_ascii() {
        // ECMA's \w has no é, so there is a boundary between it and `x`.
        assert_eq!(matches(r"\bx", "éx"), Some(true));
        assert_eq!(matches(r"\Bx", "éx"), Some(false));
    }

    #[test]
    fn class_operators_of_regex_are_plain_characters() {
        assert_eq!(matches("^[a&&b]+$", "a&b"), Some(true));
        assert_eq!(matches("^[a~~b]+$", "~"), Some(true));
    }

    #[test]
    fn the_regex_format_is_ecma_262() {
        for valid in ["^a+$", "(?=a)b", r"(a)\1", "[^]", r"\p{L}{1,1000}", r"(?<y>\d{4})"] {
            assert!(is_ecma_regex(valid), "{valid}");
        }
        for invalid in ["(?i)a", r"\A", "[", "a{2}{", r"\p{Klingon}", r"\x{41}"] {
            assert!(!is_ecma_regex(invalid), "{invalid}");
        }
    }

    #[test]
    fn a_match_is_found_anywhere_unless_anchored() {
        assert_eq!(matches("b", "abc"), Some(true));
        assert_eq!(matches("^b", "abc"), Some(false));
    }

    #[test]
    fn patterns_regex_cannot_run_are_refused() {
        assert!(compile("(?=a)b").unwrap_err().contains("look-around"));
        assert!(compile(r"(a)\1").is_err());
        assert!(compile(r"\w{1000}{1000}").unwrap_err().contains("too large"));
        let surrogate = compile(r"\uD800").unwrap_err();
        assert!(surrogate.contains("Unicode scalar value"), "the parser's reason: {surrogate}");
    }

    #[test]
    fn a_name_in_any_script_fits() {
        let name = r"^\p{L}{1,100}$";
        assert_eq!(matches(name, "Ἀριστοτέλης"), Some(true));
        assert_eq!(matches(name, "R2D2"), Some(false));
        assert!(
            build(name, SENT_SIZE_LIMIT).is_err(),
            "an agent's pattern gets the smaller program"
        );
    }

    #[test]
    fn dashes_and_empty_classes_take_their_ecma_meaning() {
        assert_eq!(matches("^[0-9+--]+$", "+1-555"), Some(true));
        assert_eq!(matches("^[--a]$", "A"), Some(true));
        assert_eq!(matches("^[a-z--]+$", "a-b"), Some(true));
        assert_eq!(matches("a[]", "a"), Some(false));
        assert_eq!(matches("^[^]$", "\n"), Some(true));
        assert_eq!(matches("^(?<a$>x)$", "x"), Some(true));
    }
}

//! JSON Schema's argument patterns for Purview. A `pattern` is an ECMA-262
//! regular expression, which a host may check in JavaScript; Purview
//! matches arguments with the `regex` crate, whose syntax and meaning
//! differ. [`ecma_to_regex`] writes a pattern in the `regex` crate's syntax
//! with its ECMA-262 meaning, which the runtime matches with and the macros
//! check `#[arg(pattern = "..")]` against; [`ecma_source_offset`] leads an
//! error in that translation back to the pattern as written; and
//! [`check_ecma_pattern`] says what in a pattern is the `regex` crate's own
//! syntax, which such a host could not compile, and what to write instead.
//!
//! ```
//! use purview_pattern::{check_ecma_pattern, ecma_to_regex};
//!
//! assert_eq!(ecma_to_regex(r"^\d{4}$"), "^[0-9]{4}$");
//! assert!(check_ecma_pattern(r"^\pL+$").unwrap_err().contains(r"`\p{L}`"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(clippy::too_many_lines)]

mod foreign;
mod translate;

use translate::translate;
#[cfg(test)]
use translate::{ANY_BUT_LINE_END, ANYTHING, NOTHING};

/// `pattern`, an ECMA-262 regular expression as JSON Schema's `pattern`
/// holds it, in the syntax of the `regex` crate, with the ECMA meaning:
///
/// - `\d`, `\w` and `\b` are ASCII, and `\s` is ECMA's fixed set of spaces
///   (`regex` makes all of them Unicode), so `^\d{4}$` does not take four
///   Arabic-Indic digits for a PIN;
/// - `.` stops at every line terminator (`\r`, U+2028 and U+2029 too);
/// - `\cX` is a control character, `\0` the NUL character, and `[\b]` a
///   backspace;
/// - inside a class, `[`, `&` and `~` are themselves, and a `-` makes a
///   range only between two characters, as in `[+--]` (in `regex` they
///   nest a class or join two, and `--` takes one from another);
/// - `[]` matches nothing and `[^]` any character;
/// - a named group is a plain group: its name is never used, as
///   back-references are refused, and ECMA allows names `regex` does not.
///
/// What `regex` cannot run at all, look-around and back-references, is
/// left as it is, for its parser to refuse.
///
/// ```
/// use purview_pattern::ecma_to_regex;
///
/// assert_eq!(ecma_to_regex(r"^\d{4}$"), "^[0-9]{4}$");
/// assert_eq!(ecma_to_regex(r"^\cJ$"), r"^\x0A$");
/// assert_eq!(ecma_to_regex("[a&&b]"), r"[a\&\&b]");
/// ```
pub fn ecma_to_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    translate(pattern, |piece, _| out.push_str(piece), |_, _| {});
    out
}

/// Where in `pattern` the byte at `offset` of [`ecma_to_regex`]'s
/// translation comes from: to point an error the `regex` parser finds in
/// the translation at the pattern as it was written.
///
/// ```
/// use purview_pattern::{ecma_source_offset, ecma_to_regex};
///
/// let pattern = r"\d(?=x)";
/// let translated = ecma_to_regex(pattern);
/// let look_ahead = translated.find("(?=").unwrap();
/// assert_eq!(ecma_source_offset(pattern, look_ahead), pattern.find("(?=").unwrap());
/// ```
pub fn ecma_source_offset(pattern: &str, offset: usize) -> usize {
    let (mut written, mut source) = (0, 0);
    translate(
        pattern,
        |piece, from| {
            if written <= offset {
                source = from;
            }
            written += piece.len();
        },
        |_, _| {},
    );
    source
}

/// Whether `pattern` is ECMA-262 as JSON Schema means it (with the `u`
/// flag), as far as the `regex` crate's syntax differs from it: what a
/// Rust developer may write from habit and a host that checks arguments
/// in JavaScript could not compile, such as inline flags (`(?i)`),
/// `(?P<name>..)`, `\A`, `\z`, `\pL`, `\x{..}`, an escape of a character that
/// needs none (`\#`), or a class inside a class (`[[:alpha:]]`). The error
/// says what to write instead and where, counting characters from 1.
///
/// ```
/// use purview_pattern::check_ecma_pattern;
///
/// assert!(check_ecma_pattern(r"^[A-Za-z]+\d{2}$").is_ok());
/// let error = check_ecma_pattern("(?i)^abc$").unwrap_err();
/// assert!(error.contains("inline flags") && error.contains("character 1"), "{error}");
/// ```
pub fn check_ecma_pattern(pattern: &str) -> Result<(), String> {
    let mut first = None;
    translate(
        pattern,
        |_, _| {},
        |at, problem| {
            first.get_or_insert((at, problem));
        },
    );
    match first {
        None => Ok(()),
        Some((at, problem)) => Err(format!(
            "this pattern is not ECMA-262, which JSON Schema patterns are and hosts that check \
             arguments in JavaScript compile: {} (at character {})",
            problem.advice(),
            pattern.get(..at).map_or(at, |before| before.chars().count()) + 1
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorthand_classes_are_spelled_out_inside_classes_too() {
        assert_eq!(ecma_to_regex(r"[^\W]"), "[^[^A-Za-z0-9_]]");
        assert_eq!(ecma_to_regex(r"\\d"), r"\\d", "an escaped backslash stays one");
    }

    #[test]
    fn a_dot_in_a_class_is_a_dot() {
        assert_eq!(ecma_to_regex("[.]."), format!("[.]{ANY_BUT_LINE_END}"));
    }

    #[test]
    fn control_and_nul_escapes() {
        assert_eq!(ecma_to_regex(r"\cC\cc"), r"\x03\x03");
        assert_eq!(ecma_to_regex(r"\c1"), r"\c1", "not a control escape: left for the parser");
        assert_eq!(ecma_to_regex(r"\0"), r"\x00");
        assert_eq!(ecma_to_regex(r"[\b]\b"), r"[\x08](?-u:\b)");
    }

    #[test]
    fn offsets_lead_back_to_the_pattern_as_written() {
        let pattern = r"é\s(?<=a)";
        let translated = ecma_to_regex(pattern);
        let at = translated.find("(?<=").unwrap();
        assert_eq!(ecma_source_offset(pattern, at), pattern.find("(?<=").unwrap());
        assert_eq!(ecma_source_offset(pattern, 0), 0);
        assert_eq!(ecma_source_offset(pattern, 3), 2, "inside the spelled-out \\s");
    }

    #[test]
    fn a_dash_is_a_range_only_between_two_characters() {
        assert_eq!(ecma_to_regex("[+--]"), r"[+-\-]", "a range from + to -");
        assert_eq!(ecma_to_regex("[--a]"), r"[\--a]", "a range from - to a");
        assert_eq!(ecma_to_regex("[a-z--]"), r"[a-z\-\-]");
        assert_eq!(ecma_to_regex("[-a]"), r"[\-a]");
        assert_eq!(ecma_to_regex("[a-]"), r"[a\-]");
        assert_eq!(ecma_to_regex("a-b"), "a-b", "outside a class, a dash is a dash");
    }

    #[test]
    fn empty_classes() {
        assert_eq!(ecma_to_regex("a[]"), format!("a{NOTHING}"));
        assert_eq!(ecma_to_regex("[^]*"), format!("{ANYTHING}*"));
        assert_eq!(ecma_to_regex("[][]"), format!("{NOTHING}{NOTHING}"));
        assert_eq!(ecma_to_regex("[^"), "[^", "unclosed: left for the parser");
    }

    #[test]
    fn named_groups_become_plain_groups() {
        assert_eq!(ecma_to_regex("(?<a$>x)"), "(?:x)");
        assert_eq!(ecma_to_regex("(?<=x)(?<!y)"), "(?<=x)(?<!y)", "look-behinds stay");
        assert_eq!(ecma_to_regex("(?<open"), "(?<open", "unclosed: left for the parser");
        let pattern = "(?<year>x)(?<!y)";
        let at = ecma_to_regex(pattern).find("(?<!").unwrap();
        assert_eq!(ecma_source_offset(pattern, at), pattern.find("(?<!").unwrap());
    }

    #[test]
    fn ecma_patterns_pass_the_check() {
        for pattern in [
            r"^\d{4}$",
            r"^[A-Za-z0-9._%+-]+@[a-z]+\.[a-z]{2,}$",
            r"^\p{L}+$",
            r"\p{Script=Greek}\P{sc=Han}\p{gc=Lu}\p{scx=Latn}\p{Alphabetic}\p{Any}",
            r"\P{Lu}\u00e9\u{1F600}\x41",
            r"(?:a|b)(?<year>\d{4})(?=x)(?!y)(?<=z)(?<!w)",
            r"[\-\]\\/.*+?^$(){}|]\/\.\*\+\?\^\$\(\)\{\}\|\[\]",
            r"\cJ\0\f\n\r\t\v[\b]\b\B",
            "[[][a[][:-[]",
            r"[>-\u00e9-\p{L}][\cz-<\\-\u{1F600}-\D]\x41{2}",
            r"[\w-][a-z-\w][\w\-a]a{2}\p{L}\u{e9}",
        ] {
            assert_eq!(check_ecma_pattern(pattern), Ok(()), "{pattern}");
        }
    }

    #[test]
    fn regex_only_syntax_is_named_with_its_ecma_form() {
        let cases = [
            ("(?i)abc", "inline flags", 1),
            ("a(?s:.)", "inline flags", 2),
            ("(?P<year>x)", "`(?<name>..)`", 1),
            (r"\Aab\z", "anchor with `^` and `$`", 1),
            (r"é\h", r"`\h` is not an escape", 2),
            (r"^\pL+$", r"`\p{L}`", 2),
            (r"\x{41}", "two hex digits", 1),
            (r"\u41", "four hex digits", 1),
            (r"a\#b", "write `#`", 2),
            (r"a\-b", "write `-`", 2),
            ("[[:alpha:]]", "POSIX", 2),
            ("[a-z[0-9]]", "POSIX", 5),
            ("a]", "closes nothing", 2),
            ("[]a]", "closes nothing", 4),
            ("a}", "closes nothing", 2),
            (r"^[\w-.]+$", r"`[\w.-]`", 5),
            (r"[a-\d]", r"`[\w.-]`", 4),
            (r"\pN", r"`\p{N}`", 1),
            (r"^\p{Greek}+$", r"`\p{Script=Greek}`", 2),
            (r"\p{letter}", "exact", 1),
            (r"\p{script=Greek}", "`Script` (`sc`)", 1),
            (r"\00", "octal", 1),
            ("a(?", "must begin a group", 2),
        ];
        for (pattern, advice, at) in cases {
            let error = check_ecma_pattern(pattern).expect_err(pattern);
            assert!(error.contains(advice), "{pattern}: {error}");
            assert!(error.contains(&format!("(at character {at})")), "{pattern}: {error}");
        }
    }

    #[test]
    fn unclosed_group_names_are_left_as_written() {
        let pattern = "(?<a".repeat(2_000);
        assert_eq!(ecma_to_regex(&pattern), pattern);
        assert!(check_ecma_pattern(&pattern).is_ok(), "left for the parser to refuse");
        assert_eq!(ecma_to_regex(r"(?<\u{62}é$>x)"), "(?:x)", "a name of escapes and letters");
    }

    #[test]
    fn a_trailing_backslash_is_kept() {
        assert_eq!(ecma_to_regex("a\\"), "a\\");
    }
}

//! JSON Schema's patterns (ECMA-262) in the `regex` crate's syntax, which
//! the runtime matches arguments with and the macros check
//! `#[arg(pattern = "..")]` against.

mod foreign;

use foreign::Foreign;
pub use foreign::check_ecma_pattern;

/// ECMA-262's `\s`: white space and line terminators.
const SPACE: &str =
    r"[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]";
const NOT_SPACE: &str = r"[^\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]";
/// ECMA-262's `.`: anything but a line terminator.
const ANY_BUT_LINE_END: &str = r"[^\n\r\x{2028}\x{2029}]";
/// ECMA-262's `[^]` and `[]`.
const ANYTHING: &str = r"[\x{0}-\x{10FFFF}]";
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";

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
/// use purview_naming::ecma_to_regex;
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
/// use purview_naming::{ecma_source_offset, ecma_to_regex};
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

/// Where the translation is, as to classes: outside one, or inside one at
/// a point of ECMA's grammar of ranges, which says what a `-` is there.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    Outside,
    /// Just after `[` or `[^`.
    Start,
    /// After a character that may begin a range.
    Atom,
    /// After the `-` of a range.
    RangeOp,
    /// After the character that ends a range.
    RangeEnd,
    /// After a class escape (`\d`, `\w`, `\p{..}`), which cannot end or
    /// begin a range.
    Set,
}

impl Class {
    /// Where a class is once one more character of it is written.
    fn after_atom(self) -> Self {
        if self == Class::RangeOp { Class::RangeEnd } else { Class::Atom }
    }
}

/// Calls `emit` with each piece of the translation and the byte offset in
/// `pattern` it comes from, and `foreign` with each piece of `pattern`
/// that is not ECMA-262 and where it begins.
fn translate(
    pattern: &str,
    mut emit: impl FnMut(&str, usize),
    mut foreign: impl FnMut(usize, Foreign),
) {
    let mut class = Class::Outside;
    // The first `[` the open class holds, and that of the last class closed.
    let (mut bracket, mut closed_bracket) = (None, None);
    // Whether a quantifier's `{` (or a `\p{`, `\u{`) is open.
    let mut brace = false;
    let mut chars = pattern.char_indices().peekable();
    let mut buffer = [0; 4];
    while let Some((at, c)) = chars.next() {
        let in_class = class != Class::Outside;
        let next = chars.peek().map(|&(_, n)| n);
        match c {
            '\\' => {
                let Some((_, escaped)) = chars.next() else {
                    emit("\\", at);
                    continue;
                };
                let after = chars.peek().map(|&(_, n)| n);
                match escaped {
                    'd' => emit("[0-9]", at),
                    'D' => emit("[^0-9]", at),
                    'w' => emit("[A-Za-z0-9_]", at),
                    'W' => emit("[^A-Za-z0-9_]", at),
                    's' => emit(SPACE, at),
                    'S' => emit(NOT_SPACE, at),
                    'b' if in_class => emit(r"\x08", at),
                    'b' => emit(r"(?-u:\b)", at),
                    'B' if !in_class => emit(r"(?-u:\B)", at),
                    'c' if after.is_some_and(|l| l.is_ascii_alphabetic()) => {
                        let letter = chars.next().map_or(0, |(_, l)| l as u8);
                        emit(&format!(r"\x{:02X}", letter % 32), at);
                    }
                    '0' if !after.is_some_and(|d| d.is_ascii_digit()) => emit(r"\x00", at),
                    other => {
                        if let Some(problem) = Foreign::of_escape(other, in_class, chars.clone()) {
                            foreign(at, problem);
                        }
                        emit("\\", at);
                        emit(other.encode_utf8(&mut buffer), at);
                        // The rest of the escape (`\x41`, `\u00e9`,
                        // `\u{1F600}`, `\p{L}`) is one character, or one
                        // class, of the pattern.
                        let braced = after == Some('{') && matches!(other, 'u' | 'p' | 'P');
                        let digits = match other {
                            'x' => 2,
                            'u' if !braced => 4,
                            _ => 0,
                        };
                        let mut taken = 0;
                        while let Some(&(_, d)) = chars.peek() {
                            if !braced && (taken == digits || !d.is_ascii_hexdigit()) {
                                break;
                            }
                            chars.next();
                            taken += 1;
                            emit(d.encode_utf8(&mut buffer), at);
                            if braced && d == '}' {
                                break;
                            }
                        }
                    }
                }
                if in_class && matches!(escaped, 'd' | 'D' | 'w' | 'W' | 's' | 'S' | 'p' | 'P') {
                    if class == Class::RangeOp {
                        foreign(at, Foreign::SetInRange);
                    }
                    class = Class::Set;
                } else if in_class {
                    class = class.after_atom();
                }
            }
            '[' if !in_class => {
                // ECMA's `[]` matches nothing and `[^]` anything, where
                // `regex` reads a `]` that opens a class as a character.
                let negated = next == Some('^');
                let mut ahead = chars.clone().skip(usize::from(negated));
                if ahead.next().is_some_and(|(_, n)| n == ']') {
                    chars.nth(usize::from(negated));
                    emit(if negated { ANYTHING } else { NOTHING }, at);
                    continue;
                }
                class = Class::Start;
                closed_bracket = None;
                emit("[", at);
                if negated {
                    let (caret, _) = chars.next().unwrap_or((at, '^'));
                    emit("^", caret);
                }
            }
            ']' if in_class => {
                class = Class::Outside;
                closed_bracket = bracket.take();
                emit("]", at);
            }
            // ECMA refuses a `]` or `}` that closes nothing, where `regex`
            // takes it as a character. A `]` after a class that held a `[`
            // is what a class written inside a class leaves.
            ']' => {
                match closed_bracket {
                    Some(opened) => foreign(opened, Foreign::NestedClass),
                    None => foreign(at, Foreign::Lone(']')),
                }
                emit("]", at);
            }
            '{' if !in_class => {
                brace = true;
                emit("{", at);
            }
            '}' if !in_class => {
                if !std::mem::take(&mut brace) {
                    foreign(at, Foreign::Lone('}'));
                }
                emit("}", at);
            }
            // A `-` is a range's only between two characters; every other
            // one is written `\-`, so that `regex` never reads `--` (its
            // class difference) where ECMA has a range ending in `-`.
            '-' if in_class => {
                let inner = next.is_some_and(|n| n != ']');
                if class == Class::Set && inner {
                    foreign(at, Foreign::SetInRange);
                }
                if class == Class::Atom && inner {
                    class = Class::RangeOp;
                    emit("-", at);
                } else {
                    class = class.after_atom();
                    emit(r"\-", at);
                }
            }
            '[' | '&' | '~' if in_class => {
                if c == '[' {
                    bracket = bracket.or(Some(at));
                }
                class = class.after_atom();
                emit("\\", at);
                emit(c.encode_utf8(&mut buffer), at);
            }
            '.' if !in_class => emit(ANY_BUT_LINE_END, at),
            // A named group: only its grouping matters (back-references
            // are refused), and ECMA allows names `regex` does not (`$`).
            '(' if !in_class && named_group(chars.clone()) => {
                for (_, n) in chars.by_ref() {
                    if n == '>' {
                        break;
                    }
                }
                emit("(?:", at);
            }
            '(' if !in_class && next == Some('?') => {
                let kind = chars.clone().nth(1).map(|(_, k)| k);
                if !matches!(kind, Some(':' | '=' | '!' | '<')) {
                    foreign(at, Foreign::Group(kind));
                }
                emit("(", at);
            }
            other => {
                if in_class {
                    class = class.after_atom();
                }
                emit(other.encode_utf8(&mut buffer), at);
            }
        }
    }
}

/// Whether what follows a `(` is `?<name>`, not a look-behind, with the
/// name closed. The name is read only as far as characters a name can
/// hold (letters, digits, `_`, `$` and `\u` escapes): a `(?<` that never
/// closes stops at the next `(`, so a pattern of many is read in linear
/// time, not once to its end for each.
fn named_group(mut rest: impl Iterator<Item = (usize, char)>) -> bool {
    let mut next = || rest.next().map(|(_, c)| c);
    let in_name = |c: &char| c.is_alphanumeric() || matches!(c, '_' | '$' | '\\' | '{' | '}');
    next() == Some('?')
        && next() == Some('<')
        && next().is_some_and(|c| c != '=' && c != '!' && c != '>')
        && std::iter::from_fn(next).find(|c| !in_name(c)) == Some('>')
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

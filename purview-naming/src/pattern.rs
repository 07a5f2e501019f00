//! JSON Schema's patterns (ECMA-262) in the `regex` crate's syntax, which
//! the runtime matches arguments with and the macros check
//! `#[arg(pattern = "..")]` against.

/// ECMA-262's `\s`: white space and line terminators.
const SPACE: &str =
    r"[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]";
const NOT_SPACE: &str = r"[^\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]";
/// ECMA-262's `.`: anything but a line terminator.
const ANY_BUT_LINE_END: &str = r"[^\n\r\x{2028}\x{2029}]";

/// `pattern`, an ECMA-262 regular expression as JSON Schema's `pattern`
/// holds it, in the syntax of the `regex` crate, with the ECMA meaning:
///
/// - `\d`, `\w` and `\b` are ASCII, and `\s` is ECMA's fixed set of spaces
///   (`regex` makes all of them Unicode), so `^\d{4}$` does not take four
///   Arabic-Indic digits for a PIN;
/// - `.` stops at every line terminator (`\r`, U+2028 and U+2029 too);
/// - `\cX` is a control character, `\0` the NUL character, and `[\b]` a
///   backspace;
/// - inside a class, `[`, `&` and `~` are themselves (in `regex` they
///   nest a class or join two).
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
    translate(pattern, |piece, _| out.push_str(piece));
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
    translate(pattern, |piece, from| {
        if written <= offset {
            source = from;
        }
        written += piece.len();
    });
    source
}

/// Calls `emit` with each piece of the translation and the byte offset in
/// `pattern` it comes from.
fn translate(pattern: &str, mut emit: impl FnMut(&str, usize)) {
    let mut in_class = false;
    let mut chars = pattern.char_indices().peekable();
    let mut buffer = [0; 4];
    while let Some((at, c)) = chars.next() {
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
                        emit("\\", at);
                        emit(other.encode_utf8(&mut buffer), at);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                emit("[", at);
                if next == Some('^') {
                    let (caret, _) = chars.next().unwrap_or((at, '^'));
                    emit("^", caret);
                }
            }
            '[' | '&' | '~' if in_class => {
                emit("\\", at);
                emit(c.encode_utf8(&mut buffer), at);
            }
            ']' if in_class => {
                in_class = false;
                emit("]", at);
            }
            '.' if !in_class => emit(ANY_BUT_LINE_END, at),
            other => emit(other.encode_utf8(&mut buffer), at),
        }
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
    fn a_trailing_backslash_is_kept() {
        assert_eq!(ecma_to_regex("a\\"), "a\\");
    }
}

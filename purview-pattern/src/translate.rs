//! The translation itself: one pass over an ECMA-262 pattern that writes
//! its `regex` counterpart piece by piece, and notes on the way what in it
//! is not ECMA-262.

use std::{iter::Peekable, str::CharIndices};

use crate::foreign::Foreign;

/// ECMA-262's `\s`: white space and line terminators.
pub(crate) const SPACE: &str =
    r"[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]";
pub(crate) const NOT_SPACE: &str = r"[^\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]";
/// ECMA-262's `.`: anything but a line terminator.
pub(crate) const ANY_BUT_LINE_END: &str = r"[^\n\r\x{2028}\x{2029}]";
/// ECMA-262's `[^]` and `[]`.
pub(crate) const ANYTHING: &str = r"[\x{0}-\x{10FFFF}]";
pub(crate) const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";

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
pub(crate) fn translate(
    pattern: &str,
    emit: impl FnMut(&str, usize),
    foreign: impl FnMut(usize, Foreign),
) {
    let mut translation = Translation {
        chars: pattern.char_indices().peekable(),
        class: Class::Outside,
        bracket: None,
        closed_bracket: None,
        brace: false,
        emit,
        foreign,
    };
    while let Some((at, c)) = translation.chars.next() {
        translation.character(at, c);
    }
}

/// One translation under way: the pattern still to read, what it has
/// opened, and where its pieces go.
struct Translation<'p, E, F> {
    chars: Peekable<CharIndices<'p>>,
    class: Class,
    /// The first `[` the open class holds.
    bracket: Option<usize>,
    /// The first `[` the last class closed held.
    closed_bracket: Option<usize>,
    /// Whether a quantifier's `{` (or a `\p{`, `\u{`) is open.
    brace: bool,
    emit: E,
    foreign: F,
}

impl<E: FnMut(&str, usize), F: FnMut(usize, Foreign)> Translation<'_, E, F> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, n)| n)
    }

    fn in_class(&self) -> bool {
        self.class != Class::Outside
    }

    fn emit_char(&mut self, c: char, at: usize) {
        (self.emit)(c.encode_utf8(&mut [0; 4]), at);
    }

    /// Translates the character `c`, at byte `at`, and whatever of the
    /// pattern after it belongs to the same piece.
    fn character(&mut self, at: usize, c: char) {
        let in_class = self.in_class();
        let next = self.peek();
        match c {
            '\\' => self.escape(at),
            '[' if !in_class => self.open_class(at, next),
            ']' if in_class => {
                self.class = Class::Outside;
                self.closed_bracket = self.bracket.take();
                (self.emit)("]", at);
            }
            ']' => self.closing_nothing(at),
            '{' if !in_class => {
                self.brace = true;
                (self.emit)("{", at);
            }
            '}' if !in_class => {
                if !std::mem::take(&mut self.brace) {
                    (self.foreign)(at, Foreign::Lone('}'));
                }
                (self.emit)("}", at);
            }
            '-' if in_class => self.dash_in_class(at, next),
            '[' | '&' | '~' if in_class => {
                if c == '[' {
                    self.bracket = self.bracket.or(Some(at));
                }
                self.class = self.class.after_atom();
                (self.emit)("\\", at);
                self.emit_char(c, at);
            }
            '.' if !in_class => (self.emit)(ANY_BUT_LINE_END, at),
            '(' if !in_class => self.open_group(at, next),
            other => {
                if in_class {
                    self.class = self.class.after_atom();
                }
                self.emit_char(other, at);
            }
        }
    }

    /// A `\` at `at` and what it escapes.
    fn escape(&mut self, at: usize) {
        let in_class = self.in_class();
        let Some((_, escaped)) = self.chars.next() else {
            (self.emit)("\\", at);
            return;
        };
        let after = self.peek();
        match escaped {
            'd' => (self.emit)("[0-9]", at),
            'D' => (self.emit)("[^0-9]", at),
            'w' => (self.emit)("[A-Za-z0-9_]", at),
            'W' => (self.emit)("[^A-Za-z0-9_]", at),
            's' => (self.emit)(SPACE, at),
            'S' => (self.emit)(NOT_SPACE, at),
            'b' if in_class => (self.emit)(r"\x08", at),
            'b' => (self.emit)(r"(?-u:\b)", at),
            'B' if !in_class => (self.emit)(r"(?-u:\B)", at),
            'c' if after.is_some_and(|l| l.is_ascii_alphabetic()) => {
                let letter = self.chars.next().map_or(0, |(_, l)| l as u8);
                (self.emit)(&format!(r"\x{:02X}", letter % 32), at);
            }
            '0' if !after.is_some_and(|d| d.is_ascii_digit()) => (self.emit)(r"\x00", at),
            other => self.escape_as_written(at, other, after, in_class),
        }
        if in_class && matches!(escaped, 'd' | 'D' | 'w' | 'W' | 's' | 'S' | 'p' | 'P') {
            if self.class == Class::RangeOp {
                (self.foreign)(at, Foreign::SetInRange);
            }
            self.class = Class::Set;
        } else if in_class {
            self.class = self.class.after_atom();
        }
    }

    /// An escape `\{escaped}` both syntaxes read alike, written as it is,
    /// with the rest of it (`\x41`, `\u00e9`, `\u{1F600}`, `\p{L}`): one
    /// character, or one class, of the pattern.
    fn escape_as_written(&mut self, at: usize, escaped: char, after: Option<char>, in_class: bool) {
        if let Some(problem) = Foreign::of_escape(escaped, in_class, self.chars.clone()) {
            (self.foreign)(at, problem);
        }
        (self.emit)("\\", at);
        self.emit_char(escaped, at);
        let braced = after == Some('{') && matches!(escaped, 'u' | 'p' | 'P');
        let digits = match escaped {
            'x' => 2,
            'u' if !braced => 4,
            _ => 0,
        };
        let mut taken = 0;
        while let Some(d) = self.peek() {
            if !braced && (taken == digits || !d.is_ascii_hexdigit()) {
                break;
            }
            self.chars.next();
            taken += 1;
            self.emit_char(d, at);
            if braced && d == '}' {
                break;
            }
        }
    }

    /// A `[` outside a class, `next` the character after it.
    fn open_class(&mut self, at: usize, next: Option<char>) {
        // ECMA's `[]` matches nothing and `[^]` anything, where `regex`
        // reads a `]` that opens a class as a character.
        let negated = next == Some('^');
        let mut ahead = self.chars.clone().skip(usize::from(negated));
        if ahead.next().is_some_and(|(_, n)| n == ']') {
            self.chars.nth(usize::from(negated));
            (self.emit)(if negated { ANYTHING } else { NOTHING }, at);
            return;
        }
        self.class = Class::Start;
        self.closed_bracket = None;
        (self.emit)("[", at);
        if negated {
            let (caret, _) = self.chars.next().unwrap_or((at, '^'));
            (self.emit)("^", caret);
        }
    }

    /// A `]` outside a class. ECMA refuses one that closes nothing, where
    /// `regex` takes it as a character. One after a class that held a `[`
    /// is what a class written inside a class leaves.
    fn closing_nothing(&mut self, at: usize) {
        match self.closed_bracket {
            Some(opened) => (self.foreign)(opened, Foreign::NestedClass),
            None => (self.foreign)(at, Foreign::Lone(']')),
        }
        (self.emit)("]", at);
    }

    /// A `-` in a class, `next` the character after it. It is a range's
    /// only between two characters; every other one is written `\-`, so
    /// that `regex` never reads `--` (its class difference) where ECMA has
    /// a range ending in `-`.
    fn dash_in_class(&mut self, at: usize, next: Option<char>) {
        let inner = next.is_some_and(|n| n != ']');
        if self.class == Class::Set && inner {
            (self.foreign)(at, Foreign::SetInRange);
        }
        if self.class == Class::Atom && inner {
            self.class = Class::RangeOp;
            (self.emit)("-", at);
        } else {
            self.class = self.class.after_atom();
            (self.emit)(r"\-", at);
        }
    }

    /// A `(` outside a class, `next` the character after it.
    fn open_group(&mut self, at: usize, next: Option<char>) {
        if named_group(self.chars.clone()) {
            // A named group: only its grouping matters (back-references
            // are refused), and ECMA allows names `regex` does not (`$`).
            for (_, n) in self.chars.by_ref() {
                if n == '>' {
                    break;
                }
            }
            (self.emit)("(?:", at);
            return;
        }
        if next == Some('?') {
            let kind = self.chars.clone().nth(1).map(|(_, k)| k);
            if !matches!(kind, Some(':' | '=' | '!' | '<')) {
                (self.foreign)(at, Foreign::Group(kind));
            }
        }
        (self.emit)("(", at);
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

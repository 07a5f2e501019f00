//! What an action's arguments and result must be, and the constraints an
//! argument can carry.
//!
//! An argument's type is an [`ArgumentType`] (it decodes from JSON and has a
//! JSON Schema); a result's type is a [`ResultType`] (it has a JSON Schema,
//! for the tool's outputSchema). For a type of your own, derive both
//! through Purview's re-exports, so no second copy of serde or schemars can
//! be picked:
//!
//! ```
//! #[derive(purview::serde::Deserialize, purview::serde::Serialize, purview::schemars::JsonSchema)]
//! #[serde(crate = "purview::serde")]
//! #[schemars(crate = "purview::schemars")]
//! struct Address { street: String, city: String }
//! ```
//!
//! Constraints are written on the parameter with `#[arg(..)]`:
//!
//! | constraint | on | in the input schema | refused with |
//! |---|---|---|---|
//! | `range(min = 1, max = 99)` | numbers ([`Ranged`]) | `minimum` / `maximum` | "must be between 1 and 99" ("must be at least 1" with one bound) |
//! | `length(min = 1, max = 80)` | text and lists ([`Measured`]) | `minLength`/`maxLength`, or `minItems`/`maxItems` | "must be between 1 and 80 characters long", "must be at most 80 characters long" |
//! | `pattern = "^[A-Z]{3}$"` | text ([`Textual`]) | `pattern` | "must match the pattern ^[A-Z]{3}$" |
//! | `pattern = "..", message = "a currency code such as EUR"` | text | `pattern` | "must be a currency code such as EUR" |
//! | `example = "EUR"` | any argument | `examples` (the desk's placeholder) | with a pattern and no message: "must be written like EUR" |
//!
//! A pattern is for machines; say what it means to a person with
//! `message` (how a failure reads, after "must be") and `example` (a value
//! as the person would write it). The words are the same in the agent's
//! `validation_failed`, the typed call's refusal and under the desk's field.
//!
//! Each bound is optional (`range(min = 0)` alone is fine). A constraint is
//! part of the tool's input schema, so an agent sees it before calling; a
//! call that breaks it is refused with `validation_failed` naming the
//! argument, before the action runs, and nothing changes. The typed calls
//! of the person's side (`handle.act()`) are held to the same constraints.
//! An `Option` argument that is left out passes: a constraint applies to a
//! value that is there.
//!
//! Lengths count characters (Unicode scalar values), as JSON Schema does,
//! not bytes. A [`Secret`] can carry `length` and `pattern`;
//! the refusal never shows its value.
//!
//! A pattern means what it means in JSON Schema (ECMA-262): it matches
//! anywhere unless anchored; `\d`, `\w`, `\b` and `\s` are ASCII digits,
//! ASCII word characters, the boundaries between those and the rest, and
//! the ECMA-262 spaces; `.` matches anything but a line terminator (`\n`,
//! `\r`, U+2028, U+2029); `\cJ` is a control character. It runs on the
//! `regex` crate, which has no look-around or back-references; the macro
//! refuses such a pattern at compile time, and a rule that needs one
//! belongs in the action, refused with `cx.invalid(..)`. The macro also
//! refuses the `regex` crate's own syntax that ECMA-262 lacks, such as
//! `(?i)`, `\A` or `[[:alpha:]]`, and says what to write instead: the
//! pattern goes into the input schema, where hosts that check arguments
//! in JavaScript compile it.
//!
//! ```
//! use purview::{actions, window};
//!
//! #[window]
//! #[derive(Clone, Default)]
//! struct Ticket { priority: u8, subject: String }
//!
//! #[actions]
//! impl Ticket {
//!     /// Sets the ticket's priority and subject.
//!     #[action]
//!     fn triage(
//!         &mut self,
//!         /// 1 (lowest) to 5.
//!         #[arg(range(min = 1, max = 5))]
//!         priority: u8,
//!         #[arg(length(min = 1, max = 80))]
//!         subject: String,
//!     ) {
//!         self.priority = priority;
//!         self.subject = subject;
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let app = purview::App::builder().build();
//! let ticket = app.open(Ticket::default()).unwrap();
//! let tool = format!("{}__triage", ticket.id());
//! let args = serde_json::json!({"priority": 9, "subject": "", "expectedVersion": 1});
//! let refused = app.call(&tool, args.as_object().cloned()).await.unwrap_err();
//! let fields: Vec<_> = refused.fields.unwrap().into_iter().map(|f| (f.field, f.error)).collect();
//! assert_eq!(fields, [
//!     ("priority".to_owned(), "must be between 1 and 5".to_owned()),
//!     ("subject".to_owned(), "must be between 1 and 80 characters long".to_owned()),
//! ]);
//! # });
//! ```
//!
//! A constraint on a type it cannot apply to is a compile error that says
//! which constraint and which type.

use std::collections::{BTreeSet, HashSet, VecDeque};

use crate::{Secret, model::FieldError, validate::count};

/// A type an action can take as an argument: decodable from JSON, with a
/// JSON Schema for the tool's input schema. Implemented for every such type.
///
/// ```
/// fn takes<T: purview::constraint::ArgumentType>() {}
/// takes::<Vec<String>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an action's argument: it needs `Deserialize` and `JsonSchema`",
    label = "an argument's type decodes from JSON and has a JSON Schema",
    note = "write #[purview::data(argument)] above `{Self}`: it derives `Deserialize` and `JsonSchema` through purview, with no serde or schemars dependency of your own"
)]
pub trait ArgumentType: schemars::JsonSchema + serde::de::DeserializeOwned {}

impl<T: schemars::JsonSchema + serde::de::DeserializeOwned> ArgumentType for T {}

/// Asserts at compile time that `T` can be an action's argument: what
/// `#[actions]` writes for each argument, so a type without a schema or a
/// way to decode is first reported at the argument with what to derive.
///
/// ```
/// purview::constraint::argument::<String>();
/// ```
pub fn argument<T: ArgumentType>() {}

/// A type an action can return: it has a JSON Schema, for the tool's
/// outputSchema. Implemented for every such type.
///
/// ```
/// fn returns<T: purview::constraint::ResultType>() {}
/// returns::<u32>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an action's result: it has no JSON Schema",
    label = "a result's type needs `JsonSchema` (and `Serialize`)",
    note = "write #[purview::data(result)] above `{Self}`: it derives `Serialize` and `JsonSchema` through purview, with no serde or schemars dependency of your own"
)]
pub trait ResultType: schemars::JsonSchema {}

impl<T: schemars::JsonSchema + ?Sized> ResultType for T {}

/// A number `#[arg(range(..))]` can bound.
///
/// Implemented for Rust's integer and float types, and `Option`s of them.
///
/// ```
/// use purview::constraint::Ranged;
/// assert_eq!(3u8.number(), Some(3.0));
/// assert_eq!(None::<i32>.number(), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`range` bounds numbers, and `{Self}` is not a number",
    label = "`range(..)` is declared on this argument",
    note = "use `length(min = .., max = ..)` for text and lists, `pattern = \"..\"` for text"
)]
pub trait Ranged {
    /// The value as a number; `None` when there is none to check.
    fn number(&self) -> Option<f64>;
}

macro_rules! ranged {
    ($($t:ty),*) => {$(
        impl Ranged for $t {
            #[allow(clippy::cast_precision_loss, clippy::cast_lossless)]
            fn number(&self) -> Option<f64> { Some(*self as f64) }
        }
    )*};
}
ranged!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

impl<T: Ranged> Ranged for Option<T> {
    fn number(&self) -> Option<f64> {
        self.as_ref().and_then(Ranged::number)
    }
}

/// What `#[arg(length(..))]` measures: characters of text, items of a list.
///
/// ```
/// use purview::constraint::{Measure, Measured};
/// assert_eq!("héllo".to_owned().measure(), Some(Measure::Characters(5)));
/// assert_eq!(vec![1, 2].measure(), Some(Measure::Items(2)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`length` measures text and lists, and `{Self}` is neither",
    label = "`length(..)` is declared on this argument",
    note = "use `range(min = .., max = ..)` for numbers"
)]
pub trait Measured {
    /// The value's length; `None` when there is none to check.
    fn measure(&self) -> Option<Measure>;
}

/// A length, in the unit JSON Schema counts for the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Characters of a string (`minLength` / `maxLength`).
    Characters(usize),
    /// Items of an array (`minItems` / `maxItems`).
    Items(usize),
}

impl Measured for String {
    fn measure(&self) -> Option<Measure> {
        Some(Measure::Characters(self.chars().count()))
    }
}

macro_rules! measured_list {
    ($($t:ident),*) => {$(
        impl<T> Measured for $t<T> {
            fn measure(&self) -> Option<Measure> { Some(Measure::Items(self.len())) }
        }
    )*};
}
measured_list!(Vec, VecDeque, BTreeSet);

impl<T, S> Measured for HashSet<T, S> {
    fn measure(&self) -> Option<Measure> {
        Some(Measure::Items(self.len()))
    }
}

impl<T: Measured> Measured for Option<T> {
    fn measure(&self) -> Option<Measure> {
        self.as_ref().and_then(Measured::measure)
    }
}

impl<T: Measured> Measured for Secret<T> {
    fn measure(&self) -> Option<Measure> {
        self.expose().measure()
    }
}

/// Text `#[arg(pattern = "..")]` can match.
///
/// ```
/// use purview::constraint::Textual;
/// assert_eq!("EUR".to_owned().text(), Some("EUR"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`pattern` matches text, and `{Self}` is not text",
    label = "`pattern = \"..\"` is declared on this argument",
    note = "a pattern applies to `String`, `Option<String>` or `Secret<String>`"
)]
pub trait Textual {
    /// The text; `None` when there is none to check.
    fn text(&self) -> Option<&str>;
}

impl Textual for String {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl<T: Textual> Textual for Option<T> {
    fn text(&self) -> Option<&str> {
        self.as_ref().and_then(Textual::text)
    }
}

impl<T: Textual> Textual for Secret<T> {
    fn text(&self) -> Option<&str> {
        self.expose().text()
    }
}

/// Checks one argument's declared constraints on its decoded value, adding a
/// field error (worded as the input-schema check words it) for each it
/// breaks.
///
/// `#[actions]` calls it for you, so the person's typed calls, whose
/// arguments never pass through JSON, meet the constraints an agent's call
/// meets; a hand-written [`Actions`](crate::Actions) impl can call it too.
///
/// ```
/// use purview::{constraint::Check, model::ToolError};
///
/// let mut errors = Vec::new();
/// Check::new(&mut errors, "priority").range(&9u8, Some(1.0), Some(5.0));
/// Check::new(&mut errors, "code").pattern(&"eur".to_owned(), "^[A-Z]{3}$");
/// let refused = ToolError::validation(errors);
/// assert_eq!(refused.fields.unwrap()[0].error, "must be between 1 and 5");
/// ```
pub struct Check<'a> {
    errors: &'a mut Vec<FieldError>,
    field: &'static str,
}

impl<'a> Check<'a> {
    /// Checks for the argument named `field`, adding to `errors`.
    pub fn new(errors: &'a mut Vec<FieldError>, field: &'static str) -> Self {
        Self { errors, field }
    }

    fn refuse(&mut self, message: String) {
        self.errors.push(FieldError::new(self.field, message));
    }

    /// `range(min = .., max = ..)`: each bound inclusive.
    pub fn range<T: Ranged + ?Sized>(&mut self, value: &T, min: Option<f64>, max: Option<f64>) {
        let Some(n) = value.number() else { return };
        use crate::validate::words;
        let outside = min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m);
        match (min, max) {
            (Some(min), Some(max)) if outside => {
                self.refuse(words::between(number(min), number(max)));
            }
            (Some(min), _) if n < min => self.refuse(words::at_least(number(min))),
            (_, Some(max)) if n > max => self.refuse(words::at_most(number(max))),
            _ => {}
        }
    }

    /// `length(min = .., max = ..)`: characters of text, items of a list.
    pub fn length<T: Measured + ?Sized>(
        &mut self,
        value: &T,
        min: Option<usize>,
        max: Option<usize>,
    ) {
        let Some(measure) = value.measure() else { return };
        let n = match measure {
            Measure::Characters(n) | Measure::Items(n) => n,
        };
        if !(min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m)) {
            return;
        }
        let message = match measure {
            Measure::Characters(_) => {
                crate::validate::words::length(min.map(|m| m as u64), max.map(|m| m as u64))
            }
            Measure::Items(_) => match min.filter(|m| n < *m) {
                Some(min) => format!("must have at least {}", count(min as u64, "item")),
                None => format!("must have at most {}", count(max.unwrap_or(n) as u64, "item")),
            },
        };
        self.refuse(message);
    }

    /// `pattern = ".."`: the JSON Schema meaning (a match anywhere, unless
    /// anchored with `^`/`$`).
    pub fn pattern<T: Textual + ?Sized>(&mut self, value: &T, pattern: &'static str) {
        self.pattern_in_words(value, pattern, None, None);
    }

    /// `pattern = "..", message = "..", example = ".."`: the pattern, its
    /// failure said as the input schema's check says it — "must be
    /// {message}", else "must be written like {example}".
    ///
    /// ```
    /// use purview::constraint::Check;
    ///
    /// let mut errors = Vec::new();
    /// let date = r"^\d{4}-\d{2}-\d{2}$";
    /// Check::new(&mut errors, "day").pattern_in_words(
    ///     &"12/03".to_owned(),
    ///     date,
    ///     Some("a date such as 2026-03-12"),
    ///     Some("2026-03-12"),
    /// );
    /// assert_eq!(errors[0].error, "must be a date such as 2026-03-12");
    /// ```
    pub fn pattern_in_words<T: Textual + ?Sized>(
        &mut self,
        value: &T,
        pattern: &'static str,
        message: Option<&'static str>,
        example: Option<&'static str>,
    ) {
        let Some(text) = value.text() else { return };
        // The engine the input-schema check uses, so both agree.
        if crate::validate::pattern::matches(pattern, text) != Some(true) {
            self.refuse(crate::validate::words::pattern(pattern, message, example));
        }
    }
}

/// `5` rather than `5.0`, as JSON writes an integer bound.
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { n.to_string() }
}

/// Whether `c` would change how a line of text reads without showing
/// itself, wherever it stands: a control character (Unicode Cc: tabs, line
/// breaks), a line or paragraph separator (Zl, Zp), a format character
/// (Cf: zero-width spaces and joiners, direction marks and overrides, the
/// invisible tag characters), any other Unicode default-ignorable code
/// point (the soft hyphen, variation selectors, Hangul fillers, the
/// combining grapheme joiner), a blank other than the plain space U+0020
/// (Zs and the rest of White_Space: no-break, ideographic, em and thin
/// spaces…), which looks like one space, or like none, while being
/// something else, or one of the few characters drawn as an empty cell
/// although Unicode files them as symbols or marks ([`BLANK_GLYPHS`]:
/// U+2800 BRAILLE PATTERN BLANK among them).
///
/// The classes come from Unicode's own tables (those `regex` matches
/// `\p{..}` with), not from a list kept by hand, so every character they
/// hold is covered, and those a later Unicode version adds come with the
/// tables.
///
/// It is half of [`is_hidden_after`], the one rule the approval question
/// and [`plain_line`] apply.
///
/// ```
/// use purview::constraint::is_hidden;
/// assert!(is_hidden('\u{2028}') && is_hidden('\u{200B}') && is_hidden('\u{E0041}'));
/// assert!(is_hidden('\u{3000}') && is_hidden('\u{00A0}') && is_hidden('\u{3164}'));
/// assert!(is_hidden('\u{2800}') && is_hidden('\u{2064}') && is_hidden('\u{180E}'));
/// assert!(!is_hidden('é') && !is_hidden(' ') && !is_hidden('⠁'));
/// ```
pub fn is_hidden(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    // Should the tables be missing, controls and blanks are still caught.
    let table = hidden_table();
    table.binary_search_by(|&(low, high)| ordering_of(c, low, high)).is_ok()
        || c.is_control()
        || c.is_whitespace()
}

/// Characters drawn as an empty cell in common fonts that no Unicode
/// property marks as blank or ignorable (each is a symbol, So, or a mark,
/// Mn): they read as nothing, or as a space, while being something else.
///
/// ```
/// use purview::constraint::{BLANK_GLYPHS, is_hidden};
/// assert!(BLANK_GLYPHS.contains(&'\u{2800}') && BLANK_GLYPHS.into_iter().all(is_hidden));
/// ```
pub const BLANK_GLYPHS: [char; 3] = [
    // BRAILLE PATTERN BLANK: a run of it pushes what follows out of sight.
    '\u{2800}',
    // MUSICAL SYMBOL NULL NOTEHEAD.
    '\u{1D159}',
    // KHITAN SMALL SCRIPT FILLER.
    '\u{16FE4}',
];

/// The Unicode classes [`is_hidden`] covers besides [`BLANK_GLYPHS`], in
/// the syntax of `regex`.
const HIDDEN_CLASSES: &str =
    r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{White_Space}\p{Default_Ignorable_Code_Point}]";

/// Every hidden character as sorted, disjoint ranges, built once from the
/// Unicode tables `regex-syntax` carries (the plain space left out: one of
/// them between words reads as what it is, and [`is_hidden_after`] rules
/// on a run).
fn hidden_table() -> &'static [(char, char)] {
    static TABLE: std::sync::LazyLock<Vec<(char, char)>> = std::sync::LazyLock::new(|| {
        use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};
        let parsed = regex_syntax::ParserBuilder::new().build().parse(HIDDEN_CLASSES);
        let mut class = match parsed.as_ref().map(regex_syntax::hir::Hir::kind) {
            Ok(HirKind::Class(Class::Unicode(class))) => class.clone(),
            _ => ClassUnicode::empty(),
        };
        class.union(&ClassUnicode::new(BLANK_GLYPHS.map(|c| ClassUnicodeRange::new(c, c))));
        class.difference(&ClassUnicode::new([ClassUnicodeRange::new(' ', ' ')]));
        class.ranges().iter().map(|range| (range.start(), range.end())).collect()
    });
    &TABLE
}

/// Where `c` stands against the range `low..=high`, for a binary search.
fn ordering_of(c: char, low: char, high: char) -> std::cmp::Ordering {
    if high < c {
        std::cmp::Ordering::Less
    } else if low > c {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Equal
    }
}

/// Whether `c`, following `previous` (`None` at the start) in a line of
/// text, would change how the line reads without showing itself: a
/// character [`is_hidden`] says so of, or a plain space after another (a
/// run of spaces can push what follows out of sight, or onto lines a
/// person does not read as part of it). One plain space between words is
/// the only blank that passes.
///
/// This is the one rule for both sides of an approval: the question a
/// person is asked writes every such character as an escape
/// (`\u{3000}`), and [`plain_line`] refuses text holding one.
///
/// ```
/// use purview::constraint::is_hidden_after;
/// assert!(!is_hidden_after(Some('a'), ' '));
/// assert!(is_hidden_after(Some(' '), ' '));
/// assert!(is_hidden_after(None, '\u{FEFF}'));
/// ```
pub fn is_hidden_after(previous: Option<char>, c: char) -> bool {
    is_hidden(c) || (c == ' ' && previous == Some(' '))
}

/// Checks that `text` is one plain line, as a person will read it: no
/// character [`is_hidden_after`] says would change how it reads (a line
/// break, a tab, a zero-width space, a direction override, a tag or other
/// invisible character, a blank other than one plain space, two spaces in
/// a row). Use it in a handler for text that a person is shown or asked
/// to approve, and refuse the argument with the message:
///
/// ```
/// use purview::constraint::plain_line;
/// assert!(plain_line("Alice Smith").is_ok());
/// let refused = plain_line("Alice\u{2028}for $1.00").unwrap_err();
/// assert_eq!(refused, "must be one plain line: it contains U+2028 at character 6");
/// let refused = plain_line("Alice  Smith").unwrap_err();
/// assert_eq!(refused, "must be one plain line: it contains a second space in a row at character 7");
/// ```
///
/// # Errors
///
/// A message naming the first such character and where it is, never
/// repeating the text.
pub fn plain_line(text: &str) -> Result<(), String> {
    let mut previous = None;
    for (at, c) in text.chars().enumerate() {
        if is_hidden_after(previous, c) {
            let what = if c == ' ' {
                "a second space in a row".to_owned()
            } else {
                format!("U+{:04X}", u32::from(c))
            };
            return Err(format!(
                "must be one plain line: it contains {what} at character {}",
                at + 1
            ));
        }
        previous = Some(c);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(f: impl FnOnce(&mut Check<'_>)) -> Vec<String> {
        let mut errors = Vec::new();
        f(&mut Check::new(&mut errors, "x"));
        errors.into_iter().map(|e| e.error).collect()
    }

    #[test]
    fn s7_3_typed_constraints_word_refusals_as_the_schema_check_does() {
        assert_eq!(check(|c| c.range(&0u8, Some(1.0), Some(5.0))), ["must be between 1 and 5"]);
        assert_eq!(check(|c| c.range(&6u8, None, Some(5.0))), ["must be at most 5"]);
        assert_eq!(check(|c| c.range(&0.25f64, Some(0.5), None)), ["must be at least 0.5"]);
        assert!(check(|c| c.range(&None::<u8>, Some(1.0), None)).is_empty());
        assert_eq!(
            check(|c| c.length(&"héllo".to_owned(), None, Some(4))),
            ["must be at most 4 characters long"]
        );
        assert_eq!(check(|c| c.length(&vec![1], Some(2), None)), ["must have at least 2 items"]);
        assert_eq!(
            check(|c| c.pattern(&"eur".to_owned(), "^[A-Z]{3}$")),
            ["must match the pattern ^[A-Z]{3}$"]
        );
        assert!(check(|c| c.pattern(&"EUR".to_owned(), "^[A-Z]{3}$")).is_empty());
    }

    #[test]
    fn s4_5_a_secret_is_checked_and_never_quoted() {
        let pin = Secret::new("12a4".to_owned());
        let errors = check(|c| c.pattern(&pin, r"^\d{4}$"));
        assert_eq!(errors, [r"must match the pattern ^\d{4}$"]);
        assert!(!errors[0].contains("12a4"));
    }
}

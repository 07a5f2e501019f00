//! A constraint as a person reads it: the words of a `validation_failed`
//! field error, the same whether the input schema's check (mod.rs) or a
//! typed call's [`Check`](crate::constraint::Check) found it, and so the
//! same in the agent's answer and under the desk's field.

use std::fmt::Display;

/// The keyword an argument's `#[arg(message = "..")]` travels under
/// inside Purview: read when the input schema is compiled, and removed
/// from the schema clients are given (hosts compile schemas in strict
/// validators that refuse unknown keywords).
pub(crate) const MESSAGE_KEYWORD: &str = "x-purview-message";

/// "must be at least 5".
pub(crate) fn at_least(min: impl Display) -> String {
    format!("must be at least {min}")
}

/// "must be at most 120".
pub(crate) fn at_most(max: impl Display) -> String {
    format!("must be at most {max}")
}

/// "must be between 5 and 120".
pub(crate) fn between(min: impl Display, max: impl Display) -> String {
    format!("must be between {min} and {max}")
}

/// "must be at most 40 characters long", "must be between 2 and 40
/// characters long", "must be exactly 4 characters long".
pub(crate) fn length(min: Option<u64>, max: Option<u64>) -> String {
    use super::count;
    match (min, max) {
        (Some(min), Some(max)) if min == max => {
            format!("must be exactly {} long", count(min, "character"))
        }
        (Some(min), Some(max)) => format!("must be between {min} and {max} characters long"),
        (Some(min), None) => format!("must be at least {} long", count(min, "character")),
        (None, Some(max)) => format!("must be at most {} long", count(max, "character")),
        (None, None) => "has the wrong length".to_owned(),
    }
}

/// A pattern the text did not match, in the app's words when it gave
/// them: "must be {message}" (`message = "a date such as 2026-03-12"`);
/// else "must be written like {example}" (`example = "2026-03-12"`);
/// else the pattern itself, which is all there is to say.
pub(crate) fn pattern(pattern: &str, message: Option<&str>, example: Option<&str>) -> String {
    match (message, example) {
        (Some(message), _) => format!("must be {message}"),
        (None, Some(example)) => format!("must be written like {example}"),
        (None, None) => format!("must match the pattern {pattern}"),
    }
}

/// `schema` without [`MESSAGE_KEYWORD`], at any depth.
pub(crate) fn strip_messages(schema: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::Value;
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => super::words::strip_messages(map),
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    schema.remove(MESSAGE_KEYWORD);
    schema.values_mut().for_each(strip);
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_pattern_is_said_in_the_apps_words_when_it_gave_them() {
        let date = r"^\d{4}-\d{2}-\d{2}$";
        let said = super::pattern(date, Some("a date such as 2026-03-12"), Some("2026-03-12"));
        assert_eq!(said, "must be a date such as 2026-03-12");
        assert_eq!(
            super::pattern(date, None, Some("2026-03-12")),
            "must be written like 2026-03-12"
        );
        assert_eq!(super::pattern(date, None, None), format!("must match the pattern {date}"));
    }

    #[test]
    fn bounds_read_as_a_person_says_them() {
        assert_eq!(super::between(5, 120), "must be between 5 and 120");
        assert_eq!(super::length(None, Some(40)), "must be at most 40 characters long");
        assert_eq!(super::length(Some(4), Some(4)), "must be exactly 4 characters long");
        assert_eq!(super::length(Some(1), None), "must be at least 1 character long");
    }
}

//! Sensitive values (§4.5): one place decides what a secret looks like outside
//! the process.
//!
//! [`Secret`] wraps a value so that every way it could leave — `Debug`,
//! `Display`, `Serialize`, tracing fields, error messages built from those —
//! shows [`MASK`] instead. Only [`Secret::expose`] reaches the plaintext, so a
//! leak has to be written on purpose.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::model::MASK;

/// A value that must never leave the process in plaintext.
///
/// Deserializes from the plain value (an agent may *send* a PIN), but
/// serializes, debugs and displays as [`MASK`].
///
/// ```
/// use purview::Secret;
///
/// let pin: Secret<String> = serde_json::from_str(r#""1234""#).unwrap();
/// assert_eq!(pin.expose(), "1234");
/// assert_eq!(format!("{pin:?}"), "••••••");
/// assert_eq!(serde_json::to_string(&pin).unwrap(), r#""••••••""#);
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    /// Wraps a value.
    pub fn new(value: T) -> Self {
        Self(value)
    }

    /// The plaintext. Every call site is a place a leak could start: keep
    /// them few and obvious.
    pub fn expose(&self) -> &T {
        &self.0
    }

    /// Mutable access to the plaintext.
    pub fn expose_mut(&mut self) -> &mut T {
        &mut self.0
    }

    /// Unwraps the plaintext.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl Secret<String> {
    /// Whether the secret text is non-empty, which is all a projection may
    /// tell about it.
    ///
    /// ```
    /// assert!(!purview::Secret::new(String::new()).is_filled());
    /// ```
    pub fn is_filled(&self) -> bool {
        !self.0.is_empty()
    }
}

impl<T> From<T> for Secret<T> {
    fn from(value: T) -> Self {
        Self(value)
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(MASK)
    }
}

impl<T> fmt::Display for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(MASK)
    }
}

impl<T> Serialize for Secret<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(MASK)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Secret<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Secret)
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Secret<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = T::json_schema(generator);
        // Tells clients the value is write-only: they send it, never read it back.
        schema.insert("writeOnly".into(), true.into());
        schema
    }
}

/// Removes the offending literal from a serde decode message, so an error
/// about a secret argument never quotes it back: `invalid type: string "x",
/// expected u32` becomes `expected u32, got a string`.
pub(crate) fn describe_decode_error(message: &str) -> String {
    let message = message.split(" at line ").next().unwrap_or(message);
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((got, expected)) = rest.split_once(", expected ")
        {
            let kind = got.split([' ', '`', '"']).next().unwrap_or("value");
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
            let got = if prefix == "invalid type: " {
                format!("got {article} {kind}")
            } else {
                format!("got an out-of-range or unknown {kind}")
            };
            return format!("expected {expected}, {got}");
        }
    }
    if let Some(field) = message.strip_prefix("missing field `") {
        return format!("missing required field `{}", field);
    }
    if message.starts_with("unknown variant") {
        // `unknown variant `secret`, expected one of ...`: drop the variant itself.
        if let Some((_, expected)) = message.split_once(", expected ") {
            return format!("unknown value, expected {expected}");
        }
    }
    // Anything else came from a type's own Deserialize and may quote what
    // the agent sent: never pass it through.
    "has a value this action cannot use".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s4_5_decode_errors_never_quote_the_value() {
        let cases = [
            ("invalid type: string \"hunter2\", expected u32", "expected u32, got a string"),
            (
                "invalid value: integer `300`, expected u8",
                "expected u8, got an out-of-range or unknown integer",
            ),
            (
                "invalid type: integer `1234`, expected a string",
                "expected a string, got an integer",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(describe_decode_error(input), want);
        }
        let variant = describe_decode_error("unknown variant `hunter2`, expected `a` or `b`");
        assert!(!variant.contains("hunter2"), "{variant}");
        let custom = describe_decode_error("the code hunter2 is not a valid voucher");
        assert!(!custom.contains("hunter2"), "{custom}");
    }
}

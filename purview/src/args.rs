//! Decoding a call's arguments inside a handler.
//!
//! By the time a handler runs, the runtime has already checked the arguments
//! against the action's input schema, outside the operation lock, and
//! rejected unknown names (§7.3): what is left here is turning JSON into Rust
//! values and collecting the errors of the handler's own checks.

use std::{any::Any, sync::Arc};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{
    ActionOutput,
    action::JsonObject,
    model::{FieldError, ToolError},
    redact::describe_decode_error,
};

/// The arguments of one call, decoded field by field so that every bad
/// argument is reported at once (§7.3).
///
/// ```
/// use purview::Args;
///
/// let mut args = Args::from_json(serde_json::json!({"recipient": "", "amount": "lots"}), &["recipient", "amount"]);
/// let recipient: Option<String> = args.required("recipient");
/// let amount: Option<f64> = args.required("amount");
/// let err = args.finish().unwrap_err();
/// assert_eq!(err.fields.unwrap()[0].field, "amount");
/// assert!(recipient.is_some() && amount.is_none());
/// ```
pub struct Args {
    map: JsonObject,
    params: Arc<[String]>,
    errors: Vec<FieldError>,
    /// The decoded arguments of a typed call (see [`Call`](crate::Call)):
    /// the compiler already checked them, so there is no JSON to decode.
    typed: Option<Box<dyn Any + Send>>,
}

/// Shows only the argument names: values may be secrets.
impl std::fmt::Debug for Args {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Args")
            .field("names", &self.map.keys().collect::<Vec<_>>())
            .field("errors", &self.errors)
            .finish_non_exhaustive()
    }
}

impl Args {
    pub(crate) fn new(map: JsonObject, params: Arc<[String]>) -> Self {
        Self { map, params, errors: Vec::new(), typed: None }
    }

    pub(crate) fn with_typed(mut self, typed: Option<Box<dyn Any + Send>>) -> Self {
        self.typed = typed;
        self
    }

    /// What generated dispatch code decodes with: a typed call's own
    /// arguments and the slot its result goes to (one downcast, the only
    /// dynamic step of a typed call), else [`Args::parse`] and no slot.
    /// Not public API.
    #[doc(hidden)]
    pub fn __parse_or_take<A, R>(mut self) -> Result<(A, Slot<R>), ToolError>
    where
        A: DeserializeOwned + Send + 'static,
        R: Send + 'static,
    {
        match self.typed.take() {
            None => Ok((self.parse()?, None)),
            Some(typed) => {
                let typed = downcast::<TypedArgs<A, R>>(typed)?;
                Ok((typed.args, Some(typed.slot)))
            }
        }
    }

    /// [`Args::__parse_or_take`] for an action without arguments: a
    /// typed call's slot, else [`Args::finish`]. Not public API.
    #[doc(hidden)]
    pub fn __finish_or_take<R: Send + 'static>(mut self) -> Result<Slot<R>, ToolError> {
        match self.typed.take() {
            None => self.finish().map(|()| None),
            Some(typed) => Ok(Some(downcast::<TypedArgs<(), R>>(typed)?.slot)),
        }
    }

    /// Arguments from a JSON object, for tests and hand-written dispatch.
    /// A non-object becomes an empty argument set.
    ///
    /// ```
    /// let args = purview::Args::from_json(serde_json::json!({"pin": "1234"}), &["pin"]);
    /// assert!(format!("{args:?}").contains("pin"));
    /// ```
    pub fn from_json(value: Value, params: &[&str]) -> Self {
        let map = match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        };
        Self::new(map, params.iter().map(|p| (*p).to_owned()).collect())
    }

    /// Takes a required argument. Missing, `null` or undecodable: records a
    /// field error and returns `None`.
    ///
    /// ```
    /// let mut args = purview::Args::from_json(serde_json::json!({}), &["name"]);
    /// assert_eq!(args.required::<String>("name"), None);
    /// assert!(args.finish().is_err());
    /// ```
    pub fn required<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            None | Some(Value::Null) => {
                self.errors.push(FieldError::new(name, "is required"));
                None
            }
            Some(value) => self.decode(name, value),
        }
    }

    /// Takes an optional argument: `None` when missing or `null`; an
    /// undecodable value records a field error.
    ///
    /// ```
    /// let mut args = purview::Args::from_json(serde_json::json!({"limit": 5}), &["limit", "offset"]);
    /// assert_eq!(args.optional::<u32>("limit"), Some(5));
    /// assert_eq!(args.optional::<u32>("offset"), None);
    /// assert!(args.finish().is_ok());
    /// ```
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            None | Some(Value::Null) => None,
            Some(value) => self.decode(name, value),
        }
    }

    fn decode<T: DeserializeOwned>(&mut self, name: &str, value: Value) -> Option<T> {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(v) => Some(v),
            Err(e) => {
                let path = e.path().to_string();
                let field = if path == "." { name.to_owned() } else { format!("{name}.{path}") };
                self.errors
                    .push(FieldError::new(field, describe_decode_error(&e.inner().to_string())));
                None
            }
        }
    }

    /// Records a field error found by the handler's own checks.
    ///
    /// ```
    /// let mut args = purview::Args::from_json(serde_json::json!({}), &[]);
    /// args.invalid("amount", "must be greater than 0");
    /// assert_eq!(args.finish().unwrap_err().fields.unwrap()[0].field, "amount");
    /// ```
    pub fn invalid(&mut self, field: impl Into<String>, error: impl Into<String>) {
        self.errors.push(FieldError::new(field, error));
    }

    /// Ends decoding: unknown arguments are errors too. Returns
    /// `validation_failed` with every field error, or `Ok(())`.
    ///
    /// ```
    /// let args = purview::Args::from_json(serde_json::json!({"colour": "red"}), &[]);
    /// let err = args.finish().unwrap_err();
    /// assert_eq!(err.fields.unwrap()[0].field, "colour");
    /// ```
    pub fn finish(mut self) -> Result<(), ToolError> {
        self.reject_unknown();
        if self.errors.is_empty() { Ok(()) } else { Err(ToolError::validation(self.errors)) }
    }

    /// Decodes all arguments into one struct. A field that fails is named in
    /// `validation_failed`; unknown arguments are rejected.
    ///
    /// ```
    /// #[derive(Debug, serde::Deserialize)]
    /// struct Move { x: i32, y: i32 }
    /// let args = purview::Args::from_json(serde_json::json!({"x": 1, "y": "up"}), &["x", "y"]);
    /// let err = args.parse::<Move>().unwrap_err();
    /// assert_eq!(err.fields.unwrap()[0].field, "y");
    /// ```
    pub fn parse<T: DeserializeOwned>(mut self) -> Result<T, ToolError> {
        self.reject_unknown();
        let map = std::mem::take(&mut self.map);
        match serde_path_to_error::deserialize::<_, T>(Value::Object(map)) {
            Ok(v) if self.errors.is_empty() => Ok(v),
            Ok(_) => Err(ToolError::validation(self.errors)),
            Err(e) => {
                // The runtime's schema check has already named missing and
                // mistyped arguments; what reaches here is what only the
                // type's own Deserialize knows about.
                let path = e.path().to_string();
                let field = if path == "." { "arguments".to_owned() } else { path };
                self.errors
                    .push(FieldError::new(field, describe_decode_error(&e.inner().to_string())));
                Err(ToolError::validation(self.errors))
            }
        }
    }

    fn reject_unknown(&mut self) {
        let unknown: Vec<String> =
            self.map.keys().filter(|k| !self.params.iter().any(|p| p == *k)).cloned().collect();
        for key in unknown {
            self.map.remove(&key);
            self.errors.push(crate::validate::unknown_argument(&key, &self.params));
        }
    }
}

/// An action's arguments decoded for its `question = method`, from the
/// JSON that passed the schema check (so a failure here is only what the
/// type's own `Deserialize` refuses). Not public API.
#[doc(hidden)]
pub fn __question_arguments<T: DeserializeOwned>(args: &JsonObject) -> Result<T, ToolError> {
    let params: Vec<String> = args.keys().cloned().collect();
    Args::new(args.clone(), params.into()).parse()
}

/// What a `question = method` may give back: the question, or a
/// `Result` whose error refuses the call before anyone is asked (anything
/// that converts into a [`ToolError`], as an action's own errors do). Not
/// public API.
#[doc(hidden)]
pub trait IntoQuestion {
    /// The question, or the refusal.
    fn into_question(self) -> Result<String, ToolError>;
}

impl IntoQuestion for String {
    fn into_question(self) -> Result<String, ToolError> {
        Ok(self)
    }
}

impl IntoQuestion for &str {
    fn into_question(self) -> Result<String, ToolError> {
        Ok(self.to_owned())
    }
}

impl<Q: Into<String>, E: Into<ToolError>> IntoQuestion for Result<Q, E> {
    fn into_question(self) -> Result<String, ToolError> {
        self.map(Into::into).map_err(Into::into)
    }
}

/// A typed call's arguments, with the slot its result goes to: the one
/// value that crosses the type-erased dispatch to the handler.
pub(crate) struct TypedArgs<A, R> {
    pub args: A,
    pub slot: Arc<ResultSlot<R>>,
}

fn downcast<T: 'static>(typed: Box<dyn Any + Send>) -> Result<T, ToolError> {
    typed.downcast::<T>().map(|t| *t).map_err(|_| {
        tracing::error!(
            expected = std::any::type_name::<T>(),
            "a typed call carried arguments of another action"
        );
        crate::refusals::arguments_for_another_action()
    })
}

/// A typed call's result slot, as generated dispatch code holds it (`None`
/// for a call with JSON arguments). Not public API.
#[doc(hidden)]
pub type Slot<R> = Option<Arc<ResultSlot<R>>>;

/// Where a typed call's result waits for the call that made it: filled by
/// the generated dispatch, so the value goes back as the handler's own
/// type, with no dynamic step. Not public API.
#[doc(hidden)]
pub struct ResultSlot<R>(std::sync::Mutex<Option<R>>);

impl<R> ResultSlot<R> {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self(std::sync::Mutex::new(None)))
    }

    pub(crate) fn take(&self) -> Option<R> {
        crate::lock::lock_unpoisoned(&self.0).take()
    }

    fn fill(&self, value: R) {
        *crate::lock::lock_unpoisoned(&self.0) = Some(value);
    }
}

/// What generated dispatch code makes of an action's output: the output
/// as it is, and `value` in a typed call's slot (the handler's own value,
/// or `()` for an action whose typed call gives nothing). Not public API.
#[doc(hidden)]
pub fn __typed_output<T>(output: ActionOutput, value: T, slot: &Slot<T>) -> ActionOutput {
    if let Some(slot) = slot {
        slot.fill(value);
    }
    output
}

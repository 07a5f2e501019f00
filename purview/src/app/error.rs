//! What can go wrong when the application (not an agent) drives Purview.

use std::fmt;

use crate::model::ToolError;

/// What can go wrong when the application (not an agent) drives Purview.
///
/// ```
/// # use purview::{by_hand::*, *};
/// # #[derive(Clone)] struct W;
/// # impl Window for W { fn title(&self) -> String { "W".into() } fn project(&self, _: &mut View) {} }
/// # impl Actions for W { fn actions() -> Vec<ActionSpec> { vec![] }
/// #   fn call<'a>(&'a mut self, a: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> { Box::pin(async move { Err(unknown_action(a)) }) } }
/// let app = App::builder().build();
/// let w = app.open(W).unwrap();
/// w.close().unwrap();
/// assert!(matches!(w.close(), Err(purview::Error::WindowClosed { .. })));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The window is closed.
    WindowClosed {
        /// Its id.
        id: String,
    },
    /// The window exists but holds another view-model type.
    WrongType {
        /// Its id.
        id: String,
        /// The type asked for.
        expected: &'static str,
    },
    /// Purview was called from inside a closure Purview is running (an
    /// `update`/`read` closure or a projection), which would deadlock.
    Reentrant,
    /// A view-model type's action list, or the app's configuration, is
    /// invalid.
    InvalidDefinition(String),
    /// Another open window already uses this name.
    NameInUse {
        /// The name.
        name: String,
    },
    /// The window type (or the app) has no such action.
    UnknownAction {
        /// The action name.
        action: String,
    },
    /// A [`Context`](crate::Context) operation that needs the window whose
    /// action is running was called from an app-level action.
    NotInWindow {
        /// The operation, such as `open_modal`.
        operation: &'static str,
    },
    /// The window has no owner: only a window-level modal (one opened with
    /// `open_modal`) has one.
    NoOwner {
        /// The window's id.
        id: String,
    },
    /// The application is at one of its [`Limits`](crate::settings::Limits).
    LimitReached {
        /// What is limited, such as "open windows".
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// Serving failed (binding a port, a transport error).
    Serve(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WindowClosed { id } => write!(f, "window `{id}` is closed"),
            Self::WrongType { id, expected } => write!(f, "window `{id}` does not hold a `{expected}`"),
            Self::Reentrant => f.write_str(
                "Purview was called from inside one of its own callbacks (update/read closure or projection); call it after the closure returns",
            ),
            Self::InvalidDefinition(reason) => write!(f, "invalid definition: {reason}"),
            Self::NameInUse { name } => write!(f, "an open window is already named `{name}`"),
            Self::UnknownAction { action } => write!(f, "no action named `{action}`"),
            Self::NotInWindow { operation } => write!(
                f,
                "`{operation}` needs the window whose action is running, and an app-level action has none"
            ),
            Self::NoOwner { id } => write!(
                f,
                "window `{id}` has no owner: only a window-level modal, opened with `open_modal`, has one"
            ),
            Self::LimitReached { what, limit } => {
                write!(f, "the application already has the most {what} it allows ({limit})")
            }
            Self::Serve(reason) => write!(f, "serving failed: {reason}"),
        }
    }
}

impl std::error::Error for Error {}

/// Inside a handler, `?` on a Purview [`Error`] fails the call with
/// `action_failed`; nothing the call did is applied.
impl From<Error> for ToolError {
    fn from(error: Error) -> Self {
        if let Error::LimitReached { .. } = error {
            return crate::refusals::limit_inside_handler(&error);
        }
        crate::refusals::inside_handler(&error)
    }
}

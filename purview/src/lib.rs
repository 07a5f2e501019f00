//! # Purview
//!
//! Hand a multi-window Rust GUI application to AI agents over MCP, following
//! the MCP GUI Bridge Protocol v0.1.0.
//!
//! You write view-model structs and implement [`Window`] (what the window
//! shows) and [`Actions`] (what an agent may do in it). Purview does the rest
//! of the protocol for you:
//!
//! - the single resource `app://windows`, with `operableWindowIds` computed
//!   from modal chains and app-level modals;
//! - tools/list holding exactly the available actions of operable windows,
//!   named `{winId}__{action}` with name-safe ids;
//! - per-window versions that move only when the projection changes, and
//!   `stale_state` for calls whose `expectedVersion` is out of date;
//! - per-field `validation_failed`, `openedWindowIds`, timeouts, and calls
//!   that either apply in full or not at all;
//! - coalesced notifications broadcast to every session, over stdio or
//!   streamable HTTP, for both protocol generations rmcp speaks;
//! - masking of sensitive values ([`Secret`], [`model::FieldItem::sensitive`]).
//!
//! The person at the keyboard edits the same windows through
//! [`WindowHandle::update`]; their edits take the same serialized path as
//! agent calls and are never overwritten by an agent working from stale
//! state.
//!
//! ```
//! use purview::{App, Actions, ActionSpec, ActionOutput, Args, BoxFuture, ActionResult, Context, View, Window};
//! use purview::model::FieldItem;
//!
//! #[derive(Clone, Default)]
//! struct Greeter { name: String }
//!
//! impl Window for Greeter {
//!     fn title(&self) -> String { "Greeter".into() }
//!     fn project(&self, view: &mut View) {
//!         view.summary(format!("Greets {}", if self.name.is_empty() { "nobody yet" } else { &self.name }))
//!             .fields("form", [FieldItem::new("Name", &self.name)]);
//!     }
//! }
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct SetName { /// Who to greet.
//!     name: String }
//!
//! impl Actions for Greeter {
//!     fn actions() -> Vec<ActionSpec> {
//!         vec![ActionSpec::new("set_name").description("Set who to greet").input::<SetName>().idempotent()]
//!     }
//!     fn call<'a>(&'a mut self, action: &'a str, args: Args, _cx: &'a mut Context) -> BoxFuture<'a, ActionResult> {
//!         Box::pin(async move {
//!             match action {
//!                 "set_name" => {
//!                     let SetName { name } = args.parse()?;
//!                     self.name = name;
//!                     Ok(ActionOutput::message(format!("Now greeting {}", self.name)))
//!                 }
//!                 other => Err(purview::unknown_action(other)),
//!             }
//!         })
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let app = App::builder().name("greeter").build();
//! let window = app.open(Greeter::default()).unwrap();
//! let tool = format!("{}__set_name", window.id());
//! let args = serde_json::json!({"name": "Ada", "expectedVersion": 1});
//! app.call(&tool, args.as_object().cloned()).await.unwrap();
//! assert_eq!(window.read(|g| g.name.clone()).unwrap(), "Ada");
//! // Serve it: app.serve_stdio().await, or app.serve_http(HttpOptions::default()).await
//! # });
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[path = "fuzz_hooks.rs"]
pub mod __fuzz;
mod action;
mod app;
mod args;
#[cfg(feature = "cli")]
pub mod cli;
pub mod constraint;
mod instructions;
pub mod model;
pub mod projection;
mod redact;
mod schema;
mod server;
mod validate;
mod view;
mod window;

/// The naming rules: action names, window ids, tool-name budgets and titles,
/// shared with the macros so both check the same way.
pub use purview_naming as naming;

pub use action::{ActionOutput, ActionSpec, JsonObject, schema_for, unknown_action};
pub use app::{
    AgentActivity, App, AppBuilder, Approval, ApprovalQueue, ApprovalRequest, Approver, Call,
    CalledBy, Change, Context, Error, Limits, PendingApproval, Performed, ToolOutcome, ToolSurface,
    TypedCalls, VariantHandle, WindowHandle, WindowInfo, WindowKind,
};
pub use args::Args;
pub use instructions::instructions;
pub use model::{ToolError, WINDOWS_URI};
pub use projection::{
    Cells, ListSource, Media, MediaSource, NoticeText, Row, Sensitive, TableSource,
};
pub use purview_macros::{Row, WindowKind, action, actions, window};
pub use redact::{MASK, Secret};
/// The MCP library Purview serves with, for serving an [`McpServer`] over a
/// transport of your own (`rmcp::ServiceExt::serve`).
pub use rmcp;
/// Re-exported because Purview's API uses its JSON Schema trait
/// ([`ActionSpec::input`], [`ActionSpec::result`]); the macros' generated
/// code uses it from here.
pub use schemars;
/// Re-exported because Purview's API uses its traits ([`Args::parse`],
/// [`ActionOutput::result`]); the macros' generated code uses it from here.
pub use serde;
/// Re-exported because Purview's API carries JSON values ([`Cells`],
/// [`model::Block`]).
pub use serde_json;
pub use server::{HttpOptions, HttpServer, McpServer};
/// How a caller cancels [`App::call_cancellable`].
pub use tokio_util::sync::CancellationToken;
pub use view::View;
pub use window::{ActionResult, Actions, BoxFuture, Window};

/// Everything an app developer usually needs, in one import: the macros,
/// the traits they implement, and the types handlers use.
///
/// ```
/// use purview::prelude::*;
///
/// #[window(summary = "Counts to {count}")]
/// #[derive(Clone, Default)]
/// struct Counter {
///     #[block(field)]
///     count: u32,
/// }
///
/// #[actions]
/// impl Counter {
///     /// Count one more.
///     #[action]
///     fn increment(&mut self) { self.count += 1; }
/// }
///
/// let app = App::builder().build();
/// let counter: WindowHandle<Counter> = app.open(Counter::default()).unwrap();
/// # let _ = counter;
/// ```
pub mod prelude {
    pub use crate::{
        ActionOutput, ActionResult, ActionSpec, Actions, App, Args, BoxFuture, Call, Context,
        Performed, Row, Secret, ToolSurface, TypedCalls, View, Window, WindowHandle, WindowKind,
        action, actions,
        model::{Block, FieldItem, Severity, ToolError},
        window,
    };
}

/// The one door generated code uses to reach the runtime, so compiler
/// messages about generated code name public items only. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::{
        ActionOutput, ActionResult, ActionSpec, Actions, App, Args, BoxFuture, Call, Cells,
        Context, ListSource, MediaSource, NoticeText, Row, Sensitive, TableSource, TypedCalls,
        VariantHandle, View, Window, WindowHandle, WindowKind,
        app::CallTarget,
        constraint::{Check, argument},
        model::FieldError,
        model::{FieldItem, Severity, ToolError},
        projection::cell,
        unknown_action,
    };
}

//! # Purview
//!
//! Hand a multi-window Rust GUI application to AI agents over MCP, following
//! the MCP GUI Bridge Protocol v0.1.0, while the person at the keyboard keeps
//! using the same windows.
//!
//! ## A window, with the macros
//!
//! A window is a plain view-model struct. [`#[window]`](macro@window) says
//! what it shows — a title, a one-line summary, and a semantic block per
//! annotated field — and [`#[actions]`](macro@actions) turns the methods
//! marked [`#[action]`](macro@action) into the tools agents call, with input
//! schemas made from the arguments and descriptions from the doc comments:
//!
//! ```
//! use purview::prelude::*;
//!
//! #[window(title = "Inbox", summary = "{open} open ticket(s)")]
//! #[derive(Clone, Default)]
//! struct Inbox {
//!     open: usize,
//!     #[block(list)]
//!     tickets: Vec<String>,
//!     #[block(notice = "info")]
//!     hint: Option<String>,
//! }
//!
//! #[actions]
//! impl Inbox {
//!     /// File a new ticket.
//!     #[action]
//!     fn file(
//!         &mut self,
//!         /// What is wrong, in a few words.
//!         subject: String,
//!         cx: &mut Context,
//!     ) {
//!         if subject.trim().is_empty() {
//!             cx.invalid("subject", "must not be blank"); // validation_failed; nothing changes
//!         }
//!         self.tickets.push(subject);
//!         self.open = self.tickets.len();
//!     }
//!
//!     /// Close every ticket; offered only while there are some.
//!     #[action(destructive, available = has_tickets)]
//!     fn close_all(&mut self) {
//!         self.tickets.clear();
//!         self.open = 0;
//!     }
//!
//!     fn has_tickets(&self) -> bool {
//!         !self.tickets.is_empty()
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() {
//!     let app = App::builder().name("inbox").build();
//!     let inbox = app.open(Inbox::default()).unwrap();
//!     assert_eq!(app.tool_names().unwrap(), ["app__read_windows", "app__act", "w1__file"]);
//!
//!     // An agent calls w1__file, as it would over MCP...
//!     let args = purview::serde_json::json!({"subject": "Printer jams"});
//!     app.call("w1__file", args.as_object().cloned()).await.unwrap();
//!     // ...so the window shows it, and close_all is offered now.
//!     assert_eq!(inbox.read(|i| i.open).unwrap(), 1);
//!     assert!(app.tool_names().unwrap().contains(&"w1__close_all".to_owned()));
//!
//!     // The person's GUI presses a button wired to the same action.
//!     inbox.act().close_all().await.unwrap();
//!     assert_eq!(inbox.read(|i| i.open).unwrap(), 0);
//! }
//! ```
//!
//! Other blocks are `#[block(text)]`, `#[block(field)]` (with `label`,
//! `group`, `sensitive`), `#[block(table)]` (over tuples with
//! `columns = [..]`, or structs deriving [`Row`](derive@Row); `limit = N`
//! pages), `#[block(media)]` and `#[block(custom)]`. Actions take options
//! such as `idempotent`, `read_only`, `timeout = "5s"`, `approval` and
//! `question = method` (the approval question in the app's words, written
//! from its state after its own checks, see [`approval::ApprovalRequest`]); they
//! may be `async`, take `&mut Context` ([`Context`]: open windows and
//! modals, edit other windows, reject arguments), and return `()`, a value,
//! or a `Result`. An argument can carry constraints that go into its schema
//! and are enforced before the action runs — `#[arg(range(min = 1, max = 5))]`,
//! `#[arg(length(max = 80))]`, `#[arg(pattern = "^[A-Z]{3}$")]` (see
//! [`constraint`]). App-level actions (`app__…` tools) are an `#[actions]` impl
//! installed with [`AppBuilder::app_actions`]. A mistake in any of these is
//! a compile error at the offending token.
//!
//! ## What Purview does for you
//!
//! From the view-models alone, without code of yours:
//!
//! - the single resource `app://windows`, with `operableWindowIds` computed
//!   from modal chains and app-level modals;
//! - tools/list holding exactly the available actions of operable windows,
//!   named `{winId}__{action}` with name-safe ids (opening a modal hands its
//!   owner's tools over to it), plus `app__read_windows` and `app__act`,
//!   which reach every window in hosts that never refresh their tool list;
//! - per-window versions that move only when what the window shows changes,
//!   and `stale_state` for calls whose `expectedVersion` is out of date or
//!   that raced the person's edit;
//! - per-field `validation_failed`, `openedWindowIds`, timeouts, and calls
//!   that apply in full or not at all;
//! - coalesced notifications broadcast to every session, for both protocol
//!   generations rmcp speaks;
//! - masking of sensitive values ([`Secret`], `#[block(field, sensitive)]`)
//!   in every read, result, error and log line;
//! - a person's approval before an agent's destructive action, when asked
//!   for ([`approval`]: an app's approver or its queue), on both protocol
//!   generations, and only from whom the app trusts.
//!
//! ## Serving it
//!
//! One app serves any number of MCP sessions, on stdio (for a host that
//! starts the program) or streamable HTTP (loopback by default; beyond it a
//! bearer token is required), or both at once:
//!
//! ```no_run
//! # async fn serve(app: purview::App) -> Result<(), purview::Error> {
//! let server = app.serve_http(purview::http::HttpOptions::default()).await?;
//! eprintln!("agents connect at {}", server.url()); // stderr: stdout is the protocol's
//! app.serve_stdio().await
//! # }
//! ```
//!
//! With feature `cli`, `purview::cli` gives an app the usual command line
//! (`--http ADDR:PORT`, `--clients FILE`, `--tools`) and logging that keeps what agents
//! send out of the logs; feature `logging` gives the logging alone, without
//! clap. [`App::mcp_server`] serves one connection on any
//! [`rmcp`] transport of your own. Streamable HTTP is the `http` feature, on
//! by default; `default-features = false` builds an app that serves stdio
//! only, without hyper, axum or tower-http.
//!
//! ## The person's side
//!
//! The GUI changes windows only through Purview, so the person's edits and
//! an agent's calls take one serialized path and an agent working from
//! stale state never overwrites the person:
//!
//! - [`WindowHandle::read`] to draw, [`WindowHandle::update`] for what the
//!   person types into a field;
//! - `handle.act().some_action(..)` for a button: the typed calls
//!   `#[actions]` generates ([`TypedCalls`], [`Call`]) run the action's own
//!   logic for the person, with its arguments and result checked by the
//!   compiler (`app.call(tool, arguments).by_person()` is the same by tool name);
//! - [`App::scene`] for what one frame draws of every window, and
//!   [`ActionInfo::call`](activity::ActionInfo::call) for a default button
//!   or form of an action it lists;
//! - [`App::on_change`] to wake the GUI when an agent changed something,
//!   [`App::window_list`], [`App::windows_of`] and
//!   [`WindowKind`](derive@WindowKind) to know what is open,
//!   [`App::agent_activity`] to show where the agent works.
//!
//! The `purview-egui` crate draws any Purview app with egui from these
//! alone — blocks, action bars, forms from input schemas, modals, approval
//! prompts — and lets you draw chosen window types yourself.
//!
//! ## Where next
//!
//! - [`guide`]: the guide, chapter by chapter — [windows and
//!   actions](guide::windows), [the person's side](guide::persons_side),
//!   [serving](guide::serving) (the address, a headless app that keeps
//!   serving, tokens, limits, logging), [connecting each
//!   host](guide::hosts), [approvals](guide::approvals) (and answering
//!   them in the app's own face), [what an agent
//!   sees](guide::what_an_agent_sees), [patterns](guide::patterns) and
//!   [the traits by hand](guide::hand_written).
//! - [`prelude`]: the one import most apps need.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::too_many_lines)]

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[path = "fuzz_hooks.rs"]
pub mod __fuzz;
mod action;
mod app;
mod arg_source;
mod args;
#[cfg(feature = "logging")]
pub mod cli;
pub mod constraint;
pub mod guide;
mod instructions;
mod lock;
pub mod model;
mod paging;
pub mod projection;
mod redact;
mod refusals;
mod schema;
mod server;
pub mod settings;
mod shares;
mod signature;
mod validate;
mod view;
mod window;

/// The macros' documentation (purview-macros/doc), whose examples run here
/// as purview's doctests: the macro crate runs none itself, since testing
/// them there would build purview a second time.
#[cfg(doctest)]
mod macro_docs {
    #[doc = include_str!("../../purview-macros/doc/window.md")]
    struct Window;
    #[doc = include_str!("../../purview-macros/doc/actions.md")]
    struct Actions;
    #[doc = include_str!("../../purview-macros/doc/action.md")]
    struct Action;
    #[doc = include_str!("../../purview-macros/doc/data.md")]
    struct Data;
    #[doc = include_str!("../../purview-macros/doc/derive_row.md")]
    struct Row;
    #[doc = include_str!("../../purview-macros/doc/derive_window_kind.md")]
    struct WindowKind;
}

/// The naming rules: action names, window ids, tool-name budgets and titles,
/// shared with the macros so both check the same way.
pub use purview_naming as naming;

pub use action::{ActionOutput, ActionSpec};
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub use app::BuildCounts;
pub use app::{
    App, AppActions, AppBuilder, Call, Error, Performed, TypedCalls, WindowHandle, WindowKind,
};
pub use args::Args;
pub use model::ToolError;
/// The trait shares its name with the derive: `use purview::Row` brings both.
pub use projection::Row;
pub use purview_macros::{Row, WindowKind, action, actions, data, window};
pub use redact::Secret;
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
/// Re-exported because Purview's API carries JSON values
/// ([`projection::Cells`], [`model::Block`]).
pub use serde_json;
pub use server::McpServer;
pub use view::View;
pub use window::{Actions, Context, Window};

/// Approvals: what an agent's call that needs a person's yes asks, who may
/// answer it, and the queue a GUI answers from.
///
/// An action marked `#[action(approval, destructive)]` (or named in
/// [`AppBuilder::require_approval`]) waits, when an agent calls it, for a
/// yes from whom [`WhoApproves`](approval::WhoApproves) trusts: the app's
/// own [`Approver`](approval::Approver) (such as an
/// [`ApprovalQueue`](approval::ApprovalQueue) a GUI shows), the client's
/// user, or both.
///
/// ```
/// use purview::approval::{ApprovalQueue, WhoApproves};
/// let queue = ApprovalQueue::new();
/// let app = purview::App::builder()
///     .approver(queue.clone())
///     .who_approves(WhoApproves::InApp)
///     .build();
/// assert!(queue.pending().is_empty());
/// # let _ = app;
/// ```
pub mod approval {
    pub use crate::app::{
        Approval, ApprovalQueue, ApprovalRequest, Approver, MAX_SHOWN_ARGUMENT_CHARS,
        MAX_SHOWN_ARGUMENTS_CHARS, PendingApproval, WhoApproves,
    };
}

/// What a GUI shows of the app: everything one frame draws ([`App::scene`]),
/// the list of open windows ([`App::window_list`]) and their kinds
/// ([`VariantHandle`](activity::VariantHandle), behind
/// [`App::window_kind`]), where an agent last worked
/// ([`App::agent_activity`]), what changed ([`App::on_change`]), and who is
/// calling an action ([`Context::called_by`]).
///
/// ```
/// let app = purview::App::builder().build();
/// let windows: Vec<purview::activity::WindowInfo> = app.window_list().unwrap();
/// assert!(windows.is_empty());
/// assert!(app.agent_activity().is_none());
/// ```
pub mod activity {
    pub use crate::action::ArgumentSource;
    pub use crate::app::{
        ActionInfo, AgentActivity, Change, ClientId, Scene, SceneWindow, VariantHandle, WindowInfo,
    };
    pub use crate::window::CalledBy;
}

/// Serving streamable HTTP: the options ([`HttpOptions`](http::HttpOptions))
/// and the running server ([`HttpServer`](http::HttpServer)) that
/// [`App::serve_http`] returns.
///
/// ```no_run
/// # async fn run() -> Result<(), purview::Error> {
/// let app = purview::App::builder().build();
/// let server = app.serve_http(purview::http::HttpOptions::default()).await?;
/// eprintln!("serving {}", server.url());
/// server.wait().await;
/// # Ok(()) }
/// ```
#[cfg(feature = "http")]
pub mod http {
    pub use crate::server::{HttpOptions, HttpServer, charge_connection};

    /// A card for MCP Apps hosts (the `io.modelcontextprotocol/ui`
    /// extension): an HTML document the host renders beside a tool's
    /// result, with the tools only it calls ([`Card`](crate::http::mcp_apps::Card)).
    /// Shown only to clients that declare the extension
    /// ([`HttpOptions::show_card`](crate::http::HttpOptions::show_card)).
    ///
    /// ```
    /// let card = purview::http::mcp_apps::Card::new("ui://demo/windows", "<p>Windows</p>");
    /// assert_eq!(purview::http::mcp_apps::MIME_TYPE, "text/html;profile=mcp-app");
    /// # let _ = card;
    /// ```
    pub mod mcp_apps {
        pub use crate::server::mcp_apps::{
            Card, CardAnswer, CardReply, CardTool, EXTENSION, MIME_TYPE,
        };
    }
}

/// What an [`Actions`] implementation written by hand needs beyond the
/// root: the future its `call` returns, the refusal for an action it does
/// not have, and the JSON Schema of an argument type. See
/// [`guide::hand_written`].
///
/// ```
/// use purview::by_hand::unknown_action;
/// let refusal = unknown_action("frobnicate");
/// assert_eq!(refusal.code, purview::model::ErrorCode::ActionNotAvailable);
/// ```
pub mod by_hand {
    pub use crate::action::{schema_for, unknown_action};
    pub use crate::window::BoxFuture;
}

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
        ActionOutput, ActionSpec, Actions, App, Args, Call, Context, Performed, Row, Secret,
        TypedCalls, View, Window, WindowHandle, WindowKind, action, actions,
        by_hand::BoxFuture,
        model::{Block, FieldItem, Severity, ToolError},
        settings::ToolSurface,
        window,
    };
}

/// The one door generated code uses to reach the runtime, so compiler
/// messages about generated code name public items only. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::{
        ActionOutput, ActionSpec, Actions, App, AppActions, Args, Call, Context, TypedCalls, View,
        Window, WindowHandle, WindowKind,
        activity::VariantHandle,
        app::CallTarget,
        app::DeclaredAppActions,
        args::__question_arguments as question_arguments,
        args::__typed_output as typed_output,
        args::IntoQuestion,
        by_hand::{BoxFuture, unknown_action},
        constraint::{Check, argument},
        model::FieldError,
        model::JsonObject,
        model::{FieldItem, Severity, ToolError},
        projection::{
            AnyKind, Cells, Column, KindOf, ListSource, MediaSource, NoticeSource, PageLoader, Row,
            Sensitive, SourceCheck, TableBlocks, TableKeys, TableSource, ValueKind, cell,
            check_source, loads_pages, source_of,
        },
    };
    pub use inventory;
}

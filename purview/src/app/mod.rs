//! The application: windows, topology, versions, and the serialized path that
//! agent calls and the person's edits share. Nothing here knows about MCP or
//! any transport; `server/` reads it through [`App`]'s methods and the
//! [`Subscriber`](broadcast::Subscriber) trait.
//!
//! Which file decides what, and the phases of a call, are in the
//! repository's `ARCHITECTURE.md` (its table of `purview/src/app/` and the
//! section on an agent's `tools/call`); this module keeps no copy of them.

mod activity;
mod actor;
mod advice;
mod answers;
pub(crate) mod approval;
pub(crate) mod broadcast;
mod builder;
mod call;
mod catalog;
mod changes;
mod client;
mod commit;
pub(crate) mod consent;
mod context;
mod error;
mod gates;
mod handle;
mod lookup;
mod phases;
pub(crate) mod progress;
mod reads;
mod registry;
mod route;
mod run;
mod scene;
mod shared;
mod topology;
mod typed;

use std::{fmt, marker::PhantomData, sync::Arc};

use crate::lock::lock_unpoisoned;
pub use activity::{AgentActivity, WindowInfo};
pub use approval::{
    Approval, ApprovalQueue, ApprovalRequest, Approver, MAX_SHOWN_ARGUMENT_CHARS,
    MAX_SHOWN_ARGUMENTS_CHARS, PendingApproval, WhoApproves,
};
pub use builder::AppBuilder;
pub use call::{Call, Performed};
pub use changes::Change;
pub use client::ClientId;
pub(crate) use consent::Stop;
pub use context::{CalledBy, Context};
pub use error::Error;
pub use handle::WindowHandle;
pub(crate) use phases::Caller;
#[doc(hidden)]
pub use reads::BuildCounts;
pub use scene::{ActionInfo, Scene, SceneWindow};
#[doc(hidden)]
pub use typed::CallTarget;
pub use typed::{AppActions, TypedCalls, VariantHandle, WindowKind};

use self::{
    broadcast::{Subscriber, Subscription},
    registry::{Placement, Touched},
    shared::Shared,
};
use crate::{
    Window,
    model::{Snapshot, ToolDefinition},
};

/// A running Purview application: its windows, and the MCP face it shows
/// agents. Cheap to clone; every clone is the same application. Dropping the
/// last clone (and every [`WindowHandle`] and server of it) stops its
/// background work.
///
/// ```
/// use purview::{App, Actions, ActionSpec, Args, by_hand::BoxFuture, Context, View, Window};
///
/// #[derive(Clone)]
/// struct Hello;
/// impl Window for Hello {
///     fn title(&self) -> String { "Hello".into() }
///     fn project(&self, view: &mut View) { view.summary("Says hello").text("greeting", "Hello!"); }
/// }
/// impl Actions for Hello {
///     fn actions() -> Vec<ActionSpec> { vec![] }
///     fn call<'a>(&'a mut self, action: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> {
///         Box::pin(async move { Err(purview::by_hand::unknown_action(action)) })
///     }
/// }
///
/// let app = App::builder().name("hello").build();
/// let window = app.open(Hello).unwrap();
/// assert_eq!(app.operable_window_ids().unwrap(), vec![window.id().to_owned()]);
/// ```
#[derive(Clone)]
pub struct App {
    shared: Arc<Shared>,
}

impl fmt::Debug for App {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("App").field("name", &self.shared.config.name).finish_non_exhaustive()
    }
}

impl App {
    /// Starts configuring an application.
    ///
    /// ```
    /// let app = purview::App::builder().name("notes").build();
    /// assert_eq!(app.name(), "notes");
    /// ```
    pub fn builder() -> AppBuilder {
        AppBuilder::new()
    }

    fn handle<W: Window>(&self, id: Arc<str>) -> WindowHandle<W> {
        WindowHandle { app: self.clone(), id, _ty: PhantomData }
    }

    /// Opens a top-level window.
    pub fn open<W: Window>(&self, window: W) -> Result<WindowHandle<W>, Error> {
        self.shared.open(window, None, Placement::TopLevel).map(|id| self.handle(id))
    }

    /// Opens a top-level window under the app's own name for it. A name-safe
    /// name (letter-first ASCII alphanumerics, at most 12 characters, never
    /// used before) becomes the window id; any other name (spaces, CJK, …)
    /// gets a generated handle, used in every id field and tool name.
    ///
    /// ```
    /// # use purview::{by_hand::*, *};
    /// # #[derive(Clone)] struct W;
    /// # impl Window for W { fn title(&self) -> String { "W".into() } fn project(&self, _: &mut View) {} }
    /// # impl Actions for W { fn actions() -> Vec<ActionSpec> { vec![] }
    /// #   fn call<'a>(&'a mut self, a: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> { Box::pin(async move { Err(unknown_action(a)) }) } }
    /// let app = App::builder().build();
    /// let main = app.open_named("main", W).unwrap();
    /// let report = app.open_named("月度 报告", W).unwrap();
    /// assert_eq!(main.id(), "main");
    /// assert!(report.id().starts_with('w'));
    /// assert_eq!(app.find_named("月度 报告").unwrap().as_deref(), Some(report.id()));
    /// ```
    pub fn open_named<W: Window>(&self, name: &str, window: W) -> Result<WindowHandle<W>, Error> {
        self.shared.open(window, Some(name), Placement::TopLevel).map(|id| self.handle(id))
    }

    /// Opens an app-level modal: until it closes, only its own chain is
    /// operable and app-level actions are withdrawn.
    pub fn open_app_modal<W: Window>(&self, window: W) -> Result<WindowHandle<W>, Error> {
        self.shared.open(window, None, Placement::AppModal).map(|id| self.handle(id))
    }

    /// A typed handle to an open window.
    pub fn window<W: Window>(&self, id: &str) -> Result<WindowHandle<W>, Error> {
        let id = {
            let state = self.shared.lock()?;
            let entry =
                state.entry_by_id(id).ok_or_else(|| Error::WindowClosed { id: id.to_owned() })?;
            if entry.actor.vm.as_any().downcast_ref::<W>().is_none() {
                return Err(Error::WrongType {
                    id: id.to_owned(),
                    expected: std::any::type_name::<W>(),
                });
            }
            entry.id.clone()
        };
        Ok(self.handle(id))
    }

    /// The id of the open window the app named `name`, if there is one.
    pub fn find_named(&self, name: &str) -> Result<Option<String>, Error> {
        self.shared.read(|state| {
            let seq = state.by_name.get(name)?;
            state.windows.get(seq).map(|e| e.id.to_string())
        })
    }

    /// Closes a window and every modal stacked on it. Closing a closed window
    /// is an error, so double closes show up.
    pub fn close(&self, id: &str) -> Result<(), Error> {
        self.shared.mutate(|state| {
            let closed = state.close_cascade(id);
            if closed.is_empty() {
                Err(Error::WindowClosed { id: id.to_owned() })
            } else {
                Ok(((), Touched { windows: vec![], app: false, topology: true }))
            }
        })
    }

    /// Shows or hides one of the app-level actions (the app's own
    /// `set_available`; [`WindowHandle::set_available`] and
    /// [`Context::set_available`] do the same for a window's).
    pub fn set_available(&self, action: &str, available: bool) -> Result<(), Error> {
        self.shared.mutate(|state| {
            let known = state.app.as_mut().is_some_and(|app| app.set_hidden(action, !available));
            if known {
                Ok(((), Touched { windows: vec![], app: true, topology: false }))
            } else {
                Err(Error::UnknownAction { action: action.to_owned() })
            }
        })
    }

    /// The `app://windows` snapshot as a value.
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// assert!(app.snapshot().unwrap().windows.is_empty());
    /// ```
    pub fn snapshot(&self) -> Result<Snapshot, Error> {
        self.shared.read(|state| state.snapshot())
    }

    /// The `app://windows` snapshot as the exact JSON text agents read,
    /// serialized once per change and shared by every read until the next.
    pub fn snapshot_json(&self) -> Result<Arc<str>, Error> {
        self.shared.read(|state| state.snapshot_json())
    }

    /// The snapshot serialized afresh, bypassing the cache: for measuring
    /// the cost a read pays right after a change. Not part of the API.
    #[cfg(feature = "bench-internals")]
    #[doc(hidden)]
    pub fn snapshot_json_uncached(&self) -> Result<String, Error> {
        self.shared.read(|state| state.render_snapshot_json())
    }

    /// The ids of the windows agents may operate now.
    pub fn operable_window_ids(&self) -> Result<Vec<String>, Error> {
        self.shared.read(|s| s.operable.iter().map(|id| id.to_string()).collect())
    }

    /// The names of the tools tools/list offers now.
    pub fn tool_names(&self) -> Result<Vec<String>, Error> {
        let surface = self.shared.config.surface;
        self.shared.read(|state| catalog::tool_names(state, surface))
    }

    /// The tool definitions tools/list returns now (built once per change
    /// of the tool set, and copied out for each caller).
    pub fn tools(&self) -> Result<Vec<ToolDefinition>, Error> {
        Ok(self.listed_tools()?.to_vec())
    }

    /// How long one tools/list holds the state lock, measured inside it:
    /// for measuring what a list costs others. Not part of the API.
    #[cfg(feature = "bench-internals")]
    #[doc(hidden)]
    pub fn tools_lock_hold(&self) -> Result<std::time::Duration, Error> {
        let config = &self.shared.config;
        self.shared.read(|state| {
            let start = std::time::Instant::now();
            let tools = state.listed_tools(config);
            let held = start.elapsed();
            drop(tools);
            held
        })
    }

    /// Calls `f` after every change agents will be notified of, and after
    /// every successful agent call ([`Change::agent`]): use it to wake a GUI
    /// event loop (`ctx.request_repaint()` in egui). It runs on the thread
    /// that made the change, outside Purview's state lock but, during an
    /// agent call, while calls are still serialized: keep it short, and do
    /// not wait in it for a [`Call`](crate::Call), which would wait
    /// for it in turn.
    pub fn on_change(&self, f: impl Fn(Change) + Send + Sync + 'static) {
        self.shared.changes.add_listener(Arc::new(f));
    }

    /// The server name given to the builder.
    pub fn name(&self) -> &str {
        &self.shared.config.name
    }

    /// The server version given to the builder.
    pub fn version(&self) -> &str {
        &self.shared.config.version
    }

    /// The app's notes for the instructions, if any.
    pub(crate) fn notes(&self) -> Option<&str> {
        self.shared.config.instructions.as_deref()
    }

    /// Which tools agents are offered.
    pub fn tool_surface(&self) -> crate::settings::ToolSurface {
        self.shared.config.surface
    }

    /// Sets (or replaces) who decides when an agent calls an action that
    /// needs approval, typically the GUI once it is up; see
    /// [`AppBuilder::approver`].
    pub fn set_approver(&self, approver: impl Approver) {
        *lock_unpoisoned(&self.shared.approver) = Some(Arc::new(approver));
    }

    /// Words approval questions the app's own way: `f` gets each request and
    /// returns the sentence a person should read (or `None` to keep
    /// [`ApprovalRequest::describe`]'s). Its result lands in
    /// [`ApprovalRequest::wording`], which `describe` then shows after who
    /// asks, in the in-app prompt and the elicitation alike.
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// app.set_approval_wording(|request| {
    ///     (request.action == "confirm").then(|| "submit the order for real?".to_owned())
    /// });
    /// ```
    pub fn set_approval_wording(
        &self,
        f: impl Fn(&ApprovalRequest) -> Option<String> + Send + Sync + 'static,
    ) {
        *lock_unpoisoned(&self.shared.approval_wording) = Some(Arc::new(f));
    }

    /// The number of connections that currently receive notifications.
    pub fn session_count(&self) -> usize {
        self.shared.changes.subscriber_count()
    }

    /// The app's subscriber limit ([`Limits::max_subscribers`](crate::settings::Limits::max_subscribers)).
    #[cfg(feature = "http")]
    pub(crate) fn max_subscribers(&self) -> usize {
        self.shared.config.limits.max_subscribers
    }

    /// Registers a transport's subscriber for notifications (§10.1), or
    /// [`Error::LimitReached`] at [`Limits::max_subscribers`](crate::settings::Limits::max_subscribers).
    pub(crate) fn subscribe(&self, subscriber: impl Subscriber) -> Result<Subscription, Error> {
        let limit = self.shared.config.limits.max_subscribers;
        self.shared
            .changes
            .subscribe(subscriber)
            .ok_or(Error::LimitReached { what: "notification subscribers", limit })
    }
}

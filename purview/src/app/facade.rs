//! [`App`]: the application's one public face. Its methods only
//! delegate: each names the room that decides (phases, scene, reads,
//! lookup, activity, consent) and hands it the shared state. Nothing below
//! this file calls back up into it.

pub(super) mod builder;
pub(super) mod call;
pub(super) mod handle;
mod listed;
pub(super) mod typed;

use std::{fmt, marker::PhantomData, sync::Arc};

use serde_json::Value;

use super::{
    AgentActivity, AppActions, ApprovalRequest, Approver, Call, CallTarget, Change, Error, Scene,
    TypedCalls, WindowHandle, WindowInfo, WindowKind,
    broadcast::{Subscriber, Subscription},
    catalog, consent, lookup, phases,
    registry::Touched,
    seen,
    shared::Shared,
    topology::Placement,
};
use crate::{
    Window,
    lock::lock_unpoisoned,
    model::{Snapshot, ToolDefinition},
};
use builder::AppBuilder;

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
    pub(super) shared: Arc<Shared>,
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
    /// [`Context::set_available`](crate::Context::set_available) do the same for a window's).
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
    #[cfg(feature = "test-support")]
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
    #[cfg(feature = "test-support")]
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

    /// What `app__read_windows` returns: the `app://windows` snapshot
    /// (narrowed to `only`, when given; `operableWindowIds` stays whole) plus
    /// `actions`, each operable window's available actions (and `"app"`'s)
    /// as one-line signatures such as
    /// `edit_field(field: 'recipient'|'amount', value: string)`.
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// let view = app.read_windows(None).unwrap();
    /// assert_eq!(view["windows"], serde_json::json!([]));
    /// assert!(view.get("schemas").is_none());
    /// ```
    pub fn read_windows(&self, only: Option<&[String]>) -> Result<Value, Error> {
        phases::read_windows(&self.shared, only, false)
    }

    /// [`App::read_windows`] with `schemas`, as `app__read_windows` answers
    /// `{"schemas": true}`: for each id under `actions`, its actions' title,
    /// description, full input schema and annotations by name — or, for a
    /// window whose type an earlier entry already describes, that entry's
    /// window id.
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// let view = app.read_windows_with_schemas(None).unwrap();
    /// assert_eq!(view["schemas"], serde_json::json!({}));
    /// ```
    pub fn read_windows_with_schemas(&self, only: Option<&[String]>) -> Result<Value, Error> {
        phases::read_windows(&self.shared, only, true)
    }

    /// A call of a tool by name, as an agent sends it: `{windowId}__{action}`,
    /// `app__{action}` or `app__act` (whose result is the action's), with its
    /// JSON arguments. It runs as an agent unless made
    /// [`by_person`](Call::by_person); awaiting it gives the exact result or
    /// error the MCP layer sends, and [`Call::outcome`] the wire form (which
    /// also answers `app__read_windows`).
    ///
    /// ```
    /// # use purview::prelude::*;
    /// # #[window(summary = "W")] #[derive(Clone, Default)] struct W;
    /// # #[actions] impl W {
    /// #     /// Close it.
    /// #     #[action] fn close(&mut self, cx: &mut Context) -> ActionOutput { cx.close(); ActionOutput::message("closed") }
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = App::builder().build();
    /// let w = app.open(W).unwrap();
    /// let ok = app.call(&format!("{}__close", w.id()), None).await.unwrap();
    /// assert_eq!(ok.message.as_deref(), Some("closed"));
    /// let err = app.call(&format!("{}__close", w.id()), None).await.unwrap_err();
    /// assert_eq!(err.code, purview::model::ErrorCode::WindowNotFound);
    /// # });
    /// ```
    pub fn call(
        &self,
        tool: &str,
        arguments: Option<crate::action::JsonObject>,
    ) -> Call<Option<Value>> {
        Call::tool(self, tool, arguments.unwrap_or_default())
    }

    /// The typed calls of the app-level actions registered with
    /// [`AppBuilder::app_actions`](crate::AppBuilder::app_actions):
    /// `app.act::<Desk>().lock().await`. Only a type declared with
    /// `#[actions(app)]` ([`AppActions`]) compiles here; one that is not the
    /// type the app was built with fails with `action_not_available`.
    ///
    /// ```
    /// use purview::prelude::*;
    ///
    /// #[derive(Clone, Default)]
    /// struct Desk { opened: u32 }
    ///
    /// #[actions(app)]
    /// impl Desk {
    ///     /// Count one more report.
    ///     #[action]
    ///     fn new_report(&mut self) -> u32 { self.opened += 1; self.opened }
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = App::builder().app_actions(Desk::default()).build();
    /// assert_eq!(app.act::<Desk>().new_report().await.unwrap().value, 1);
    /// # });
    /// ```
    pub fn act<A: AppActions + TypedCalls>(&self) -> A::Calls {
        A::__calls(CallTarget::new::<A>(self.clone(), None))
    }

    /// The open window `id` as one of the window types an app lists in a
    /// [`WindowKind`] enum, for a `match` over them; `None` when it is closed
    /// or of none of them.
    ///
    /// ```
    /// use purview::prelude::*;
    ///
    /// #[window(summary = "Inbox")]
    /// #[derive(Clone, Default)]
    /// struct Inbox;
    /// #[actions] impl Inbox {}
    ///
    /// #[window(summary = "Ticket")]
    /// #[derive(Clone, Default)]
    /// struct Ticket;
    /// #[actions] impl Ticket {}
    ///
    /// #[derive(purview::WindowKind)]
    /// enum Open {
    ///     Inbox(WindowHandle<Inbox>),
    ///     Ticket(WindowHandle<Ticket>),
    /// }
    ///
    /// let app = App::builder().build();
    /// let ticket = app.open(Ticket).unwrap();
    /// match app.window_kind::<Open>(ticket.id()) {
    ///     Some(Open::Ticket(t)) => assert_eq!(t.id(), ticket.id()),
    ///     Some(Open::Inbox(_)) | None => unreachable!(),
    /// }
    /// ```
    pub fn window_kind<K: WindowKind>(&self, id: &str) -> Option<K> {
        K::from_window(self, id)
    }

    /// Every open window whose view-model is a `W`, modals included, in the
    /// order they were opened. An empty list when there is none.
    ///
    /// The handles stay valid as long as their windows are open; a window
    /// closed after this returns answers [`Error::WindowClosed`] through its
    /// handle.
    ///
    /// ```
    /// use purview::prelude::*;
    ///
    /// #[window(summary = "Order #{order}")]
    /// #[derive(Clone)]
    /// struct OrderDetail {
    ///     #[block(field)]
    ///     order: u32,
    /// }
    /// #[actions] impl OrderDetail {}
    ///
    /// #[window(summary = "Notes")]
    /// #[derive(Clone)]
    /// struct Notes;
    /// #[actions] impl Notes {}
    ///
    /// let app = App::builder().build();
    /// app.open(OrderDetail { order: 7 }).unwrap();
    /// app.open(Notes).unwrap();
    /// app.open(OrderDetail { order: 9 }).unwrap();
    ///
    /// let details = app.windows_of::<OrderDetail>().unwrap();
    /// let orders: Vec<u32> = details.iter().map(|d| d.read(|d| d.order).unwrap()).collect();
    /// assert_eq!(orders, [7, 9]);
    /// assert_eq!(app.windows_of::<Notes>().unwrap().len(), 1);
    /// ```
    pub fn windows_of<W: Window>(&self) -> Result<Vec<WindowHandle<W>>, Error> {
        let ids = lookup::ids_of::<W>(&self.shared)?;
        Ok(ids.into_iter().map(|id| self.handle(id)).collect())
    }

    /// Every open window, in the order they were opened.
    ///
    /// ```
    /// # use purview::{by_hand::*, *};
    /// # #[derive(Clone)] struct W;
    /// # impl Window for W { fn title(&self) -> String { "W".into() } fn project(&self, _: &mut View) {} }
    /// # impl Actions for W { fn actions() -> Vec<ActionSpec> { vec![] }
    /// #   fn call<'a>(&'a mut self, a: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> { Box::pin(async move { Err(unknown_action(a)) }) } }
    /// let app = App::builder().build();
    /// let w = app.open(W).unwrap();
    /// w.open_modal(W).unwrap();
    /// let list = app.window_list().unwrap();
    /// assert_eq!(list.len(), 2);
    /// assert!(!list[0].operable && list[1].operable);
    /// assert_eq!(list[0].blocked_by.as_deref(), Some(list[1].id.as_str()));
    /// assert_eq!(list[1].blocked_by, None);
    /// ```
    pub fn window_list(&self) -> Result<Vec<WindowInfo>, Error> {
        seen::window_list(&self.shared)
    }

    /// The agent's most recent successful call, if any. The person's own
    /// calls ([`Call::by_person`](crate::Call::by_person)) are not recorded.
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// assert!(app.agent_activity().is_none());
    /// ```
    pub fn agent_activity(&self) -> Option<AgentActivity> {
        seen::latest(&self.shared)
    }

    /// What a GUI draws in one frame, read in one consistent state from
    /// the app's own types ([`Scene`]): no JSON is made and agents'
    /// cached snapshot is left alone. Each window shows its settled
    /// projection, the one agents read: no view-model is projected for a
    /// frame. What it shows is gathered once per change and shared, and
    /// after the first read every change publishes its scene as it
    /// settles: a frame clones a handle without taking the state lock, so
    /// agents working on the app never make it wait, and copies nothing.
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
    /// app.open(Counter::default()).unwrap();
    /// let scene = app.scene().unwrap();
    /// assert_eq!(scene.windows[0].state.summary.as_deref(), Some("Counts to 0"));
    /// assert_eq!(scene.windows[0].actions[0].title, "Increment");
    /// assert!(scene.windows[0].operable);
    /// ```
    pub fn scene(&self) -> Result<Arc<Scene>, Error> {
        self.shared.scene()
    }

    /// How many times this app has serialized its windows for agents (a
    /// read of `app://windows` or `app__read_windows`, each cache fill
    /// once): for tests that a GUI's frames add nothing to it. Only with
    /// the `test-support` feature; not part of the API.
    #[cfg(feature = "test-support")]
    #[doc(hidden)]
    pub fn windows_serialized(&self) -> u64 {
        self.shared.windows_serialized()
    }

    /// How many times this app has built each answer it keeps between
    /// changes, and projected a window. Only with the `test-support`
    /// feature; not part of the API.
    #[cfg(feature = "test-support")]
    #[doc(hidden)]
    pub fn build_counts(&self) -> Result<super::BuildCounts, Error> {
        self.shared.build_counts()
    }

    pub(super) fn handle<W: Window>(&self, id: Arc<str>) -> WindowHandle<W> {
        WindowHandle { app: self.clone(), id, _ty: PhantomData }
    }

    /// The unfiltered `app__read_windows` answer (without schemas) as kept
    /// since the last change: the state lock is held only to clone the
    /// handle.
    #[cfg(feature = "http")]
    pub(crate) fn windows_read(&self) -> Result<Arc<Value>, Error> {
        self.shared.read(|state| state.windows_read(false))
    }

    /// The tool definitions tools/list returns now, shared: the state lock
    /// is held only to clone the handle.
    pub(crate) fn listed_tools(&self) -> Result<Arc<[ToolDefinition]>, Error> {
        self.shared.listed_tools()
    }

    /// The seal of this app's 2026-07-28 approval questions ([`consent::state_seal`]).
    pub(crate) fn state_seal(
        &self,
        make: impl FnOnce(Option<&[u8]>) -> Arc<dyn consent::StateSeal>,
    ) -> Arc<dyn consent::StateSeal> {
        consent::state_seal(&self.shared, make)
    }

    /// Warnings for an app served as it should not be: no window open,
    /// actions needing approval that no one can give, app-level actions
    /// never installed.
    pub(crate) fn warn_if_misconfigured(&self) {
        lookup::warn_if_no_windows(&self.shared);
        consent::warn_if_no_one_can_approve(&self.shared);
        for said in self.__setup_warnings() {
            tracing::warn!("{said}");
        }
    }

    /// What the app's setup leaves agents without, each said as what to
    /// do: `#[actions(app)]` types of the program it does not install.
    /// Logged when the app starts serving; `purview-conformance` puts them
    /// in its report. Not public API.
    #[doc(hidden)]
    pub fn __setup_warnings(&self) -> Vec<String> {
        typed::app_actions_not_installed(&self.shared)
    }
}

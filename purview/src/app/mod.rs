//! The application: windows, topology, versions and the serialized path that
//! agent calls and the person's edits share.

mod activity;
mod changes;
mod commit;
mod context;
mod dispatch;
mod errors;
mod handle;
mod registry;
mod topology;

use std::{
    fmt,
    marker::PhantomData,
    sync::{
        Arc, Mutex, MutexGuard,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

pub use activity::{AgentActivity, WindowInfo};
pub use context::Context;
pub use handle::WindowHandle;
pub use registry::Change;
pub(crate) use registry::{Actor, Placement, State, Touched, TypeSpec};

pub(crate) use changes::ChangeHub;

use crate::{
    Actions, Window,
    model::Snapshot,
    server::sessions::Sessions,
    window::{AsAppActions, AsWindow, DynActions},
};

/// What can go wrong when the application (not an agent) drives Purview.
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
    /// A view-model type's action list is invalid.
    InvalidDefinition(String),
    /// Another open window already uses this name.
    NameInUse {
        /// The name.
        name: String,
    },
    /// The window type has no such action.
    UnknownAction {
        /// The action name.
        action: String,
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
            Self::InvalidDefinition(reason) => write!(f, "invalid window definition: {reason}"),
            Self::NameInUse { name } => write!(f, "an open window is already named `{name}`"),
            Self::UnknownAction { action } => write!(f, "no action named `{action}`"),
            Self::Serve(reason) => write!(f, "serving failed: {reason}"),
        }
    }
}

impl std::error::Error for Error {}

thread_local! {
    /// The apps whose state lock this thread holds, so a callback that calls
    /// back into the same app gets [`Error::Reentrant`] instead of a
    /// deadlock (another app is fine).
    static HELD: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

pub(crate) fn lock_unpoisoned<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // User code under our locks runs inside catch_unwind, so a poisoned lock
    // still guards consistent data.
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) struct StateGuard<'a> {
    guard: MutexGuard<'a, State>,
    app: usize,
}

impl std::ops::Deref for StateGuard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.guard
    }
}

impl std::ops::DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.guard
    }
}

impl Drop for StateGuard<'_> {
    fn drop(&mut self) {
        HELD.with(|held| {
            let mut held = held.borrow_mut();
            if let Some(i) = held.iter().rposition(|a| *a == self.app) {
                held.remove(i);
            }
        });
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub name: String,
    pub version: String,
    pub instructions: Option<String>,
    pub default_timeout: Duration,
    pub coalesce: Duration,
}

pub(crate) struct Inner {
    state: Mutex<State>,
    /// Serializes agent calls end to end (§10.1).
    pub op_lock: tokio::sync::Mutex<()>,
    next_seq: AtomicU64,
    pub hub: Arc<ChangeHub>,
    pub sessions: Arc<Sessions>,
    pub broadcaster: Mutex<Option<tokio::task::JoinHandle<()>>>,
    pub activity: Mutex<Option<AgentActivity>>,
    pub config: Config,
}

impl Inner {
    pub fn lock(&self) -> Result<StateGuard<'_>, Error> {
        let app = self as *const Self as usize;
        if HELD.with(|held| held.borrow().contains(&app)) {
            return Err(Error::Reentrant);
        }
        let guard = lock_unpoisoned(&self.state);
        HELD.with(|held| held.borrow_mut().push(app));
        Ok(StateGuard { guard, app })
    }

    pub fn next_seq(&self) -> u64 {
        self.next_seq.fetch_add(1, Ordering::Relaxed)
    }

    /// Runs one mutation on the serialized path, settles it and signals what
    /// changed once the lock is released.
    pub fn mutate<R>(&self, f: impl FnOnce(&mut State) -> (R, Touched)) -> Result<R, Error> {
        let (value, change) = {
            let mut state = self.lock()?;
            let (value, touched) = f(&mut state);
            let change = state.settle(touched);
            (value, change)
        };
        self.hub.signal(change);
        Ok(value)
    }

    pub fn type_spec<W: Actions>(&self) -> Result<Arc<TypeSpec>, Error> {
        let mut state = self.lock()?;
        state.type_spec::<W>(W::actions, true).map_err(Error::InvalidDefinition)
    }

    pub fn read_window<W: Window, R>(&self, id: &str, f: impl FnOnce(&W) -> R) -> Option<R> {
        let state = self.lock().ok()?;
        let entry = state.entry_by_id(id)?;
        let vm = entry.actor.vm.as_any().downcast_ref::<W>()?;
        Some(f(vm))
    }

    fn open<W: Window>(
        &self,
        window: W,
        name: Option<&str>,
        placement: Placement,
    ) -> Result<Arc<str>, Error> {
        let spec = self.type_spec::<W>()?;
        let seq = self.next_seq();
        self.mutate(|state| {
            if let Some(name) = name
                && state.by_name.contains_key(name)
            {
                return (Err(Error::NameInUse { name: name.to_owned() }), Touched::default());
            }
            if let Placement::Modal { owner } = &placement
                && state.entry_by_id(owner).is_none()
            {
                return (Err(Error::WindowClosed { id: owner.to_string() }), Touched::default());
            }
            let id = state.choose_id(seq, name);
            let vm: Box<dyn DynActions> = Box::new(AsWindow(window));
            state.insert(seq, id.clone(), name.map(str::to_owned), Actor::new(vm, spec), placement);
            (Ok(id), Touched { windows: vec![seq], app: false, topology: true })
        })?
    }
}

/// A running Purview application: its windows, and the MCP face it shows
/// agents. Cheap to clone; every clone is the same application.
///
/// ```
/// use purview::{App, Actions, ActionSpec, Args, BoxFuture, ActionResult, Context, View, Window};
///
/// #[derive(Clone)]
/// struct Hello;
/// impl Window for Hello {
///     fn title(&self) -> String { "Hello".into() }
///     fn project(&self, view: &mut View) { view.summary("Says hello").text("greeting", "Hello!"); }
/// }
/// impl Actions for Hello {
///     fn actions() -> Vec<ActionSpec> { vec![] }
///     fn call<'a>(&'a mut self, action: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a, ActionResult> {
///         Box::pin(async move { Err(purview::unknown_action(action)) })
///     }
/// }
///
/// let app = App::builder().name("hello").build();
/// let window = app.open(Hello).unwrap();
/// assert_eq!(app.operable_window_ids(), vec![window.id().to_owned()]);
/// ```
#[derive(Clone)]
pub struct App {
    pub(crate) inner: Arc<Inner>,
}

impl fmt::Debug for App {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("App").field("name", &self.inner.config.name).finish_non_exhaustive()
    }
}

/// Installs the app-level action set into a fresh state.
type InstallAppActions = Box<dyn FnOnce(&mut State) -> Result<(), String> + Send>;

/// Configures an [`App`].
///
/// ```
/// use std::time::Duration;
/// let app = purview::App::builder()
///     .name("order_desk")
///     .version("1.0.0")
///     .instructions("Orders over $10,000 need a second confirmation.")
///     .default_timeout(Duration::from_secs(10))
///     .build();
/// # let _ = app;
/// ```
#[must_use]
pub struct AppBuilder {
    config: Config,
    app_actions: Option<InstallAppActions>,
}

impl AppBuilder {
    /// The server name agents see (`serverInfo.name`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.name = name.into();
        self
    }

    /// The server version agents see.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.config.version = version.into();
        self
    }

    /// App-specific notes appended to the protocol instructions sent in
    /// `initialize`.
    pub fn instructions(mut self, notes: impl Into<String>) -> Self {
        self.config.instructions = Some(notes.into());
        self
    }

    /// How long an action may run unless its spec says otherwise (30 s).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.config.default_timeout = timeout;
        self
    }

    /// The shortest gap between two notification batches (20 ms). Changes
    /// inside the gap are merged; the first change is sent at once.
    pub fn coalesce(mut self, gap: Duration) -> Self {
        self.config.coalesce = gap;
        self
    }

    /// App-level actions, offered as `app__{action}` tools while no app-level
    /// modal is open.
    pub fn app_actions<A: Actions>(mut self, actions: A) -> Self {
        self.app_actions = Some(Box::new(move |state: &mut State| {
            let spec = state.type_spec::<A>(A::actions, false)?;
            state.app = Some(Actor::new(Box::new(AsAppActions(actions)), spec));
            Ok(())
        }));
        self
    }

    /// Builds the application, with no window open yet.
    ///
    /// Panics if the app-level actions are invalid; use [`AppBuilder::try_build`]
    /// to handle that as an error.
    pub fn build(self) -> App {
        match self.try_build() {
            Ok(app) => app,
            Err(e) => panic!("{e}"),
        }
    }

    /// Builds the application, reporting invalid app-level actions.
    pub fn try_build(self) -> Result<App, Error> {
        let mut state = State::default();
        if let Some(install) = self.app_actions {
            install(&mut state).map_err(Error::InvalidDefinition)?;
        }
        state.settle(Touched { windows: vec![], app: true, topology: true });
        Ok(App {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                op_lock: tokio::sync::Mutex::new(()),
                next_seq: AtomicU64::new(1),
                hub: Arc::new(ChangeHub::default()),
                sessions: Arc::new(Sessions::default()),
                broadcaster: Mutex::new(None),
                activity: Mutex::new(None),
                config: self.config,
            }),
        })
    }
}

impl App {
    /// Starts configuring an application.
    pub fn builder() -> AppBuilder {
        AppBuilder {
            config: Config {
                name: "purview-app".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                instructions: None,
                default_timeout: Duration::from_secs(30),
                coalesce: Duration::from_millis(20),
            },
            app_actions: None,
        }
    }

    fn handle<W: Window>(&self, id: Arc<str>) -> WindowHandle<W> {
        WindowHandle { app: self.clone(), id, _ty: PhantomData }
    }

    /// Opens a top-level window.
    pub fn open<W: Window>(&self, window: W) -> Result<WindowHandle<W>, Error> {
        self.inner.open(window, None, Placement::TopLevel).map(|id| self.handle(id))
    }

    /// Opens a top-level window under the app's own name for it. A name-safe
    /// name (letter-first ASCII alphanumerics, at most 12 characters, never
    /// used before) becomes the window id; any other name (spaces, CJK, …)
    /// gets a generated handle, used in every id field and tool name.
    ///
    /// ```
    /// # use purview::*;
    /// # #[derive(Clone)] struct W;
    /// # impl Window for W { fn title(&self) -> String { "W".into() } fn project(&self, _: &mut View) {} }
    /// # impl Actions for W { fn actions() -> Vec<ActionSpec> { vec![] }
    /// #   fn call<'a>(&'a mut self, a: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a, ActionResult> { Box::pin(async move { Err(unknown_action(a)) }) } }
    /// let app = App::builder().build();
    /// let main = app.open_named("main", W).unwrap();
    /// let report = app.open_named("月度 报告", W).unwrap();
    /// assert_eq!(main.id(), "main");
    /// assert!(report.id().starts_with('w'));
    /// assert_eq!(app.find_named("月度 报告").as_deref(), Some(report.id()));
    /// ```
    pub fn open_named<W: Window>(&self, name: &str, window: W) -> Result<WindowHandle<W>, Error> {
        self.inner.open(window, Some(name), Placement::TopLevel).map(|id| self.handle(id))
    }

    /// Opens an app-level modal: until it closes, only its own chain is
    /// operable and app-level actions are withdrawn.
    pub fn open_app_modal<W: Window>(&self, window: W) -> Result<WindowHandle<W>, Error> {
        self.inner.open(window, None, Placement::AppModal).map(|id| self.handle(id))
    }

    /// A typed handle to an open window.
    pub fn window<W: Window>(&self, id: &str) -> Result<WindowHandle<W>, Error> {
        let state = self.inner.lock()?;
        let entry =
            state.entry_by_id(id).ok_or_else(|| Error::WindowClosed { id: id.to_owned() })?;
        if entry.actor.vm.as_any().downcast_ref::<W>().is_none() {
            return Err(Error::WrongType {
                id: id.to_owned(),
                expected: std::any::type_name::<W>(),
            });
        }
        let id = entry.id.clone();
        drop(state);
        Ok(self.handle(id))
    }

    /// The id of the open window the app named `name`.
    pub fn find_named(&self, name: &str) -> Option<String> {
        let state = self.inner.lock().ok()?;
        let seq = state.by_name.get(name)?;
        state.windows.get(seq).map(|e| e.id.to_string())
    }

    /// Closes a window and every modal stacked on it. Closing a closed window
    /// is an error, so double closes show up.
    pub fn close(&self, id: &str) -> Result<(), Error> {
        self.inner.mutate(|state| {
            let closed = state.close_cascade(id);
            if closed.is_empty() {
                (Err(Error::WindowClosed { id: id.to_owned() }), Touched::default())
            } else {
                (Ok(()), Touched { windows: vec![], app: false, topology: true })
            }
        })?
    }

    /// Shows or hides one of the app-level actions.
    pub fn set_app_action_available(&self, action: &str, available: bool) -> Result<(), Error> {
        self.inner.mutate(|state| {
            let Some(app) = state.app.as_mut() else {
                return (
                    Err(Error::UnknownAction { action: action.to_owned() }),
                    Touched::default(),
                );
            };
            if app.spec.action(action).is_none() {
                return (
                    Err(Error::UnknownAction { action: action.to_owned() }),
                    Touched::default(),
                );
            }
            if available {
                app.hidden.remove(action);
            } else {
                app.hidden.insert(action.to_owned());
            }
            (Ok(()), Touched { windows: vec![], app: true, topology: false })
        })?
    }

    /// The `app://windows` snapshot as a value.
    pub fn snapshot(&self) -> Snapshot {
        serde_json::from_str(&self.snapshot_json())
            .unwrap_or_else(|_| Snapshot { operable_window_ids: Vec::new(), windows: Vec::new() })
    }

    /// The `app://windows` snapshot as the exact JSON text agents read. Cached
    /// between changes. Empty when called from inside a Purview callback.
    pub fn snapshot_json(&self) -> Arc<str> {
        match self.inner.lock() {
            Ok(mut state) => state.snapshot_json(),
            Err(_) => Arc::from(r#"{"operableWindowIds":[],"windows":[]}"#),
        }
    }

    /// The snapshot serialized afresh, bypassing the cache: for measuring
    /// the cost a read pays right after a change.
    #[doc(hidden)]
    pub fn snapshot_json_uncached(&self) -> String {
        self.inner.lock().map(|state| state.render_snapshot_json()).unwrap_or_default()
    }

    /// The ids of the windows agents may operate now.
    pub fn operable_window_ids(&self) -> Vec<String> {
        self.inner
            .lock()
            .map(|s| s.operable.iter().map(|id| id.to_string()).collect())
            .unwrap_or_default()
    }

    /// The names of the tools tools/list offers now.
    pub fn tool_names(&self) -> Vec<String> {
        self.inner
            .lock()
            .map(|s| s.tools.iter().map(|t| t.name.clone()).collect())
            .unwrap_or_default()
    }

    /// Calls `f` after every change agents will be notified of, and after
    /// every successful agent call ([`Change::agent`]): use it to wake a GUI
    /// event loop (`ctx.request_repaint()` in egui). It runs on the thread
    /// that made the change, outside Purview's state lock but, during an
    /// agent call, while calls are still serialized: keep it short, and do
    /// not wait in it for [`App::call`] or [`App::perform`], which would wait
    /// for it in turn.
    pub fn on_change(&self, f: impl Fn(Change) + Send + Sync + 'static) {
        self.inner.hub.add_listener(Arc::new(f));
    }

    /// The server name given to the builder.
    pub fn name(&self) -> &str {
        &self.inner.config.name
    }
}

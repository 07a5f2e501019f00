//! The handle an action handler gets: effects on other windows, recorded now
//! and applied only if the call succeeds.

use std::{
    any::{Any, TypeId},
    sync::Arc,
};

use super::{AsWindow, DynActions, Window};
use crate::{
    Error,
    app::{
        ClientId,
        progress::{Progress, ProgressFeed},
        spec::{Level, TypeKey, TypeSpec},
        topology::Placement,
    },
    model::FieldError,
};

/// What a handler's context reaches of the app it runs in. The core's
/// shared state implements it; the context holds it as this trait, so
/// what a handler may ask of the app is all that is written here, and the
/// state lock is taken only inside the core.
pub(crate) trait Stage: Send + Sync {
    /// The compiled actions of the type `key` names (compiled on first use).
    fn type_spec(&self, key: TypeKey) -> Result<Arc<TypeSpec>, Error>;
    /// A fresh sequence number for a window about to open.
    fn next_seq(&self) -> u64;
    /// The owner of the window-level modal `id`, if it is one.
    fn owner_of(&self, id: &str) -> Option<Arc<str>>;
    /// Runs `read` on the committed view-model of window `id`.
    fn with_window(&self, id: &str, read: &mut dyn FnMut(&dyn Any)) -> Result<(), Error>;
    /// The ids of the open windows whose view-model's type is `type_id`, in
    /// opening order.
    fn ids_of(&self, type_id: TypeId) -> Result<Vec<Arc<str>>, Error>;
}

/// What an action handler can do besides changing its own view-model.
///
/// Nothing here takes effect until the handler returns `Ok`: a failed,
/// panicking or timed-out call leaves every window as it was. Windows opened
/// here are reported in the call's `openedWindowIds` automatically.
///
/// ```
/// # use purview::{Actions, ActionSpec, ActionOutput, Args, by_hand::BoxFuture, Context, ToolError, View, Window};
/// # #[derive(Clone)] struct Confirm;
/// # impl Window for Confirm { fn title(&self) -> String { "Confirm".into() } fn project(&self, _: &mut View) {} }
/// # impl Actions for Confirm {
/// #     fn actions() -> Vec<ActionSpec> { vec![ActionSpec::new("close")] }
/// #     fn call<'a>(&'a mut self, _: &'a str, _: Args, cx: &'a mut Context) -> BoxFuture<'a> {
/// #         Box::pin(async move { cx.close(); Ok(ActionOutput::default()) })
/// #     }
/// # }
/// async fn submit(cx: &mut Context) -> Result<ActionOutput, ToolError> {
///     // `?` turns a misuse (no window to own the modal) into action_failed.
///     let dialog = cx.open_modal(Confirm)?;
///     Ok(ActionOutput::message(format!("Submitted; confirm in window {dialog}")))
/// }
/// ```
pub struct Context {
    stage: Arc<dyn Stage>,
    origin: Option<Arc<str>>,
    called_by: CalledBy,
    /// The calling agent's client, where the transport knows it.
    pub(crate) client: Option<ClientId>,
    /// Where [`Context::progress`] goes: the calling client, when it asked.
    progress: Option<Arc<ProgressFeed>>,
    pub(crate) effects: Vec<Effect>,
    pub(crate) invalid: Vec<FieldError>,
    pub(crate) failures: Vec<String>,
    pub(crate) message: Option<String>,
    pub(crate) focus: bool,
}

pub(crate) enum Effect {
    Open {
        seq: u64,
        id: Arc<str>,
        vm: Box<dyn DynActions>,
        spec: Arc<TypeSpec>,
        placement: Placement,
    },
    Close(Arc<str>),
    SetAvailable {
        window: Option<Arc<str>>,
        action: String,
        available: bool,
    },
    Update {
        id: Arc<str>,
        type_id: TypeId,
        type_name: &'static str,
        edit: Edit,
    },
}

/// A deferred edit of another window's view-model.
pub(crate) type Edit = Box<dyn FnOnce(&mut dyn Any) + Send + Sync>;

/// Who is calling an action: the person at the application
/// ([`Call::by_person`](crate::Call::by_person)) or an agent, with its session's
/// number when it came through an MCP session. An app can throttle or
/// refuse agents without ever slowing the person down.
///
/// ```
/// use purview::activity::CalledBy;
/// let agent = CalledBy::Agent { session: Some(3) };
/// assert!(agent.is_agent() && !CalledBy::Person.is_agent());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CalledBy {
    /// The person, through the app's own GUI.
    Person,
    /// An agent; `session` numbers its MCP session (`None` in-process).
    Agent {
        /// The session's number, as approval questions show it.
        session: Option<u64>,
    },
}

impl CalledBy {
    /// Whether an agent is calling.
    pub fn is_agent(&self) -> bool {
        matches!(self, Self::Agent { .. })
    }
}

impl Context {
    pub(crate) fn new(
        stage: Arc<dyn Stage>,
        origin: Option<Arc<str>>,
        called_by: CalledBy,
        progress: Option<Arc<ProgressFeed>>,
    ) -> Self {
        Self {
            stage,
            origin,
            called_by,
            client: None,
            progress,
            effects: Vec::new(),
            invalid: Vec::new(),
            failures: Vec::new(),
            message: None,
            focus: false,
        }
    }

    /// Who is calling: the person, or an agent (and which session).
    pub fn called_by(&self) -> CalledBy {
        self.called_by
    }

    /// Which client the calling agent is, where the transport knows it
    /// (`None` for the person and for in-process calls): key an app's own
    /// budgets by it — a PIN's wrong tries, a rate — so that one client's
    /// mistakes or attacks cost that client alone. Over HTTP, clients are
    /// told apart by their bearer tokens
    /// ([`HttpOptions::client`](crate::http::HttpOptions::client)); without
    /// tokens every local process is the one client `local`.
    ///
    /// ```
    /// # use purview::{ActionOutput, Context, ToolError};
    /// fn budget_key(cx: &Context) -> String {
    ///     match cx.client() {
    ///         Some(client) => format!("agent {client}"),
    ///         None if cx.called_by().is_agent() => "in-process agent".into(),
    ///         None => "the person".into(),
    ///     }
    /// }
    /// ```
    pub fn client(&self) -> Option<&ClientId> {
        self.client.as_ref()
    }

    /// The id of the window whose action is running; `None` for an app-level
    /// action.
    pub fn window_id(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// Opens a top-level window when the call succeeds; returns its id now.
    pub fn open<W: Window>(&mut self, window: W) -> Result<String, Error> {
        self.open_at(window, Placement::TopLevel)
    }

    /// Opens a window-level modal owned by this window (stacked on the top of
    /// its chain) when the call succeeds; returns its id now. In an
    /// app-level action this is [`Error::NotInWindow`] (and the call fails):
    /// use [`Context::open_app_modal`] there.
    pub fn open_modal<W: Window>(&mut self, window: W) -> Result<String, Error> {
        match self.origin.clone() {
            Some(owner) => self.open_at(window, Placement::Modal { owner }),
            None => Err(self.misuse(Error::NotInWindow { operation: "open_modal" })),
        }
    }

    /// Opens an app-level modal when the call succeeds: while it is open only
    /// its own chain is operable. Returns its id now.
    pub fn open_app_modal<W: Window>(&mut self, window: W) -> Result<String, Error> {
        self.open_at(window, Placement::AppModal)
    }

    fn open_at<W: Window>(&mut self, window: W, placement: Placement) -> Result<String, Error> {
        let key = TypeKey::of::<W>(Level::Window, W::actions, W::PAGED_BY);
        let spec = self.stage.type_spec(key).map_err(|e| self.misuse(e))?;
        let seq = self.stage.next_seq();
        let id: Arc<str> = Arc::from(crate::naming::window_id(seq));
        let vm: Box<dyn DynActions> = Box::new(AsWindow(window));
        self.effects.push(Effect::Open { seq, id: id.clone(), vm, spec, placement });
        Ok(id.to_string())
    }

    /// Records a misuse so the call fails even if the handler ignores the
    /// error, and hands the error back.
    fn misuse(&mut self, error: Error) -> Error {
        self.failures.push(error.to_string());
        error
    }

    /// Closes this window (and its modals) when the call succeeds. In an
    /// app-level action there is no window to close: the call fails with
    /// `action_failed` (use [`Context::close_window`] there).
    pub fn close(&mut self) {
        match self.origin.clone() {
            Some(id) => self.effects.push(Effect::Close(id)),
            None => {
                self.misuse(Error::NotInWindow { operation: "close" });
            }
        }
    }

    /// Closes another window (and its modals) when the call succeeds. Unknown
    /// ids are ignored: the window is already gone.
    pub fn close_window(&mut self, id: &str) {
        self.effects.push(Effect::Close(Arc::from(id)));
    }

    /// Shows or hides one of this window's actions (of the app's actions in an
    /// app-level action).
    pub fn set_available(&mut self, action: &str, available: bool) {
        self.effects.push(Effect::SetAvailable {
            window: self.origin.clone(),
            action: action.to_owned(),
            available,
        });
    }

    /// Sets the call's `message` (§5.4), unless the handler returns an
    /// [`ActionOutput`](crate::ActionOutput) with a message of its own.
    pub fn message(&mut self, message: impl Into<String>) {
        self.message = Some(message.into());
    }

    /// Asks the GUI to bring this window to the front once the call succeeds
    /// (see [`App::agent_activity`](crate::App::agent_activity)): what a
    /// focus-style action does, so the person sees where the agent works.
    pub fn request_focus(&mut self) {
        self.focus = true;
    }

    /// Reports how far a long action has got: `done` of `total` units of
    /// work (items, bytes, steps), and what it is doing. An agent whose
    /// client sent a `progressToken` with the call receives it as MCP
    /// `notifications/progress` (`progress` = `done`, `total`, `message`),
    /// on its own session only, before the call's result. For everyone
    /// else — a client that did not ask, an in-process [`App::call`], the
    /// person's own calls (a typed call, or [`Call::by_person`]) — this does
    /// nothing, so a handler can always report.
    ///
    /// The rules, so a client never sees something MCP forbids:
    /// - `done` must grow: a report whose `done` is not greater than the
    ///   last one's is dropped (report finer steps instead of repeating one
    ///   with a new message);
    /// - reports closer together than 50 ms are coalesced into the latest,
    ///   so a tight loop may report every item; the last report of a call
    ///   always arrives;
    /// - `total` 0 means the total is not known, and is left out; so is a
    ///   total that `done` has passed; an empty `message` is no message.
    ///
    /// Progress is not an effect: it is reported while the handler runs,
    /// even if the call then fails and changes nothing.
    ///
    /// [`App::call`]: crate::App::call
    /// [`Call::by_person`]: crate::Call::by_person
    ///
    /// ```
    /// use purview::{Context, actions, window};
    ///
    /// /// Messages waiting to be sent.
    /// #[window(title = "Outbox", summary_fn = waiting)]
    /// #[derive(Clone, Default)]
    /// struct Outbox {
    ///     queued: Vec<String>,
    /// }
    ///
    /// impl Outbox {
    ///     fn waiting(&self) -> String {
    ///         format!("{} messages waiting", self.queued.len())
    ///     }
    /// }
    ///
    /// #[actions]
    /// impl Outbox {
    ///     /// Send every queued message.
    ///     #[action]
    ///     async fn send_all(&mut self, cx: &mut Context) {
    ///         let total = self.queued.len() as u64;
    ///         for (sent, message) in std::mem::take(&mut self.queued).into_iter().enumerate() {
    ///             deliver(message).await;
    ///             let sent = sent as u64 + 1;
    ///             cx.progress(sent, total, format!("Sent {sent} of {total}"));
    ///         }
    ///     }
    /// }
    /// # async fn deliver(_: String) {}
    /// # let _ = purview::App::builder().build().open(Outbox::default());
    /// ```
    pub fn progress(&self, done: u64, total: u64, message: impl Into<String>) {
        if let Some(feed) = &self.progress {
            feed.report(Progress::new(done, total, message.into()));
        }
    }

    /// Rejects the call with `validation_failed` naming `field`, after the
    /// handler returns. Several calls accumulate.
    pub fn invalid(&mut self, field: impl Into<String>, error: impl Into<String>) {
        self.invalid.push(FieldError::new(field, error));
    }

    /// Edits another open window of type `W` (typically the owner of a modal,
    /// which cannot be operated itself while the modal is open). The edit
    /// runs when the call commits, on the window's latest state, atomically
    /// with everything else the call did; if the window is closed or not a
    /// `W` by then, or the edit panics, the whole call fails and nothing
    /// applies.
    pub fn update<W: Window>(
        &mut self,
        id: &str,
        edit: impl FnOnce(&mut W) + Send + Sync + 'static,
    ) {
        self.effects.push(Effect::Update {
            id: Arc::from(id),
            type_id: TypeId::of::<W>(),
            type_name: std::any::type_name::<W>(),
            edit: Box::new(move |any: &mut dyn Any| {
                if let Some(window) = any.downcast_mut::<W>() {
                    edit(window)
                }
            }),
        });
    }

    /// Edits the window this window-level modal was opened for, which must
    /// be a `W`: the typed way for a dialog to act on its owner. The type is
    /// checked now, so a dialog opened over a window of another type fails
    /// at once, naming the owner and `W` ([`Error::WrongType`]; with `?` the
    /// call fails and nothing it did applies), where [`Context::update`]
    /// would leave the owner alone; [`Error::NoOwner`] when this window is
    /// not a window-level modal, [`Error::NotInWindow`] in an app-level
    /// action. The edit applies when the call succeeds, as `update`'s does.
    ///
    /// ```
    /// # use purview::prelude::*;
    /// # #[window(summary = "{count} tasks")]
    /// # #[derive(Clone, Default)]
    /// # struct Tasks { count: usize }
    /// # #[actions] impl Tasks {
    /// #   /// Ask first.
    /// #   #[action] fn clear(&mut self, cx: &mut Context) -> Result<(), ToolError> {
    /// #     cx.open_modal(ConfirmClear)?; Ok(()) } }
    /// #[window(summary = "Clear every task?")]
    /// #[derive(Clone)]
    /// struct ConfirmClear;
    ///
    /// #[actions]
    /// impl ConfirmClear {
    ///     /// Clear them.
    ///     #[action(destructive)]
    ///     fn confirm(&mut self, cx: &mut Context) -> Result<(), ToolError> {
    ///         cx.update_owner::<Tasks>(|tasks| tasks.count = 0)?;
    ///         cx.close();
    ///         Ok(())
    ///     }
    /// }
    /// ```
    pub fn update_owner<W: Window>(
        &mut self,
        edit: impl FnOnce(&mut W) + Send + Sync + 'static,
    ) -> Result<(), Error> {
        let origin = self.origin.clone().ok_or(Error::NotInWindow { operation: "update_owner" })?;
        let owner = self.owner_id().ok_or_else(|| Error::NoOwner { id: origin.to_string() })?;
        self.read::<W, _>(&owner, |_| ())?;
        self.update::<W>(&owner, edit);
        Ok(())
    }

    /// The owner of this window when it is a window-level modal: the window
    /// a confirmation dialog confirms for.
    pub fn owner_id(&self) -> Option<String> {
        let origin = self.origin.as_deref()?;
        self.stage.owner_of(origin).map(|owner| owner.to_string())
    }

    /// Reads another open window of type `W`: the committed state, not other
    /// calls' working copies. [`Error::WindowClosed`] or [`Error::WrongType`]
    /// when it is not there as a `W`.
    pub fn read<W: Window, R>(&self, id: &str, f: impl FnOnce(&W) -> R) -> Result<R, Error> {
        let (mut f, mut read) = (Some(f), None);
        self.stage.with_window(id, &mut |vm| {
            if let (Some(window), Some(f)) = (vm.downcast_ref::<W>(), f.take()) {
                read = Some(f(window));
            }
        })?;
        read.ok_or_else(|| Error::WrongType { id: id.into(), expected: std::any::type_name::<W>() })
    }

    /// The ids of the open windows of type `W`, in the order they were
    /// opened (as committed: not the windows this call opens itself): how
    /// an app-level action finds the windows it changes, to
    /// [`read`](Context::read) and [`update`](Context::update) them.
    ///
    /// ```
    /// use purview::prelude::*;
    ///
    /// #[window(title = "Week", summary = "{booked} booked")]
    /// #[derive(Clone, Default)]
    /// struct Week { booked: u32, closed: bool }
    /// #[actions]
    /// impl Week {}
    ///
    /// #[derive(Clone)]
    /// struct Clinic;
    ///
    /// #[actions(app)]
    /// impl Clinic {
    ///     /// Close the books of every open week.
    ///     #[action(destructive)]
    ///     fn close_books(&mut self, cx: &mut Context) -> Result<(), ToolError> {
    ///         for week in cx.windows_of::<Week>()? {
    ///             cx.update::<Week>(&week, |w| w.closed = true);
    ///         }
    ///         Ok(())
    ///     }
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = App::builder().app_actions(Clinic).build();
    /// let week = app.open(Week::default()).unwrap();
    /// app.act::<Clinic>().close_books().await.unwrap();
    /// assert!(week.read(|w| w.closed).unwrap());
    /// # });
    /// ```
    pub fn windows_of<W: Window>(&self) -> Result<Vec<String>, Error> {
        let ids = self.stage.ids_of(TypeId::of::<W>())?;
        Ok(ids.iter().map(|id| id.to_string()).collect())
    }
}

//! The person's side: a typed handle through which the GUI reads and edits a
//! window. Every edit takes the same serialized path as an agent call.

use std::{
    fmt,
    marker::PhantomData,
    panic::{AssertUnwindSafe, catch_unwind, resume_unwind},
    sync::Arc,
};

use crate::Window;
use crate::app::{App, Error, registry::Touched, topology::Placement};

/// A typed handle to an open window, for the GUI.
///
/// ```
/// # use purview::{by_hand::*, *};
/// #[derive(Clone, Default)]
/// struct Form { recipient: String }
/// # impl Window for Form { fn title(&self) -> String { "Form".into() }
/// #   fn project(&self, v: &mut View) { v.fields("f", [model::FieldItem::new("Recipient", &self.recipient)]); } }
/// # impl Actions for Form { fn actions() -> Vec<ActionSpec> { vec![] }
/// #   fn call<'a>(&'a mut self, a: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> { Box::pin(async move { Err(unknown_action(a)) }) } }
/// let app = App::builder().build();
/// let form = app.open(Form::default()).unwrap();
/// let before = form.version().unwrap();
/// form.update(|f| f.recipient = "Ada".into()).unwrap();   // the person typed
/// assert_eq!(form.version().unwrap(), before + 1);
/// form.update(|f| f.recipient = "Ada".into()).unwrap();   // nothing visible changed
/// assert_eq!(form.version().unwrap(), before + 1);
/// ```
pub struct WindowHandle<W> {
    pub(crate) app: App,
    pub(crate) id: Arc<str>,
    pub(crate) _ty: PhantomData<fn() -> W>,
}

impl<W> Clone for WindowHandle<W> {
    fn clone(&self) -> Self {
        Self { app: self.app.clone(), id: self.id.clone(), _ty: PhantomData }
    }
}

impl<W> fmt::Debug for WindowHandle<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WindowHandle").field("id", &self.id).finish()
    }
}

impl<W: Window> WindowHandle<W> {
    /// The window's external id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The application this window belongs to.
    pub fn app(&self) -> &App {
        &self.app
    }

    /// Edits the view-model. The projection is recomputed; the version moves
    /// only if summary or blocks changed; agents are notified. An agent call
    /// working on this window meanwhile fails with `stale_state` instead of
    /// overwriting this edit.
    ///
    /// This is for what the person types into the window. It does not run
    /// any action: a button that stands for an action goes through
    /// [`WindowHandle::act`], so the action's own checks and effects (a
    /// dialog it opens, another window it keeps in sync) happen for the
    /// person as they do for an agent.
    ///
    /// The closure runs under Purview's lock: keep it short and do not call
    /// Purview from inside it (that returns [`Error::Reentrant`]). If it
    /// panics, the projection still follows whatever it changed, and the
    /// panic continues on this thread.
    pub fn update<R>(&self, f: impl FnOnce(&mut W) -> R) -> Result<R, Error> {
        let outcome = self.app.shared.mutate(|state| {
            let Some(entry) = state.entry_by_id_mut(&self.id) else {
                return Err(Error::WindowClosed { id: self.id.to_string() });
            };
            let Some(vm) = entry.actor.vm.as_any_mut().downcast_mut::<W>() else {
                return Err(Error::WrongType {
                    id: self.id.to_string(),
                    expected: std::any::type_name::<W>(),
                });
            };
            let result = catch_unwind(AssertUnwindSafe(|| f(vm)));
            entry.actor.revision += 1;
            let seq = entry.seq;
            Ok((result, Touched { windows: vec![seq], app: false, topology: false }))
        })?;
        result_or_resume(outcome)
    }

    /// Reads the view-model (for drawing). Holds Purview's lock while `f`
    /// runs, so agent calls wait: copy out what you need.
    pub fn read<R>(&self, f: impl FnOnce(&W) -> R) -> Result<R, Error> {
        self.app.shared.read_window(&self.id, f)
    }

    /// Opens a window-level modal owned by this window (stacked on the top of
    /// its chain if it already has one).
    pub fn open_modal<M: Window>(&self, modal: M) -> Result<WindowHandle<M>, Error> {
        let placement = Placement::Modal { owner: self.id.clone() };
        let id = self.app.shared.open(modal, None, placement)?;
        Ok(self.app.handle(id))
    }

    /// Closes this window and its modals.
    pub fn close(&self) -> Result<(), Error> {
        self.app.close(&self.id)
    }

    /// Shows or hides one of this window's actions regardless of the type's
    /// availability hook (both must allow it for the tool to be listed).
    pub fn set_available(&self, action: &str, available: bool) -> Result<(), Error> {
        self.app.shared.mutate(|state| {
            let Some(entry) = state.entry_by_id_mut(&self.id) else {
                return Err(Error::WindowClosed { id: self.id.to_string() });
            };
            if !entry.actor.set_hidden(action, !available) {
                return Err(Error::UnknownAction { action: action.to_owned() });
            }
            let seq = entry.seq;
            Ok(((), Touched { windows: vec![seq], app: false, topology: false }))
        })
    }

    /// The window's current version.
    pub fn version(&self) -> Result<u64, Error> {
        let state = self.app.shared.lock()?;
        state
            .entry_by_id(&self.id)
            .map(|e| e.version)
            .ok_or_else(|| Error::WindowClosed { id: self.id.to_string() })
    }

    /// Whether the window is still open.
    pub fn is_open(&self) -> Result<bool, Error> {
        self.app.shared.read(|s| s.entry_by_id(&self.id).is_some())
    }

    /// Whether agents may operate the window now.
    pub fn is_operable(&self) -> Result<bool, Error> {
        self.app.shared.read(|s| s.is_operable(&self.id))
    }
}

fn result_or_resume<R>(outcome: std::thread::Result<R>) -> Result<R, Error> {
    match outcome {
        Ok(value) => Ok(value),
        Err(payload) => resume_unwind(payload),
    }
}

//! Finding open windows by the type of their view-model, for "open it, or
//! go to the one already open".

use super::{App, Error, WindowHandle};
use crate::Window;

impl App {
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
        let ids = self.shared.read(|state| {
            state
                .windows
                .values()
                .filter(|entry| entry.actor.vm.as_any().downcast_ref::<W>().is_some())
                .map(|entry| entry.id.clone())
                .collect::<Vec<_>>()
        })?;
        Ok(ids.into_iter().map(|id| self.handle(id)).collect())
    }
}

impl App {
    /// Logs when the app is served with no window open: agents would find
    /// an empty `app://windows` and nothing but app-level actions, and
    /// could do nothing with the app. Usually the first window was meant to
    /// be opened before serving.
    pub(crate) fn warn_if_no_windows(&self) {
        let empty = self.shared.read(|state| state.windows.is_empty()).unwrap_or(false);
        if empty {
            tracing::warn!(
                "serving with no window open: agents will see no windows (app://windows lists none, and tools/list only the app-level actions); open the app's first window (App::open) before serving"
            );
        }
    }
}

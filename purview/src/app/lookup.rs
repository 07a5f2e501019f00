//! Finding open windows by the type of their view-model, for "open it, or
//! go to the one already open".

use std::{any::TypeId, sync::Arc};

use super::{Error, shared::Shared};
use crate::{Window, window::context::Stage};

/// The ids of every open window whose view-model is a `W`, modals
/// included, in opening order.
pub(super) fn ids_of<W: Window>(shared: &Shared) -> Result<Vec<Arc<str>>, Error> {
    shared.ids_of(TypeId::of::<W>())
}

/// Logs when the app is served with no window open: agents would find
/// an empty `app://windows` and nothing but app-level actions, and
/// could do nothing with the app. Usually the first window was meant to
/// be opened before serving.
pub(super) fn warn_if_no_windows(shared: &Shared) {
    let empty = shared.read(|state| state.windows.is_empty()).unwrap_or(false);
    if empty {
        tracing::warn!(
            "serving with no window open: agents will see no windows (app://windows lists none, and tools/list only the app-level actions); open the app's first window (App::open) before serving"
        );
    }
}

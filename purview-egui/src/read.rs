//! Reading the app for one frame: [`App::scene`](purview::App::scene), one
//! lock over the app's own types (no JSON of the windows is made), turned
//! into what the drawing needs: each window's state, operability, blocker,
//! actions as forms, and which action pages which table.

use purview::activity::{ActionInfo, Scene as AppScene};

use purview::model::WindowState;

use crate::schema::ActionDef;

/// Everything one frame draws, read in one consistent state.
pub(crate) struct Scene {
    pub windows: Vec<WindowView>,
    /// The app's own actions; `None` while an app-level modal withholds them.
    pub app_actions: Option<Vec<ActionDef>>,
}

impl Scene {
    /// The app as it is now.
    pub(crate) fn read(app: &purview::App) -> Result<Self, String> {
        let AppScene { windows, app_actions, .. } = app.scene().map_err(|e| e.to_string())?;
        let forms = |actions: &[ActionInfo]| actions.iter().map(ActionDef::from_info).collect();
        let windows = windows
            .into_iter()
            .map(|window| WindowView {
                actions: forms(&window.actions),
                operable: window.operable,
                blocked_by: window.blocked_by,
                paged_by: window.paged_by,
                state: window.state,
            })
            .collect();
        Ok(Self { windows, app_actions: app_actions.as_deref().map(forms) })
    }

    /// What the person sees while the app cannot be read.
    pub(crate) fn empty() -> Self {
        Self { windows: Vec::new(), app_actions: None }
    }
}

/// One window as this frame draws it.
pub(crate) struct WindowView {
    pub state: WindowState,
    /// Its actions: the available ones, or, while it is blocked, the ones it
    /// had when last operable (drawn disabled).
    pub actions: Vec<ActionDef>,
    pub operable: bool,
    /// While it is not operable, the window operable in its place.
    pub blocked_by: Option<String>,
    /// Which action loads each paged table's pages: `(block id, action)`.
    pub paged_by: Vec<(String, String)>,
}

//! Reading the app for one frame: [`App::scene`](purview::App::scene), one
//! lock over the app's own types (no JSON of the windows is made), turned
//! into what the drawing needs: each window's state, operability, blocker,
//! actions as forms, and which action pages which table.
//!
//! The app gathers a scene once per change and hands every frame the same
//! one; so does this reader: a frame with nothing changed reuses the last
//! frame's scene whole, and after a change each window's forms are read
//! from its schemas again only if its actions changed.

use std::{collections::HashMap, sync::Arc};

use purview::activity::{ActionInfo, Scene as AppScene};
use purview::model::WindowState;

use crate::schema::ActionDef;

/// Everything one frame draws, read in one consistent state.
pub(crate) struct Scene {
    pub windows: Vec<Arc<WindowView>>,
    /// The app's own actions; `None` while an app-level modal withholds them.
    pub app_actions: Option<Arc<[ActionDef]>>,
}

/// One window as this frame draws it.
pub(crate) struct WindowView {
    pub state: Arc<WindowState>,
    /// Its actions: the available ones, or, while it is blocked, the ones it
    /// had when last operable (drawn disabled).
    pub actions: Arc<[ActionDef]>,
    pub operable: bool,
    /// While it is not operable, the window operable in its place.
    pub blocked_by: Option<String>,
    /// Which action loads each paged table's pages: `(block id, action)`.
    pub paged_by: Vec<(String, String)>,
}

/// A scope's actions as the app listed them, and read as forms.
type Forms = (Vec<ActionInfo>, Arc<[ActionDef]>);

/// A window as the app's scene shared it, and as this desk reads it.
type Viewed = (Arc<purview::activity::SceneWindow>, Arc<WindowView>);

/// What the last frames read, kept so the next frame reads only what
/// changed.
#[derive(Default)]
pub(crate) struct Reader {
    /// The app's scene the last frame drew, and what it made of it.
    last: Option<(Arc<AppScene>, Arc<Scene>)>,
    /// Each window as the app's scene last listed it, and what it made of
    /// it: a window the app shares unchanged is not read again.
    views: HashMap<String, Viewed>,
    /// Each scope's actions as listed, and as forms.
    forms: HashMap<Option<String>, Forms>,
    /// Each scope's actions when it was last operable, drawn disabled while
    /// it is blocked.
    last_operable: HashMap<Option<String>, Arc<[ActionDef]>>,
}

impl Reader {
    /// The app as it is now: the last frame's scene when nothing changed.
    pub(crate) fn read(&mut self, app: &purview::App) -> Result<Arc<Scene>, String> {
        let scene = app.scene().map_err(|e| e.to_string())?;
        if let Some((seen, made)) = &self.last
            && Arc::ptr_eq(seen, &scene)
        {
            return Ok(made.clone());
        }
        let made = Arc::new(self.make(&scene));
        self.last = Some((scene, made.clone()));
        Ok(made)
    }

    fn make(&mut self, scene: &AppScene) -> Scene {
        let windows: Vec<Arc<WindowView>> =
            scene.windows.iter().map(|window| self.view_of(window)).collect();
        if self.views.len() > windows.len() {
            // Some window closed: forget what was kept for it.
            let open: std::collections::HashSet<&str> =
                scene.windows.iter().map(|w| w.state.id.as_str()).collect();
            self.views.retain(|id, _| open.contains(id.as_str()));
            self.forms.retain(|scope, _| scope.as_deref().is_none_or(|id| open.contains(id)));
            self.last_operable
                .retain(|scope, _| scope.as_deref().is_none_or(|id| open.contains(id)));
        }
        let app_actions = scene.app_actions.as_deref().map(|listed| self.forms_of(None, listed));
        Scene { windows, app_actions }
    }

    /// One window as drawn: the last frame's, when the app shares it
    /// unchanged.
    fn view_of(&mut self, window: &Arc<purview::activity::SceneWindow>) -> Arc<WindowView> {
        let id = &window.state.id;
        if let Some((seen, view)) = self.views.get(id)
            && Arc::ptr_eq(seen, window)
        {
            return view.clone();
        }
        let scope = Some(id.clone());
        let listed = self.forms_of(scope.clone(), &window.actions);
        let actions = if window.operable {
            self.last_operable.insert(scope, listed.clone());
            listed
        } else {
            self.last_operable.get(&scope).cloned().unwrap_or(listed)
        };
        let view = Arc::new(WindowView {
            state: window.state.clone(),
            actions,
            operable: window.operable,
            blocked_by: window.blocked_by.clone(),
            paged_by: window.paged_by.clone(),
        });
        self.views.insert(id.clone(), (window.clone(), view.clone()));
        view
    }

    /// `listed` as forms, read from their schemas only when they changed.
    fn forms_of(&mut self, scope: Option<String>, listed: &[ActionInfo]) -> Arc<[ActionDef]> {
        if let Some((seen, forms)) = self.forms.get(&scope)
            && seen.as_slice() == listed
        {
            return forms.clone();
        }
        let forms: Arc<[ActionDef]> = listed.iter().map(ActionDef::from_info).collect();
        self.forms.insert(scope, (listed.to_vec(), forms.clone()));
        forms
    }

    /// The scope's actions when it was last operable.
    pub(crate) fn last_operable(&self, scope: &Option<String>) -> Option<Arc<[ActionDef]>> {
        self.last_operable.get(scope).cloned()
    }

    /// Remembers the app's own actions while they are offered.
    pub(crate) fn remember(&mut self, scope: Option<String>, actions: Arc<[ActionDef]>) {
        self.last_operable.insert(scope, actions);
    }
}

impl Scene {
    /// What the person sees while the app cannot be read.
    pub(crate) fn empty() -> Self {
        Self { windows: Vec::new(), app_actions: None }
    }
}

//! Reading the app for one frame: [`App::scene`](purview::App::scene),
//! made into the person's model (`purview_person::Reader`) only when the
//! scene, the questions waiting or the agent's last call changed. A frame
//! with nothing changed reuses the last frame's model whole; after a
//! change the model makes again only the windows the app did not share
//! from the last scene, and each action type's form once.

use std::sync::Arc;

use purview::{
    activity::{AgentActivity, Scene as AppScene},
    approval::PendingApproval,
    model::WindowState,
};
use purview_person::{Around, Model};

/// Everything one frame draws, read in one consistent state.
pub(crate) struct Scene {
    pub windows: Vec<WindowView>,
    pub model: Arc<Model>,
}

/// One window as this frame draws it: its projection (for the layout and
/// a window type's own drawing) and what the person sees of it.
#[derive(Clone)]
pub(crate) struct WindowView {
    pub state: Arc<WindowState>,
    pub view: Arc<purview_person::Window>,
}

/// What the last frame read, kept so the next reads only what changed.
#[derive(Default)]
pub(crate) struct Reader {
    model: purview_person::Reader,
    /// The app's scene, the questions and the agent's last call the last
    /// model was made of, and what was made.
    last: Option<(Seen, Arc<Scene>)>,
}

/// The app's scene, the questions waiting and the agent's last call's
/// serial: what a model is made of.
type Seen = (Arc<AppScene>, Vec<u64>, Option<u64>);

impl Reader {
    /// The app as it is now, and whether it changed since the last frame.
    pub(crate) fn read(
        &mut self,
        app: &purview::App,
        pending: &[PendingApproval],
        activity: Option<&AgentActivity>,
    ) -> Result<(Arc<Scene>, bool), String> {
        let scene = app.scene().map_err(|e| e.to_string())?;
        let asked: Vec<u64> = pending.iter().map(|p| p.id).collect();
        let serial = activity.map(|a| a.serial);
        if let Some(((seen, was_asked, was_serial), made)) = &self.last
            && Arc::ptr_eq(seen, &scene)
            && *was_asked == asked
            && *was_serial == serial
        {
            return Ok((made.clone(), false));
        }
        let model = Arc::new(self.model.read(&scene, Around { pending, activity }));
        let windows = scene
            .windows
            .iter()
            .zip(&model.windows)
            .map(|(window, view)| WindowView { state: window.state.clone(), view: view.clone() })
            .collect();
        let made = Arc::new(Scene { windows, model });
        self.last = Some(((scene, asked, serial), made.clone()));
        Ok((made, true))
    }
}

impl Scene {
    /// What the person sees while the app cannot be read.
    pub(crate) fn empty() -> Self {
        Self { windows: Vec::new(), model: Arc::default() }
    }
}

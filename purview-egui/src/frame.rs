//! The frame loop: each frame reads the app once (read.rs), draws the main
//! panel and every window (chrome.rs, blocks.rs, bar.rs), and follows the
//! agent's focus; a click starts a call (calls.rs) whose outcome
//! (outcomes.rs) the next frame shows.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use egui::{Rect, Ui, Vec2, pos2, vec2};
use purview::approval::ApprovalQueue;

use crate::{
    Desk,
    layout::{GAP, capacity, side_width},
    lock::lock,
    read::Scene,
};

impl Desk {
    /// Draws the main panel into `ui`, and every open Purview window.
    ///
    /// ```
    /// let mut desk = purview_egui::Desk::new(purview::App::builder().build()).embedded(true);
    /// egui::__run_test_ui(|ui| desk.show(ui));
    /// ```
    pub fn show(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        self.wake(&ctx);
        let activity = self.core.app.agent_activity();
        let pending = self.approvals.as_ref().map(ApprovalQueue::pending).unwrap_or_default();
        let scene = match self.reader.read(&self.core.app, &pending, activity.as_ref()) {
            Ok((scene, changed)) => {
                self.read_error = None;
                self.core.model = scene.model.clone();
                if changed {
                    // What the person holds follows the change; a page of
                    // rows they chose is loaded again where it was.
                    let again = lock(&self.core.person).settle(&scene.model);
                    for call in again {
                        self.core.make(&ctx, call);
                    }
                }
                scene
            }
            Err(e) => {
                // Purview is busy or gone; keep what the person can still see.
                self.read_error = Some(e);
                std::sync::Arc::new(Scene::empty())
            }
        };
        let viewport = ctx.content_rect();
        let side = if self.embedded { side_width(viewport.width()) } else { viewport.width() };
        let room = if self.embedded {
            Rect::from_min_max(
                pos2(viewport.left() + side + GAP, viewport.top() + GAP),
                viewport.max - Vec2::splat(GAP),
            )
        } else {
            // Beside the desk's own window, on a screen of common size.
            Rect::from_min_size(pos2(440.0, 20.0), vec2(960.0, 760.0))
        };
        let agent_window = activity.as_ref().and_then(|a| a.window.as_deref());
        let drawn = self.drawn(&scene, capacity(room), agent_window, &pending);
        let states: Vec<&purview::model::WindowState> =
            drawn.iter().map(|&i| &*scene.windows[i].state).collect();
        self.layout.arrange(room, &states);
        ui.allocate_ui(vec2(side, ui.available_height()), |ui| {
            self.main_panel(ui, &scene, &drawn);
        });
        for &index in &drawn {
            self.window(&ctx, &scene, &scene.windows[index]);
        }
        self.follow_focus(&ctx, activity.as_ref());
    }

    /// Agent calls, other sessions' edits and approval requests repaint at
    /// once: the first change after a frame begins asks egui for the next
    /// frame, and the rest wait for it (a frame reads every change made
    /// before it reads the app).
    fn wake(&mut self, ctx: &egui::Context) {
        if let Some(asked) = &self.woken {
            asked.store(false, Ordering::Release);
            return;
        }
        let asked = Arc::new(AtomicBool::new(false));
        self.woken = Some(asked.clone());
        let repaint = ctx.clone();
        // The viewport the desk is drawn in: a request from another thread
        // would otherwise go to whichever viewport egui is drawing then.
        let viewport = ctx.viewport_id();
        self.core.app.on_change(move |_| {
            // The flag is ordered by the scene's publication: a change
            // published after a frame reset it finds it clear and asks.
            if !asked.swap(true, Ordering::AcqRel) {
                repaint.request_repaint_of(viewport);
            }
        });
        if let Some(approvals) = &self.approvals {
            let repaint = ctx.clone();
            approvals.on_change(move || repaint.request_repaint());
        }
    }

    /// The windows drawn this frame, as indexes into `scene.windows` in
    /// opening order: every modal and the windows its chain stands on,
    /// the window the agent works in or asks about, then the windows the
    /// person raised last, then the latest opened, up to `capacity`
    /// top-level windows. The rest are listed in the main panel.
    fn drawn(
        &mut self,
        scene: &Scene,
        capacity: usize,
        agent_window: Option<&str>,
        pending: &[purview::approval::PendingApproval],
    ) -> Vec<usize> {
        let windows = &scene.windows;
        let top_level = windows.iter().filter(|w| !w.state.modal).count();
        if top_level <= capacity {
            return (0..windows.len()).collect();
        }
        let index_of = |id: &str| windows.iter().position(|w| w.state.id == id);
        let mut wanted: Vec<usize> = Vec::new();
        // Modals, and the owners their chains stand on.
        for (i, window) in windows.iter().enumerate().filter(|(_, w)| w.state.modal) {
            wanted.push(i);
            let mut owner = window.state.owner_id.as_deref();
            while let Some(id) = owner {
                let Some(at) = index_of(id) else { break };
                wanted.push(at);
                owner = windows[at].state.owner_id.as_deref();
            }
        }
        let asked = pending.iter().filter_map(|p| p.request.window_id.as_deref());
        wanted.extend(agent_window.into_iter().chain(asked).filter_map(index_of));
        self.raised.retain(|id| index_of(id).is_some());
        wanted.extend(self.raised.iter().rev().filter_map(|id| index_of(id)));
        wanted.extend((0..windows.len()).rev());
        let mut drawn = Vec::new();
        let mut top = 0;
        for i in wanted {
            if drawn.contains(&i) {
                continue;
            }
            let modal = windows[i].state.modal;
            if !modal && top >= capacity {
                continue;
            }
            top += usize::from(!modal);
            drawn.push(i);
        }
        drawn.sort_unstable();
        drawn
    }
}

//! What every Purview app's GUI needs around the windows' contents: one
//! egui window (or OS viewport) per open Purview window, modals above their
//! owners, blocked windows disabled and naming their blocker, where the
//! agent works, its focus requests, approval prompts, the last error, the
//! app-level actions, and a repaint whenever anything changes.

use egui::{
    Color32, Id, LayerId, Order, RichText, Stroke, Ui, ViewportBuilder, ViewportClass,
    ViewportCommand, ViewportId,
};
use purview::{
    activity::AgentActivity, approval::Approval, approval::ApprovalQueue, approval::PendingApproval,
};

use crate::{
    Desk, WindowUi,
    bar::action_bar,
    calls::Core,
    desk::Override,
    layout::Place,
    lock::lock,
    outcomes::Scope,
    read::{Scene, WindowView},
    schema::ActionDef,
};

/// Where the agent is: the colour of its cue.
pub(crate) const AGENT: Color32 = Color32::from_rgb(0x2f, 0x80, 0xed);

/// The egui id of a Purview window's embedded egui window.
pub(crate) fn window_id(window: &str) -> Id {
    Id::unique(("purview-window", window))
}

/// The viewport of a Purview window drawn as its own OS window.
pub(crate) fn viewport_id(window: &str) -> ViewportId {
    ViewportId::from_hash_of(("purview-window", window))
}

impl Desk {
    /// The main panel: heading, note, the list of windows, app-level
    /// approval prompts, the app's actions and their last error.
    pub(crate) fn main_panel(
        &mut self,
        ui: &mut Ui,
        scene: &Scene,
        drawn: &[usize],
        activity: Option<&AgentActivity>,
        pending: &[PendingApproval],
    ) {
        egui::Frame::central_panel(ui.style()).show(ui, |ui| {
            ui.set_min_size(ui.available_size());
            if let Some(heading) = &self.heading {
                ui.heading(heading);
            }
            if let Some(note) = &self.note {
                ui.label(note);
            }
            if let Some(error) = &self.read_error {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
            for request in pending.iter().filter(|p| {
                p.request
                    .window_id
                    .as_ref()
                    .is_none_or(|w| !scene.windows.iter().any(|v| &v.state.id == w))
            }) {
                approval_prompt(ui, self.approvals.as_ref(), request);
            }
            if self.list_windows {
                ui.separator();
                self.window_list(ui, scene, drawn, activity);
            }
            let scope: Scope = None;
            if let Some(actions) = &scene.app_actions {
                self.reader.remember(scope.clone(), actions.clone());
            }
            let actions = self.reader.last_operable(&scope).unwrap_or_else(|| Vec::new().into());
            if !actions.is_empty() {
                ui.separator();
                let ctx = ui.ctx().clone();
                ui.add_enabled_ui(scene.app_actions.is_some(), |ui| {
                    let actions: Vec<&ActionDef> = actions.iter().collect();
                    action_bar(ui, &mut self.core, &ctx, &scope, &actions, true);
                });
            }
            last_error(ui, &self.core, &scope);
        });
    }

    /// Every open window, one line each; a window not drawn now (more are
    /// open than the desk draws at once) is a button that raises it. Only
    /// the lines in sight are laid out, so a thousand windows cost a
    /// frame no more than a screenful.
    fn window_list(
        &mut self,
        ui: &mut Ui,
        scene: &Scene,
        drawn: &[usize],
        activity: Option<&AgentActivity>,
    ) {
        let hidden = scene.windows.len() - drawn.len();
        if hidden > 0 {
            ui.weak(format!("{hidden} more windows open; choose one to show it"));
        }
        let row = ui.text_style_height(&egui::TextStyle::Button) + ui.spacing().item_spacing.y;
        let agent = activity.and_then(|a| a.window.as_deref());
        let mut raise = None;
        egui::ScrollArea::vertical()
            .id_salt("purview-window-list")
            .max_height(ui.available_height() * 0.5)
            .auto_shrink([false, true])
            .show_rows(ui, row, scene.windows.len(), |ui, rows| {
                for i in rows {
                    let view = &scene.windows[i];
                    let mut line = format!("{} — {}", view.state.id, view.state.title);
                    if !view.operable {
                        line.push_str("  (blocked)");
                    }
                    if agent == Some(view.state.id.as_str()) {
                        ui.label(RichText::new(format!("{line}  · agent here")).color(AGENT));
                    } else if drawn.binary_search(&i).is_ok() {
                        ui.label(line);
                    } else if ui.small_button(line).on_hover_text("Show this window").clicked() {
                        raise = Some(view.state.id.clone());
                    }
                }
            });
        if let Some(id) = raise {
            self.raised.retain(|r| *r != id);
            self.raised.push(id);
        }
    }

    /// One Purview window, as an egui window or its own viewport, where
    /// the layout puts it (layout.rs).
    pub(crate) fn window(
        &mut self,
        ctx: &egui::Context,
        scene: &Scene,
        view: &WindowView,
        activity: Option<&AgentActivity>,
        asking: &[&PendingApproval],
    ) {
        let id = view.state.id.clone();
        let place = self.layout.place(&view.state, ctx.content_rect());
        let fresh = !self.layout.drawn_rects().contains_key(&id);
        let agent_here =
            activity.and_then(|a| a.window.as_deref()) == Some(id.as_str()) || !asking.is_empty();
        let Self { core, overrides, approvals, embedded, layout, .. } = self;
        let approvals = approvals.as_ref();
        let mut contents = |ui: &mut Ui| {
            window_contents(ui, core, overrides, approvals, scene, view, agent_here, asking);
        };
        if *embedded {
            let app_modal = view.state.modal && view.state.owner_id.is_none();
            if app_modal {
                backdrop(ctx, &id);
            }
            let mut frame = egui::Frame::window(&ctx.global_style());
            if agent_here {
                frame = frame.stroke(Stroke::new(3.0, AGENT));
            }
            let (window, inside) = embedded_window(&view.state.title, &id, place, frame, app_modal);
            let shown = window.show(ctx, |ui| {
                // A solid bar, not egui's floating one that shows on hover:
                // a window cut by its tile says at once that it scrolls.
                ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
                egui::ScrollArea::vertical()
                    .id_salt(("purview-scroll", id.as_str()))
                    .max_height(inside)
                    .show(ui, |ui| contents(ui));
            });
            if let Some(shown) = shown {
                let dragging = ctx.input(|i| i.pointer.any_down());
                layout.drawn(&id, shown.response.rect, place, dragging);
            }
            if fresh || app_modal {
                // A new window (a dialog above all) opens in front; the
                // app's question stays there.
                let order = if app_modal { Order::Foreground } else { Order::Middle };
                ctx.move_to_top(LayerId::new(order, window_id(&id)));
            }
            return;
        }
        let size = place.max.min(egui::vec2(480.0, 420.0));
        layout.drawn(&id, egui::Rect::from_min_size(place.pos, size), place, false);
        let builder = ViewportBuilder::default()
            .with_title(&view.state.title)
            .with_inner_size(size)
            .with_position(place.pos);
        let close = ctx.show_viewport_immediate(viewport_id(&id), builder, |ui, class| {
            let closing = class != ViewportClass::EmbeddedWindow
                && ui.ctx().input(|i| i.viewport().close_requested());
            let mut frame = egui::Frame::central_panel(ui.style());
            if agent_here {
                frame = frame.stroke(Stroke::new(3.0, AGENT));
            }
            frame.show(ui, |ui| {
                ui.set_min_size(ui.available_size());
                ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
                egui::ScrollArea::vertical()
                    .id_salt(("purview-scroll", id.as_str()))
                    .show(ui, |ui| contents(ui));
            });
            closing
        });
        if fresh {
            ctx.send_viewport_cmd_to(viewport_id(&id), ViewportCommand::Focus);
        }
        if close {
            self.close_requested(ctx, view);
        }
    }

    /// The person closed a window's OS window. It closes the way its own
    /// buttons would close it (its `close` or `cancel` action), so its logic
    /// runs; a window without one, or a blocked one, stays open.
    fn close_requested(&mut self, ctx: &egui::Context, view: &WindowView) {
        let closer = view
            .operable
            .then(|| {
                view.actions.iter().find(|a| a.info.name == "close" || a.info.name == "cancel")
            })
            .flatten()
            .filter(|a| a.params.iter().all(|p| !p.required));
        match closer {
            Some(action) => {
                self.core.perform(ctx, action, purview::model::JsonObject::new());
            }
            None => {
                ctx.send_viewport_cmd_to(viewport_id(&view.state.id), ViewportCommand::CancelClose)
            }
        }
    }

    /// An agent's focus-style action raises the window, even if other calls
    /// followed it before this frame.
    pub(crate) fn follow_focus(&mut self, ctx: &egui::Context, activity: Option<&AgentActivity>) {
        let Some((window, serial)) = activity.and_then(|a| a.focus_request.clone()) else { return };
        if serial <= self.focused_serial {
            return;
        }
        self.focused_serial = serial;
        if self.embedded {
            ctx.move_to_top(LayerId::new(Order::Middle, window_id(&window)));
        } else {
            ctx.send_viewport_cmd_to(viewport_id(&window), ViewportCommand::Focus);
        }
    }
}

/// A window's inside: the agent's cue, its approval prompts, its blocker,
/// then its contents (the app's own drawing or the default), disabled while
/// blocked, and its last error.
#[allow(clippy::too_many_arguments)]
fn window_contents(
    ui: &mut Ui,
    core: &mut Core,
    overrides: &mut [Override],
    approvals: Option<&ApprovalQueue>,
    scene: &Scene,
    view: &WindowView,
    agent_here: bool,
    asking: &[&PendingApproval],
) {
    if !asking.is_empty() {
        ui.label(RichText::new("Agent is waiting for your approval").color(AGENT).strong());
        for request in asking {
            approval_prompt(ui, approvals, request);
        }
    } else if agent_here {
        ui.label(RichText::new("Agent is working here").color(AGENT).strong());
    }
    summary(ui, &view.state);
    if !view.operable {
        let blocker = view
            .blocked_by
            .as_deref()
            .and_then(|id| scene.windows.iter().find(|w| w.state.id == id))
            .map_or("a dialog", |w| w.state.title.as_str());
        ui.label(RichText::new(format!("Blocked by {blocker}")).italics());
    }
    let ctx = ui.ctx().clone();
    ui.add_enabled_ui(view.operable, |ui| {
        let mut cx = WindowUi { core, view, ctx };
        let app = cx.core.app.clone();
        let drawn = overrides.iter_mut().any(|draw| draw(ui, &app, &view.state.id, &mut cx));
        if !drawn {
            cx.default_contents(ui);
        }
    });
    last_error(ui, core, &Some(view.state.id.clone()));
}

/// The window's summary, in the app's words: for a modal, the question it
/// asks, so it stands out.
fn summary(ui: &mut Ui, state: &purview::model::WindowState) {
    let Some(summary) = state.summary.as_deref().filter(|s| !s.trim().is_empty()) else { return };
    if state.modal {
        ui.label(RichText::new(summary).size(17.0).strong());
    } else {
        ui.label(RichText::new(summary).italics());
    }
    ui.add_space(2.0);
}

/// The last failure in `scope`, if the latest call there did not succeed.
fn last_error(ui: &mut Ui, core: &Core, scope: &Scope) {
    if let Some(failure) = lock(&core.outcomes).failures.get(scope) {
        ui.colored_label(ui.visuals().error_fg_color, &failure.error.message);
    }
}

/// One approval request: what the agent asks, and the person's answer.
fn approval_prompt(ui: &mut Ui, approvals: Option<&ApprovalQueue>, pending: &PendingApproval) {
    egui::Frame::group(ui.style()).stroke(Stroke::new(2.0, AGENT)).show(ui, |ui| {
        ui.label(RichText::new(pending.request.describe()).strong());
        ui.push_id(("purview-approval", pending.id), |ui| {
            ui.horizontal(|ui| {
                let Some(queue) = approvals else { return };
                if ui.button("Approve").clicked() {
                    queue.answer(pending.id, Approval::Approve);
                }
                if ui.button("Decline").clicked() {
                    queue.answer(pending.id, Approval::Decline);
                }
            });
        });
    });
}

/// The egui window of Purview window `id` at `place`, and the most height
/// its contents get before they scroll.
fn embedded_window<'a>(
    title: &'a str,
    id: &str,
    place: Place,
    frame: egui::Frame,
    app_modal: bool,
) -> (egui::Window<'a>, f32) {
    // The frame's margins and stroke are outside what egui sizes.
    let max = place.max - frame.total_margin().sum();
    let mut window = egui::Window::new(title)
        .id(window_id(id))
        .pivot(place.pivot)
        .max_size(max)
        // Also the size of its first, unseen sizing frame, so egui does not
        // push it off its tile to fit a larger guess.
        .default_size(max)
        .min_width(max.x.min(300.0))
        .resizable(false)
        .collapsible(false)
        .frame(frame);
    window = if place.now { window.current_pos(place.pos) } else { window.default_pos(place.pos) };
    if app_modal {
        window = window.order(Order::Foreground);
    }
    // Less the title bar: the contents scroll beyond.
    (window, (max.y - 28.0).max(80.0))
}

/// Dims everything below an app-level modal and takes the clicks meant for
/// it: the rest of the desk is visibly out of reach until it is answered.
fn backdrop(ctx: &egui::Context, modal: &str) {
    let screen = ctx.content_rect();
    egui::Area::new(Id::unique(("purview-backdrop", modal)))
        .order(Order::Foreground)
        .fixed_pos(screen.min)
        .show(ctx, |ui| {
            let (rect, _) = ui.allocate_exact_size(screen.size(), egui::Sense::click_and_drag());
            ui.painter().rect_filled(rect, 0.0, Color32::from_black_alpha(150));
        });
}

/// The pending requests for one window.
pub(crate) fn asking<'a>(pending: &'a [PendingApproval], window: &str) -> Vec<&'a PendingApproval> {
    pending.iter().filter(|p| p.request.window_id.as_deref() == Some(window)).collect()
}

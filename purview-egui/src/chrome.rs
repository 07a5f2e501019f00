//! What every Purview app's GUI needs around the windows' contents: one
//! egui window (or OS viewport) per open Purview window, modals above their
//! owners, blocked windows disabled and naming their blocker, where the
//! agent works, its focus requests, approval prompts, the last error, the
//! app-level actions, and a repaint whenever anything changes.

use egui::{
    Color32, Id, LayerId, Order, RichText, Stroke, Ui, ViewportBuilder, ViewportClass,
    ViewportCommand, ViewportId,
};
use purview::activity::AgentActivity;
use purview_person::{Intent, PersonCall, Question, Scope, words};

use crate::{
    Desk, WindowUi,
    bar::action_bar,
    calls::Core,
    desk::Override,
    layout::Place,
    lock::lock,
    read::{Scene, WindowView},
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
    pub(crate) fn main_panel(&mut self, ui: &mut Ui, scene: &Scene, drawn: &[usize]) {
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
            let ctx = ui.ctx().clone();
            for question in &scene.model.questions {
                approval_prompt(ui, &mut self.core, &ctx, question);
            }
            if self.list_windows {
                ui.separator();
                self.window_list(ui, scene, drawn);
            }
            let scope: Scope = None;
            let model = scene.model.clone();
            if !model.app_actions.is_empty() {
                ui.separator();
                ui.add_enabled_ui(model.app_actions_enabled, |ui| {
                    action_bar(ui, &mut self.core, &ctx, &scope, &model.app_actions);
                });
            }
            last_error(ui, &self.core, &scope);
        });
    }

    /// Every open window, one line each; a window not drawn now (more are
    /// open than the desk draws at once) is a button that raises it. Only
    /// the lines in sight are laid out, so a thousand windows cost a
    /// frame no more than a screenful.
    fn window_list(&mut self, ui: &mut Ui, scene: &Scene, drawn: &[usize]) {
        let hidden = scene.windows.len() - drawn.len();
        if hidden > 0 {
            ui.weak(words::more_windows(hidden));
        }
        let row = ui.text_style_height(&egui::TextStyle::Button) + ui.spacing().item_spacing.y;
        let mut raise = None;
        egui::ScrollArea::vertical()
            .id_salt("purview-window-list")
            .max_height(ui.available_height() * 0.5)
            .auto_shrink([false, true])
            .show_rows(ui, row, scene.windows.len(), |ui, rows| {
                for i in rows {
                    let view = &scene.windows[i].view;
                    let line = view.line.clone();
                    if view.agent_here {
                        ui.label(RichText::new(line).color(AGENT));
                    } else if drawn.binary_search(&i).is_ok() {
                        ui.label(line);
                    } else if ui.small_button(line).on_hover_text("Show this window").clicked() {
                        raise = Some(view.id.clone());
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
    pub(crate) fn window(&mut self, ctx: &egui::Context, scene: &Scene, view: &WindowView) {
        let id = view.state.id.clone();
        let place = self.layout.place(&view.state, ctx.content_rect());
        let fresh = !self.layout.drawn_rects().contains_key(&id);
        let agent_here = view.view.agent_here;
        let Self { core, overrides, embedded, layout, .. } = self;
        let mut contents = |ui: &mut Ui| window_contents(ui, core, overrides, view);
        if *embedded {
            let app_modal = scene.model.app_modal.as_deref() == Some(id.as_str());
            if app_modal {
                backdrop(ctx, &id);
            }
            let mut frame = egui::Frame::window(&ctx.global_style());
            if agent_here {
                frame = frame.stroke(Stroke::new(3.0, AGENT));
            }
            let (window, inside) = embedded_window(&view.view.name, &id, place, frame, app_modal);
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
            .with_title(&view.view.name)
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
            .view
            .operable
            .then(|| view.view.actions.iter().find(|a| a.name == "close" || a.name == "cancel"))
            .flatten()
            .filter(|a| a.fields.iter().all(|f| !f.required));
        match closer {
            Some(action) => {
                let call = PersonCall {
                    scope: Some(view.view.id.clone()),
                    action: action.name.clone(),
                    arguments: purview::model::JsonObject::new(),
                    load: None,
                };
                self.core.make(ctx, call);
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
fn window_contents(ui: &mut Ui, core: &mut Core, overrides: &mut [Override], view: &WindowView) {
    let shown = view.view.clone();
    if let Some(cue) = &shown.cue {
        ui.label(RichText::new(cue).color(AGENT).strong());
    }
    let ctx = ui.ctx().clone();
    for question in &shown.questions {
        approval_prompt(ui, core, &ctx, question);
    }
    if let Some(owner) = &shown.owner {
        ui.weak(owner);
    }
    if let Some(summary) = &shown.summary {
        // A modal's summary is the question it asks: it stands out.
        if shown.modal {
            ui.label(RichText::new(summary).size(17.0).strong());
        } else {
            ui.label(RichText::new(summary).italics());
        }
        ui.add_space(2.0);
    }
    if let Some(blocker) = &shown.blocker {
        ui.label(RichText::new(blocker).italics());
    }
    ui.add_enabled_ui(shown.operable, |ui| {
        let mut cx = WindowUi { core, view, ctx };
        let app = cx.core.app.clone();
        let drawn = overrides.iter_mut().any(|draw| draw(ui, &app, &view.state.id, &mut cx));
        if !drawn {
            cx.default_contents(ui);
        }
    });
    last_error(ui, core, &Some(view.state.id.clone()));
}

/// The last failure in `scope`, if the latest call there did not succeed.
fn last_error(ui: &mut Ui, core: &Core, scope: &Scope) {
    // The model says it once: nothing where the form's fields say it.
    if let Some(said) = lock(&core.person).failure_said(scope, &core.model) {
        ui.colored_label(ui.visuals().error_fg_color, said);
    }
}

/// One approval question: what the agent asks, and the person's answer.
fn approval_prompt(ui: &mut Ui, core: &mut Core, ctx: &egui::Context, question: &Question) {
    let mut answer = None;
    egui::Frame::group(ui.style()).stroke(Stroke::new(2.0, AGENT)).show(ui, |ui| {
        ui.label(RichText::new(&question.text).strong());
        ui.push_id(("purview-approval", question.id), |ui| {
            ui.horizontal(|ui| {
                if core.approvals.is_none() {
                    return;
                }
                if ui.button(words::APPROVE).clicked() {
                    answer = Some(Intent::Approve(question.id));
                }
                if ui.button(words::DECLINE).clicked() {
                    answer = Some(Intent::Decline(question.id));
                }
            });
        });
    });
    if let Some(intent) = answer {
        core.intend(ctx, intent);
    }
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

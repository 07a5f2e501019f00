//! The order_desk windows drawn with egui, one OS window (viewport) each.
//!
//! Everything the person does goes through Purview: typing is
//! `WindowHandle::update`, buttons are `App::perform` of the same actions an
//! agent calls. So every human edit bumps versions, changes tools/list and
//! notifies agents exactly as an agent's call would, and agent calls appear
//! here at once: `App::on_change` wakes egui.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use eframe::egui::{
    self, Color32, RichText, Stroke, ViewportBuilder, ViewportClass, ViewportCommand, ViewportId,
};
use purview::{
    AgentActivity, App, Approval, ApprovalQueue, PendingApproval, WindowHandle, WindowInfo,
};
use serde_json::{Value, json};

use crate::windows::{ConfirmSubmission, Locked, OrderEditor, ReportDetails, Terms};

/// Where the agent is: drawn on the window it last operated.
const AGENT: Color32 = Color32::from_rgb(0x2f, 0x80, 0xed);

/// The desktop front end of an order_desk [`App`].
pub struct DeskGui {
    app: App,
    runtime: tokio::runtime::Handle,
    endpoint: String,
    /// The last failure of a button press, shown in the main window.
    last_error: Arc<Mutex<Option<String>>>,
    /// The last agent focus request already turned into an OS focus.
    focused_serial: u64,
    /// What the person is typing as the PIN of the lock screen.
    pin: String,
    /// Draw every window inside the main one (tests, or a single-window host).
    pub embedded: bool,
    /// Whether `App::on_change` already wakes this front end's egui context.
    woken: bool,
    /// Where each window first appeared; kept, so closing one window does
    /// not move the others.
    positions: HashMap<String, [f32; 2]>,
    /// Agents' requests waiting for the person's approval.
    approvals: ApprovalQueue,
}

impl DeskGui {
    /// A front end for `app`; `runtime` runs button presses, `endpoint` is
    /// shown to the person so they can connect an agent.
    pub fn new(app: App, runtime: tokio::runtime::Handle, endpoint: String) -> Self {
        // The person at this screen answers agents' approval requests.
        let approvals = ApprovalQueue::new();
        app.set_approver(approvals.clone());
        Self {
            app,
            runtime,
            endpoint,
            last_error: Arc::default(),
            focused_serial: 0,
            pin: String::new(),
            embedded: false,
            woken: false,
            positions: HashMap::new(),
            approvals,
        }
    }

    /// Draws the main window and one viewport per open Purview window.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        if !self.woken {
            // Agent calls and other sessions' edits repaint at once.
            let repaint = ctx.clone();
            self.app.on_change(move |_| repaint.request_repaint());
            let repaint = ctx.clone();
            self.approvals.on_change(move || repaint.request_repaint());
            self.woken = true;
        }
        if self.embedded {
            ctx.set_embed_viewports(true);
        }
        // Drawing never runs inside a Purview callback, so the list is there.
        let windows = match self.app.window_list() {
            Ok(windows) => windows,
            Err(e) => {
                tracing::error!(error = %e, "cannot list the windows");
                return;
            }
        };
        let activity = self.app.agent_activity();
        let pending = self.approvals.pending();
        egui::Frame::central_panel(ui.style()).show(ui, |ui| {
            // Requests for no open window (app-level actions) are asked here.
            for request in pending.iter().filter(|p| {
                p.request.window_id.as_ref().is_none_or(|w| !windows.iter().any(|i| &i.id == w))
            }) {
                self.approval_prompt(ui, request);
            }
            self.main_window(ui, &windows, activity.as_ref())
        });
        for info in &windows {
            let asking: Vec<&PendingApproval> = pending
                .iter()
                .filter(|p| p.request.window_id.as_deref() == Some(info.id.as_str()))
                .collect();
            self.viewport(&ctx, info, &windows, activity.as_ref(), &asking);
        }
        // An agent's focus-style action raises the real OS window, even if
        // other calls followed it before this frame.
        if let Some((window, serial)) = activity.as_ref().and_then(|a| a.focus_request.clone())
            && serial > self.focused_serial
        {
            self.focused_serial = serial;
            ctx.send_viewport_cmd_to(viewport_id(&window), ViewportCommand::Focus);
        }
    }

    fn main_window(
        &mut self,
        ui: &mut egui::Ui,
        windows: &[WindowInfo],
        activity: Option<&AgentActivity>,
    ) {
        ui.heading("Order Desk");
        ui.label(format!("Agents connect over MCP at {}", self.endpoint));
        ui.separator();
        for info in windows {
            let mut line = format!("{} — {}", info.id, info.title);
            if !info.operable {
                line.push_str("  (blocked)");
            }
            if activity.and_then(|a| a.window.as_deref()) == Some(info.id.as_str()) {
                ui.label(RichText::new(format!("{line}  · agent here")).color(AGENT));
            } else {
                ui.label(line);
            }
        }
        ui.separator();
        let app_free = !windows.iter().any(|w| w.modal && w.owner_id.is_none());
        ui.add_enabled_ui(app_free, |ui| {
            ui.horizontal(|ui| {
                if ui.button("New report").clicked() {
                    self.perform("app__new_report", json!({}));
                }
                if ui.button("Lock").clicked() {
                    self.perform("app__lock", json!({}));
                }
            });
        });
        if let Some(error) = self.last_error.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            ui.colored_label(Color32::RED, error);
        }
    }

    fn viewport(
        &mut self,
        ctx: &egui::Context,
        info: &WindowInfo,
        windows: &[WindowInfo],
        activity: Option<&AgentActivity>,
        asking: &[&PendingApproval],
    ) {
        // The first two windows beside the main one, later ones (dialogs,
        // more reports) cascading below them; each keeps its first place.
        let taken = self.positions.len();
        let position = *self.positions.entry(info.id.clone()).or_insert_with(|| match taken {
            0 => [440.0, 20.0],
            1 => [870.0, 20.0],
            n => [440.0 + 40.0 * (n - 2) as f32, 370.0 + 30.0 * (n - 2) as f32],
        });
        let builder = ViewportBuilder::default()
            .with_title(&info.title)
            .with_inner_size([400.0, 310.0])
            .with_position(position);
        let agent_here = activity.and_then(|a| a.window.as_deref()) == Some(info.id.as_str())
            || !asking.is_empty();
        ctx.show_viewport_immediate(viewport_id(&info.id), builder, |ui, class| {
            if class != ViewportClass::EmbeddedWindow
                && ui.ctx().input(|i| i.viewport().close_requested())
            {
                self.close_requested(ui.ctx(), info);
                return;
            }
            let mut frame = egui::Frame::central_panel(ui.style());
            if agent_here {
                frame = frame.stroke(Stroke::new(3.0, AGENT));
            }
            frame.show(ui, |ui| {
                ui.set_min_size(ui.available_size());
                if !asking.is_empty() {
                    ui.label(
                        RichText::new("Agent is waiting for your approval").color(AGENT).strong(),
                    );
                    for request in asking {
                        self.approval_prompt(ui, request);
                    }
                } else if agent_here {
                    ui.label(RichText::new("Agent is working here").color(AGENT).strong());
                }
                if !info.operable {
                    let blocker = windows
                        .iter()
                        .find(|w| {
                            w.operable
                                && (w.owner_id.as_deref() == Some(info.id.as_str())
                                    || w.owner_id.is_none() && w.modal)
                        })
                        .map_or("a dialog", |w| w.title.as_str());
                    ui.label(RichText::new(format!("Blocked by {blocker}")).italics());
                }
                // A window under a modal is blocked for the person too.
                ui.add_enabled_ui(info.operable, |ui| self.contents(ui, info));
            });
        });
    }

    /// The person clicked a window's close button. A blocked window or the
    /// lock screen stays; a dialog closes through its own action, so the
    /// close means what its Cancel/Close button means.
    fn close_requested(&mut self, ctx: &egui::Context, info: &WindowInfo) {
        let id = info.id.as_str();
        let app_modal = info.modal && info.owner_id.is_none();
        if !info.operable || app_modal {
            ctx.send_viewport_cmd(ViewportCommand::CancelClose);
        } else if self.app.window::<ConfirmSubmission>(id).is_ok() {
            self.perform(&format!("{id}__cancel"), json!({}));
        } else if self.app.window::<Terms>(id).is_ok()
            || self.app.window::<ReportDetails>(id).is_ok()
        {
            self.perform(&format!("{id}__close"), json!({}));
        } else {
            let _ = self.app.close(id);
        }
    }

    fn contents(&mut self, ui: &mut egui::Ui, info: &WindowInfo) {
        let id = info.id.as_str();
        if let Ok(editor) = self.app.window::<OrderEditor>(id) {
            self.order_editor(ui, &editor);
        } else if let Ok(confirm) = self.app.window::<ConfirmSubmission>(id) {
            self.confirm(ui, &confirm);
        } else if let Ok(report) = self.app.window::<ReportDetails>(id) {
            self.report(ui, &report);
        } else if self.app.window::<Terms>(id).is_ok() {
            ui.label("Orders are binding once confirmed. Prices include VAT.");
            if ui.button("Close").clicked() {
                self.perform(&format!("{id}__close"), json!({}));
            }
        } else if self.app.window::<Locked>(id).is_ok() {
            ui.label("The application is locked.");
            let label = ui.label("PIN");
            ui.add(egui::TextEdit::singleline(&mut self.pin).password(true)).labelled_by(label.id);
            if ui.button("Unlock").clicked() {
                let pin = std::mem::take(&mut self.pin);
                self.perform(&format!("{id}__unlock"), json!({ "pin": pin }));
            }
        }
    }

    fn order_editor(&mut self, ui: &mut egui::Ui, editor: &WindowHandle<OrderEditor>) {
        let Ok(view) = editor.read(|e| e.clone()) else { return };
        ui.heading(&view.heading);
        egui::Grid::new(("form", editor.id())).num_columns(2).show(ui, |ui| {
            let mut recipient = view.recipient.clone();
            let label = ui.label("Recipient");
            // Fixed ids: banners appearing above must not move the person's
            // keyboard focus out of the field they are typing in.
            let field =
                egui::TextEdit::singleline(&mut recipient).id_salt(("recipient", editor.id()));
            if ui.add(field).labelled_by(label.id).changed() {
                let _ = editor.update(|e| {
                    e.recipient = recipient;
                    e.check();
                });
            }
            ui.end_row();
            let mut amount = view.amount.clone();
            let label = ui.label("Amount");
            let field = egui::TextEdit::singleline(&mut amount).id_salt(("amount", editor.id()));
            if ui.add(field).labelled_by(label.id).changed() {
                let _ = editor.update(|e| e.amount = amount);
            }
            ui.end_row();
            let mut password = view.password.expose().clone();
            let label = ui.label("Payment password");
            let field = egui::TextEdit::singleline(&mut password)
                .password(true)
                .id_salt(("password", editor.id()));
            if ui.add(field).labelled_by(label.id).changed() {
                let _ = editor.update(|e| e.password = purview::Secret::new(password));
            }
            ui.end_row();
        });
        egui::Grid::new(("items", editor.id())).striped(true).show(ui, |ui| {
            ui.strong("Product");
            ui.strong("Quantity");
            ui.end_row();
            for (product, quantity) in &view.items {
                ui.label(product);
                ui.label(quantity.to_string());
                ui.end_row();
            }
        });
        if let Some(error) = &view.recipient_error {
            ui.colored_label(Color32::RED, error);
        }
        if let Some(done) = &view.submitted_notice {
            ui.colored_label(Color32::DARK_GREEN, done);
        }
        if ui.add_enabled(view.can_submit(), egui::Button::new("Submit")).clicked() {
            self.perform(&format!("{}__submit", editor.id()), json!({}));
        }
    }

    fn confirm(&mut self, ui: &mut egui::Ui, confirm: &WindowHandle<ConfirmSubmission>) {
        let Ok(view) = confirm.read(|c| c.clone()) else { return };
        ui.label(format!(
            "Submit order #{} to {} for {}?",
            view.order, view.recipient, view.amount
        ));
        ui.horizontal(|ui| {
            for (label, action) in
                [("Confirm", "confirm"), ("Cancel", "cancel"), ("Terms", "show_terms")]
            {
                if ui.button(label).clicked() {
                    self.perform(&format!("{}__{action}", confirm.id()), json!({}));
                }
            }
        });
    }

    fn report(&mut self, ui: &mut egui::Ui, report: &WindowHandle<ReportDetails>) {
        let Ok((total, rows)) =
            report.read(|r| (r.total, r.rows.iter().take(12).cloned().collect::<Vec<_>>()))
        else {
            return;
        };
        ui.label(format!("Revenue report, {total} rows"));
        egui::Grid::new(("rows", report.id())).striped(true).show(ui, |ui| {
            for title in ["Row", "Region", "Revenue"] {
                ui.strong(title);
            }
            ui.end_row();
            for (row, region, revenue) in rows {
                ui.label(row.to_string());
                ui.label(region);
                ui.label(format!("{revenue:.2}"));
                ui.end_row();
            }
        });
        if ui.button("Close").clicked() {
            self.perform(&format!("{}__close", report.id()), json!({}));
        }
    }

    /// One approval request: what the agent asks, and the person's answer.
    fn approval_prompt(&self, ui: &mut egui::Ui, pending: &PendingApproval) {
        egui::Frame::group(ui.style()).stroke(Stroke::new(2.0, AGENT)).show(ui, |ui| {
            ui.label(RichText::new(pending.request.describe()).strong());
            ui.horizontal(|ui| {
                if ui.button("Approve").clicked() {
                    self.approvals.answer(pending.id, Approval::Approve);
                }
                if ui.button("Deny").clicked() {
                    self.approvals.answer(pending.id, Approval::Decline);
                }
            });
        });
    }

    /// Runs one of the app's actions for the person, off the UI thread.
    fn perform(&self, tool: &str, args: Value) {
        let (app, tool, errors) = (self.app.clone(), tool.to_owned(), self.last_error.clone());
        self.runtime.spawn(async move {
            let outcome = app.perform(&tool, args.as_object().cloned()).await;
            *errors.lock().unwrap_or_else(|e| e.into_inner()) = outcome.err().map(|e| e.message);
        });
    }
}

fn viewport_id(window: &str) -> ViewportId {
    ViewportId::from_hash_of(("purview-window", window))
}

//! The order_desk windows with egui: purview-egui draws every window, its
//! actions, modals, approvals and the agent's whereabouts; only the Order
//! Editor is drawn by hand, so the person types straight into its fields.
//!
//! Typing is `WindowHandle::update` (what the person types); Submit is the
//! editor's own `submit` action, through a typed call. Both take the path an
//! agent's call takes, so agents see every edit and the person's newer text
//! is never overwritten.

use eframe::egui::{self, Button, Ui};
use purview::{App, Secret, WindowHandle, approval::ApprovalQueue, model::BlockKind};
use purview_egui::{Desk, WindowUi};

use crate::windows::OrderEditor;

/// The desktop front end of an order_desk [`App`], whose approver is
/// `approvals`; `endpoint` is shown to the person so they can connect an
/// agent.
pub fn desk(app: App, approvals: ApprovalQueue, endpoint: &str) -> Desk {
    Desk::answering(app, approvals)
        .heading("Order Desk")
        .note(format!("Agents connect over MCP at {endpoint}"))
        .draw::<OrderEditor>(order_editor)
}

fn order_editor(ui: &mut Ui, editor: &WindowHandle<OrderEditor>, cx: &mut WindowUi<'_>) {
    let Ok(view) = editor.read(OrderEditor::clone) else { return };
    ui.heading(&view.heading);
    egui::Grid::new(("form", editor.id())).num_columns(2).show(ui, |ui| {
        field(ui, editor, "Recipient", &view.recipient, false, |e, text| {
            e.recipient = text;
            e.check();
        });
        field(ui, editor, "Amount", &view.amount, false, |e, text| e.amount = text);
        let password = view.password.expose();
        field(ui, editor, "Payment password", password, true, |e, text| {
            e.password = Secret::new(text);
        });
    });
    // The items and the notices, drawn the default way (the heading and
    // the fields are drawn above).
    let blocks = cx.state().blocks.clone();
    for (index, block) in blocks.iter().enumerate() {
        if !matches!(block.kind, BlockKind::Fields { .. } | BlockKind::Text { .. }) {
            cx.block(ui, index, block);
        }
    }
    if ui.add_enabled(view.can_submit(), Button::new("Submit")).clicked() {
        cx.run(editor.act().submit());
    }
}

/// One labelled text field the person types into.
fn field(
    ui: &mut Ui,
    editor: &WindowHandle<OrderEditor>,
    label: &str,
    value: &str,
    password: bool,
    apply: impl FnOnce(&mut OrderEditor, String),
) {
    let mut text = value.to_owned();
    // A fixed id: banners appearing above must not move the person's
    // keyboard focus out of the field they are typing in.
    let edit =
        egui::TextEdit::singleline(&mut text).password(password).id_salt((label, editor.id()));
    let label = ui.label(label);
    if ui.add(edit).labelled_by(label.id).changed() {
        let _ = editor.update(|e| apply(e, text));
    }
    ui.end_row();
}

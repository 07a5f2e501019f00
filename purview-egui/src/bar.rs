//! The default action bar: a window's actions as buttons, the forms of
//! those with arguments (form.rs), and the question a destructive one
//! asks (confirm.rs). A click is an intent; the model decides whether it
//! opens a form, asks first or calls.

use egui::{RichText, Ui};
use purview_person::{Action, Intent, Scope};

use crate::{WindowUi, calls::Core, confirm::confirmation, form::form, lock::lock};

impl WindowUi<'_> {
    /// Draws the window's actions as buttons, with the forms and
    /// confirmations they open. A table's load action is left to the
    /// table's paging buttons. A destructive action asks "yes or no"
    /// first, except in a modal dialog, which is itself that question.
    pub fn action_bar(&mut self, ui: &mut Ui) {
        let view = self.view.view.clone();
        let scope = Some(view.id.clone());
        action_bar(ui, self.core, &self.ctx, &scope, &view.actions);
    }
}

/// The bar for `actions` in `scope` (a window, or the app's own).
pub(crate) fn action_bar(
    ui: &mut Ui,
    core: &mut Core,
    ctx: &egui::Context,
    scope: &Scope,
    actions: &[Action],
) {
    if actions.is_empty() {
        return;
    }
    let mut pressed = None;
    ui.horizontal_wrapped(|ui| {
        for action in actions {
            let mut text = RichText::new(&action.button);
            if action.destructive {
                text = text.color(ui.visuals().error_fg_color);
            }
            let mut button = ui.add(egui::Button::new(text));
            if !action.description.is_empty() {
                button = button.on_hover_text(&action.description);
            }
            if button.clicked() {
                pressed = Some(Intent::Press { scope: scope.clone(), action: action.name.clone() });
            }
        }
    });
    if let Some(intent) = pressed {
        core.intend(ctx, intent);
    }
    let open = lock(&core.person).open_forms(scope, actions).len();
    if open > 0 {
        let salt = scope.as_deref().unwrap_or(purview::naming::APP).to_owned();
        for action in actions {
            if lock(&core.person).form(scope, &action.name).is_some() {
                form(ui, core, ctx, scope, &salt, action);
            }
        }
    }
    confirmation(ui, core, ctx, scope);
}

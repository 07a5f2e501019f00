//! The default action bar: a window's available actions as buttons, the
//! forms of those with arguments (form.rs), and the confirmation a
//! destructive one asks for (confirm.rs).

use egui::{RichText, Ui};
use purview::model::JsonObject;

use crate::{
    WindowUi,
    calls::Core,
    confirm::confirmation,
    form::form,
    held::Confirming,
    outcomes::Scope,
    schema::{ActionDef, FormValues},
};

impl WindowUi<'_> {
    /// Draws the window's actions as buttons, with the forms and
    /// confirmations they open. A table's declared load action is left to
    /// the table's paging buttons. A
    /// destructive action asks "yes or no" first, except in a modal dialog,
    /// which is itself that question.
    pub fn action_bar(&mut self, ui: &mut Ui) {
        let view = self.view;
        // A table's load action is its Previous/Next buttons, not a form.
        let pages = |a: &&ActionDef| view.paged_by.iter().any(|(_, loader)| *loader == a.info.name);
        let actions: Vec<&ActionDef> = view.actions.iter().filter(|a| !pages(a)).collect();
        let scope = Some(view.state.id.clone());
        action_bar(ui, self.core, &self.ctx, &scope, &actions, !view.state.modal);
    }
}

/// The bar for `actions` in `scope` (a window, or the app's own).
pub(crate) fn action_bar(
    ui: &mut Ui,
    core: &mut Core,
    ctx: &egui::Context,
    scope: &Scope,
    actions: &[&ActionDef],
    confirm_destructive: bool,
) {
    if actions.is_empty() {
        return;
    }
    let salt = scope.as_deref().unwrap_or(purview::naming::APP);
    ui.horizontal_wrapped(|ui| {
        for action in actions {
            let key = (scope.clone(), action.info.name.clone());
            let mut text = RichText::new(&action.info.title);
            if !action.params.is_empty() {
                // "…": this opens a form first.
                text = RichText::new(format!("{}…", action.info.title));
            }
            if action.info.destructive {
                text = text.color(ui.visuals().error_fg_color);
            }
            let mut button = ui.add(egui::Button::new(text));
            if !action.info.description.is_empty() {
                button = button.on_hover_text(&action.info.description);
            }
            if !button.clicked() {
                continue;
            }
            if !action.params.is_empty() {
                if core.forms.remove(&key).is_none() {
                    core.forms.insert(key, FormValues::default());
                }
            } else if action.info.destructive && confirm_destructive {
                core.confirming = Some(Confirming::new(scope, action, JsonObject::new()));
            } else {
                core.perform(ctx, action, JsonObject::new());
            }
        }
    });
    for action in actions {
        if core.forms.contains_key(&(scope.clone(), action.info.name.clone())) {
            form(ui, core, ctx, scope, salt, action, confirm_destructive);
        }
    }
    confirmation(ui, core, ctx, scope, actions);
}

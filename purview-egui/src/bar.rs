//! The default action bar: a window's available actions as buttons, the
//! forms of those with arguments (form.rs), and a confirmation before a
//! destructive one.

use egui::{RichText, Ui};
use purview::model::JsonObject;

use crate::{
    calls::{Core, Scope, WindowUi},
    form::form,
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
                core.confirming =
                    Some((scope.clone(), action.info.name.clone(), JsonObject::new()));
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

/// "Yes" or "no" to the destructive action waiting in `scope`.
fn confirmation(
    ui: &mut Ui,
    core: &mut Core,
    ctx: &egui::Context,
    scope: &Scope,
    actions: &[&ActionDef],
) {
    let Some((asked_scope, name, _)) = &core.confirming else { return };
    if asked_scope != scope {
        return;
    }
    let Some(action) = actions.iter().find(|a| &a.info.name == name) else {
        // The action went away (its window changed): nothing to confirm.
        core.confirming = None;
        return;
    };
    let warn = ui.visuals().error_fg_color;
    let mut answer = None;
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, warn)).show(ui, |ui| {
        ui.label(
            RichText::new(format!("{}? This cannot be undone.", action.info.title)).color(warn),
        );
        if !action.info.description.is_empty() {
            ui.weak(&action.info.description);
        }
        ui.horizontal(|ui| {
            let verb = action.info.title.to_lowercase();
            if ui.button(RichText::new(format!("Yes, {verb}")).color(warn)).clicked() {
                answer = Some(true);
            }
            if ui.button(format!("Do not {verb}")).clicked() {
                answer = Some(false);
            }
        });
    });
    match answer {
        Some(true) => {
            if let Some((_, _, arguments)) = core.confirming.take() {
                core.perform(ctx, action, arguments);
            }
        }
        Some(false) => core.confirming = None,
        None => {}
    }
}

//! The default action bar: a window's available actions as buttons, a form
//! for those with arguments (generated from the input schema agents get),
//! a confirmation before a destructive one, and each argument's error from
//! `validation_failed` beside its field.

use egui::{RichText, Ui};
use purview::model::JsonObject;

use crate::{
    calls::{Core, Scope, WindowUi, field_error, form_problems},
    schema::{ActionDef, FormValues, ParamKind},
};

impl WindowUi<'_> {
    /// Draws the window's actions as buttons, with the forms and
    /// confirmations they open. A window's page loader (an action taking
    /// `offset` and `limit`) is left to its table's paging buttons. A
    /// destructive action asks "yes or no" first, except in a modal dialog,
    /// which is itself that question.
    pub fn action_bar(&mut self, ui: &mut Ui) {
        let view = self.view;
        // A table's load action is its Previous/Next buttons, not a form.
        let pages = |a: &&ActionDef| view.paged_by.iter().any(|(_, loader)| *loader == a.name);
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
            let key = (scope.clone(), action.name.clone());
            let mut text = RichText::new(&action.title);
            if !action.params.is_empty() {
                // "…": this opens a form first.
                text = RichText::new(format!("{}…", action.title));
            }
            if action.destructive {
                text = text.color(ui.visuals().error_fg_color);
            }
            let mut button = ui.add(egui::Button::new(text));
            if !action.description.is_empty() {
                button = button.on_hover_text(&action.description);
            }
            if !button.clicked() {
                continue;
            }
            if !action.params.is_empty() {
                if core.forms.remove(&key).is_none() {
                    core.forms.insert(key, FormValues::default());
                }
            } else if action.destructive && confirm_destructive {
                core.confirming = Some((scope.clone(), action.name.clone(), JsonObject::new()));
            } else {
                core.perform(ctx, scope, &action.name, JsonObject::new());
            }
        }
    });
    for action in actions {
        if core.forms.contains_key(&(scope.clone(), action.name.clone())) {
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
    let Some(action) = actions.iter().find(|a| &a.name == name) else {
        // The action went away (its window changed): nothing to confirm.
        core.confirming = None;
        return;
    };
    let warn = ui.visuals().error_fg_color;
    let mut answer = None;
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, warn)).show(ui, |ui| {
        ui.label(RichText::new(format!("{}? This cannot be undone.", action.title)).color(warn));
        if !action.description.is_empty() {
            ui.weak(&action.description);
        }
        ui.horizontal(|ui| {
            let verb = action.title.to_lowercase();
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
            if let Some((scope, name, arguments)) = core.confirming.take() {
                core.perform(ctx, &scope, &name, arguments);
            }
        }
        Some(false) => core.confirming = None,
        None => {}
    }
}

/// The form of an action with arguments: one field per argument, its error
/// beside it.
fn form(
    ui: &mut Ui,
    core: &mut Core,
    ctx: &egui::Context,
    scope: &Scope,
    salt: &str,
    action: &ActionDef,
    confirm_destructive: bool,
) {
    let key = (scope.clone(), action.name.clone());
    let failure = core.failure(scope).filter(|f| f.action.as_deref() == Some(&action.name));
    let mut submit = false;
    let mut close = false;
    let Some(values) = core.forms.get_mut(&key) else { return };
    egui::Frame::group(ui.style()).show(ui, |ui| {
        // The run button carries the title; the form says what it does.
        if !action.description.is_empty() {
            ui.weak(&action.description);
        }
        egui::Grid::new(("purview-form", salt, action.name.as_str())).num_columns(2).show(
            ui,
            |ui| {
                for param in &action.params {
                    let mut name = param.label.clone();
                    if param.required {
                        name.push_str(" *");
                    }
                    let label = ui.label(name);
                    let label = match &param.description {
                        Some(d) => label.on_hover_text(d),
                        None => label,
                    };
                    let id = ("purview-arg", salt, action.name.as_str(), param.name.as_str());
                    let text = values.texts.entry(param.name.clone()).or_default();
                    let field = match &param.kind {
                        ParamKind::Bool => {
                            let mut on = text == "true";
                            let response = ui.checkbox(&mut on, "");
                            *text = on.to_string();
                            response
                        }
                        ParamKind::Choice(choices) => {
                            let shown =
                                if text.is_empty() { "Choose…".to_owned() } else { text.clone() };
                            egui::ComboBox::from_id_salt(id)
                                .selected_text(shown)
                                .show_ui(ui, |ui| {
                                    for choice in choices {
                                        ui.selectable_value(text, choice.clone(), choice);
                                    }
                                })
                                .response
                        }
                        kind => {
                            let edit = egui::TextEdit::singleline(text)
                                .id_salt(id)
                                .password(*kind == ParamKind::Secret);
                            let response = ui.add(edit);
                            if response.lost_focus()
                                && ui.input(|i| i.key_pressed(egui::Key::Enter))
                            {
                                submit = true;
                            }
                            response
                        }
                    };
                    field.labelled_by(label.id);
                    ui.end_row();
                    if let Some(problem) =
                        field_error(failure.as_ref().map(|f| &f.error), &param.name)
                    {
                        ui.label("");
                        ui.colored_label(
                            ui.visuals().error_fg_color,
                            format!("{}: {problem}", param.label),
                        );
                        ui.end_row();
                    }
                }
            },
        );
        ui.horizontal(|ui| {
            let mut run = RichText::new(&action.title);
            if action.destructive {
                run = run.color(ui.visuals().error_fg_color);
            }
            if ui.button(run).clicked() {
                submit = true;
            }
            let cancel = ui
                .button("Cancel")
                .on_hover_text("Close this form without running it")
                .accessible_name(format!("Close the {} form", action.title));
            if cancel.clicked() {
                close = true;
            }
        });
    });
    if close {
        core.forms.remove(&key);
        return;
    }
    if !submit {
        return;
    }
    let arguments = values.arguments(&action.params);
    // A secret typed here goes to the call and nowhere else.
    values.forget_secrets(&action.params);
    match arguments {
        Err(problems) => {
            core.fail(scope.clone(), Some(action.name.clone()), form_problems(problems))
        }
        Ok(arguments) if action.destructive && confirm_destructive => {
            core.confirming = Some((scope.clone(), action.name.clone(), arguments));
        }
        Ok(arguments) => core.perform(ctx, scope, &action.name, arguments),
    }
}

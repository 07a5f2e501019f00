//! An action's form as the model gives it: one field per argument (label,
//! help, placeholder, bounds, where a chosen row fills it), each
//! argument's error beside it, and the buttons that run or close it.
//! Typing, submitting and cancelling are intents.

use egui::{Response, RichText, Ui};
use purview_person::{Action, Field, FieldKind, Intent, Scope, words};

use crate::{calls::Core, lock::lock};

/// The form of an action with arguments: one field per argument, its error
/// beside it.
pub(crate) fn form(
    ui: &mut Ui,
    core: &mut Core,
    ctx: &egui::Context,
    scope: &Scope,
    salt: &str,
    action: &Action,
) {
    let Some(typed) = lock(&core.person).form(scope, &action.name).cloned() else { return };
    let problems: Vec<Option<String>> = {
        let person = lock(&core.person);
        action.fields.iter().map(|f| person.field_problem(scope, action, &f.name)).collect()
    };
    let mut intents = Vec::new();
    let intent_of = |field: &Field, text: String| Intent::Type {
        scope: scope.clone(),
        action: action.name.clone(),
        field: field.name.clone(),
        text,
    };
    let submit = Intent::Submit { scope: scope.clone(), action: action.name.clone() };
    egui::Frame::group(ui.style()).show(ui, |ui| {
        // The run button carries the title; the form says what it does.
        if !action.description.is_empty() {
            ui.weak(&action.description);
        }
        let grid = egui::Grid::new(("purview-form", salt, action.name.as_str())).num_columns(2);
        grid.show(ui, |ui| {
            for (field, problem) in action.fields.iter().zip(&problems) {
                let label = field_label(ui, field);
                let id = egui::IdSalt::new(("purview-arg", salt, &action.name, &field.name));
                let mut text = typed.get(&field.name).cloned().unwrap_or_default();
                let (response, entered) = field_input(ui, id, field, &mut text);
                response.labelled_by(label.id);
                if typed.get(&field.name).map_or(!text.is_empty(), |was| *was != text) {
                    intents.push(intent_of(field, text));
                }
                if entered {
                    intents.push(submit.clone());
                }
                ui.end_row();
                let said = [field.from.as_ref().map(|f| f.hint.as_str()), field.help.as_deref()];
                for line in said.into_iter().flatten().chain(field.bounds.as_deref()) {
                    ui.label("");
                    ui.add(egui::Label::new(RichText::new(line).small().weak()).wrap());
                    ui.end_row();
                }
                if let Some(problem) = problem {
                    ui.label("");
                    ui.colored_label(ui.visuals().error_fg_color, problem);
                    ui.end_row();
                }
            }
        });
        let (run, cancel) = buttons(ui, action);
        if run {
            intents.push(submit.clone());
        }
        if cancel {
            intents.push(Intent::Cancel { scope: scope.clone(), action: action.name.clone() });
        }
    });
    for intent in intents {
        core.intend(ctx, intent);
    }
}

/// The argument's name in words, starred when required, its help on hover.
fn field_label(ui: &mut Ui, field: &Field) -> Response {
    let mut name = field.label.clone();
    if field.required {
        name.push_str(" *");
    }
    let label = ui.label(name);
    match &field.help {
        Some(help) => label.on_hover_text(help),
        None => label,
    }
}

/// The input for one argument; whether Enter was pressed in it.
fn field_input(
    ui: &mut Ui,
    id: egui::IdSalt,
    field: &Field,
    text: &mut String,
) -> (Response, bool) {
    match &field.kind {
        FieldKind::Bool => {
            let mut on = text == "true";
            let response = ui.checkbox(&mut on, "");
            *text = on.to_string();
            (response, false)
        }
        FieldKind::Choice => {
            let shown =
                if text.is_empty() { words::CHOOSE_PLACEHOLDER.to_owned() } else { text.clone() };
            let combo = egui::ComboBox::from_id_salt(id).selected_text(shown).show_ui(ui, |ui| {
                for choice in &field.choices {
                    ui.selectable_value(text, choice.clone(), choice);
                }
            });
            (combo.response, false)
        }
        kind => {
            let mut edit =
                egui::TextEdit::singleline(text).id_salt(id).password(*kind == FieldKind::Secret);
            if let Some(placeholder) = &field.placeholder {
                edit = edit.hint_text(placeholder.as_str());
            }
            let response = ui.add(edit);
            let entered = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            (response, entered)
        }
    }
}

/// The run and cancel buttons: whether each was clicked. On the form's
/// first frame the window scrolls to them, so a form opened low in a
/// small window is not cut off.
fn buttons(ui: &mut Ui, action: &Action) -> (bool, bool) {
    ui.horizontal_wrapped(|ui| {
        let mut run = RichText::new(&action.title);
        if action.destructive {
            run = run.color(ui.visuals().error_fg_color);
        }
        let run = ui.button(run);
        let opened = egui::Id::unique(("purview-form-shown", run.id));
        if !ui.data_mut(|d| d.get_temp::<bool>(opened)).unwrap_or(false) {
            run.scroll_to_me(Some(egui::Align::Max));
            ui.data_mut(|d| d.insert_temp(opened, true));
        }
        let cancel = ui.button(words::CANCEL).accessible_name(words::close_form(&action.title));
        if action.is_typed() {
            ui.weak(words::ENTER_SUBMITS);
        }
        (run.clicked(), cancel.clicked())
    })
    .inner
}

//! An action's form: one field per argument of its input schema, each
//! argument's error beside it, and the buttons that run or close it.

use egui::{Response, RichText, Ui};

use crate::{
    calls::Core,
    held::Confirming,
    outcomes::{Scope, field_error, form_problems},
    schema::{ActionDef, Param, ParamKind},
};

/// The form of an action with arguments: one field per argument, its error
/// beside it.
pub(crate) fn form(
    ui: &mut Ui,
    core: &mut Core,
    ctx: &egui::Context,
    scope: &Scope,
    salt: &str,
    action: &ActionDef,
    confirm_destructive: bool,
) {
    let key = (scope.clone(), action.info.name.clone());
    let failure = core.failure(scope).filter(|f| f.action.as_deref() == Some(&action.info.name));
    let error = failure.as_ref().map(|f| &f.error);
    let (mut submit, mut close) = (false, false);
    let Some(values) = core.forms.get_mut(&key) else { return };
    egui::Frame::group(ui.style()).show(ui, |ui| {
        // The run button carries the title; the form says what it does.
        if !action.info.description.is_empty() {
            ui.weak(&action.info.description);
        }
        let grid =
            egui::Grid::new(("purview-form", salt, action.info.name.as_str())).num_columns(2);
        grid.show(ui, |ui| {
            for param in &action.params {
                let label = param_label(ui, param);
                let id = egui::IdSalt::new((
                    "purview-arg",
                    salt,
                    action.info.name.as_str(),
                    param.name.as_str(),
                ));
                let text = values.texts.entry(param.name.clone()).or_default();
                let (field, entered) = param_field(ui, id, param, text);
                submit |= entered;
                field.labelled_by(label.id);
                ui.end_row();
                if let Some(source) = action.info.sources.iter().find(|s| s.argument == param.name)
                {
                    // Where the value comes from: picked, not typed.
                    ui.label("");
                    let table = purview::naming::humanize(&source.table);
                    let hint =
                        format!("Choose a row of the table \u{201c}{table}\u{201d} to fill it.");
                    ui.label(RichText::new(hint).small());
                    ui.end_row();
                }
                let picked = action.info.sources.iter().find(|s| s.argument == param.name);
                // The sentence telling agents where to look is the hint above.
                let help = param.description.as_deref().map(|d| match picked {
                    Some(source) => source.persons_help(d),
                    None => d,
                });
                if let Some(help) = help.filter(|h| !h.is_empty()) {
                    // The argument's own words, under its field.
                    ui.label("");
                    ui.add(egui::Label::new(RichText::new(help).small().weak()).wrap());
                    ui.end_row();
                }
                if let Some(problem) = field_error(error, &param.name) {
                    ui.label("");
                    let said = format!("{}: {problem}", param.label);
                    ui.colored_label(ui.visuals().error_fg_color, said);
                    ui.end_row();
                }
            }
        });
        let typed = action.params.iter().any(|p| p.kind.is_typed());
        let (run, cancel) = buttons(ui, action, typed, !values.shown);
        values.shown = true;
        (submit, close) = (submit || run, cancel);
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
            core.fail(scope.clone(), Some(action.info.name.clone()), form_problems(problems))
        }
        Ok(arguments) if action.info.destructive && confirm_destructive => {
            core.confirming = Some(Confirming::new(scope, action, arguments));
        }
        Ok(arguments) => core.perform(ctx, action, arguments),
    }
}

/// The argument's name in words, starred when required, its description on
/// hover.
fn param_label(ui: &mut Ui, param: &Param) -> Response {
    let mut name = param.label.clone();
    if param.required {
        name.push_str(" *");
    }
    let label = ui.label(name);
    match &param.description {
        Some(d) => label.on_hover_text(d),
        None => label,
    }
}

/// The input for one argument; whether Enter was pressed in it.
fn param_field(
    ui: &mut Ui,
    id: egui::IdSalt,
    param: &Param,
    text: &mut String,
) -> (Response, bool) {
    match &param.kind {
        ParamKind::Bool => {
            let mut on = text == "true";
            let response = ui.checkbox(&mut on, "");
            *text = on.to_string();
            (response, false)
        }
        ParamKind::Choice(choices) => {
            let shown = if text.is_empty() { "Choose…".to_owned() } else { text.clone() };
            let combo = egui::ComboBox::from_id_salt(id).selected_text(shown).show_ui(ui, |ui| {
                for choice in choices {
                    ui.selectable_value(text, choice.clone(), choice);
                }
            });
            (combo.response, false)
        }
        kind => {
            let mut edit =
                egui::TextEdit::singleline(text).id_salt(id).password(*kind == ParamKind::Secret);
            if let Some(example) = &param.example {
                edit = edit.hint_text(example.as_str());
            }
            let response = ui.add(edit);
            let entered = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            (response, entered)
        }
    }
}

/// The run and cancel buttons: whether each was clicked. `typed`: the
/// form has a text field, where Enter runs it too (said beside the
/// buttons). `opened`: the form's first frame, when the window scrolls to
/// its buttons so a form opened low in a small window is not cut off.
fn buttons(ui: &mut Ui, action: &ActionDef, typed: bool, opened: bool) -> (bool, bool) {
    ui.horizontal_wrapped(|ui| {
        let mut run = RichText::new(&action.info.title);
        if action.info.destructive {
            run = run.color(ui.visuals().error_fg_color);
        }
        let run = ui.button(run);
        if opened {
            run.scroll_to_me(Some(egui::Align::Max));
        }
        let cancel = ui
            .button("Cancel")
            .on_hover_text("Close this form without running it")
            .accessible_name(format!("Close the {} form", action.info.title));
        if typed {
            ui.weak("Enter submits");
        }
        (run.clicked(), cancel.clicked())
    })
    .inner
}

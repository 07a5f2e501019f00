//! The question a destructive action asks the person before it runs:
//! "yes" runs it with the arguments the person gave, "no" forgets it.
//! A modal dialog is itself that question, so its actions never ask it.

use crate::{calls::Core, outcomes::Scope, schema::ActionDef};
use egui::{RichText, Ui};

/// "Yes" or "no" to the destructive action waiting in `scope`.
pub(crate) fn confirmation(
    ui: &mut Ui,
    core: &mut Core,
    ctx: &egui::Context,
    scope: &Scope,
    actions: &[&ActionDef],
) {
    let Some(asked) = &core.confirming else { return };
    if &asked.scope != scope {
        return;
    }
    let Some(action) = actions.iter().find(|a| a.info.name == asked.action) else {
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
            if let Some(asked) = core.confirming.take() {
                core.perform(ctx, action, asked.arguments);
            }
        }
        Some(false) => core.confirming = None,
        None => {}
    }
}

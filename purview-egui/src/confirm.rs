//! The question a destructive action asks the person before it runs, as
//! the model words it: "yes" runs it with the arguments the person gave,
//! "no" forgets it.

use egui::{RichText, Ui};
use purview_person::{Intent, Scope};

use crate::{calls::Core, lock::lock};

/// "Yes" or "no" to the destructive action waiting in `scope`.
pub(crate) fn confirmation(ui: &mut Ui, core: &mut Core, ctx: &egui::Context, scope: &Scope) {
    let Some(asked) = lock(&core.person).confirmation(scope) else { return };
    let warn = ui.visuals().error_fg_color;
    let mut answer = None;
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, warn)).show(ui, |ui| {
        ui.label(RichText::new(&asked.question).color(warn));
        if !asked.description.is_empty() {
            ui.weak(&asked.description);
        }
        ui.horizontal(|ui| {
            if ui.button(RichText::new(&asked.yes).color(warn)).clicked() {
                answer = Some(Intent::Confirm);
            }
            if ui.button(&asked.no).clicked() {
                answer = Some(Intent::Refuse);
            }
        });
    });
    if let Some(intent) = answer {
        core.intend(ctx, intent);
    }
}

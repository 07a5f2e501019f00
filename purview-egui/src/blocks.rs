//! The default drawing of a window's blocks (§4.4), in the person's words
//! as the model gives them (`purview_person::Shown`): so a window without
//! GUI code of its own is readable, and a masked field shows only its
//! mask, because the plain value never reaches this crate.

use egui::{Color32, RichText, Ui};
use purview::model::{Block, Severity};
use purview_person::{Shown, words};

use crate::WindowUi;

impl WindowUi<'_> {
    /// Draws every block of the window, as agents read them, in order.
    pub fn blocks(&mut self, ui: &mut Ui) {
        let view = self.view.view.clone();
        for (index, shown) in view.blocks.iter().enumerate() {
            self.shown(ui, index, shown);
        }
    }

    /// Draws one block the default way; `index` keeps the ids of blocks
    /// without an id of their own apart.
    pub fn block(&mut self, ui: &mut Ui, index: usize, block: &Block) {
        // The window's own block, as the model has it (with its pager);
        // any other, as it reads alone.
        let view = self.view.view.clone();
        match view.blocks.get(index).filter(|_| self.view.state.blocks.get(index) == Some(block)) {
            Some(shown) => self.shown(ui, index, shown),
            None => self.shown(ui, index, &Shown::of(block, index)),
        }
    }

    fn shown(&mut self, ui: &mut Ui, index: usize, shown: &Shown) {
        let salt = ("purview-block", self.view.state.id.clone(), index);
        match shown {
            Shown::Text { text } => {
                ui.label(text);
            }
            Shown::Fields { title, items } => {
                if let Some(title) = title {
                    ui.label(RichText::new(title).strong());
                }
                egui::Grid::new(salt).num_columns(2).show(ui, |ui| {
                    for (label, value) in items {
                        let label = ui.label(label);
                        ui.label(value).labelled_by(label.id);
                        ui.end_row();
                    }
                });
            }
            Shown::Table(table) => self.table(ui, table),
            Shown::List { items, more } => {
                for (mark, text) in items {
                    ui.label(format!("{mark} {text}"));
                }
                if let Some(more) = more {
                    ui.weak(more);
                }
            }
            Shown::Notice { severity, word, text } => notice(ui, *severity, word, text),
            Shown::Media { mime_type, url, caption, described } => {
                media(ui, mime_type, url, caption, *described);
            }
            Shown::Details { json } => {
                egui::CollapsingHeader::new(words::DETAILS).id_salt(salt).show(ui, |ui| {
                    ui.monospace(json);
                });
            }
        }
    }
}

/// The colour of a severity; its word says it to those who do not see it.
pub(crate) fn severity_colour(ui: &Ui, severity: Severity) -> Color32 {
    let visuals = ui.visuals();
    match severity {
        Severity::Warn => visuals.warn_fg_color,
        Severity::Error => visuals.error_fg_color,
        Severity::Success if visuals.dark_mode => Color32::LIGHT_GREEN,
        Severity::Success => Color32::DARK_GREEN,
        _ => visuals.text_color(),
    }
}

fn notice(ui: &mut Ui, severity: Severity, word: &str, text: &str) {
    let colour = severity_colour(ui, severity);
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.0, colour)).show(ui, |ui| {
        ui.label(RichText::new(format!("{word}: {text}")).color(colour));
    });
}

fn media(ui: &mut Ui, mime_type: &str, url: &str, caption: &str, described: bool) {
    // An image egui can load (the host installed image loaders, as
    // egui_extras::install_image_loaders does); otherwise its description.
    let can_load = mime_type.starts_with("image/") && !ui.ctx().loaders().image.lock().is_empty();
    if can_load {
        let image = egui::Image::from_uri(url.to_owned()).max_width(ui.available_width());
        let response = ui.add(image);
        if described {
            response.on_hover_text(caption).accessible_name(caption);
        }
    }
    ui.label(RichText::new(caption).italics());
}

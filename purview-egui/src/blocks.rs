//! The default drawing of a window's blocks (§4.4), from what agents read:
//! so a window without GUI code of its own is readable, and a masked field
//! shows only its mask, because the plain value never reaches this crate.

use egui::{Color32, RichText, Ui};
use purview::{
    model::MASK,
    model::{Block, BlockKind, FieldItem, Severity},
    naming::humanize,
    serde_json::{self, Value},
};

use crate::{WindowUi, pages::cell};

impl WindowUi<'_> {
    /// Draws every block of the window, as agents read them, in order.
    pub fn blocks(&mut self, ui: &mut Ui) {
        let view = self.view;
        for (index, block) in view.state.blocks.iter().enumerate() {
            self.block(ui, index, block);
        }
    }

    /// Draws one block the default way; `index` keeps the ids of blocks
    /// without an id of their own apart.
    pub fn block(&mut self, ui: &mut Ui, index: usize, block: &Block) {
        let key = block.id.clone().unwrap_or_else(|| format!("#{index}"));
        let salt = ("purview-block", self.view.state.id.as_str(), key.as_str());
        match &block.kind {
            BlockKind::Text { text } => {
                ui.label(text);
            }
            BlockKind::Fields { items } => {
                // A group of fields is named by its block id (the group's
                // name): the projection carries no other title for it.
                // Fields in no group share the id `fields`: no name.
                let named = block.id.as_deref().filter(|id| *id != "fields");
                if let (Some(id), true) = (named, items.len() > 1) {
                    ui.label(RichText::new(humanize(id)).strong());
                }
                fields(ui, salt, items);
            }
            BlockKind::Table { columns, rows, offset, total } => {
                self.table(ui, &key, columns, rows, offset.unwrap_or(0), *total);
            }
            BlockKind::List { items, ordered, offset, total } => {
                let first = offset.unwrap_or(0);
                for (i, item) in items.iter().enumerate() {
                    let mark = if *ordered == Some(true) {
                        format!("{}.", first + i as u64 + 1)
                    } else {
                        "•".to_owned()
                    };
                    ui.label(format!("{mark} {}", cell(item)));
                }
                if let Some(total) = total
                    && *total > items.len() as u64
                {
                    ui.weak(format!("{} of {total} items shown", items.len()));
                }
            }
            BlockKind::Notice { severity, text } => notice(ui, *severity, text),
            BlockKind::Media { mime_type, url, alt } => media(ui, mime_type, url, alt.as_deref()),
            BlockKind::Custom { payload } => {
                egui::CollapsingHeader::new("Details").id_salt(salt).show(ui, |ui| {
                    let text = serde_json::to_string_pretty(payload).unwrap_or_default();
                    ui.monospace(text);
                });
            }
            // A block kind newer than this crate: at least say what it holds.
            _ => {
                let text = serde_json::to_string(block).unwrap_or_default();
                ui.monospace(text);
            }
        }
    }
}

fn fields(ui: &mut Ui, salt: (&str, &str, &str), items: &[FieldItem]) {
    egui::Grid::new(salt).num_columns(2).show(ui, |ui| {
        for item in items {
            let label = ui.label(item.label());
            let value = if item.is_sensitive() {
                // Only whether it is filled in, whatever the item holds.
                let filled = !matches!(item.value(), Value::Null)
                    && item.value().as_str().is_none_or(|v| !v.is_empty());
                if filled { MASK.to_owned() } else { String::new() }
            } else {
                cell(item.value())
            };
            ui.label(value).labelled_by(label.id);
            ui.end_row();
        }
    });
}

/// The colour and word of a severity; the word says it to those who do not
/// see the colour.
pub(crate) fn severity_look(ui: &Ui, severity: Severity) -> (Color32, &'static str) {
    let visuals = ui.visuals();
    match severity {
        Severity::Info => (visuals.text_color(), "Info"),
        Severity::Warn => (visuals.warn_fg_color, "Warning"),
        Severity::Error => (visuals.error_fg_color, "Error"),
        Severity::Success => {
            (if visuals.dark_mode { Color32::LIGHT_GREEN } else { Color32::DARK_GREEN }, "Done")
        }
    }
}

fn notice(ui: &mut Ui, severity: Severity, text: &str) {
    let (colour, word) = severity_look(ui, severity);
    egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.0, colour)).show(ui, |ui| {
        ui.label(RichText::new(format!("{word}: {text}")).color(colour));
    });
}

fn media(ui: &mut Ui, mime_type: &str, url: &str, alt: Option<&str>) {
    let alt = alt.filter(|a| !a.is_empty());
    // An image egui can load (the host installed image loaders, as
    // egui_extras::install_image_loaders does); otherwise its description.
    let can_load = mime_type.starts_with("image/") && !ui.ctx().loaders().image.lock().is_empty();
    if can_load {
        let image = egui::Image::from_uri(url.to_owned()).max_width(ui.available_width());
        let response = ui.add(image);
        if let Some(alt) = alt {
            response.on_hover_text(alt).accessible_name(alt);
        }
    }
    match alt {
        Some(alt) => ui.label(RichText::new(alt).italics()),
        None => ui.label(RichText::new(format!("({mime_type} without a description)")).italics()),
    };
}

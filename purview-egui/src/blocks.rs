//! The default drawing of a window's blocks (§4.4), from what agents read:
//! so a window without GUI code of its own is readable, and a masked field
//! shows only its mask, because the plain value never reaches this crate.

use egui::{Color32, RichText, Ui};
use purview::{
    model::MASK,
    model::{Block, BlockKind, FieldItem, Severity},
    serde_json::{self, Value},
};

use crate::calls::{Page, WindowUi, lock};

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
            BlockKind::Fields { items } => fields(ui, salt, items),
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

    /// A table, and when it is a truncated view onto more rows and declares
    /// its load action (`#[block(table, load = ..)]`), the person pages
    /// through it with that action.
    fn table(
        &mut self,
        ui: &mut Ui,
        key: &str,
        columns: &[String],
        rows: &[Vec<Value>],
        offset: u64,
        total: Option<u64>,
    ) {
        let id = self.view.state.id.clone();
        let page_key = (id.clone(), key.to_owned());
        let page = lock(&self.core.pages).get(&page_key).cloned();
        let (shown_offset, shown) = match &page {
            Some(page) => (page.offset, page.rows.as_slice()),
            None => (offset, rows),
        };
        egui::Grid::new(("purview-table", id.as_str(), key)).striped(true).show(ui, |ui| {
            for column in columns {
                ui.strong(column);
            }
            ui.end_row();
            for row in shown {
                for value in row {
                    ui.label(cell(value));
                }
                ui.end_row();
            }
        });
        let Some(total) = total else { return };
        let shown_to = shown_offset + shown.len() as u64;
        ui.weak(format!(
            "Rows {}–{shown_to} of {total}",
            if shown.is_empty() { shown_offset } else { shown_offset + 1 }
        ));
        // The action the table declares it pages through, while available.
        let declared = self.view.paged_by.iter().find(|(block, _)| block == key);
        let Some(loader) =
            declared.and_then(|(_, name)| self.view.actions.iter().find(|a| &a.info.name == name))
        else {
            return;
        };
        let limit = rows.len().max(1) as u64;
        let mut wanted = None;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(shown_offset > 0, egui::Button::new("Previous rows"))
                .on_hover_text(format!("Show the {limit} rows before these"))
                .clicked()
            {
                wanted = Some(shown_offset.saturating_sub(limit));
            }
            if ui
                .add_enabled(shown_to < total, egui::Button::new("Next rows"))
                .on_hover_text(format!("Show the next {limit} rows"))
                .clicked()
            {
                wanted = Some(shown_to);
            }
        });
        let Some(at) = wanted else { return };
        if at == offset && page.is_some() {
            // Back at the rows the window shows anyway.
            lock(&self.core.pages).remove(&page_key);
            return;
        }
        let mut arguments = purview::model::JsonObject::new();
        arguments.insert("offset".into(), at.into());
        arguments.insert("limit".into(), limit.into());
        let (pages, columns) = (self.core.pages.clone(), columns.to_vec());
        let call = self.core.person_call(loader, arguments);
        self.core.run(&self.ctx, call, move |performed| {
            let rows =
                performed.value.as_ref().and_then(|r| r.get("rows")).and_then(Value::as_array);
            let rows = rows.map(|rows| rows.iter().map(|row| row_cells(row, &columns)).collect());
            if let Some(rows) = rows {
                lock(&pages).insert(page_key, Page { offset: at, rows });
            }
        });
    }
}

/// A row of a loader's result: an array in column order, or an object
/// keyed by column title.
fn row_cells(row: &Value, columns: &[String]) -> Vec<Value> {
    match row {
        Value::Array(cells) => cells.clone(),
        Value::Object(map) => {
            columns.iter().map(|c| map.get(c).cloned().unwrap_or(Value::Null)).collect()
        }
        other => vec![other.clone()],
    }
}

/// A value as a person reads it: strings without quotes, nothing for null.
fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
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

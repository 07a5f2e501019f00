//! Paging through a table too large to show whole (§9): the table shows
//! the rows the window projects; the person asks for other rows, which the
//! window's own load action (`#[block(table, load = ..)]`) fetches, and the
//! page loaded is kept per window and table until the window closes.

use std::collections::HashMap;

use egui::Ui;
use purview::serde_json::Value;

use crate::{WindowUi, blocks::cell, lock::lock};

/// A page of a truncated table, loaded through the window's own loader.
#[derive(Debug, Clone)]
pub(crate) struct Page {
    pub offset: u64,
    pub rows: Vec<Vec<Value>>,
}

/// Pages by window id and block id.
pub(crate) type Pages = HashMap<(String, String), Page>;

impl WindowUi<'_> {
    /// A table, and when it is a truncated view onto more rows and declares
    /// its load action (`#[block(table, load = ..)]`), the person pages
    /// through it with that action.
    pub(crate) fn table(
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

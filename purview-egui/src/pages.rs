//! Paging through a table too large to show whole (§9): the table shows
//! the rows the window projects; the person asks for other rows, which the
//! window's own load action (`#[block(table, load = ..)]`) fetches, and the
//! page loaded is kept per window and table until the window closes.

use egui::Ui;
use purview::{
    ToolError,
    model::ErrorCode,
    projection::{Page, PageRequest},
    serde_json::Value,
};

use crate::{WindowUi, lock::lock, schema::ActionDef};

impl WindowUi<'_> {
    /// A table, its row count, and when it is a truncated view onto more
    /// rows and declares its load action (`#[block(table, load = ..)]`),
    /// the controls to page through it with that action.
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
            None => (usize::try_from(offset).unwrap_or(usize::MAX), rows),
        };
        let pickers = self.pickers(key);
        for picker in &pickers {
            ui.weak(format!(
                "Choose a row to fill \"{}\" of \"{}\".",
                picker.label, picker.action_title
            ));
        }
        let mut picked = None;
        egui::Grid::new(("purview-table", id.as_str(), key)).striped(true).show(ui, |ui| {
            if !pickers.is_empty() {
                ui.label("");
            }
            for column in columns {
                ui.strong(column);
            }
            ui.end_row();
            for row in shown {
                if !pickers.is_empty() {
                    ui.horizontal(|ui| {
                        for (which, picker) in pickers.iter().enumerate() {
                            let value = row.get(picker.column).map(cell).unwrap_or_default();
                            let chosen = picker.current == value && !value.is_empty();
                            let text = if chosen { "Chosen" } else { "Choose" };
                            let button = ui
                                .selectable_label(chosen, text)
                                .on_hover_text(format!("{}: {value}", picker.label));
                            if button.clicked() {
                                picked = Some((which, value));
                            }
                        }
                    });
                }
                for value in row {
                    ui.label(cell(value));
                }
                ui.end_row();
            }
        });
        if let Some((which, value)) = picked
            && let Some(picker) = pickers.get(which)
        {
            let form = (Some(id.clone()), picker.action.clone());
            if let Some(values) = self.core.forms.get_mut(&form) {
                values.texts.insert(picker.argument.clone(), value);
            }
        }
        let Some(total) = total.map(|t| usize::try_from(t).unwrap_or(usize::MAX)) else {
            ui.weak(rows_count(shown.len()));
            return;
        };
        let shown_to = shown_offset.saturating_add(shown.len());
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
        let at = Shown { offset: shown_offset, len: shown.len(), total, limit: rows.len().max(1) };
        let salt = ("purview-pager", id.as_str(), key);
        let Some(wanted) = pager(ui, salt, at) else { return };
        if Some(wanted) == usize::try_from(offset).ok() && page.is_some() {
            // Back at the rows the window shows anyway.
            lock(&self.core.pages).remove(&page_key);
            return;
        }
        self.load(loader, page_key, PageRequest::new(wanted, at.limit));
    }

    /// The open forms of this window with an argument taken from table
    /// `key` (`#[arg(from = table.column)]`): each makes the table's rows
    /// choosable.
    fn pickers(&self, key: &str) -> Vec<Picker> {
        let scope = Some(self.view.state.id.clone());
        let mut pickers = Vec::new();
        for action in self.view.actions.iter() {
            let Some(values) = self.core.forms.get(&(scope.clone(), action.info.name.clone()))
            else {
                continue;
            };
            for source in action.info.sources.iter().filter(|s| s.table == key) {
                let param = action.params.iter().find(|p| p.name == source.argument);
                pickers.push(Picker {
                    action: action.info.name.clone(),
                    action_title: action.info.title.clone(),
                    argument: source.argument.to_string(),
                    label: param.map_or_else(|| source.argument.to_string(), |p| p.label.clone()),
                    column: source.column,
                    current: values
                        .texts
                        .get(source.argument.as_ref())
                        .cloned()
                        .unwrap_or_default(),
                });
            }
        }
        pickers
    }

    /// Asks the table's load action for `request`'s rows; the page it
    /// returns is kept and drawn from the next frame on, a failure shown
    /// as any call's.
    fn load(&mut self, loader: &ActionDef, page_key: (String, String), request: PageRequest) {
        let call = self.core.person_call(loader, request.arguments());
        let name = loader.info.name.clone();
        let scope = Some(page_key.0.clone());
        let pages = self.core.pages.clone();
        let loaded = async move {
            let performed = call.await?;
            let result = performed.value.unwrap_or_default();
            purview::serde_json::from_value::<Page<Vec<Value>>>(result).map_err(|e| {
                let why = format!("the table's load action `{name}` returned no page of rows: {e}");
                ToolError::new(ErrorCode::ActionFailed, why)
            })
        };
        let action = Some(loader.info.name.clone());
        self.core.start(&self.ctx, scope, action, loaded, move |page| {
            lock(&pages).insert(page_key, page);
        });
    }
}

/// Where a paged table stands: the rows shown, out of how many, and how
/// many a page holds.
#[derive(Debug, Clone, Copy)]
struct Shown {
    offset: usize,
    len: usize,
    total: usize,
    limit: usize,
}

/// First, previous, next, last and "go to row": the offset the person
/// asked for, if any.
fn pager(ui: &mut Ui, salt: (&str, &str, &str), at: Shown) -> Option<usize> {
    let Shown { offset, len, total, limit } = at;
    let last = total.saturating_sub(1) / limit * limit;
    let mut wanted = None;
    ui.horizontal_wrapped(|ui| {
        let before = offset > 0;
        let after = offset.saturating_add(len) < total;
        let mut button = |ui: &mut Ui, enabled: bool, text: &str, hover: String, to: usize| {
            if ui.add_enabled(enabled, egui::Button::new(text)).on_hover_text(hover).clicked() {
                wanted = Some(to);
            }
        };
        button(ui, before, "First rows", format!("Show rows 1–{}", limit.min(total)), 0);
        let previous = offset.saturating_sub(limit);
        button(
            ui,
            before,
            "Previous rows",
            format!("Show the {limit} rows before these"),
            previous,
        );
        button(ui, after, "Next rows", format!("Show the next {limit} rows"), offset + len);
        button(ui, after, "Last rows", format!("Show rows {}–{total}", last + 1), last);
        if let Some(row) = go_to_row(ui, egui::Id::unique(salt), total) {
            wanted = Some((row - 1) / limit * limit);
        }
    });
    wanted
}

/// A row number to jump to (from 1), once the person typed one and pressed
/// Enter or "Go".
fn go_to_row(ui: &mut Ui, id: egui::Id, total: usize) -> Option<usize> {
    // What is typed, and whether it was tried and is no row of the table
    // (said until the person changes it).
    let (mut text, mut refused) =
        ui.data_mut(|d| d.get_temp::<(String, bool)>(id)).unwrap_or_default();
    let label = ui.label("Go to row");
    let edit = egui::TextEdit::singleline(&mut text)
        .id(id.with("text"))
        .desired_width(60.0)
        .hint_text(format!("1–{total}"));
    let field = ui.add(edit).labelled_by(label.id);
    let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
    let go = ui.button("Go").on_hover_text("Show the page holding that row").clicked();
    let row = text.trim().parse::<usize>().ok().filter(|r| (1..=total).contains(r));
    if field.changed() {
        refused = false;
    }
    if entered || go {
        refused = row.is_none();
    }
    if refused {
        ui.colored_label(ui.visuals().error_fg_color, format!("A row from 1 to {total}"));
    }
    ui.data_mut(|d| d.insert_temp(id, (text, refused)));
    row.filter(|_| entered || go)
}

/// "1 row", "12 rows".
fn rows_count(n: usize) -> String {
    if n == 1 { "1 row".to_owned() } else { format!("{n} rows") }
}

/// A value as a person reads it: strings without quotes, nothing for null.
/// An open form's argument that a row of this table fills.
struct Picker {
    action: String,
    action_title: String,
    argument: String,
    label: String,
    column: usize,
    /// What the form holds now: the row holding it shows as chosen.
    current: String,
}

pub(crate) fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

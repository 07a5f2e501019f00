//! A table (§9) as the model shows it: the rows the window projects or
//! the page the person chose, its row count, a Choose button per row for
//! each open form that takes a value from it, and First, Previous, Next,
//! Last and "Go to row", whose targets the model computes. Every click is
//! an intent; nothing here decides where a page starts.

use egui::Ui;
use purview_person::{Intent, Paging, Table, words};

use crate::{WindowUi, lock::lock};

impl WindowUi<'_> {
    /// A table, its row count, and its pager where it has one.
    pub(crate) fn table(&mut self, ui: &mut Ui, table: &Table) {
        let id = self.view.state.id.clone();
        let view = self.view.view.clone();
        let (rows, paging, count, pickers, refused) = {
            let person = lock(&self.core.person);
            let shown = person.rows(&view, table);
            (shown.rows.to_vec(), shown.paging, shown.count, shown.pickers, shown.refused)
        };
        for picker in &pickers {
            ui.weak(&picker.note);
        }
        let mut intent = None;
        let grid = egui::Grid::new(("purview-table", id.as_str(), table.key.as_str()));
        grid.striped(true).show(ui, |ui| {
            if !pickers.is_empty() {
                ui.label("");
            }
            for column in &table.columns {
                ui.strong(column);
            }
            ui.end_row();
            for (at, row) in rows.iter().enumerate() {
                if !pickers.is_empty() {
                    ui.horizontal(|ui| {
                        for (which, picker) in pickers.iter().enumerate() {
                            let value = row.get(picker.column).cloned().unwrap_or_default();
                            let (text, chosen, named) = picker.button(&value);
                            let button = ui.selectable_label(chosen, text).on_hover_text(&named);
                            if button.clicked() {
                                intent = Some(Intent::ChooseRow {
                                    window: id.clone(),
                                    table: table.key.clone(),
                                    row: at,
                                    picker: which,
                                });
                            }
                        }
                    });
                }
                for value in row {
                    ui.label(value);
                }
                ui.end_row();
            }
        });
        ui.weak(count);
        if let Some(paging) = paging {
            intent = intent.or_else(|| self.pager(ui, table, &paging, refused.as_deref()));
        }
        if let Some(intent) = intent {
            self.core.intend(&self.ctx, intent);
        }
    }

    /// First, previous, next, last and "go to row": the intent asked for.
    fn pager(
        &mut self,
        ui: &mut Ui,
        table: &Table,
        paging: &Paging,
        refused: Option<&str>,
    ) -> Option<Intent> {
        let window = self.view.state.id.clone();
        let key = (window.clone(), table.key.clone());
        let mut wanted = None;
        let text = self.core.go_to.entry(key.clone()).or_default();
        ui.horizontal_wrapped(|ui| {
            let targets = [
                (words::FIRST_ROWS, paging.first),
                (words::PREVIOUS_ROWS, paging.previous),
                (words::NEXT_ROWS, paging.next),
                (words::LAST_ROWS, paging.last),
            ];
            for (label, to) in targets {
                if ui.add_enabled(to.is_some(), egui::Button::new(label)).clicked() {
                    wanted = to;
                }
            }
            let label = ui.label(words::GO_TO_ROW);
            let edit = egui::TextEdit::singleline(text)
                .id(egui::Id::unique(("purview-go-to", window.as_str(), table.key.as_str())))
                .desired_width(60.0)
                .hint_text(paging.row_hint.as_str());
            let field = ui.add(edit).labelled_by(label.id);
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.button(words::GO).clicked() || entered {
                wanted = None;
                let typed = text.clone();
                return Some(Intent::GoToRow {
                    window: window.clone(),
                    table: table.key.clone(),
                    typed,
                });
            }
            if let Some(refused) = refused.filter(|_| !field.changed()) {
                ui.colored_label(ui.visuals().error_fg_color, refused);
            }
            None
        })
        .inner
        .or_else(|| wanted.map(|offset| Intent::Page { window, table: table.key.clone(), offset }))
    }
}

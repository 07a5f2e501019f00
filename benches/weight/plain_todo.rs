//! The baseline of `scripts/weight`: hello_egui's to-do list written as a
//! plain eframe app, drawn by hand, with no Purview. Built as it is, and with
//! eframe's `inspection` feature (the route egui_mcp drives).

use eframe::egui;

#[derive(Default)]
struct Todo {
    tasks: Vec<(String, bool)>,
    new_task: String,
    confirm_clear: bool,
}

impl eframe::App for Todo {
    fn ui(&mut self, ui: &mut egui::Ui, _: &mut eframe::Frame) {
        ui.heading("Hello, egui");
        let open = self.tasks.iter().filter(|t| !t.1).count();
        ui.label(format!("Still to do: {open}"));
        ui.add_enabled_ui(!self.confirm_clear, |ui| {
            egui::Grid::new("tasks").striped(true).show(ui, |ui| {
                for (task, done) in &mut self.tasks {
                    ui.label(task.as_str());
                    ui.checkbox(done, "done");
                    ui.end_row();
                }
            });
            ui.horizontal(|ui| {
                let label = ui.label("Task");
                ui.text_edit_singleline(&mut self.new_task).labelled_by(label.id);
                if ui.button("Add").clicked() && !self.new_task.trim().is_empty() {
                    self.tasks.push((std::mem::take(&mut self.new_task), false));
                }
                if ui.button("Clear").clicked() {
                    self.confirm_clear = true;
                }
            });
        });
        if self.confirm_clear {
            egui::Window::new("Clear the list?").show(ui.ctx(), |ui| {
                ui.label(format!("Remove all {} tasks?", self.tasks.len()));
                ui.horizontal(|ui| {
                    if ui.button("Confirm").clicked() {
                        self.tasks.clear();
                        self.confirm_clear = false;
                    }
                    if ui.button("Cancel").clicked() {
                        self.confirm_clear = false;
                    }
                });
            });
        }
    }
}

fn main() -> eframe::Result {
    let tasks = ["Water the plants", "Write the report"].map(|t| (t.to_owned(), false));
    let todo = Todo { tasks: tasks.into(), ..Todo::default() };
    eframe::run_native("plain_todo", Default::default(), Box::new(|_| Ok(Box::new(todo))))
}

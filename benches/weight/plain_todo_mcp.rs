//! The floor of `scripts/weight`: hello_egui's to-do list drawn by hand with
//! plain eframe, as in `plain_todo.rs`, plus an MCP server written by hand
//! with rmcp's own `#[tool_router]` macros and served over streamable HTTP
//! (axum with only HTTP/1) in the same binary: four tools, no windows, no
//! argument validation beyond serde, no approvals. What any egui app
//! served over MCP this way pays before it pays for Purview.

use std::sync::{Arc, Mutex};

use eframe::egui;
use rmcp::{
    ErrorData,
    handler::server::wrapper::{Json, Parameters},
    schemars, tool, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use serde::{Deserialize, Serialize};

#[derive(Default, Serialize, schemars::JsonSchema)]
struct List {
    tasks: Vec<(String, bool)>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Add {
    /// What there is to do.
    task: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Finish {
    /// The task's number, from 1.
    number: usize,
}

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<List>>);

impl Shared {
    fn with<T>(&self, f: impl FnOnce(&mut List) -> T) -> T {
        f(&mut self.0.lock().expect("not poisoned"))
    }

    fn snapshot(&self) -> Json<List> {
        Json(self.with(|l| List { tasks: l.tasks.clone() }))
    }
}

#[tool_router(server_handler)]
impl Shared {
    /// The tasks, each with whether it is done.
    #[tool]
    fn read_list(&self) -> Json<List> {
        self.snapshot()
    }

    /// Add a task to the list.
    #[tool]
    fn add(&self, Parameters(add): Parameters<Add>) -> Result<Json<List>, ErrorData> {
        if add.task.trim().is_empty() {
            return Err(ErrorData::invalid_params("task: cannot be empty", None));
        }
        self.with(|l| l.tasks.push((add.task.trim().to_owned(), false)));
        Ok(self.snapshot())
    }

    /// Mark a task done, by its number in the list (from 1).
    #[tool]
    fn finish(&self, Parameters(finish): Parameters<Finish>) -> Result<Json<List>, ErrorData> {
        let index = finish.number.checked_sub(1);
        let found = self.with(|l| index.and_then(|i| l.tasks.get_mut(i)).map(|t| t.1 = true));
        if found.is_none() {
            return Err(ErrorData::invalid_params("number: no such task", None));
        }
        Ok(self.snapshot())
    }

    /// Remove every task.
    #[tool(annotations(destructive_hint = true))]
    fn clear(&self) -> Json<List> {
        self.with(|l| l.tasks.clear());
        self.snapshot()
    }
}

struct Todo {
    shared: Shared,
    new_task: String,
    confirm_clear: bool,
}

impl eframe::App for Todo {
    fn ui(&mut self, ui: &mut egui::Ui, _: &mut eframe::Frame) {
        // An agent's change shows at the next repaint.
        ui.ctx().request_repaint_after(std::time::Duration::from_millis(250));
        ui.heading("Hello, egui");
        let mut list = self.shared.0.lock().expect("not poisoned");
        let open = list.tasks.iter().filter(|t| !t.1).count();
        ui.label(format!("Still to do: {open}"));
        ui.add_enabled_ui(!self.confirm_clear, |ui| {
            egui::Grid::new("tasks").striped(true).show(ui, |ui| {
                for (task, done) in &mut list.tasks {
                    ui.label(task.as_str());
                    ui.checkbox(done, "done");
                    ui.end_row();
                }
            });
            ui.horizontal(|ui| {
                let label = ui.label("Task");
                ui.text_edit_singleline(&mut self.new_task).labelled_by(label.id);
                if ui.button("Add").clicked() && !self.new_task.trim().is_empty() {
                    list.tasks.push((std::mem::take(&mut self.new_task), false));
                }
                if ui.button("Clear").clicked() {
                    self.confirm_clear = true;
                }
            });
        });
        if self.confirm_clear {
            egui::Window::new("Clear the list?").show(ui.ctx(), |ui| {
                ui.label(format!("Remove all {} tasks?", list.tasks.len()));
                ui.horizontal(|ui| {
                    if ui.button("Confirm").clicked() {
                        list.tasks.clear();
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
    let shared = Shared::default();
    shared.with(|l| {
        l.tasks = ["Water the plants", "Write the report"].map(|t| (t.to_owned(), false)).into()
    });
    let runtime = tokio::runtime::Runtime::new().expect("an async runtime");
    let served = shared.clone();
    let service = StreamableHttpService::new(
        move || Ok(served.clone()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("a port");
    eprintln!("plain_todo_mcp: MCP endpoint http://{}/mcp", listener.local_addr().expect("bound"));
    runtime.spawn(async move { axum::serve(listener, router).await });
    let todo = Todo { shared, new_task: String::new(), confirm_clear: false };
    eframe::run_native("plain_todo_mcp", Default::default(), Box::new(|_| Ok(Box::new(todo))))
}

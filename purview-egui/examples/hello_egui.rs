//! hello_egui: a to-do list that a person works with mouse and keyboard
//! while an agent works the same list over MCP (streamable HTTP on
//! 127.0.0.1; the URL is printed and shown). The view models below are all
//! there is: purview-egui draws them.
//!
//! ```text
//! cargo run -p purview-egui --example hello_egui
//! ```

use purview::{Context, prelude::*};

/// The to-do list.
#[window(title = "To-do list", summary_fn = describe)]
#[derive(Clone, Default)]
struct Todo {
    #[block(field, label = "Still to do")]
    open: usize,
    #[block(table, columns = ["Task", "State"])]
    tasks: Vec<(String, String)>,
    #[block(notice = "success")]
    done_notice: Option<String>,
}

#[actions]
impl Todo {
    /// Add a task to the list.
    #[action]
    fn add(
        &mut self,
        /// What there is to do.
        task: String,
        cx: &mut Context,
    ) {
        if task.trim().is_empty() {
            cx.invalid("task", "cannot be empty");
        }
        self.tasks.push((task.trim().to_owned(), "to do".into()));
        self.count();
    }

    /// Mark a task done, by its number in the list (from 1).
    #[action(idempotent)]
    fn finish(
        &mut self,
        /// The task's number, from 1.
        number: usize,
        cx: &mut Context,
    ) {
        match number.checked_sub(1).and_then(|i| self.tasks.get_mut(i)) {
            Some(task) => task.1 = "done".into(),
            None => cx.invalid("number", format!("must be between 1 and {}", self.tasks.len())),
        }
        self.count();
    }

    /// Remove every task; a dialog asks first.
    #[action]
    fn clear(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open_modal(ConfirmClear {
            question: format!("Remove all {} tasks?", self.tasks.len()),
        })?;
        Ok(())
    }

    fn count(&mut self) {
        self.open = self.tasks.iter().filter(|t| t.1 != "done").count();
        self.done_notice = (self.open == 0 && !self.tasks.is_empty()).then(|| "All done!".into());
    }

    fn describe(&self) -> String {
        format!("A to-do list: {} of {} tasks still to do", self.open, self.tasks.len())
    }
}

/// Asks before clearing the list; blocks it meanwhile.
#[window(title = "Clear the list?", summary = "Asks whether to remove every task")]
#[derive(Clone)]
struct ConfirmClear {
    #[block(text)]
    question: String,
}

#[actions]
impl ConfirmClear {
    /// Remove every task and close this dialog.
    #[action(destructive)]
    fn confirm(&mut self, cx: &mut Context) {
        if let Some(list) = cx.owner_id() {
            cx.update::<Todo>(&list, |todo| {
                todo.tasks.clear();
                todo.count();
            });
        }
        cx.close();
    }

    /// Keep the tasks and close this dialog.
    #[action(idempotent)]
    fn cancel(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// The app: the list, with two tasks to start with.
pub fn todo_app() -> App {
    let app = App::builder().name("hello_egui").build();
    let tasks = ["Water the plants", "Write the report"].map(|t| (t.into(), "to do".into()));
    let mut todo = Todo { tasks: tasks.into(), ..Todo::default() };
    todo.count();
    app.open(todo).expect("open the list");
    app
}

// The GUI: everything below.
fn main() -> eframe::Result {
    let runtime = tokio::runtime::Runtime::new().expect("an async runtime");
    let _calls_run_here = runtime.enter();
    let app = todo_app();
    let server = runtime.block_on(app.serve_http(purview::http::HttpOptions::default()));
    let endpoint = server.as_ref().map_or_else(|e| format!("nowhere ({e})"), |s| s.url());
    eprintln!("hello_egui: MCP endpoint {endpoint}");
    let desk = purview_egui::Desk::new(app)
        .embedded(true)
        .heading("Hello, egui")
        .note(format!("Agents connect over MCP at {endpoint}"));
    // Room for the main panel and the windows tiled beside it; the desk
    // lays them out in whatever size the person gives the window.
    let viewport = egui::ViewportBuilder::default().with_inner_size([1280.0, 800.0]);
    let options = eframe::NativeOptions { viewport, ..Default::default() };
    eframe::run_native("hello_egui", options, Box::new(|_| Ok(Box::new(Gui(desk)))))
}

struct Gui(purview_egui::Desk);

impl eframe::App for Gui {
    fn ui(&mut self, ui: &mut egui::Ui, _: &mut eframe::Frame) {
        self.0.show(ui);
    }
}

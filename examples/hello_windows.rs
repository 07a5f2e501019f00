//! A to-do app with a confirmation dialog and an app-level action, written
//! with Purview's macros.
//!
//! Run it on stdio (for an MCP host that launches it):
//!     cargo run --example hello_windows
//! or over streamable HTTP:
//!     cargo run --example hello_windows -- --http 127.0.0.1:8765
//!
//! `examples/by_hand.rs` is the same app without the macros.

use std::{process::ExitCode, time::Duration};

use clap::Parser;
use purview::{App, Context, WindowHandle, actions, cli::ServeArgs, settings::ToolSurface, window};

/// A to-do list.
#[window(title = "Tasks", summary = "A to-do list with {open} open tasks")]
#[derive(Clone, Default)]
pub struct Tasks {
    #[block(table, columns = ["Task", "Done"])]
    items: Vec<(String, bool)>,
    #[block(notice = "info")]
    hint: Option<String>,
    open: usize,
}

#[actions]
impl Tasks {
    /// Add a task to the end of the list.
    #[action]
    fn add(
        &mut self,
        /// What needs doing, in a few words.
        text: String,
        cx: &mut Context,
    ) {
        if text.trim().is_empty() {
            cx.invalid("text", "must not be blank");
        }
        self.items.push((text, false));
        self.recount();
    }

    /// Mark a task as done.
    #[action(idempotent)]
    fn complete(
        &mut self,
        /// The 1-based position of the task in the list.
        number: usize,
        cx: &mut Context,
    ) {
        match self.items.get_mut(number.wrapping_sub(1)) {
            Some(item) => item.1 = true,
            None => cx.invalid("number", format!("there are {} tasks", self.items.len())),
        }
        self.recount();
    }

    /// Remove every finished task; asks for confirmation first.
    #[action(destructive, available = has_done)]
    fn clear_done(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        let dialog = cx.open_modal(ConfirmClear)?;
        cx.message(format!("Confirm in the dialog that opened, {dialog}"));
        Ok(())
    }

    fn has_done(&self) -> bool {
        self.items.iter().any(|(_, done)| *done)
    }

    fn recount(&mut self) {
        self.open = self.items.iter().filter(|(_, done)| !done).count();
        self.hint = self.items.is_empty().then(|| "No tasks yet".to_owned());
    }
}

/// "Remove finished tasks?" — blocks its list until answered.
#[window(title = "Remove finished tasks?", summary = "Asks whether to remove every finished task")]
#[derive(Clone)]
struct ConfirmClear;

#[actions]
impl ConfirmClear {
    /// Remove the finished tasks.
    #[action(destructive)]
    fn confirm(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        // The list is blocked by this dialog, so it is edited through the
        // context: the edit and the close land together.
        cx.update_owner::<Tasks>(|tasks| {
            tasks.items.retain(|(_, done)| !done);
            tasks.recount();
        })?;
        cx.close();
        Ok(())
    }

    /// Keep everything.
    #[action(idempotent)]
    fn cancel(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// App-level actions.
#[derive(Clone)]
struct Menu;

#[actions(app)]
impl Menu {
    /// Open another, empty task list (its id comes back in openedWindowIds).
    #[action]
    fn new_tasks(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        let mut tasks = Tasks::default();
        tasks.recount();
        cx.open(tasks)?;
        Ok(())
    }
}

/// The app with its first task list open.
pub fn app(surface: ToolSurface) -> Result<(App, WindowHandle<Tasks>), purview::Error> {
    let app = App::builder()
        .name("hello_windows")
        .instructions("Task numbers are 1-based positions in the list.")
        .default_timeout(Duration::from_secs(5))
        .tool_surface(surface)
        .app_actions(Menu)
        .build();
    let mut first = Tasks { items: vec![("Try Purview".into(), false)], ..Tasks::default() };
    first.recount();
    let tasks = app.open(first)?;
    Ok((app, tasks))
}

/// hello_windows: a task list, the smallest complete Purview app, served to AI agents over MCP.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

#[tokio::main]
pub async fn main() -> ExitCode {
    // Logs go to stderr (stdout carries only protocol frames), and what
    // agents send never reaches them.
    purview::cli::init_logging();
    let cli = Cli::parse();

    let (app, tasks) = match app(cli.serve.tools) {
        Ok(opened) => opened,
        Err(e) => {
            eprintln!("hello_windows: {e}");
            return ExitCode::FAILURE;
        }
    };

    // The person's side would call `tasks.update(..)` from the GUI; here a
    // timer stands in for them.
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        let _ = tasks.update(|t| {
            t.items.push(("Stretch your legs".into(), false));
            t.recount();
        });
    });

    purview::cli::serve(&app, &cli.serve).await
}

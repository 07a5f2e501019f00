//! The `hello_windows` app written by hand against Purview's traits, without
//! the macros: what `#[window]` and `#[actions]` generate, in plain code.
//!
//! Run it on stdio (for an MCP host that launches it):
//!     cargo run --example by_hand
//! or over streamable HTTP:
//!     cargo run --example by_hand -- --http 127.0.0.1:8765
//!
//! The "Tasks" window lists tasks and can add or complete them; completing
//! every task is confirmed in a modal dialog. An app-level `new_tasks` action
//! opens another list.

use std::{process::ExitCode, time::Duration};

use clap::Parser;
use purview::{
    ActionOutput, ActionSpec, Actions, App, Args, Context, View, Window, WindowHandle,
    by_hand::BoxFuture,
    cli::ServeArgs,
    model::{Block, Severity},
    settings::ToolSurface,
};
use serde::Deserialize;

/// A to-do list.
#[derive(Clone, Default)]
pub struct Tasks {
    items: Vec<(String, bool)>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Add {
    /// What needs doing, in a few words.
    text: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Complete {
    /// The 1-based position of the task in the list.
    number: usize,
}

impl Window for Tasks {
    fn title(&self) -> String {
        "Tasks".into()
    }

    fn project(&self, view: &mut View) {
        let open = self.items.iter().filter(|(_, done)| !done).count();
        view.summary(format!("A to-do list with {} tasks, {open} still open", self.items.len()));
        let rows = self
            .items
            .iter()
            .enumerate()
            .map(|(i, (text, done))| vec![(i + 1).into(), text.clone().into(), (*done).into()])
            .collect();
        view.push(Block::table("tasks", ["#", "Task", "Done"], rows));
        if self.items.is_empty() {
            view.notice("empty", Severity::Info, "No tasks yet");
        }
    }
}

impl Actions for Tasks {
    fn actions() -> Vec<ActionSpec> {
        vec![
            ActionSpec::new("add").description("Add a task to the end of the list").input::<Add>(),
            ActionSpec::new("complete")
                .description("Mark a task as done")
                .input::<Complete>()
                .idempotent(),
            ActionSpec::new("clear_done")
                .description("Remove every finished task; asks for confirmation first")
                .destructive(),
        ]
    }

    fn is_available(&self, action: &str) -> bool {
        match action {
            "clear_done" => self.items.iter().any(|(_, done)| *done),
            _ => true,
        }
    }

    fn call<'a>(&'a mut self, action: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a> {
        Box::pin(async move {
            match action {
                "add" => {
                    let Add { text } = args.parse()?;
                    if text.trim().is_empty() {
                        cx.invalid("text", "must not be blank");
                    }
                    self.items.push((text, false));
                    Ok(ActionOutput::message(format!("Added task {}", self.items.len())))
                }
                "complete" => {
                    let Complete { number } = args.parse()?;
                    match self.items.get_mut(number.wrapping_sub(1)) {
                        Some(item) => item.1 = true,
                        None => {
                            cx.invalid("number", format!("there are {} tasks", self.items.len()))
                        }
                    }
                    Ok(ActionOutput::message(format!("Task {number} is done")))
                }
                "clear_done" => {
                    args.finish()?;
                    let owner = cx.window_id().unwrap_or_default().to_owned();
                    let dialog = cx.open_modal(ConfirmClear { owner })?;
                    Ok(ActionOutput::message(format!("Confirm in window {dialog}")))
                }
                other => Err(purview::by_hand::unknown_action(other)),
            }
        })
    }
}

/// "Remove finished tasks?" — blocks its list until answered.
#[derive(Clone)]
struct ConfirmClear {
    owner: String,
}

impl Window for ConfirmClear {
    fn title(&self) -> String {
        "Remove finished tasks?".into()
    }

    fn project(&self, view: &mut View) {
        view.summary("Asks whether to remove every finished task")
            .text("question", "Remove every finished task from the list?");
    }
}

impl Actions for ConfirmClear {
    fn actions() -> Vec<ActionSpec> {
        vec![
            ActionSpec::new("confirm").description("Remove the finished tasks").destructive(),
            ActionSpec::new("cancel").description("Keep everything").idempotent(),
        ]
    }

    fn call<'a>(&'a mut self, action: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a> {
        Box::pin(async move {
            args.finish()?;
            match action {
                "confirm" => {
                    // The list is blocked by this dialog, so it is edited
                    // through the context: the edit and the close land together.
                    cx.update::<Tasks>(&self.owner, |tasks| tasks.items.retain(|(_, done)| !done));
                    cx.close();
                    Ok(ActionOutput::message(format!(
                        "Removed the finished tasks from {}",
                        self.owner
                    )))
                }
                "cancel" => {
                    cx.close();
                    Ok(ActionOutput::message("Cancelled; nothing was removed"))
                }
                other => Err(purview::by_hand::unknown_action(other)),
            }
        })
    }
}

/// App-level actions.
#[derive(Clone)]
struct Menu;

/// App-level actions: `app__{action}` tools.
impl purview::AppActions for Menu {}

impl Actions for Menu {
    fn actions() -> Vec<ActionSpec> {
        vec![ActionSpec::new("new_tasks").description("Open another, empty task list")]
    }

    fn call<'a>(&'a mut self, action: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a> {
        Box::pin(async move {
            args.finish()?;
            match action {
                "new_tasks" => {
                    let id = cx.open(Tasks::default())?;
                    Ok(ActionOutput::message(format!("Opened task list {id}")))
                }
                other => Err(purview::by_hand::unknown_action(other)),
            }
        })
    }
}

/// The app with its first task list open.
pub fn app(surface: ToolSurface) -> Result<(App, WindowHandle<Tasks>), purview::Error> {
    let app = App::builder()
        .name("by_hand")
        .instructions("Task numbers are 1-based positions in the list.")
        .default_timeout(Duration::from_secs(5))
        .tool_surface(surface)
        .app_actions(Menu)
        .build();
    let tasks = app.open(Tasks { items: vec![("Try Purview".into(), false)] })?;
    Ok((app, tasks))
}

/// by_hand: hello_windows without the macros, served to AI agents over MCP.
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
            eprintln!("by_hand: {e}");
            return ExitCode::FAILURE;
        }
    };

    // The person's side would call `tasks.update(..)` from the GUI; here a
    // background timer stands in for them.
    let person = tasks.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        let _ = person.update(|t| t.items.push(("Stretch your legs".into(), false)));
    });

    purview::cli::serve(&app, &cli.serve).await
}

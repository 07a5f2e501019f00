//! order_desk: Purview's reference app.
//!
//! ```text
//! cargo run --example order_desk                              # MCP on stdio
//! cargo run --example order_desk -- --http 127.0.0.1:8765     # streamable HTTP at /mcp
//! cargo run --example order_desk -- --help                    # every option
//! ```
//!
//! An Order Editor (with a confirmation modal and nested terms), a
//! 10,000-row Report Details window, and app-level `new_report` and `lock`
//! actions, all written with the macros.

mod windows;

use std::process::ExitCode;

use clap::Parser;
use purview::{App, cli::ServeArgs};

/// order_desk: Purview's reference app (an order editor with a confirmation
/// dialog, a 10,000-row report and a lock screen), served to AI agents over
/// MCP.
#[derive(Parser)]
#[command(name = "order_desk", version)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,

    /// Make `confirm` on the "Confirm submission" dialog wait for a person's
    /// approval when an agent calls it (asked through the agent's client,
    /// by MCP elicitation; refused if the client cannot ask).
    #[arg(long)]
    require_approval: bool,
}

#[tokio::main]
pub async fn main() -> ExitCode {
    // Logs go to stderr (stdout carries only protocol frames), and what
    // agents send never reaches them.
    purview::cli::init_logging();
    let cli = Cli::parse();
    let mut builder = App::builder().tool_surface(cli.serve.tools);
    if cli.require_approval {
        builder = builder.require_approval::<windows::ConfirmSubmission>("confirm");
    }
    let app = windows::order_desk(builder);
    purview::cli::serve(&app, &cli.serve).await
}

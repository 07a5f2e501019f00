//! order_desk: Purview's reference app.
//!
//! ```text
//! cargo run --example order_desk                              # MCP on stdio
//! cargo run --example order_desk -- --http 127.0.0.1:8765     # streamable HTTP at /mcp,
//!                                                             # the person's face at /person
//! cargo run --example order_desk -- --help                    # every option
//! ```
//!
//! An Order Editor (with a confirmation modal and nested terms), a
//! 10,000-row Report Details window, and app-level `new_report` and `lock`
//! actions, all written with the macros.

mod windows;

use std::process::ExitCode;

use clap::Parser;
use purview::{
    App,
    approval::{ApprovalQueue, WhoApproves},
    cli::ServeArgs,
};

/// order_desk: Purview's reference app (an order editor with a confirmation
/// dialog, a 10,000-row report and a lock screen), served to AI agents over
/// MCP.
#[derive(Parser)]
#[command(name = "order_desk", version)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,

    /// Make `confirm` on the "Confirm submission" dialog and the editor's
    /// `set_details` wait for a person's approval when an agent calls them.
    /// order_desk has no window of its own to ask in, so the agent's client
    /// asks its user (MCP elicitation on 2025-11-25; on 2026-07-28 a
    /// question the client answers on retry); a client that cannot ask is
    /// refused.
    #[arg(long)]
    require_approval: bool,

    /// Whose yes counts: `client`, the calling client's user (a client with
    /// no person behind it can approve its own calls); or `in-app`, only a
    /// person at the app: over --http, the person at its face in a browser
    /// (the one-time link on stderr); over stdio order_desk has none, so
    /// every call that needs approval is refused.
    #[arg(long, value_enum, default_value_t = ApprovalsFrom::Client)]
    approvals_from: ApprovalsFrom,

    /// Seconds a person has to answer an approval question before it counts
    /// as refused.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    approval_timeout: u64,
}

/// The values of `--approvals-from`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ApprovalsFrom {
    Client,
    InApp,
}

pub fn main() -> ExitCode {
    // Logs go to stderr (stdout carries only protocol frames), and what
    // agents send never reaches them.
    purview::cli::init_logging();
    let cli = Cli::parse();
    // stdio serves one client, one message after another: on one thread no
    // message has to wake a second thread (that halves a round with a
    // plain line client; BENCHMARKS.md, section 7). HTTP serves many
    // sessions at once, on a thread per core.
    let runtime = match cli.serve.http {
        None => tokio::runtime::Builder::new_current_thread(),
        Some(_) => tokio::runtime::Builder::new_multi_thread(),
    }
    .enable_all()
    .build();
    match runtime {
        Ok(runtime) => runtime.block_on(serve(cli)),
        Err(error) => {
            eprintln!("order_desk: could not start the async runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(cli: Cli) -> ExitCode {
    let mut builder = App::builder().tool_surface(cli.serve.tools);
    if cli.require_approval {
        builder = builder
            .require_approval::<windows::ConfirmSubmission>("confirm")
            .require_approval::<windows::OrderEditor>("set_details");
    }
    builder = builder
        .who_approves(match cli.approvals_from {
            ApprovalsFrom::Client => WhoApproves::InAppOrClient,
            ApprovalsFrom::InApp => WhoApproves::InApp,
        })
        .approval_timeout(std::time::Duration::from_secs(cli.approval_timeout));
    if cli.serve.http.is_none() {
        let app = windows::order_desk(builder);
        return purview::cli::serve(&app, &cli.serve).await;
    }
    // Over HTTP a person can join in a browser (purview-web): the face's
    // one-time link is printed on stderr; with `--approvals-from in-app`
    // the person there answers the approval questions.
    let (app, face) = match cli.approvals_from {
        ApprovalsFrom::InApp => {
            let approvals = ApprovalQueue::new();
            let app = windows::order_desk(builder.approver(approvals.clone()));
            (app.clone(), purview_web::Face::answering(app, approvals))
        }
        ApprovalsFrom::Client => {
            let app = windows::order_desk(builder);
            (app.clone(), purview_web::Face::new(app))
        }
    };
    let announce = face.clone();
    purview::cli::serve_with(
        &app,
        &cli.serve,
        |options| face.serve_beside(options),
        |server| announce.announce(server),
    )
    .await
}

//! desk_gui: order_desk as a real desktop app. A person works its windows
//! with mouse and keyboard while an agent drives the same windows over MCP
//! (streamable HTTP on 127.0.0.1, started by the same process).
//!
//! ```text
//! cargo run --example desk_gui                        # agents at http://127.0.0.1:8765/mcp
//! cargo run --example desk_gui -- --port 9000         # another port (0 picks a free one)
//! cargo run --example desk_gui -- --embed              # every window inside the main one
//! ```
//!
//! Built with the `inspection` feature and started with `EGUI_INSPECTION`
//! set, it also serves egui_inspection's protocol (what egui_mcp drives);
//! that protocol sees one viewport only, so such a run wants `--embed`.

#[path = "../order_desk/windows.rs"]
mod windows;

mod gui;

use std::process::ExitCode;

use clap::Parser;
use purview::{
    App, approval::ApprovalQueue, approval::WhoApproves, http::HttpOptions, settings::ToolSurface,
};

/// desk_gui: order_desk as an egui desktop app, shared by the person at the
/// keyboard and AI agents connected over MCP (streamable HTTP on loopback).
#[derive(Parser)]
#[command(name = "desk_gui", version)]
struct Cli {
    /// The loopback port agents connect to (0 picks a free one; the URL is
    /// printed on stderr).
    #[arg(long, default_value_t = 8765)]
    port: u16,
    /// The agents allowed in, one a line, `NAME TOKEN`: every MCP request
    /// must carry `Authorization: Bearer TOKEN` with one of them, and each
    /// agent gets its own share of every limit. (PURVIEW_TOKEN in the
    /// environment gives one token for all instead.)
    #[arg(long, value_name = "FILE")]
    clients: Option<std::path::PathBuf>,
    /// Which tools agents are offered.
    #[arg(long, value_enum, value_name = "SURFACE", default_value_t = ToolSurface::Both)]
    tools: ToolSurface,
    /// Let agents confirm a submission without asking the person first. By
    /// default the person approves each agent's `confirm` on screen, and
    /// only that yes counts: the agent's client is never asked, so an agent
    /// cannot approve its own call (WhoApproves::InApp).
    #[arg(long)]
    no_approval: bool,
    /// Draw every window inside the main window rather than as an OS window
    /// of its own (for tools that see one viewport only, such as
    /// egui_inspection); the main window is made large enough to hold them
    /// side by side.
    #[arg(long)]
    embed: bool,
}

fn main() -> ExitCode {
    purview::cli::init_logging();
    let cli = Cli::parse();
    let port = cli.port;
    // The agents' runtime: one worker fewer than the machine's cores, so
    // the person's thread keeps a core however busy the agents are.
    let runtime = match purview_egui::AgentsRuntime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("desk_gui: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The person at these windows answers approvals, from the start.
    let approvals = ApprovalQueue::new();
    let mut builder = App::builder()
        .tool_surface(cli.tools)
        .approver(approvals.clone())
        .who_approves(WhoApproves::InApp);
    if !cli.no_approval {
        builder = builder.require_approval::<windows::ConfirmSubmission>("confirm");
    }
    let app = windows::order_desk(builder);
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut options = HttpOptions::default().addr(addr);
    if let Some(path) = &cli.clients {
        options = match options.clients_file(path) {
            Ok(options) => options,
            Err(e) => {
                eprintln!("desk_gui: {e}");
                return ExitCode::FAILURE;
            }
        };
    }
    // A token left in the environment beside --clients would let in one
    // more client the clients file does not name: refused, as the command
    // line of purview::cli refuses it.
    match (std::env::var("PURVIEW_TOKEN").ok().filter(|t| !t.is_empty()), &cli.clients) {
        (Some(_), Some(_)) => {
            eprintln!(
                "desk_gui: PURVIEW_TOKEN is set, and --clients names the clients: unset PURVIEW_TOKEN, or give whoever holds it a line of its own in the clients file"
            );
            return ExitCode::FAILURE;
        }
        (Some(token), None) => options = options.bearer_token(token),
        (None, _) => {}
    }
    // The same person may also work in a browser (purview-web): both faces
    // see each other's edits, and answer from the same approval queue.
    let face = purview_web::Face::answering(app.clone(), approvals.clone());
    let options = face.serve_beside(options);
    let server = match runtime.block_on(app.serve_http(options)) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("desk_gui: {e}");
            return ExitCode::FAILURE;
        }
    };
    let endpoint = server.url();
    eprintln!("desk_gui: MCP endpoint {endpoint}");
    face.announce(&server);
    // The person's clicks run on this runtime.
    let mut desk = runtime.within(|| gui::desk(app, approvals, &endpoint).embedded(cli.embed));
    // purview-egui places the first windows at x = 440 and 870, 400 wide,
    // and a dialog 420 to the right of its owner: embedded, they need room.
    let size = if cli.embed { [1280.0, 720.0] } else { [400.0, 330.0] };
    let options = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_title("Order Desk")
            .with_inner_size(size)
            .with_position([20.0, 20.0]),
        ..Default::default()
    };
    let run =
        runtime.within(|| eframe::run_ui_native("Order Desk", options, move |ui, _| desk.show(ui)));
    runtime.block_on(server.shutdown());
    match run {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("desk_gui: {e}");
            ExitCode::FAILURE
        }
    }
}

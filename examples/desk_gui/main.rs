//! desk_gui: order_desk as a real desktop app. A person works its windows
//! with mouse and keyboard while an agent drives the same windows over MCP
//! (streamable HTTP on 127.0.0.1, started by the same process).
//!
//! ```text
//! cargo run --example desk_gui                        # agents at http://127.0.0.1:8765/mcp
//! cargo run --example desk_gui -- --port 9000         # another port (0 picks a free one)
//! ```

#[path = "../order_desk/windows.rs"]
mod windows;

mod gui;

use std::process::ExitCode;

use purview::HttpOptions;

fn port() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => Ok(8765),
        (Some("--port"), Some(port)) => port.parse().map_err(|e| format!("--port {port}: {e}")),
        _ => Err("usage: desk_gui [--port PORT]".into()),
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            // rmcp logs whole messages, secrets included, at debug: keep it quiet.
            tracing_subscriber::EnvFilter::from_default_env()
                .add_directive("rmcp=warn".parse().expect("a valid directive")),
        )
        .init();
    let port = match port() {
        Ok(port) => port,
        Err(problem) => {
            eprintln!("desk_gui: {problem}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("desk_gui: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let app = windows::order_desk_app();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let server = match runtime.block_on(app.serve_http(HttpOptions::default().addr(addr))) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("desk_gui: {e}");
            return ExitCode::FAILURE;
        }
    };
    let endpoint = server.url();
    eprintln!("desk_gui: MCP endpoint {endpoint}");
    let handle = runtime.handle().clone();
    let options = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_title("Order Desk")
            .with_inner_size([400.0, 330.0])
            .with_position([20.0, 20.0]),
        ..Default::default()
    };
    let run = eframe::run_native(
        "Order Desk",
        options,
        Box::new(move |_| Ok(Box::new(gui::DeskGui::new(app, handle, endpoint)))),
    );
    runtime.block_on(server.shutdown());
    match run {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("desk_gui: {e}");
            ExitCode::FAILURE
        }
    }
}

impl eframe::App for gui::DeskGui {
    fn ui(&mut self, ui: &mut eframe::egui::Ui, _frame: &mut eframe::Frame) {
        gui::DeskGui::ui(self, ui);
    }
}

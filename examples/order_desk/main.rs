//! order_desk: Purview's reference app.
//!
//! ```text
//! cargo run --example order_desk                              # MCP on stdio
//! cargo run --example order_desk -- --http 127.0.0.1:8765     # streamable HTTP at /mcp
//! ```
//!
//! An Order Editor (with a confirmation modal and nested terms), a
//! 10,000-row Report Details window, and app-level `new_report` and `lock`
//! actions, all written with the macros.

mod windows;

use std::{net::SocketAddr, process::ExitCode};

use purview::HttpOptions;

const USAGE: &str = "\
usage: order_desk [--http ADDR:PORT] [--token TOKEN]

  (no options)        serve MCP on stdin/stdout
  --http ADDR:PORT    serve streamable HTTP at http://ADDR:PORT/mcp (port 0 picks a free one)
  --token TOKEN       with --http: require `Authorization: Bearer TOKEN`";

struct Options {
    http: Option<SocketAddr>,
    token: Option<String>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options { http: None, token: None };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                let addr = args.next().ok_or("--http needs ADDR:PORT")?;
                options.http = Some(addr.parse().map_err(|e| format!("--http {addr}: {e}"))?);
            }
            "--token" => options.token = Some(args.next().ok_or("--token needs a value")?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}

#[tokio::main]
pub async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            // rmcp logs whole messages, secrets included, at debug: keep it quiet.
            tracing_subscriber::EnvFilter::from_default_env()
                .add_directive("rmcp=warn".parse().expect("a valid directive")),
        )
        .init();
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(problem) => {
            if !problem.is_empty() {
                eprintln!("order_desk: {problem}");
            }
            eprintln!("{USAGE}");
            return if problem.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) };
        }
    };
    let app = windows::order_desk_app();
    let served = match options.http {
        Some(addr) => {
            let mut http = HttpOptions::default().addr(addr);
            if let Some(token) = options.token {
                http = http.bearer_token(token);
            }
            match app.serve_http(http).await {
                Ok(server) => {
                    // The URL goes to stderr: scripts read it to find a port-0 server.
                    eprintln!("order_desk: MCP endpoint {}", server.url());
                    server.wait().await;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        None => app.serve_stdio().await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("order_desk: {e}");
            ExitCode::FAILURE
        }
    }
}

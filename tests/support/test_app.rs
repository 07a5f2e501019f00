//! The test fixture as a process: `test_app` serves stdio, `test_app --http
//! ADDR` serves streamable HTTP (printing the URL on stderr); with
//! `--no-window` it serves before opening its window.

use purview_tests::{Editor, demo_app};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "debug".into())
                // rmcp logs whole messages, secrets included, at debug: keep it quiet.
                .add_directive("rmcp=warn".parse()?),
        )
        .init();
    let app = demo_app();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // `--no-window`: serve before any window is open, as a forgetful app.
    if let Some(at) = args.iter().position(|a| a == "--no-window") {
        args.remove(at);
    } else {
        app.open(Editor::default())?;
    }
    match args.as_slice() {
        [flag, addr] if flag == "--http" => {
            let server =
                app.serve_http(purview::http::HttpOptions::default().addr(addr.parse()?)).await?;
            eprintln!("listening {}", server.url());
            server.wait().await;
        }
        _ => app.serve_stdio().await?,
    }
    Ok(())
}

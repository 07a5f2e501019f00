//! A ready-made command line for Purview apps (feature `cli`): the options
//! every app serving MCP needs, a first run that explains itself at a
//! terminal, clean exits, and logging that keeps what agents send out of
//! the logs.
//!
//! Its types are those of `clap` 4 ([`ServeArgs`] is a `clap::Args`,
//! [`ToolSurface`] a `clap::ValueEnum`) and
//! `tracing-subscriber` 0.3 ([`wire_guard`] is one of its filters), so an
//! app flattens them into its own parser and layers them into its own
//! subscriber; depend on the same major versions.
//!
//! Without the `http` feature (`default-features = false, features =
//! ["cli"]`) the command line serves stdio only: `--http` and the options
//! that go with it are not there, and neither are hyper, axum and
//! tower-http in the build.
//!
//! ```no_run
//! use clap::Parser;
//! use purview::cli::ServeArgs;
//!
//! /// My app, served to AI agents over MCP.
//! #[derive(Parser)]
//! #[command(version)]
//! struct Cli {
//!     #[command(flatten)]
//!     serve: ServeArgs,
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::process::ExitCode {
//!     purview::cli::init_logging();
//!     let cli = Cli::parse();
//!     let app = purview::App::builder().name("my_app").tool_surface(cli.serve.tools).build();
//!     purview::cli::serve(&app, &cli.serve).await
//! }
//! ```

#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::{io::IsTerminal, process::ExitCode};

use clap::{ValueEnum, builder::PossibleValue};
use tracing::Metadata;
use tracing_subscriber::{
    EnvFilter, Layer,
    filter::{FilterFn, filter_fn},
    layer::SubscriberExt,
    util::SubscriberInitExt,
};

#[cfg(feature = "http")]
use crate::http::HttpOptions;
use crate::{App, settings::ToolSurface};

/// The options of a Purview app's command line; `#[command(flatten)]` them
/// into your own `clap::Parser`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct ServeArgs {
    #[cfg(feature = "http")]
    /// Serve MCP over streamable HTTP at http://ADDR:PORT/mcp instead of
    /// stdin/stdout (port 0 picks a free port; the URL is printed on stderr).
    #[arg(long, value_name = "ADDR:PORT")]
    pub http: Option<SocketAddr>,

    #[cfg(feature = "http")]
    /// With --http: require `Authorization: Bearer TOKEN` on every request.
    /// Needed to serve any address beyond loopback. At least 16 characters;
    /// make one with `openssl rand -hex 32`.
    #[arg(long, value_name = "TOKEN", requires = "http")]
    pub token: Option<String>,

    #[cfg(feature = "http")]
    /// With --http beyond loopback: serve without a token, because an
    /// authenticating proxy stands in front. Without one, anyone who can
    /// reach the port controls the application.
    #[arg(long, requires = "http")]
    pub allow_remote_without_token: bool,

    #[cfg(feature = "http")]
    /// With --http: also accept this `Host` (the name or address clients
    /// use to reach a server beyond loopback). Repeatable.
    #[arg(long, value_name = "HOST", requires = "http")]
    pub allow_host: Vec<String>,

    /// Which tools agents are offered. `both` works in every host; `windows`
    /// is the protocol's own surface; `dispatcher` offers only
    /// app__read_windows and app__act, a list that never changes.
    #[arg(long, value_enum, value_name = "SURFACE", default_value_t = ToolSurface::Both)]
    pub tools: ToolSurface,
}

impl ValueEnum for ToolSurface {
    fn value_variants<'a>() -> &'a [Self] {
        &[Self::Both, Self::Windows, Self::Dispatcher]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Self::Both => "per-window tools plus app__read_windows and app__act (every host)",
            Self::Windows => "only the protocol's per-window tools",
            Self::Dispatcher => "only app__read_windows and app__act",
        };
        Some(PossibleValue::new(self.as_str()).help(help))
    }
}

/// Serves `app` as `args` say, until the client disconnects (stdio) or the
/// process is interrupted (HTTP), and returns the process's exit code: 0
/// for a normal end (a client that closes stdin before initializing
/// included), 1 for a failure, with one line on stderr either way. A token
/// shorter than 16 characters is refused before anything is served; a
/// stdio client that stops reading ends the process (exit code 1).
///
/// At a terminal (stdin is a TTY) it first says what the process is and how
/// to connect to it; nothing but protocol frames ever goes to stdout.
pub async fn serve(app: &App, args: &ServeArgs) -> ExitCode {
    let name = app.name().to_owned();
    #[cfg(feature = "http")]
    if let Some(token) = &args.token
        && let Err(problem) = crate::server::check_token(token)
    {
        eprintln!("{name}: {problem}");
        return ExitCode::FAILURE;
    }
    #[cfg(feature = "http")]
    let outcome = match args.http {
        Some(addr) => serve_http(app, addr, args).await,
        None => serve_stdio(app).await,
    };
    #[cfg(not(feature = "http"))]
    let outcome = {
        let _ = args;
        serve_stdio(app).await
    };
    match outcome {
        Ok(how) => {
            eprintln!("{name}: {how}; exiting.");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_stdio(app: &App) -> Result<&'static str, crate::Error> {
    let name = app.name();
    if std::io::stdin().is_terminal() {
        eprintln!("{}", terminal_hint(name));
    }
    let outcome = app.serve_stdio().await.map(|()| "the client closed the connection");
    if let Err(e) = &outcome {
        // A client that stopped reading may leave a write to stdout
        // blocked in the runtime's blocking pool, which would keep the
        // process alive after it said it was exiting: end it here.
        eprintln!("{name}: {e}");
        std::process::exit(1);
    }
    outcome
}

/// What a person who started the server at a terminal needs to know.
pub fn terminal_hint(name: &str) -> String {
    let other_way = if cfg!(feature = "http") {
        ", or run it with --http 127.0.0.1:8765 and open http://127.0.0.1:8765/mcp in a host or in MCP Inspector"
    } else {
        ""
    };
    format!(
        "{name} is an MCP server: it speaks JSON-RPC on stdin and stdout and is now waiting for an MCP client, not for typing.\n\
         Connect it from an agent host (see \"Connect an agent\" in Purview's README){other_way}. --help lists every option; Ctrl-D quits."
    )
}

#[cfg(feature = "http")]
async fn serve_http(
    app: &App,
    addr: SocketAddr,
    args: &ServeArgs,
) -> Result<&'static str, crate::Error> {
    let mut options = HttpOptions::default().addr(addr);
    if let Some(token) = &args.token {
        options = options.bearer_token(token.clone());
    }
    if args.allow_remote_without_token {
        options = options.allow_remote_without_token();
    }
    for host in &args.allow_host {
        options = options.allow_host(host.clone());
    }
    let server = app.serve_http(options).await?;
    // The URL goes to stderr: scripts read it to find a port-0 server.
    eprintln!("{}: MCP endpoint {}", app.name(), server.url());
    tokio::select! {
        interrupted = tokio::signal::ctrl_c() => {
            if interrupted.is_ok() {
                server.shutdown().await;
            }
            Ok("interrupted")
        }
        () = server.stopped() => Ok("the server stopped"),
    }
}

/// Installs a `tracing` subscriber that writes to stderr (stdout belongs to
/// the protocol), filtered by `RUST_LOG` (default `warn`) and by
/// [`wire_guard`]. Does nothing if a subscriber is already installed.
pub fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter)
        .with_filter(wire_guard());
    let _ = tracing_subscriber::registry().with(layer).try_init();
}

/// A filter that keeps the MCP library's own log events at `warn` or above
/// whatever `RUST_LOG` says: below that it logs whole messages, including
/// the arguments agents send (a PIN, a password). Set `PURVIEW_LOG_WIRE=1`
/// to see them anyway, on a machine where that is safe.
///
/// ```
/// use tracing_subscriber::{Layer, layer::SubscriberExt};
/// let layer = tracing_subscriber::fmt::layer()
///     .with_writer(std::io::stderr)
///     .with_filter(purview::cli::wire_guard());
/// let _subscriber = tracing_subscriber::registry().with(layer);
/// ```
pub fn wire_guard() -> FilterFn<fn(&Metadata<'_>) -> bool> {
    fn keep(meta: &Metadata<'_>) -> bool {
        let wire = meta.target() == "rmcp" || meta.target().starts_with("rmcp::");
        !wire || *meta.level() <= tracing::Level::WARN || wire_logging_allowed()
    }
    filter_fn(keep as fn(&Metadata<'_>) -> bool)
}

fn wire_logging_allowed() -> bool {
    static ALLOWED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ALLOWED.get_or_init(|| std::env::var_os("PURVIEW_LOG_WIRE").is_some_and(|v| v == "1"))
}

//! The command line itself (feature `cli`): its options and `serve`.

#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::{io::IsTerminal, process::ExitCode};

use clap::{ValueEnum, builder::PossibleValue};

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
    /// With --http: the clients allowed in, one a line, `NAME TOKEN` (lines
    /// starting with # are skipped). Each host gets its own token and its
    /// own share of every limit, so no client can crowd out another; every
    /// request must carry `Authorization: Bearer TOKEN` with one of them.
    /// The file must name a client and be readable by this user alone
    /// (`chmod 600`), and PURVIEW_TOKEN must not be set beside it.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub clients: Option<std::path::PathBuf>,

    #[cfg(feature = "http")]
    /// With --http: one token for every client, read from FILE (its first
    /// line). The environment variable PURVIEW_TOKEN does the same. Needed,
    /// or --clients, to serve any address beyond loopback. At least 16
    /// characters; make one with `openssl rand -hex 32`.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<std::path::PathBuf>,

    #[cfg(feature = "http")]
    /// With --http: as --token-file, but the token is on the command line,
    /// where any local user can read it (/proc/PID/cmdline): prefer
    /// --token-file, PURVIEW_TOKEN or --clients.
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
    #[cfg(feature = "http")]
    return serve_with(app, args, |options| options, |_| {}).await;
    #[cfg(not(feature = "http"))]
    {
        let _ = args;
        finish(app.name(), serve_stdio(app).await)
    }
}

/// [`serve`], with `extend` applied to the HTTP options when `--http` is
/// given (routes served beside MCP, such as the person's face of
/// `purview-web`), and `started` called once that server is up (to print
/// the face's one-time link, for example).
///
/// ```no_run
/// # async fn run(app: purview::App, args: purview::cli::ServeArgs) {
/// let hello = axum::Router::new().route("/hello/", axum::routing::get(|| async { "hello" }));
/// let extend = |options: purview::http::HttpOptions| options.serve_beside("/hello", hello);
/// purview::cli::serve_with(&app, &args, extend, |server| {
///     eprintln!("hello at http://{}/hello/", server.local_addr());
/// })
/// .await;
/// # }
/// ```
#[cfg(feature = "http")]
pub async fn serve_with(
    app: &App,
    args: &ServeArgs,
    extend: impl FnOnce(HttpOptions) -> HttpOptions,
    started: impl FnOnce(&crate::http::HttpServer),
) -> ExitCode {
    let name = app.name().to_owned();
    if let Some(token) = &args.token {
        if let Err(problem) = crate::server::check_token(token) {
            eprintln!("{name}: {problem}");
            return ExitCode::FAILURE;
        }
        eprintln!(
            "{name}: warning: --token puts the token on the command line, where any local user can read it; use --token-file FILE, the PURVIEW_TOKEN environment variable, or --clients FILE"
        );
    }
    let outcome = match args.http {
        Some(addr) => serve_http(app, addr, args, extend, started).await,
        None => serve_stdio(app).await,
    };
    finish(&name, outcome)
}

/// The exit code of a finished server, said on stderr.
fn finish(name: &str, outcome: Result<&'static str, crate::Error>) -> ExitCode {
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

/// The one token for every client, from --token-file, PURVIEW_TOKEN or
/// --token, in that order.
#[cfg(feature = "http")]
fn shared_token(args: &ServeArgs) -> Result<Option<String>, crate::Error> {
    if let Some(path) = &args.token_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            crate::Error::Serve(format!("cannot read the token file {}: {e}", path.display()))
        })?;
        return Ok(Some(text.lines().next().unwrap_or_default().trim().to_owned()));
    }
    if let Some(token) = std::env::var("PURVIEW_TOKEN").ok().filter(|t| !t.is_empty()) {
        return Ok(Some(token));
    }
    Ok(args.token.clone())
}

/// Refuses `PURVIEW_TOKEN` beside `--clients`: left in the environment, it
/// would let in one more client, `bearer`, that the clients file does not
/// name, without a word.
#[cfg(feature = "http")]
fn refuse_environment_token_beside_clients() -> Result<(), crate::Error> {
    if std::env::var_os("PURVIEW_TOKEN").is_some_and(|token| !token.is_empty()) {
        return Err(crate::Error::Serve(
            "PURVIEW_TOKEN is set, and --clients names the clients: the two together would let in one more client, `bearer`, that the clients file does not name. Unset PURVIEW_TOKEN (`env -u PURVIEW_TOKEN ...`), or give whoever holds it a line of its own in the clients file".to_owned(),
        ));
    }
    Ok(())
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
    extend: impl FnOnce(HttpOptions) -> HttpOptions,
    started: impl FnOnce(&crate::http::HttpServer),
) -> Result<&'static str, crate::Error> {
    let mut options = HttpOptions::default().addr(addr);
    if let Some(path) = &args.clients {
        refuse_environment_token_beside_clients()?;
        options = options.clients_file(path)?;
    }
    if let Some(token) = shared_token(args)? {
        options = options.bearer_token(token);
    }
    if args.allow_remote_without_token {
        options = options.allow_remote_without_token();
    }
    for host in &args.allow_host {
        options = options.allow_host(host.clone());
    }
    let server = app.serve_http(extend(options)).await?;
    // The URL goes to stderr: scripts read it to find a port-0 server.
    eprintln!("{}: MCP endpoint {}", app.name(), server.url());
    started(&server);
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

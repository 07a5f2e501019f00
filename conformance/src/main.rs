//! `purview-conformance`: explore any MCP GUI Bridge Protocol v0.1.0 server
//! and report every §11 MUST as pass, fail or not exercised.

use std::{path::PathBuf, process::ExitCode, time::Duration};

use clap::{Args, Parser, Subcommand};
use purview_conformance::{Endpoint, Explorer, Script, Verdict};

/// Explore an MCP GUI Bridge Protocol v0.1.0 server and check it against
/// the protocol.
///
/// The explorer reads app://windows, calls the operable windows' tools with
/// arguments made from their inputSchemas (mostly valid, some deliberately
/// wrong, stale, or aimed at windows that are gone), reads again, and checks
/// every answer. It prints each §11 MUST and the SHOULDs it can observe as
/// pass, FAIL or n/a (not exercised), with evidence, what the walk reached,
/// and for each failure the shortest sequence of calls that shows it.
///
/// It never calls a tool marked destructiveHint: true (or one without
/// annotations, which MCP treats as destructive) unless --allow-destructive
/// is given. It assumes nothing changes the app during the walk but itself.
///
/// Every walk ends PASS, INCONCLUSIVE or FAIL. Inconclusive means no MUST
/// failed but the walk could not exercise part of the app (an operation
/// that never once succeeded, a MUST the transport could check but the walk
/// never reached); the report names each gap, its likely cause and the fix.
///
/// Exit status, the same verdict as the API's Report::verdict:
///   0  PASS: every MUST holds, the application has no finding, and the
///      walk covered the app;
///   1  FAIL: a MUST failed, or the application has a finding (a handler
///      that failed on arguments its schema accepts, a secret that came
///      back), or the walk could not finish;
///   2  the server could not be explored at all;
///   3  INCONCLUSIVE: nothing failed, but the walk could not exercise part
///      of the app (the report says what, why, and how to get there).
/// --allow CHECK keeps one check's failures from failing the walk, on
/// purpose; they are still reported.
#[derive(Parser, Debug)]
#[command(name = "purview-conformance", version, verbatim_doc_comment)]
#[command(after_help = "Examples:
  purview-conformance stdio -- python3 tests/interop/gui_bridge_server.py
  purview-conformance --steps 1000 --seed 7 --allow-destructive stdio -- ./my_app
  purview-conformance http http://127.0.0.1:8080/mcp --bearer \"$TOKEN\"
  purview-conformance --replay failure.json stdio -- ./my_app")]
struct Cli {
    #[command(flatten)]
    options: Options,
    #[command(subcommand)]
    target: Target,
}

#[derive(Args, Debug)]
struct Options {
    /// How many calls to make.
    #[arg(long, default_value_t = 300, global = true)]
    steps: usize,
    /// Seed of the walk: the same seed against the same server walks the same way.
    #[arg(long, default_value_t = 0, global = true)]
    seed: u64,
    /// Print the report as JSON on stdout.
    #[arg(long, global = true)]
    json: bool,
    /// Also call tools that are, or may be, destructive.
    #[arg(long, global = true)]
    allow_destructive: bool,
    /// A value that must never come back (repeatable). Every answer is
    /// searched, whatever the value's length, for it and for every value the
    /// walk sent to a writeOnly parameter (its own made-up secrets and the
    /// --hint values): found as text (a JSON string, or plain text) after it
    /// was sent, it is a leak, unless it had appeared in an answer before
    /// (for a --secret: in the app's first reads), which makes it the app's
    /// own data that equals it.
    #[arg(long = "secret", value_name = "VALUE", global = true)]
    secrets: Vec<String>,
    /// A value for a parameter, as NAME=JSON (repeatable), such as
    /// pin="1234" to get past a lock screen. A parameter with hints always
    /// takes one of them where its type fits; parameters without take values
    /// the app's windows and answers show, or made-up ones.
    #[arg(long = "hint", value_name = "NAME=JSON", value_parser = parse_hint, global = true)]
    hints: Vec<(String, serde_json::Value)>,
    /// An error code the server documents as an extension of §7.4 (repeatable).
    #[arg(long = "extension-code", value_name = "CODE", global = true)]
    extension_codes: Vec<String>,
    /// Seconds one call may take before the walk stops.
    #[arg(long, default_value_t = 30, value_name = "SECS", global = true)]
    timeout: u64,
    /// Seconds to wait for a notification a change calls for.
    #[arg(long, default_value_t = 5.0, value_name = "SECS", global = true)]
    notification_timeout: f64,
    /// Report failures with the whole walk instead of shrinking them.
    #[arg(long, global = true)]
    no_shrink: bool,
    /// Say yes to every approval question the server asks (MCP elicitation),
    /// so actions that need a person's approval can be walked.
    #[arg(long, global = true, conflicts_with = "decline")]
    approve: bool,
    /// Say no to every approval question the server asks.
    #[arg(long, global = true)]
    decline: bool,
    /// Report this check's failures without failing the walk (repeatable),
    /// such as --allow handler-failed for a known bug being fixed.
    #[arg(long = "allow", value_name = "CHECK", global = true)]
    allowed: Vec<purview_conformance::Check>,
    /// Replay a script (the JSON line printed with a failure) instead of exploring.
    #[arg(long, value_name = "FILE", global = true)]
    replay: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Target {
    /// Start a program and speak MCP on its stdin/stdout.
    Stdio {
        /// Let the server's stderr through (discarded by default).
        #[arg(long)]
        show_server_stderr: bool,
        /// The program and its arguments (put `--` before them).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, num_args = 1..)]
        command: Vec<String>,
    },
    /// Connect to a streamable HTTP endpoint.
    Http {
        /// The endpoint, such as http://127.0.0.1:8080/mcp.
        url: String,
        /// Send `Authorization: Bearer TOKEN`.
        #[arg(long, env = "PURVIEW_CONFORMANCE_TOKEN", hide_env_values = true)]
        bearer: Option<String>,
        /// An extra header, as "Name: value" (repeatable).
        #[arg(long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
        headers: Vec<(String, String)>,
    },
}

fn parse_hint(s: &str) -> Result<(String, serde_json::Value), String> {
    let (name, value) = s.split_once('=').ok_or("expected NAME=JSON, such as pin=\"1234\"")?;
    let value =
        serde_json::from_str(value).unwrap_or_else(|_| serde_json::Value::String(value.to_owned()));
    Ok((name.to_owned(), value))
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s.split_once(':').ok_or("expected \"Name: value\"")?;
    Ok((name.trim().to_owned(), value.trim().to_owned()))
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "error".into()),
        )
        .init();
    let cli = Cli::parse();
    let o = &cli.options;
    let endpoint = match &cli.target {
        Target::Stdio { command, show_server_stderr } => {
            Endpoint::stdio(&command[0], &command[1..]).show_server_stderr(*show_server_stderr)
        }
        Target::Http { url, bearer, headers } => {
            let mut endpoint = Endpoint::http(url);
            if let Some(token) = bearer {
                endpoint = endpoint.bearer(token);
            }
            for (name, value) in headers {
                endpoint = endpoint.header(name, value);
            }
            endpoint
        }
    };
    let mut explorer = Explorer::new()
        .steps(o.steps)
        .seed(o.seed)
        .allow_destructive(o.allow_destructive)
        .call_timeout(Duration::from_secs(o.timeout))
        .notification_timeout(Duration::from_secs_f64(o.notification_timeout))
        .shrink(!o.no_shrink);
    for secret in &o.secrets {
        explorer = explorer.secret(secret);
    }
    for (name, value) in &o.hints {
        explorer = explorer.hint(name, value.clone());
    }
    for code in &o.extension_codes {
        explorer = explorer.extension_code(code);
    }
    if o.approve || o.decline {
        explorer = explorer.approve(o.approve);
    }
    for check in &o.allowed {
        explorer = explorer.allow(*check);
    }
    let report = match &o.replay {
        Some(path) => {
            let script: Script = match std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
            {
                Ok(script) => script,
                Err(e) => {
                    eprintln!(
                        "purview-conformance: cannot read the script {}: {e}",
                        path.display()
                    );
                    return ExitCode::from(2);
                }
            };
            explorer.replay(&endpoint, &script).await
        }
        None => explorer.run(&endpoint).await,
    };
    if o.json {
        println!("{}", report.to_json());
    } else {
        print!("{report}");
    }
    if report.steps == 0 && report.stopped.is_some() {
        ExitCode::from(2)
    } else {
        match report.verdict() {
            Verdict::Pass => ExitCode::SUCCESS,
            Verdict::Fail => ExitCode::FAILURE,
            Verdict::Inconclusive => ExitCode::from(3),
        }
    }
}

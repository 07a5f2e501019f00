//! Clients known by their credential (RELIABILITY.md, "Who is a client"):
//! each named client has its own token, and its own share of everything a
//! client can hold and of the app's own budgets, so one client's attack or
//! mistakes cost that client alone. Each test drives a real HTTP server or
//! the order_desk binary.

#[path = "../examples/order_desk/windows.rs"]
#[allow(dead_code, missing_docs)]
mod order_desk;

use std::{
    process::Stdio,
    time::{Duration, Instant},
};

use anyhow::{Context as _, Result, ensure};
use purview::{http::HttpOptions, settings::ToolSurface};
use rmcp::{
    ServiceExt,
    model::CallToolRequestParams,
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");
const HOSTILE: &str = "hostile-client-token-0123456789ab";
const HONEST: &str = "honest-client-token-0123456789abc";

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

async fn connect(url: &str, token: &str) -> Result<Client> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    Ok(().serve(StreamableHttpClientTransport::from_config(config)).await?)
}

async fn call(client: &Client, tool: &str, arguments: Value) -> Result<Value> {
    let params = CallToolRequestParams::new(tool.to_owned())
        .with_arguments(arguments.as_object().cloned().unwrap_or_default());
    let result = client.call_tool(params).await?;
    Ok(result.structured_content.unwrap_or_default())
}

/// RELIABILITY.md "A hostile agent", the PIN cool-down: it was shared by
/// every agent, so after one agent's 10 wrong PINs the honest ones made 0
/// unlocks in 555 right-PIN tries over 18 minutes while the hostile one
/// tried first whenever the wait ended. Now each client's wrong PINs
/// delay that client alone, however many sessions it opens.
#[tokio::test]
async fn order_desk_one_clients_wrong_pins_never_hold_back_another_client() -> Result<()> {
    let app = order_desk::order_desk_app(ToolSurface::Both);
    let options = HttpOptions::default().client("hostile", HOSTILE).client("honest", HONEST);
    let server = app.serve_http(options).await?;
    let url = server.url();
    let hostile = connect(&url, HOSTILE).await?;
    call(&hostile, "app__lock", json!({})).await?;
    let lock = app.operable_window_ids()?.into_iter().next().context("the lock screen")?;
    let unlock = format!("{lock}__unlock");
    // Guesses from many sessions of the same client: every new session
    // counts against the same budget, so the 12th guess waits.
    let mut last = Value::Null;
    for _ in 0..12 {
        let session = connect(&url, HOSTILE).await?;
        last = call(&session, &unlock, json!({"pin": "0000"})).await?;
        let _ = session.cancel().await;
    }
    let error = last["fields"][0]["error"].as_str().unwrap_or_default().to_owned();
    ensure!(error.contains("next try is possible in"), "the hostile client is slowed: {last}");
    // Even its right PIN now waits.
    let right = call(&hostile, &unlock, json!({"pin": order_desk::UNLOCK_PIN})).await?;
    ensure!(right["code"] == "validation_failed", "{right}");
    // The honest client's first try is looked at at once, and unlocks.
    let honest = connect(&url, HONEST).await?;
    let opened = call(&honest, &unlock, json!({"pin": order_desk::UNLOCK_PIN})).await?;
    ensure!(
        opened.get("code").is_none(),
        "the honest client waits for another's guesses: {opened}"
    );
    ensure!(!app.operable_window_ids()?.contains(&lock), "unlocked");
    let _ = (hostile.cancel().await, honest.cancel().await);
    server.shutdown().await;
    Ok(())
}

/// An action sees which client calls it, by the name its token gives.
#[tokio::test]
async fn s12_an_action_sees_the_named_client_that_calls_it() -> Result<()> {
    #[purview::window(title = "Who")]
    #[derive(Clone, Default)]
    struct Who {
        #[block(field)]
        last: String,
    }
    #[purview::actions]
    impl Who {
        /// Records who called.
        #[action]
        fn record(&mut self, cx: &mut purview::Context) {
            self.last = cx.client().map_or_else(|| "nobody".to_owned(), ToString::to_string);
        }
    }
    let app = purview::App::builder().build();
    let who = app.open(Who::default())?;
    let server = app
        .serve_http(HttpOptions::default().client("honest", HONEST).client("other", HOSTILE))
        .await?;
    let client = connect(&server.url(), HONEST).await?;
    call(&client, &format!("{}__record", who.id()), json!({})).await?;
    let snapshot = app.snapshot()?;
    let text = serde_json::to_string(&snapshot)?;
    ensure!(text.contains("honest"), "{text}");
    let _ = client.cancel().await;
    server.shutdown().await;
    Ok(())
}

/// RELIABILITY.md "A LAN neighbour": wrong tokens from anywhere filled one
/// queue, and a request that sent no token at all waited 30.9 s for its
/// 401. A request without a token guesses nothing: it is answered at once,
/// however many wrong tokens others send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_request_without_a_token_is_answered_at_once_whatever_others_guess() -> Result<()> {
    let app = purview::App::builder().build();
    let server = app.serve_http(HttpOptions::default().client("honest", HONEST)).await?;
    let url = server.url();
    let guessers: Vec<_> = (0..8)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                loop {
                    let _ = http
                        .post(&url)
                        .bearer_auth("wrong-guess-0123456789abcdef")
                        .body("{}")
                        .send()
                        .await;
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let started = Instant::now();
    let reply = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "no-token", "version": "0"}}})
            .to_string(),
        )
        .timeout(Duration::from_secs(20))
        .send()
        .await?;
    let waited = started.elapsed();
    for guesser in guessers {
        guesser.abort();
    }
    ensure!(reply.status() == 401, "{}", reply.status());
    let text = reply.text().await?;
    ensure!(text.contains("needs a bearer token"), "the answer says what is missing: {text}");
    // Functional, not a timing promise: the guessers' queue runs seconds
    // ahead by now, and this answer did not join it.
    ensure!(waited < Duration::from_secs(2), "waited {waited:?} behind others' wrong tokens");
    server.shutdown().await;
    Ok(())
}

/// RELIABILITY.md "A LAN neighbour": the token could only be given as
/// `--token TOKEN`, readable by any local user in /proc/PID/cmdline. It
/// can now come from a file, from PURVIEW_TOKEN, or as named clients from
/// a clients file; `--token` still works, with a warning.
#[tokio::test]
async fn s12_the_token_comes_from_a_file_or_the_environment_not_the_command_line() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("purview-clients-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let token_file = dir.join("token");
    std::fs::write(&token_file, format!("{HONEST}\n"))?;
    let clients_file = dir.join("clients");
    std::fs::write(&clients_file, format!("# name token\nhonest {HONEST}\n\nother {HOSTILE}\n"))?;
    // Readable by this user alone, as the server requires.
    let alone = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o600);
    std::fs::set_permissions(&clients_file, alone)?;
    let runs: [(&[&str], Option<&str>, &str); 4] = [
        (&["--token-file", token_file.to_str().unwrap_or_default()], None, HONEST),
        (&[], Some(HONEST), HONEST),
        (&["--clients", clients_file.to_str().unwrap_or_default()], None, HOSTILE),
        (&["--token", HONEST], None, HONEST),
    ];
    for (args, env, token) in runs {
        let mut command = tokio::process::Command::new(ORDER_DESK);
        command
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        command.env_remove("PURVIEW_TOKEN").kill_on_drop(true);
        if let Some(env) = env {
            command.env("PURVIEW_TOKEN", env);
        }
        let mut child = command.spawn()?;
        let mut stderr = BufReader::new(child.stderr.take().context("stderr")?).lines();
        let mut said = Vec::new();
        let url = loop {
            let line = tokio::time::timeout(Duration::from_secs(30), stderr.next_line())
                .await??
                .context("order_desk ended before serving")?;
            if let Some(url) = line.split("MCP endpoint ").nth(1) {
                break url.trim().to_owned();
            }
            said.push(line);
        };
        let warned = said.iter().any(|l| l.contains("any local user can read it"));
        ensure!(warned == args.first().is_some_and(|a| *a == "--token"), "{args:?}: {said:?}");
        let without = reqwest::Client::new().post(&url).body("{}").send().await?;
        ensure!(without.status() == 401, "{args:?}: a token is required");
        let client = connect(&url, token).await?;
        ensure!(client.list_all_tools().await?.iter().any(|t| t.name == "app__read_windows"));
        let _ = client.cancel().await;
        child.kill().await?;
    }
    let help = std::process::Command::new(ORDER_DESK).arg("--help").output()?;
    let help = String::from_utf8_lossy(&help.stdout);
    for option in ["--clients", "--token-file", "PURVIEW_TOKEN"] {
        ensure!(help.contains(option), "--help names {option}: {help}");
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// Clients the server cannot tell apart are refused at start-up: the same
/// token for two names, a name twice, a name that would not read well.
#[tokio::test]
async fn s12_clients_that_could_not_be_told_apart_are_refused_at_start_up() -> Result<()> {
    let app = purview::App::builder().build();
    let cases = [
        (HttpOptions::default().client("a", HONEST).client("b", HONEST), "same token"),
        (HttpOptions::default().client("a", HONEST).client("a", HOSTILE), "named twice"),
        (HttpOptions::default().client("a b\n", HONEST), "letters, digits"),
        (HttpOptions::default().client("a", "short"), "at least 16"),
    ];
    for (options, says) in cases {
        let refused = app.serve_http(options).await.err().context("refused")?;
        ensure!(refused.to_string().contains(says), "{refused}");
    }
    Ok(())
}

/// RELIABILITY.md "A LAN neighbour": sessions and listen streams were
/// caps, so while one client held all of each, a second client got 0 of
/// 5. They are shares now: the second named client gets each, and the
/// client holding the most gives up its oldest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_second_named_client_gets_a_session_and_a_listen_stream_from_one_holding_all()
-> Result<()> {
    use purview_tests::{Agent, Editor, Note};
    let transport = |url: &str, token: &str| {
        let config =
            StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
        StreamableHttpClientTransport::from_config(config)
    };
    let app = purview_tests::demo_builder().coalesce(Duration::ZERO).build();
    app.open(Editor::default())?;
    let options = HttpOptions::default()
        .client("hostile", HOSTILE)
        .client("honest", HONEST)
        .max_sessions(4)
        .max_listen_streams(4);
    let server = app.serve_http(options).await?;
    let url = server.url();
    // Every listen stream, and one more asked for.
    let mut listeners = Vec::new();
    for _ in 0..5 {
        if let Ok(agent) = Agent::modern_over(transport(&url, HOSTILE)).await {
            listeners.push(agent);
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    ensure!(app.session_count() == 4, "{} listen streams subscribed", app.session_count());
    // The second client's listen stream is held, and hears a change.
    let mut honest = Agent::modern_over(transport(&url, HONEST)).await?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    ensure!(app.session_count() == 4, "still four: the hostile client gave one up");
    app.open(Editor::default())?;
    honest.expect(Note::ToolsChanged).await?;
    // Every session, and one more asked for; then the second client's.
    let mut held = Vec::new();
    for _ in 0..5 {
        if let Ok(client) = connect(&url, HOSTILE).await {
            held.push(client);
        }
    }
    ensure!(held.len() == 4, "{} sessions of one client", held.len());
    let session = connect(&url, HONEST).await.context("the second client's first session")?;
    ensure!(!session.list_all_tools().await?.is_empty());
    drop((held, listeners, honest, session));
    server.shutdown().await;
    Ok(())
}

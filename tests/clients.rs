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

async fn call(
    client: &rmcp::Peer<rmcp::RoleClient>,
    tool: &str,
    arguments: Value,
) -> Result<Value> {
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

/// A window whose one action needs the person's approval.
#[purview::window(title = "Payment", summary = "{amount} to pay")]
#[derive(Clone, Default)]
struct Payment {
    #[block(field)]
    amount: u64,
}

#[purview::actions]
impl Payment {
    /// Pay an amount, once a person agrees.
    #[action(approval, destructive)]
    fn pay(&mut self, amount: u64) {
        self.amount = amount;
    }
}

/// A client holding `token` that calls itself `calls_itself`.
async fn connect_as(
    url: &str,
    token: &str,
    calls_itself: &str,
) -> Result<rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>> {
    use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    let me =
        ClientConfig::new(ClientCapabilities::default(), Implementation::new(calls_itself, "0"));
    Ok(me.serve(StreamableHttpClientTransport::from_config(config)).await?)
}

/// The questions waiting in `queue`, once there are `n`.
async fn pending(
    queue: &purview::approval::ApprovalQueue,
    n: usize,
) -> Result<Vec<purview::approval::PendingApproval>> {
    for _ in 0..1000 {
        let pending = queue.pending();
        if pending.len() >= n {
            return Ok(pending);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    anyhow::bail!("{} of {n} questions asked", queue.pending().len())
}

/// RELIABILITY.md inventory, "who asks": the question named the client by
/// the name it gave itself, so a client whose token is `hostile` calling
/// itself `honest` was asked about as `"honest" (session 2)`, beside the
/// real honest client's question. Now the question (and so the desk, the
/// face and the card, which show it) names the client its credential
/// proves, with the name it gives itself only as a quoted aside.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_the_asker_is_named_by_its_credential_its_own_name_only_an_aside() -> Result<()> {
    let app = purview::App::builder().build();
    let payment = app.open(Payment::default())?;
    let queue = purview::approval::ApprovalQueue::new();
    app.set_approver(queue.clone());
    let options = HttpOptions::default().client("hostile", HOSTILE).client("honest", HONEST);
    let server = app.serve_http(options).await?;
    let url = server.url();
    let tool = format!("{}__pay", payment.id());
    let mut calls = Vec::new();
    for (token, amount) in [(HOSTILE, 999_999), (HONEST, 12)] {
        let client = connect_as(&url, token, "honest").await?;
        let tool = tool.clone();
        calls.push(tokio::spawn(async move {
            let outcome = call(&client, &tool, json!({"amount": amount})).await;
            let _ = client.cancel().await;
            outcome
        }));
    }
    let asked = pending(&queue, 2).await?;
    let said = |amount: u64| {
        asked
            .iter()
            .find(|p| p.request.arguments["amount"] == amount)
            .map(|p| (p.request.agent.clone(), p.request.describe()))
            .context("asked")
    };
    let (hostile, hostile_text) = said(999_999)?;
    ensure!(hostile == r#"hostile, calling itself "honest","#, "{hostile}");
    ensure!(
        hostile_text.starts_with(r#"hostile, calling itself "honest", asks to pay"#),
        "{hostile_text}"
    );
    let (honest, honest_text) = said(12)?;
    ensure!(honest == "honest", "the same name as its credential's is no aside: {honest}");
    ensure!(honest_text.starts_with("honest asks to pay"), "{honest_text}");
    for text in [&hostile_text, &honest_text] {
        ensure!(!text.contains("session"), "no session number: {text}");
    }
    for question in asked {
        queue.answer(question.id, purview::approval::Approval::Decline);
    }
    for call in calls {
        let refused = call.await??;
        ensure!(refused["reason"] == "declined", "{refused}");
    }
    server.shutdown().await;
    Ok(())
}

/// A 2026-07-28 `tools/call` of `tool` with `arguments`, needing no
/// session, from a client calling itself `calls_itself`.
fn stateless_call(tool: &str, arguments: Value, calls_itself: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": calls_itself, "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

/// RELIABILITY.md inventory, "who asks": a stateless client was a new
/// "session N" in every question it asked. Each of its 2026-07-28 requests
/// is now the same asker, in the question and in the approval places: its
/// own share is the per-client bound, and another client still gets its
/// question asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_stateless_calls_of_one_client_are_one_asker() -> Result<()> {
    use purview::settings::Limits;
    let limits = Limits::default().max_pending_approvals_per_session(2);
    let app = purview::App::builder().limits(limits).build();
    let payment = app.open(Payment::default())?;
    let queue = purview::approval::ApprovalQueue::new();
    app.set_approver(queue.clone());
    let options = HttpOptions::default().client("hostile", HOSTILE).client("honest", HONEST);
    let server = app.serve_http(options).await?;
    let url = server.url();
    let tool = format!("{}__pay", payment.id());
    let send = |token: &'static str, amount: u64| {
        let (url, tool) = (url.clone(), tool.clone());
        tokio::spawn(async move {
            let reply = reqwest::Client::new()
                .post(&url)
                .bearer_auth(token)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", &tool)
                .body(stateless_call(&tool, json!({"amount": amount}), "anything"))
                .send()
                .await?;
            anyhow::Ok(reply.text().await?)
        })
    };
    let first = [send(HOSTILE, 1), send(HOSTILE, 2)];
    let asked = pending(&queue, 2).await?;
    let askers: Vec<&str> = asked.iter().map(|p| p.request.agent.as_str()).collect();
    ensure!(askers.iter().all(|a| *a == r#"hostile, calling itself "anything","#), "{askers:?}");
    // Its third request is beyond its share, whatever request it comes in.
    let third = send(HOSTILE, 3).await??;
    ensure!(third.contains("limit_reached"), "{third}");
    // Another client's question is still asked.
    let honest = send(HONEST, 4);
    let now = pending(&queue, 3).await?;
    ensure!(now.iter().any(|p| p.request.agent.starts_with("honest")), "{now:?}");
    for question in queue.pending() {
        queue.answer(question.id, purview::approval::Approval::Decline);
    }
    for call in first.into_iter().chain([honest]) {
        let answer = call.await??;
        ensure!(answer.contains("declined"), "{answer}");
    }
    server.shutdown().await;
    Ok(())
}

/// A 2025-11-25 request to `url` with `token`, naming `session` if any.
fn legacy(
    method: reqwest::Method,
    url: &str,
    token: &str,
    session: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .request(method, url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request
}

/// What a request answered: its status and its body (what a GET stream
/// sent in its first second).
async fn answered(request: reqwest::RequestBuilder) -> Result<(u16, String)> {
    let mut reply = request.send().await?;
    let status = reply.status().as_u16();
    let mut body = Vec::new();
    let read = async {
        while let Some(chunk) = reply.chunk().await? {
            body.extend_from_slice(&chunk);
        }
        anyhow::Ok(())
    };
    // A stream that stays open and quiet ends the reading, not the test.
    if let Ok(read) = tokio::time::timeout(Duration::from_secs(1), read).await {
        read?;
    }
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// RELIABILITY.md inventory, "an HTTP session": another named client
/// holding a session's `Mcp-Session-Id` called tools in it, took its GET
/// streams and ended it with DELETE. A session now answers only the
/// client that opened it; to any other, its POSTs, GETs and DELETE are
/// answered exactly as for a session that does not exist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_session_answers_only_the_client_that_opened_it() -> Result<()> {
    let app = purview::App::builder().build();
    app.open(Payment::default())?;
    let options = HttpOptions::default().client("hostile", HOSTILE).client("honest", HONEST);
    let server = app.serve_http(options).await?;
    let url = server.url();
    let post = reqwest::Method::POST;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "honest", "version": "0"}}});
    let opened = legacy(post.clone(), &url, HONEST, None).body(init.to_string()).send().await?;
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .context("a session id")?
        .to_owned();
    drop(opened);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _) =
        answered(legacy(post.clone(), &url, HONEST, Some(&session)).body(initialized.to_string()))
            .await?;
    ensure!(status == 202, "initialized: {status}");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let get = reqwest::Method::GET;
    let delete = reqwest::Method::DELETE;
    // What a session that does not exist is answered, for comparison.
    let unknown = "00000000-0000-0000-0000-000000000000";
    for (method, body) in [(post.clone(), list.clone()), (get.clone(), String::new())] {
        let as_foreign = legacy(method.clone(), &url, HOSTILE, Some(&session)).body(body.clone());
        let as_unknown = legacy(method.clone(), &url, HOSTILE, Some(unknown)).body(body);
        let (foreign, unknown) = (answered(as_foreign).await?, answered(as_unknown).await?);
        ensure!(foreign.0 == 404, "{method} in another client's session: {foreign:?}");
        ensure!(foreign == unknown, "{method}: {foreign:?} tells it from {unknown:?}");
    }
    let ended = answered(legacy(delete.clone(), &url, HOSTILE, Some(&session))).await?;
    ensure!(ended.0 == 404, "DELETE of another client's session: {ended:?}");
    // The session is untouched, and still answers the client that opened it.
    let (status, body) = answered(legacy(post, &url, HONEST, Some(&session)).body(list)).await?;
    ensure!(status == 200 && body.contains("app__read_windows"), "{status}: {body}");
    let (status, _) = answered(legacy(get, &url, HONEST, Some(&session))).await?;
    ensure!(status == 200, "its own GET stream: {status}");
    let (status, _) = answered(legacy(delete, &url, HONEST, Some(&session))).await?;
    ensure!(status == 204, "its own DELETE: {status}");
    server.shutdown().await;
    Ok(())
}

/// What a test's own log lines say.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().map_err(|_| std::io::ErrorKind::Other)?.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// RELIABILITY.md inventory, "who asks": the logs of asking and answering
/// name the asker as the question does, by its credential, never by the
/// name it gives itself. (One thread: the subscriber hears every task.)
#[tokio::test(flavor = "current_thread")]
async fn s12_the_logs_name_the_asker_by_its_credential() -> Result<()> {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("purview=info"))
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let app = purview::App::builder().build();
    let payment = app.open(Payment::default())?;
    let queue = purview::approval::ApprovalQueue::new();
    app.set_approver(queue.clone());
    let options = HttpOptions::default().client("hostile", HOSTILE).client("honest", HONEST);
    let server = app.serve_http(options).await?;
    let client = connect_as(&server.url(), HOSTILE, "honest").await?;
    let tool = format!("{}__pay", payment.id());
    let asking = tokio::spawn(async move {
        let outcome = call(&client, &tool, json!({"amount": 5})).await;
        let _ = client.cancel().await;
        outcome
    });
    let asked = pending(&queue, 1).await?;
    queue.answer(asked[0].id, purview::approval::Approval::Decline);
    ensure!(asking.await??["reason"] == "declined");
    server.shutdown().await;
    let text = String::from_utf8_lossy(&logs.0.lock().map_err(|_| anyhow::anyhow!("poisoned"))?)
        .into_owned();
    for said in ["asking for approval", "approval not given"] {
        let line = text.lines().find(|l| l.contains(said)).context(said.to_owned())?;
        ensure!(line.contains("client=hostile"), "{line}");
    }
    ensure!(!text.contains("client=honest"), "{text}");
    Ok(())
}

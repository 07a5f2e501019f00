//! What a hostile or buggy client could do to the reference app before, one
//! regression test per finding, each driving the real binary over stdio or
//! the real HTTP transport: crashes, secrets leaking into logs, unbounded
//! growth, connections held open, amplified answers, frames without an
//! answer, and the reference app's own weak spots.

use std::{
    process::Stdio,
    time::{Duration, Instant},
};

use anyhow::{Context as _, Result, ensure};
use purview::{http::HttpOptions, settings::Limits, settings::ToolSurface};
use purview_tests::{Agent, Editor, demo_app_on};
use rmcp::transport::{
    StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpStream,
};

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");

/// What a run of the binary left behind.
struct Run {
    status: Option<i32>,
    stdout: Vec<Value>,
    stderr: String,
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "0"}}})
}

fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

/// A line to write, or (an empty one) a pause for a backoff to pass.
const PAUSE: &[u8] = b"";

/// Runs order_desk on stdio with `frames` written one per line (raw bytes
/// allowed; an empty frame pauses 1.2 s), waits `settle` after the last one
/// so answers can come back, closes stdin and collects everything.
async fn stdio(env: &[(&str, &str)], frames: Vec<Vec<u8>>, settle: Duration) -> Result<Run> {
    let mut child = tokio::process::Command::new(ORDER_DESK)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let stdout = child.stdout.take().context("stdout")?;
    let mut stderr = child.stderr.take().context("stderr")?;
    let reader = tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        let mut out = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            out.push(serde_json::from_str::<Value>(&line).unwrap_or(Value::String(line)));
        }
        out
    });
    let errors = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text).await;
        text
    });
    for frame in frames {
        if frame == PAUSE {
            tokio::time::sleep(Duration::from_millis(1200)).await;
            continue;
        }
        stdin.write_all(&frame).await?;
        stdin.write_all(b"\n").await?;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(settle).await;
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await??;
    Ok(Run { status: status.code(), stdout: reader.await?, stderr: errors.await? })
}

fn line(value: &Value) -> Vec<u8> {
    value.to_string().into_bytes()
}

fn answer(run: &Run, id: u64) -> Result<&Value> {
    run.stdout
        .iter()
        .find(|m| m["id"] == id)
        .with_context(|| format!("no answer to {id}: {:?}", run.stdout))
}

const SECRET: &str = "TOPSECRET123";

#[tokio::test]
async fn s3_a_notification_before_initialize_neither_crashes_nor_leaks() -> Result<()> {
    // Once alone, as the finding reported it.
    let early = json!({"jsonrpc": "2.0", "method": "notifications/x", "params": {"pin": SECRET}});
    let run = stdio(&[("RUST_LOG", "trace")], vec![line(&early)], Duration::ZERO).await?;
    ensure!(run.status == Some(0), "exit {:?}: {}", run.status, run.stderr);
    ensure!(run.stdout.is_empty(), "stdout: {:?}", run.stdout);
    ensure!(!run.stderr.contains(SECRET), "the secret reached stderr:\n{}", run.stderr);
    // And followed by a real session, which still works.
    let frames =
        vec![line(&early), line(&initialized()), line(&initialize(1)), line(&initialized())];
    let run = stdio(&[("RUST_LOG", "trace")], frames, Duration::from_millis(200)).await?;
    ensure!(answer(&run, 1)?["result"]["serverInfo"]["name"] == "order_desk");
    ensure!(!run.stderr.contains(SECRET));
    Ok(())
}

#[tokio::test]
async fn jsonrpc_every_malformed_frame_gets_the_answer_it_is_owed_over_stdio() -> Result<()> {
    let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let frames = vec![
        line(&initialize(1)),
        line(&initialized()),
        b"{not json".to_vec(),
        nested.into_bytes(),
        br#"{"id": 7, "method": "ping"}"#.to_vec(),
        br#"{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": 5}}"#.to_vec(),
        vec![b'x'; 17 * 1024 * 1024],
        line(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"})),
    ];
    let run = stdio(&[], frames, Duration::from_millis(300)).await?;
    let errors: Vec<(Value, i64)> = run
        .stdout
        .iter()
        .filter_map(|m| Some((m["id"].clone(), m["error"]["code"].as_i64()?)))
        .collect();
    let expected = [
        (Value::Null, -32700),
        (Value::Null, -32700),
        (json!(7), -32600),
        (json!(8), -32602),
        (Value::Null, -32600),
    ];
    ensure!(errors == expected, "answers: {errors:?}");
    ensure!(answer(&run, 9)?["result"] == json!({}), "the session goes on after all that");
    ensure!(run.status == Some(0));
    Ok(())
}

#[tokio::test]
async fn s4_5_what_agents_send_stays_out_of_the_logs_whatever_rust_log_says() -> Result<()> {
    let password = "pw-TOPSECRET-77";
    let frames = |value: &str| {
        vec![
            line(&initialize(1)),
            line(&initialized()),
            line(&call(2, "w1__set_password", json!({"password": value}))),
        ]
    };
    let noisy = [("RUST_LOG", "trace,rmcp::service=debug,rmcp=trace")];
    let run = stdio(&noisy, frames(password), Duration::from_millis(200)).await?;
    ensure!(answer(&run, 2)?["result"]["isError"] == false);
    ensure!(run.stderr.contains("action applied"), "logs are on: {}", run.stderr);
    ensure!(!run.stderr.contains(password), "the password reached the logs");
    // The guard is what keeps it out: opting into wire logs shows it.
    let wire = [("RUST_LOG", "rmcp=debug"), ("PURVIEW_LOG_WIRE", "1")];
    let run = stdio(&wire, frames(password), Duration::from_millis(200)).await?;
    ensure!(run.stderr.contains(password), "PURVIEW_LOG_WIRE=1 should show wire logs");
    Ok(())
}

#[tokio::test]
async fn a_client_string_cannot_forge_a_log_line() -> Result<()> {
    let frames = vec![
        line(&initialize(1)),
        line(&initialized()),
        line(&call(2, "w1__nope\nFORGED: admin logged in \u{1b}[31mred", json!({}))),
    ];
    let run = stdio(&[("RUST_LOG", "info")], frames, Duration::from_millis(200)).await?;
    ensure!(answer(&run, 2)?["result"]["isError"] == true);
    // The rejection is logged, on one line, with the newline and the
    // terminal escape written out rather than acted on.
    let logged: Vec<&str> = run.stderr.lines().filter(|l| l.contains("call rejected")).collect();
    ensure!(logged.len() == 1, "the rejection is logged once: {}", run.stderr);
    ensure!(logged[0].contains(r"w1__nope\nFORGED"), "{}", logged[0]);
    ensure!(!run.stderr.lines().any(|l| l.starts_with("FORGED")), "{}", run.stderr);
    ensure!(!run.stderr.contains('\u{1b}'), "a raw escape reached the log: {:?}", run.stderr);
    Ok(())
}

#[tokio::test]
async fn answers_stay_small_whatever_the_request_repeats() -> Result<()> {
    // As many as fit the transport's budget of 65,536 JSON values (more are
    // refused before parsing, `memory.rs`).
    let unknown: serde_json::Map<String, Value> =
        (0..30_000).map(|i| (format!("unknown_argument_{i:06}"), json!(1))).collect();
    let long_name = format!("w1__{}", "n".repeat(10 * 1024 * 1024));
    let frames = vec![
        line(&initialize(1)),
        line(&initialized()),
        line(&call(2, "w1__focus", Value::Object(unknown))),
        line(&call(3, &long_name, json!({}))),
    ];
    let run = stdio(&[], frames, Duration::from_millis(500)).await?;
    for id in [2, 3] {
        let reply = answer(&run, id)?;
        ensure!(reply["result"]["isError"] == true, "{reply}");
        let size = reply.to_string().len();
        ensure!(size < 8 * 1024, "answer {id} is {size} bytes");
    }
    Ok(())
}

#[tokio::test]
async fn oversized_values_are_refused_not_stored() -> Result<()> {
    let huge = "R".repeat(70 * 1024);
    let frames = vec![
        line(&initialize(1)),
        line(&initialized()),
        line(&call(2, "w1__edit_field", json!({"field": "recipient", "value": huge}))),
        line(&call(3, "app__read_windows", json!({}))),
    ];
    let run = stdio(&[], frames, Duration::from_millis(300)).await?;
    let refused = &answer(&run, 2)?["result"]["structuredContent"];
    ensure!(refused["code"] == "validation_failed", "{refused}");
    ensure!(
        refused["fields"][0]["error"].as_str().unwrap_or_default().contains("limit"),
        "{refused}"
    );
    ensure!(answer(&run, 3)?.to_string().len() < 64 * 1024, "the value was not stored");
    Ok(())
}

#[tokio::test]
async fn s10_3_an_agent_cannot_open_windows_without_bound() -> Result<()> {
    let app = purview::App::builder()
        .tool_surface(ToolSurface::Windows)
        .limits(Limits::default().max_windows(3))
        .app_actions(purview_tests::AppMenu)
        .build();
    let agent = Agent::legacy(&app).await?;
    for _ in 0..3 {
        let opened = agent.call("app__new_editor", json!({})).await?;
        ensure!(!opened.is_error, "{opened:?}");
    }
    let refused = agent.call("app__new_editor", json!({})).await?;
    ensure!(refused.code() == Some("limit_reached"), "{refused:?}");
    ensure!(refused.structured["message"].as_str().unwrap_or_default().contains("(3)"));
    ensure!(agent.read().await?.windows.len() == 3, "nothing was opened");
    let person = app.open(Editor::default());
    ensure!(matches!(person, Err(purview::Error::LimitReached { limit: 3, .. })), "{person:?}");
    Ok(())
}

#[tokio::test]
async fn s12_binding_beyond_loopback_needs_a_token() -> Result<()> {
    let refused =
        tokio::process::Command::new(ORDER_DESK).args(["--http", "0.0.0.0:0"]).output().await?;
    let stderr = String::from_utf8_lossy(&refused.stderr);
    ensure!(refused.status.code() == Some(1), "{stderr}");
    ensure!(stderr.contains("--token"), "the message says what to do: {stderr}");
    // In-process, with a token: a LAN client pretending to be local gets 401.
    let app = demo_app_on(ToolSurface::Both);
    let open = app.serve_http(HttpOptions::default().addr("0.0.0.0:0".parse()?)).await;
    ensure!(open.is_err(), "no token, no remote serving");
    let server = app
        .serve_http(
            HttpOptions::default().addr("0.0.0.0:0".parse()?).bearer_token("lan-secret-0123456789"),
        )
        .await?;
    let url = format!("http://127.0.0.1:{}/mcp", server.local_addr().port());
    let denied =
        reqwest::Client::new().post(&url).header("host", "localhost").body("{}").send().await?;
    ensure!(denied.status() == 401, "{}", denied.status());
    server.shutdown().await;
    Ok(())
}

/// Opens a TCP connection and sends the start of a request, never its end.
async fn half_request(addr: std::net::SocketAddr) -> Result<TcpStream> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Slow: ").await?;
    Ok(stream)
}

/// Whether the server closed `stream` within `limit`.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut buffer = [0u8; 1024];
    loop {
        match tokio::time::timeout(limit, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue, // an error response before closing
            Err(_) => return false,
        }
    }
}

#[tokio::test]
async fn s12_half_sent_requests_are_cut_off_and_cannot_lock_out_a_client() -> Result<()> {
    let app = demo_app_on(ToolSurface::Both);
    app.open(Editor::default())?;
    let options = HttpOptions::default()
        .bearer_token("t0ken-0123456789abcdef")
        .header_timeout(Duration::from_millis(300))
        .max_connections(4);
    let server = app.serve_http(options).await?;
    let mut slow = Vec::new();
    for _ in 0..4 {
        slow.push(half_request(server.local_addr()).await?);
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    // A fifth connection makes room by cutting its own client's oldest
    // half-sent one (it used to be refused, so that idle ones could lock
    // others out).
    slow.push(half_request(server.local_addr()).await?);
    ensure!(
        closed_within(&mut slow[0], Duration::from_millis(200)).await,
        "a fifth connection cuts the oldest half-sent one"
    );
    let started = Instant::now();
    for stream in &mut slow[1..] {
        ensure!(
            closed_within(stream, Duration::from_secs(3)).await,
            "a half-sent request stayed open"
        );
    }
    ensure!(started.elapsed() < Duration::from_secs(2), "cut off after the header timeout");
    // With the slow ones gone, an authenticated client gets in.
    let config = StreamableHttpClientTransportConfig::with_uri(server.url())
        .auth_header("t0ken-0123456789abcdef");
    let agent = Agent::over(StreamableHttpClientTransport::from_config(config)).await?;
    ensure!(agent.read().await?.windows.len() == 1);
    agent.close().await?;
    server.shutdown().await;
    Ok(())
}

/// Sends raw HTTP and returns the status line.
async fn raw_status(addr: std::net::SocketAddr, head: &str) -> Result<String> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(head.as_bytes()).await?;
    let mut reply = String::new();
    let mut reader = BufReader::new(stream);
    reader.read_line(&mut reply).await?;
    Ok(reply.trim().to_owned())
}

#[tokio::test]
async fn s12_ambiguous_host_headers_are_refused() -> Result<()> {
    let app = demo_app_on(ToolSurface::Both);
    let server = app.serve_http(HttpOptions::default()).await?;
    let addr = server.local_addr();
    let body = initialize(1).to_string();
    let request = |hosts: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\n{hosts}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let userinfo = raw_status(addr, &request("Host: evil.com@127.0.0.1\r\n")).await?;
    ensure!(userinfo.contains(" 400 "), "{userinfo}");
    let twice = raw_status(addr, &request("Host: localhost\r\nHost: evil.com\r\n")).await?;
    ensure!(twice.contains(" 400 "), "{twice}");
    let fine = raw_status(addr, &request("Host: localhost\r\n")).await?;
    ensure!(fine.contains(" 200 "), "{fine}");
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn jsonrpc_a_json_syntax_error_over_http_is_a_parse_error() -> Result<()> {
    let app = demo_app_on(ToolSurface::Both);
    let server = app.serve_http(HttpOptions::default()).await?;
    let reply = reqwest::Client::new()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(format!("{{\"secret\": \"{SECRET}\", oops"))
        .send()
        .await?;
    ensure!(reply.status() == 400, "{}", reply.status());
    let text = reply.text().await?;
    ensure!(text.contains("-32700") && !text.contains(SECRET), "{text}");
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn s12_http_sessions_and_listen_streams_are_bounded() -> Result<()> {
    let app = demo_app_on(ToolSurface::Both);
    let server = app.serve_http(HttpOptions::default().max_sessions(2)).await?;
    let connect = || Agent::over(StreamableHttpClientTransport::from_uri(server.url()));
    let (first, second) = (connect().await?, connect().await?);
    ensure!(connect().await.is_err(), "a third session is refused");
    first.close().await?;
    // Closing one frees its slot (the client ends its session).
    let mut third = None;
    for _ in 0..50 {
        if let Ok(agent) = connect().await {
            third = Some(agent);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    ensure!(third.is_some(), "a slot came back");
    second.close().await?;
    server.shutdown().await;
    // One connection may not open listen streams without bound: extra
    // ones are acknowledged by rmcp, then ended at once with an error.
    let modern = Agent::modern(&app).await?;
    for _ in 0..20 {
        let _ = modern.listen().await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let held = app.session_count();
    ensure!(held == 8, "one connection holds {held} listen streams, not at most 8");
    Ok(())
}

#[tokio::test]
async fn order_desk_pin_guessing_is_slowed_down() -> Result<()> {
    let mut frames = vec![
        line(&initialize(1)),
        line(&initialized()),
        line(&call(2, "app__lock", json!({}))),
        PAUSE.to_vec(),
    ];
    for id in 3..6 {
        frames.push(line(&call(id, "w3__unlock", json!({"pin": "0000"}))));
    }
    frames.push(line(&call(6, "w3__unlock", json!({"pin": "1234"}))));
    frames.push(PAUSE.to_vec());
    frames.push(line(&call(7, "w3__unlock", json!({"pin": "1234"}))));
    let run = stdio(&[], frames, Duration::from_millis(200)).await?;
    for id in 3..6 {
        let wrong = &answer(&run, id)?["result"]["structuredContent"];
        ensure!(wrong["fields"][0]["error"] == "wrong PIN", "{wrong}");
    }
    let wait = &answer(&run, 6)?["result"]["structuredContent"];
    ensure!(wait["code"] == "validation_failed", "even the right PIN waits: {wait}");
    ensure!(wait["fields"][0]["error"].as_str().unwrap_or_default().contains("next try"), "{wait}");
    let after = &answer(&run, 7)?["result"];
    ensure!(after["isError"] == false, "after the wait the right PIN works: {after}");
    Ok(())
}

#[tokio::test]
async fn order_desk_refuses_fractions_of_a_cent_and_control_characters() -> Result<()> {
    let frames = vec![
        line(&initialize(1)),
        line(&initialized()),
        line(&call(2, "w1__edit_field", json!({"field": "amount", "value": "0.001"}))),
        line(&call(3, "w1__set_details", json!({"recipient": "Ada", "amount": 1e-9}))),
        line(&call(4, "w1__edit_field", json!({"field": "recipient", "value": "Ada\u{0}"}))),
        line(&call(
            5,
            "w1__edit_field",
            json!({"field": "recipient", "value": "Ada\u{202E}ecilA"}),
        )),
        line(&call(6, "w1__edit_field", json!({"field": "recipient", "value": "\u{1b}[31mAda"}))),
        line(&call(7, "w1__edit_field", json!({"field": "amount", "value": "12.50"}))),
        // What the third probe forged an approval question with: a line
        // separator, the Arabic letter mark, a zero-width space, a tag.
        line(&call(8, "w1__set_details", json!({"recipient": "Al\u{2028}ice", "amount": 1}))),
        line(&call(9, "w1__edit_field", json!({"field": "recipient", "value": "A\u{061C}da"}))),
        line(&call(10, "w1__edit_field", json!({"field": "recipient", "value": "A\u{200B}da"}))),
        line(&call(11, "w1__edit_field", json!({"field": "recipient", "value": "Ada\u{E0041}"}))),
    ];
    let run = stdio(&[], frames, Duration::from_millis(300)).await?;
    for id in (2..=6).chain(8..=11) {
        let refused = &answer(&run, id)?["result"]["structuredContent"];
        ensure!(refused["code"] == "validation_failed", "call {id}: {refused}");
    }
    ensure!(answer(&run, 7)?["result"]["isError"] == false, "whole cents are fine");
    Ok(())
}

#[tokio::test]
async fn s12_a_resumed_stream_counts_against_the_per_session_limit() -> Result<()> {
    let app = demo_app_on(ToolSurface::Both);
    let server = app.serve_http(HttpOptions::default().max_streams_per_session(1)).await?;
    let client = reqwest::Client::new();
    let post = |session: Option<&str>, body: Value| {
        let mut request = client
            .post(server.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let init = post(None, initialize(1)).await?;
    let session =
        init.headers().get("mcp-session-id").context("a session id")?.to_str()?.to_owned();
    init.text().await?;
    post(Some(&session), initialized()).await?.text().await?;
    let get = |last_event_id: Option<&str>| {
        let mut request = client
            .get(server.url())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        request.send()
    };
    let first = get(None).await?;
    ensure!(first.status() == 200, "the first stream opens: {}", first.status());
    let second = get(None).await?;
    ensure!(second.status() != 200, "a second stream is refused");
    // A refused resume is an empty stream that ends at once (rmcp answers
    // 200 so that an EventSource does not retry forever); a granted one
    // would stay open.
    let resumed = get(Some("0")).await?;
    let body = tokio::time::timeout(Duration::from_secs(2), resumed.text()).await;
    ensure!(
        matches!(&body, Ok(Ok(text)) if text.is_empty()),
        "resuming does not get round the limit: {body:?}"
    );
    drop(first);
    let mut reopened = false;
    for _ in 0..50 {
        if get(None).await?.status() == 200 {
            reopened = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    ensure!(reopened, "closing the stream gives its slot back");
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn s6_a_subscription_beyond_the_subscriber_limit_is_refused_clearly() -> Result<()> {
    let app = purview_tests::demo_builder()
        .limits(Limits::default().max_subscribers(1))
        .coalesce(Duration::ZERO)
        .build();
    app.open(Editor::default())?;
    let first = Agent::legacy(&app).await?;
    first.subscribe().await?;
    let second =
        Agent::eliciting(&app, purview_tests::Elicitation::new(purview_tests::Elicit::Decline))
            .await?;
    let refused = second.subscribe().await.expect_err("beyond the limit");
    let message = format!("{refused:#}");
    ensure!(message.contains("app://windows"), "says reading still works: {message}");
    ensure!(message.contains("notification subscribers"), "names the limit: {message}");
    // Reading still works for the refused session.
    ensure!(second.read().await?.windows.len() == 1);
    Ok(())
}

/// A window whose `hold` action keeps the operation lock until released.
#[derive(Clone)]
struct Holder {
    release: std::sync::Arc<tokio::sync::Notify>,
    entered: std::sync::Arc<tokio::sync::Notify>,
}

impl purview::Window for Holder {
    fn title(&self) -> String {
        "Holder".into()
    }
    fn project(&self, view: &mut purview::View) {
        view.summary("Holds the operation lock on request");
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Named {
    /// Any name.
    #[allow(dead_code)]
    name: String,
}

impl purview::Actions for Holder {
    fn actions() -> Vec<purview::ActionSpec> {
        vec![
            purview::ActionSpec::new("hold").timeout(Duration::from_secs(60)),
            purview::ActionSpec::new("rename").input::<Named>(),
        ]
    }
    fn call<'a>(
        &'a mut self,
        action: &'a str,
        _: purview::Args,
        _: &'a mut purview::Context,
    ) -> purview::by_hand::BoxFuture<'a, Result<purview::ActionOutput, purview::ToolError>> {
        Box::pin(async move {
            if action == "hold" {
                self.entered.notify_one();
                self.release.notified().await;
            }
            Ok(purview::ActionOutput::message("done"))
        })
    }
}

#[tokio::test]
async fn s7_3_bad_arguments_are_refused_while_another_call_holds_the_operation_lock() -> Result<()>
{
    let app = purview::App::builder().build();
    let (release, entered) = (Default::default(), std::sync::Arc::new(tokio::sync::Notify::new()));
    let holder = Holder { release, entered: entered.clone() };
    let window = app.open(holder.clone())?;
    let hold = {
        let (app, tool) = (app.clone(), format!("{}__hold", window.id()));
        tokio::spawn(async move { app.call(&tool, None).await })
    };
    entered.notified().await; // the handler runs: the lock is held
    // A call with a wrong argument needs no lock to be refused: it answers
    // now, while the handler above still waits. (Were validation under the
    // lock, this would wait for a release that comes only after it.)
    // Large, but under the 64 KiB string limit, so the full schema check
    // (not the size check before it) is what refuses the call.
    let big = "x".repeat(60_000);
    let refused = tokio::time::timeout(
        Duration::from_secs(10),
        app.call(
            &format!("{}__rename", window.id()),
            json!({"name": 5, "extra": big}).as_object().cloned(),
        ),
    )
    .await
    .context("validation waited for the operation lock")?
    .unwrap_err();
    ensure!(refused.code == purview::model::ErrorCode::ValidationFailed, "{refused:?}");
    let fields: Vec<&str> = refused.fields.iter().flatten().map(|f| f.field.as_str()).collect();
    ensure!(
        fields.contains(&"name") && fields.contains(&"extra"),
        "the schema's verdict: {fields:?}"
    );
    ensure!(!hold.is_finished(), "the holder still holds the lock");
    holder.release.notify_one();
    hold.await?.map_err(|e| anyhow::anyhow!("{e:?}"))?;
    Ok(())
}

/// RELIABILITY.md "A buggy client": `{"offset":1e400}` was answered with a
/// parse error and `id: null`, so the client could not match it; a ping
/// carrying 2026-07-28 `_meta` got `-32601` with the bare message "ping";
/// `app__read_windows` arguments were held to no limit (1.35 MB of ids
/// accepted; 1.3 M ids took 3.4 s of CPU while a `focus` waited).
#[tokio::test]
async fn jsonrpc_out_of_range_numbers_pings_and_huge_reads_get_answers_that_say_why() -> Result<()>
{
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    let huge_offset =
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w2__load_rows","arguments":{"offset":1e400,"limit":5}}}"#;
    let ids: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
    let padding = "x".repeat(60 * 1024);
    let frames = vec![
        line(&initialize(1)),
        line(&initialized()),
        huge_offset.to_vec(),
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{{meta}}}}}"#).into_bytes(),
        line(&call(4, "app__read_windows", json!({"windows": ids}))),
        line(&call(5, "app__read_windows", json!({"windows": vec![padding; 20]}))),
        line(&call(6, "app__read_windows", json!({"windows": ["w1"]}))),
    ];
    let run = stdio(&[], frames, Duration::from_millis(300)).await?;
    let refused = &answer(&run, 2)?["result"]["structuredContent"];
    ensure!(refused["code"] == "validation_failed", "{refused}");
    ensure!(refused["fields"][0]["field"] == "offset", "{refused}");
    let ping = &answer(&run, 3)?["error"];
    ensure!(ping["code"] == -32601, "{ping}");
    ensure!(ping["message"].as_str().is_some_and(|m| m.contains("2026-07-28")), "{ping}");
    for id in [4, 5] {
        let refused = &answer(&run, id)?["result"]["structuredContent"];
        ensure!(refused["code"] == "validation_failed", "call {id}: {refused}");
        ensure!(refused.to_string().len() < 1024, "call {id}: {refused}");
    }
    ensure!(answer(&run, 6)?["result"]["isError"] == false, "a plain read still works");
    Ok(())
}

/// Mistakes only a run reveals are named on stderr: serving with no window
/// open (agents saw `{"windows":[]}`, and the kit only said "give the walk
/// more --steps").
#[tokio::test]
async fn serving_with_no_window_open_is_named_on_stderr() -> Result<()> {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_test_app"))
        .arg("--no-window")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .await?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    ensure!(stderr.contains("no window open") && stderr.contains("App::open"), "{stderr}");
    Ok(())
}

/// A log writer that keeps what it is given, for tests that read the log.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An `#[actions(app)]` type the app never installs: agents would simply
/// never see its tools. Serving says so, naming the type, its tools and the
/// line to add; an app that installs it hears nothing about it.
#[tokio::test]
async fn app_actions_never_installed_are_named_when_serving() -> Result<()> {
    #[derive(Clone)]
    struct ClinicDay;

    #[purview::actions(app)]
    impl ClinicDay {
        /// Close the books for today.
        #[action(destructive)]
        fn close_books(&mut self) {}
    }

    async fn served_log(app: purview::App) -> Result<String> {
        let log = Captured::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_max_level(tracing::Level::WARN)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        app.open(Editor::default())?;
        let server = app.serve_http(purview::http::HttpOptions::default()).await?;
        server.shutdown().await;
        Ok(String::from_utf8_lossy(&log.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned())
    }
    let forgotten = served_log(purview::App::builder().build()).await?;
    ensure!(
        forgotten.contains("`ClinicDay` declares app-level actions (app__close_books)"),
        "{forgotten}"
    );
    ensure!(forgotten.contains(".app_actions(ClinicDay"), "says what to add: {forgotten}");
    let installed = served_log(purview::App::builder().app_actions(ClinicDay).build()).await?;
    ensure!(!installed.contains("`ClinicDay`"), "{installed}");
    // The kit's report says it too, above its checks.
    let report = purview_conformance::Explorer::new()
        .steps(5)
        .explore(|| {
            let app = purview::App::builder().build();
            app.open(Editor::default()).expect("a window");
            app
        })
        .await;
    ensure!(report.setup.iter().any(|s| s.contains("`ClinicDay`")), "{:?}", report.setup);
    ensure!(report.to_string().contains("setup: `ClinicDay` declares"), "{report}");
    Ok(())
}

/// A dialog's handler that updates its owner as the wrong type: the agent
/// gets `action_failed`, and the developer a log line naming the action,
/// the window and both types (nothing was said before).
#[tokio::test]
async fn an_update_of_a_window_of_another_type_names_both_types_in_the_log() -> Result<()> {
    #[purview::window(title = "Dialog")]
    #[derive(Clone, Default)]
    struct Dialog;

    #[purview::actions]
    impl Dialog {
        /// Marks the owner as done (with the wrong type).
        #[action]
        fn done(&mut self, cx: &mut purview::Context) {
            let owner = cx.owner_id().unwrap_or_default();
            cx.update::<Dialog>(&owner, |_| {});
        }
    }

    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::WARN)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let app = demo_app_on(ToolSurface::Both);
    let editor = app.open(Editor::default())?;
    let dialog = editor.open_modal(Dialog)?;
    let refused = app.call(&format!("{}__done", dialog.id()), None).await;
    let code = refused.err().map(|e| e.code.to_string());
    ensure!(code.as_deref() == Some("action_failed"), "{code:?}");
    let text =
        String::from_utf8_lossy(&log.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
    ensure!(text.contains("action") && text.contains("done"), "{text}");
    ensure!(text.contains("Dialog") && text.contains("Editor"), "both types named: {text}");
    Ok(())
}

/// The typed way for a dialog to act on its owner: `cx.update_owner::<W>`
/// checks the owner's type when it is called, so the mistake above fails
/// the call at once with a message naming the owner and the type asked
/// for, and nothing the call did applies; with the right type the edit
/// lands with the call.
#[tokio::test]
async fn update_owner_names_a_wrong_type_at_once_and_edits_the_right_one() -> Result<()> {
    #[purview::window(title = "Counter", summary = "Counted {count}")]
    #[derive(Clone, Default)]
    struct Counter {
        count: u32,
    }

    #[purview::actions]
    impl Counter {}

    #[purview::window(title = "Ask")]
    #[derive(Clone, Default)]
    struct Ask;

    #[purview::actions]
    impl Ask {
        /// Counts one on the owner, then closes.
        #[action]
        fn count(&mut self, cx: &mut purview::Context) -> Result<(), purview::ToolError> {
            cx.update_owner::<Counter>(|c| c.count += 1)?;
            cx.close();
            Ok(())
        }
        /// Asks for the owner as the wrong type, then closes.
        #[action]
        fn wrong(&mut self, cx: &mut purview::Context) -> Result<(), purview::ToolError> {
            cx.close();
            cx.update_owner::<Ask>(|_| {})?;
            Ok(())
        }
    }

    let app = purview::App::builder().build();
    let counter = app.open(Counter::default())?;
    let ask = counter.open_modal(Ask)?;
    let refused = app.call(&format!("{}__wrong", ask.id()), None).await.err();
    let refused = refused.ok_or_else(|| anyhow::anyhow!("the wrong type was accepted"))?;
    ensure!(refused.code.to_string() == "action_failed", "{refused:?}");
    let message = refused.message.to_string();
    ensure!(message.contains(counter.id()) && message.contains("Ask"), "{message}");
    ensure!(app.window_list()?.len() == 2, "the close did not apply: {:?}", app.window_list()?);
    app.call(&format!("{}__count", ask.id()), None).await.map_err(|e| anyhow::anyhow!("{e:?}"))?;
    ensure!(counter.read(|c| c.count)? == 1);
    ensure!(app.window_list()?.len() == 1);
    // In a window that is not a modal there is no owner to edit.
    let lone = app.open(Ask)?;
    let refused = app.call(&format!("{}__count", lone.id()), None).await.err();
    let message = refused.map(|e| e.message.to_string()).unwrap_or_default();
    ensure!(message.contains("has no owner"), "{message}");
    Ok(())
}

//! §9 tools/list and §4 `app://windows` over streamable HTTP, answered from
//! bytes written once per change (`purview/src/server/http/shared_reads.rs`):
//! the same `result` rmcp writes, for sessions of the revisions before
//! 2026-07-28 and for 2026-07-28 requests, with and without the card's
//! tools; what rmcp refuses is still refused in its words.

use anyhow::{Context as _, Result, ensure};
use purview::http::{
    HttpOptions,
    mcp_apps::{Card, CardReply, CardTool},
};
use purview_tests::{Editor, demo_app, demo_app_on};
use serde_json::{Value, json};

/// Renders cards, as an MCP Apps host declares it.
fn card_host() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

/// An answer: its status, its content type and its JSON-RPC message (an
/// event stream's one message with a `result` or an `error`).
struct Answer {
    status: u16,
    kind: String,
    message: Value,
    session: Option<String>,
}

impl Answer {
    fn result(&self) -> Result<&Value> {
        self.message.get("result").with_context(|| format!("no result: {}", self.message))
    }

    fn tool_names(&self) -> Result<Vec<String>> {
        let tools = self.result()?["tools"].as_array().context("no tools")?;
        Ok(tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect())
    }
}

async fn post(url: &str, headers: &[(&str, &str)], body: Value) -> Result<Answer> {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string());
    let accept = headers.iter().any(|(k, _)| *k == "accept");
    if !accept {
        request = request.header("accept", "application/json, text/event-stream");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let reply = request.send().await?;
    let status = reply.status().as_u16();
    let kind = reply
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let session =
        reply.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let text = reply.text().await?;
    let message = if kind.starts_with("text/event-stream") {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    Ok(Answer { status, kind, message, session })
}

/// A session of 2025-11-25 opened with `capabilities`: its id.
async fn open_session(url: &str, capabilities: Value) -> Result<String> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "lister", "version": "0"}}});
    let opened = post(url, &[], init).await?;
    let id = opened.session.context("no session id")?;
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-11-25")];
    ensure!(post(url, &headers, done).await?.status == 202);
    Ok(id)
}

fn list(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
}

fn read_windows(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": "app://windows"}})
}

/// A 2026-07-28 read of `app://windows`.
fn stateless_read(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {
        "uri": "app://windows", "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "reader", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}}}})
}

/// The windows' JSON text an `app://windows` answer carries.
fn windows_text(answer: &Answer) -> Result<Value> {
    let text = answer.result()?["contents"][0]["text"].as_str().context("no text")?;
    Ok(serde_json::from_str(text)?)
}

/// A 2026-07-28 tools/list, from a client with `capabilities`.
fn stateless_list(id: u64, capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "lister", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities}}})
}

const STATELESS: [(&str, &str); 2] =
    [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/list")];

/// `body` with `headers` twice: answered from the shared bytes, and with an
/// Accept header that carries weights (which only rmcp answers). Both
/// must say the same; the shared answer is returned.
async fn shared_and_rmcps(url: &str, headers: &[(&str, &str)], body: Value) -> Result<Answer> {
    let shared = post(url, headers, body.clone()).await?;
    ensure!(shared.kind == "application/json", "{} {}", shared.kind, shared.message);
    ensure!(shared.message["id"] == body["id"], "{}", shared.message);
    let mut weighted = headers.to_vec();
    weighted.push(("accept", "application/json;q=1, text/event-stream;q=0.9"));
    let rmcps = post(url, &weighted, body).await?;
    ensure!(rmcps.kind.starts_with("text/event-stream"), "not rmcp's: {}", rmcps.kind);
    ensure!(shared.result()? == rmcps.result()?, "the shared answer differs from rmcp's");
    Ok(shared)
}

async fn served() -> Result<(purview::App, purview::http::HttpServer)> {
    let app = demo_app();
    // The card's own tool is listed only to a client that renders cards.
    let read = CardTool::new("app__card_read", "Reads.", json!({"type": "object"}), |_, _| {
        Box::pin(async { CardReply::Answer(Value::Null) })
    });
    let card = Card::new("ui://lists/windows", "<p>Windows</p>").with_tool(read);
    let server = app.serve_http(HttpOptions::default().show_card(card)).await?;
    Ok((app, server))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_a_sessions_later_lists_are_the_shared_bytes_of_rmcps_first() -> Result<()> {
    let (app, server) = served().await?;
    let url = server.url();
    for capabilities in [json!({}), card_host()] {
        let id = open_session(&url, capabilities.clone()).await?;
        let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-11-25")];
        // The first list is rmcp's, in an event stream; it makes the
        // session's client known.
        let first = post(&url, &headers, list(2)).await?;
        ensure!(first.kind.starts_with("text/event-stream"), "{}", first.kind);
        let later = post(&url, &headers, list(3)).await?;
        ensure!(later.status == 200 && later.kind == "application/json", "{}", later.kind);
        ensure!(later.message["id"] == 3 && later.message["jsonrpc"] == "2.0", "{}", later.message);
        ensure!(
            first.result()? == later.result()?,
            "the shared list differs from rmcp's:\n{}\n{}",
            first.result()?.to_string().chars().take(600).collect::<String>(),
            later.result()?.to_string().chars().take(600).collect::<String>()
        );
        let cards = later.tool_names()?.iter().any(|n| n.starts_with("app__card"));
        ensure!(cards == (capabilities != json!({})), "card tools: {cards} for {capabilities}");
        // A change of the tool set is in the next list.
        let before = later.tool_names()?;
        let opened = app.open(Editor::default())?;
        let after = post(&url, &headers, list(4)).await?;
        ensure!(after.kind == "application/json", "{}", after.kind);
        let new: Vec<_> = after.tool_names()?.into_iter().filter(|n| !before.contains(n)).collect();
        ensure!(!new.is_empty() && new.iter().all(|n| n.starts_with(opened.id())), "{new:?}");
    }
    server.shutdown().await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_a_stateless_list_is_the_shared_bytes_of_rmcps_answer() -> Result<()> {
    let (_app, server) = served().await?;
    let url = server.url();
    for capabilities in [json!({}), card_host()] {
        let shared =
            shared_and_rmcps(&url, &STATELESS, stateless_list(5, capabilities.clone())).await?;
        let cards = shared.tool_names()?.iter().any(|n| n.starts_with("app__card"));
        ensure!(cards == (capabilities != json!({})), "card tools: {cards} for {capabilities}");
    }
    server.shutdown().await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_a_list_rmcp_refuses_is_still_refused() -> Result<()> {
    let (_app, server) = served().await?;
    let url = server.url();
    // The method header says another method than the body.
    let wrong = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call")];
    let refused = post(&url, &wrong, stateless_list(6, json!({}))).await?;
    ensure!(refused.status == 400, "{} {}", refused.status, refused.message);
    // The body's revision is not the header's.
    let other = [("mcp-protocol-version", "2025-11-25"), ("mcp-method", "tools/list")];
    let refused = post(&url, &other, stateless_list(7, json!({}))).await?;
    ensure!(refused.status == 400, "{} {}", refused.status, refused.message);
    // A session that does not exist.
    let gone = [("mcp-session-id", "no-such-session"), ("mcp-protocol-version", "2025-11-25")];
    let refused = post(&url, &gone, list(8)).await?;
    ensure!(refused.status == 404, "{} {}", refused.status, refused.message);
    // Neither JSON nor event streams accepted.
    let plain = [("accept", "text/plain")];
    ensure!(post(&url, &plain, list(9)).await?.status == 406);
    server.shutdown().await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s4_a_sessions_later_reads_of_the_windows_are_the_shared_bytes_of_rmcps_first() -> Result<()>
{
    let (app, server) = served().await?;
    let url = server.url();
    let id = open_session(&url, json!({})).await?;
    let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let first = post(&url, &headers, read_windows(2)).await?;
    ensure!(first.kind.starts_with("text/event-stream"), "{}", first.kind);
    let later = post(&url, &headers, read_windows(3)).await?;
    ensure!(later.kind == "application/json" && later.message["id"] == 3, "{}", later.message);
    ensure!(first.result()? == later.result()?, "the shared read differs from rmcp's");
    // A change is in the next read.
    let windows = |answer: &Answer| -> Result<usize> {
        Ok(windows_text(answer)?["windows"].as_array().context("no windows")?.len())
    };
    let before = windows(&later)?;
    app.open(Editor::default())?;
    let after = post(&url, &headers, read_windows(4)).await?;
    ensure!(after.kind == "application/json", "{}", after.kind);
    ensure!(windows(&after)? == before + 1, "{}", after.message);
    server.shutdown().await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s4_a_stateless_read_of_the_windows_is_the_shared_bytes_of_rmcps_answer() -> Result<()> {
    let (_app, server) = served().await?;
    let url = server.url();
    let named = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "resources/read"),
        ("mcp-name", "app://windows"),
    ];
    let shared = shared_and_rmcps(&url, &named, stateless_read(5)).await?;
    ensure!(shared.result()?.get("ttlMs").is_some(), "no cache hints: {}", shared.message);
    // Without the resource's name in the headers, rmcp refuses it.
    let unnamed = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "resources/read")];
    let refused = post(&url, &unnamed, stateless_read(6)).await?;
    ensure!(refused.status == 400, "{} {}", refused.status, refused.message);
    server.shutdown().await;
    Ok(())
}

/// A request in a session that names its own client capabilities is rmcp's
/// to answer (rmcp reads them before the session's), and it changes
/// nothing for the session's later reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_a_list_naming_its_own_capabilities_is_answered_by_rmcp() -> Result<()> {
    let (_app, server) = served().await?;
    let url = server.url();
    let id = open_session(&url, json!({})).await?;
    let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-11-25")];
    ensure!(post(&url, &headers, list(2)).await?.kind.starts_with("text/event-stream"));
    let own = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/clientCapabilities": card_host()}}});
    let asked = post(&url, &headers, own).await?;
    ensure!(asked.kind.starts_with("text/event-stream"), "not rmcp's: {}", asked.kind);
    ensure!(asked.tool_names()?.iter().any(|n| n.starts_with("app__card")), "{}", asked.message);
    let plain = post(&url, &headers, list(4)).await?;
    ensure!(plain.kind == "application/json", "{}", plain.kind);
    ensure!(!plain.tool_names()?.iter().any(|n| n.starts_with("app__card")), "{}", plain.message);
    server.shutdown().await;
    Ok(())
}

/// What the shared reads answer, rmcp would answer alike: a revision
/// header given twice, or one that is not text, and a path that is not
/// the MCP endpoint's, are not answered with the list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_a_read_with_odd_headers_or_elsewhere_gets_no_shared_answer() -> Result<()> {
    let (_app, server) = served().await?;
    let url = server.url();
    let id = open_session(&url, json!({})).await?;
    let session = ("mcp-session-id", id.as_str());
    let known = ("mcp-protocol-version", "2025-11-25");
    ensure!(post(&url, &[session, known], list(2)).await?.kind.starts_with("text/event-stream"));
    ensure!(post(&url, &[session, known], list(3)).await?.kind == "application/json");
    // rmcp reads the first of two and refuses this one.
    let twice = [session, ("mcp-protocol-version", "1999-01-01"), known];
    let answered = post(&url, &twice, list(4)).await?;
    ensure!(answered.status == 400, "{} {} {}", answered.status, answered.kind, answered.message);
    // The other way round it answers, itself.
    let twice = [session, known, ("mcp-protocol-version", "1999-01-01")];
    let answered = post(&url, &twice, list(4)).await?;
    ensure!(answered.kind.starts_with("text/event-stream"), "not rmcp's: {}", answered.kind);
    let elsewhere = url.replace("/mcp", "/elsewhere");
    let answered = post(&elsewhere, &[session, known], list(5)).await?;
    ensure!(answered.status == 404, "{} {}", answered.status, answered.message);
    server.shutdown().await;
    Ok(())
}

/// A session whose client only reads stays open: rmcp's idle clock runs
/// on what rmcp serves, so a read goes to rmcp again once half the idle
/// time has passed since rmcp last saw the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s9_a_session_that_only_reads_never_expires_for_it() -> Result<()> {
    let app = demo_app();
    let options = HttpOptions::default().session_idle(std::time::Duration::from_millis(1600));
    let server = app.serve_http(options).await?;
    let url = server.url();
    let id = open_session(&url, json!({})).await?;
    let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let mut kinds = Vec::new();
    // Four idle times of reads, one every 200 ms.
    for n in 0..32 {
        let answer = post(&url, &headers, list(n + 2)).await?;
        ensure!(answer.status == 200, "read {n}: {} {}", answer.status, answer.message);
        kinds.push(answer.kind.starts_with("application/json"));
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    ensure!(kinds.iter().filter(|shared| !**shared).count() >= 4, "rmcp saw too few: {kinds:?}");
    ensure!(kinds.iter().filter(|shared| **shared).count() >= 16, "too few shared: {kinds:?}");
    server.shutdown().await;
    Ok(())
}

fn read_all(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "app__read_windows", "arguments": {}}})
}

/// A 2026-07-28 call reading every window.
fn stateless_read_all(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "app__read_windows", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "reader", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s8_reading_every_window_is_answered_from_the_shared_bytes_of_rmcps_answer() -> Result<()> {
    let app = demo_app_on(purview::settings::ToolSurface::Both);
    let server = app.serve_http(HttpOptions::default()).await?;
    let url = server.url();
    let id = open_session(&url, json!({})).await?;
    let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let first = post(&url, &headers, read_all(2)).await?;
    ensure!(first.kind.starts_with("text/event-stream"), "{}", first.kind);
    let later = post(&url, &headers, read_all(3)).await?;
    ensure!(later.kind == "application/json" && later.message["id"] == 3, "{}", later.message);
    ensure!(first.result()? == later.result()?, "the shared read differs from rmcp's");
    let count = |answer: &Answer| -> Result<usize> {
        let windows = &answer.result()?["structuredContent"]["windows"];
        Ok(windows.as_array().context("no windows")?.len())
    };
    let before = count(&later)?;
    app.open(Editor::default())?;
    let after = post(&url, &headers, read_all(4)).await?;
    ensure!(after.kind == "application/json" && count(&after)? == before + 1, "{}", after.message);
    // A read narrowed to some windows is the call path's, as it was.
    let narrowed = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "app__read_windows", "arguments": {"windows": ["w1"]}}});
    let narrowed = post(&url, &headers, narrowed).await?;
    ensure!(narrowed.kind.starts_with("text/event-stream"), "{}", narrowed.kind);
    // 2026-07-28: the same bytes as rmcp's answer.
    let named = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "app__read_windows"),
    ];
    shared_and_rmcps(&url, &named, stateless_read_all(6)).await?;
    server.shutdown().await;
    Ok(())
}

//! Progress of long actions (MCP `notifications/progress`): a handler's
//! `cx.progress` reaches the client that sent a `progressToken` with its
//! call, on that session only, before the result, always increasing and
//! ending at the total; a client that sent no token hears nothing. Checked
//! on the wire, line by line over stdio framing and event by event over
//! streamable HTTP, on both protocol generations, with the reference app's
//! long action (`refresh` of Report Details reloads 10,000 rows in batches).

#[path = "../examples/order_desk/windows.rs"]
#[allow(dead_code, missing_docs)]
mod order_desk;

use anyhow::{Context as _, Result, ensure};
use purview::{App, http::HttpOptions, settings::ToolSurface};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

const REFRESH: &str = "w2__refresh";
const ROWS: f64 = 10_000.0;

#[derive(Debug, Clone, Copy)]
enum Generation {
    /// 2025-11-25: an initialize handshake, then plain requests.
    Legacy,
    /// 2026-07-28: no handshake; every request carries its client context.
    Modern,
}

/// The `_meta` of a tools/call: the client context 2026-07-28 requires on
/// every request, and the progress token when the client asks for progress.
fn meta(generation: Generation, token: Option<&Value>) -> Value {
    let mut meta = match generation {
        Generation::Legacy => json!({}),
        Generation::Modern => json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "progress-test", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }),
    };
    if let Some(token) = token {
        meta["progressToken"] = token.clone();
    }
    meta
}

fn call(id: u64, generation: Generation, token: Option<&Value>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": REFRESH, "arguments": {}, "_meta": meta(generation, token)}})
}

/// What one tools/call brought back: the progress notifications that came
/// before the result, in order, and the result.
struct Answered {
    progress: Vec<Value>,
    result: Value,
}

/// One MCP client over stdio framing (`App::serve_io`), reading every line
/// the server writes, in order.
struct LineClient {
    write: WriteHalf<DuplexStream>,
    lines: tokio::io::Lines<BufReader<ReadHalf<DuplexStream>>>,
    generation: Generation,
}

impl LineClient {
    async fn connect(app: &App, generation: Generation) -> Result<Self> {
        let (server_side, client_side) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_side);
        let app = app.clone();
        tokio::spawn(async move { app.serve_io(server_read, server_write).await });
        let (read, write) = tokio::io::split(client_side);
        let mut client = Self { write, lines: BufReader::new(read).lines(), generation };
        if let Generation::Legacy = generation {
            client
                .send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "progress-test", "version": "0"}}}))
                .await?;
            client.answer(0).await?;
            client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
        }
        Ok(client)
    }

    async fn send(&mut self, message: &Value) -> Result<()> {
        self.write.write_all(format!("{message}\n").as_bytes()).await?;
        Ok(())
    }

    /// Reads up to the answer to request `id`, keeping the progress
    /// notifications met on the way.
    async fn answer(&mut self, id: u64) -> Result<Answered> {
        let mut progress = Vec::new();
        loop {
            let line = self.lines.next_line().await?.context("the server closed the stream")?;
            let message: Value = serde_json::from_str(&line)?;
            if message["method"] == "notifications/progress" {
                progress.push(message["params"].clone());
            } else if message["id"] == id && message.get("method").is_none() {
                let result = message.get("result").cloned().context(line)?;
                return Ok(Answered { progress, result });
            }
        }
    }

    async fn refresh(&mut self, id: u64, token: Option<&Value>) -> Result<Answered> {
        self.send(&call(id, self.generation, token)).await?;
        self.answer(id).await
    }
}

/// Progress as MCP requires it and as the asking client should see it:
/// its own token on each, strictly increasing, of the report's total,
/// ending with every row reloaded.
fn check_progress(progress: &[Value], token: &Value) -> Result<()> {
    ensure!(!progress.is_empty(), "no progress reached the client that asked");
    for params in progress {
        ensure!(&params["progressToken"] == token, "another call's token: {params}");
        ensure!(params["total"] == ROWS, "total: {params}");
        ensure!(params["message"].as_str().is_some_and(|m| m.contains("rows")), "{params}");
    }
    let values: Vec<f64> = progress.iter().filter_map(|p| p["progress"].as_f64()).collect();
    ensure!(values.len() == progress.len(), "progress is a number: {progress:?}");
    ensure!(values.windows(2).all(|w| w[0] < w[1]), "progress must increase: {values:?}");
    ensure!(values.last() == Some(&ROWS), "the last report is the whole: {values:?}");
    // Ten batches at most, coalesced.
    ensure!(values.len() <= 10, "{values:?}");
    Ok(())
}

async fn reaches_only_the_session_that_asked(generation: Generation) -> Result<()> {
    let app = order_desk::order_desk_app(ToolSurface::Windows);
    let mut asking = LineClient::connect(&app, generation).await?;
    let mut silent = LineClient::connect(&app, generation).await?;
    let token = json!("reload-1");
    let (asked, not_asked) = tokio::join!(asking.refresh(7, Some(&token)), silent.refresh(7, None));
    let (asked, not_asked) = (asked?, not_asked?);
    ensure!(asked.result["isError"] != true, "{}", asked.result);
    ensure!(not_asked.result["isError"] != true, "{}", not_asked.result);
    check_progress(&asked.progress, &token)?;
    ensure!(
        not_asked.progress.is_empty(),
        "a client that sent no token got progress: {:?}",
        not_asked.progress
    );
    // Asking again with a numeric token starts afresh: a new call's
    // progress is not held to the last call's.
    let again = json!(42);
    check_progress(&asking.refresh(8, Some(&again)).await?.progress, &again)?;
    // And the session that did not ask still hears nothing, after all that.
    ensure!(silent.refresh(9, None).await?.progress.is_empty());
    Ok(())
}

#[tokio::test]
async fn progress_reaches_only_the_session_that_asked_on_2025_11_25() -> Result<()> {
    reaches_only_the_session_that_asked(Generation::Legacy).await
}

#[tokio::test]
async fn progress_reaches_only_the_session_that_asked_on_2026_07_28() -> Result<()> {
    reaches_only_the_session_that_asked(Generation::Modern).await
}

#[tokio::test]
async fn progress_is_nothing_on_the_persons_own_path() -> Result<()> {
    // No client to send it to: the action simply runs, and reports nowhere.
    let app = order_desk::order_desk_app(ToolSurface::Windows);
    let done = app.call(REFRESH, None).by_person().await.map_err(|e| anyhow::anyhow!("{e:?}"))?;
    ensure!(done.message.as_deref() == Some("The report is up to date (10000 rows)"), "{done:?}");
    let in_process = app.call(REFRESH, None).await.map_err(|e| anyhow::anyhow!("{e:?}"))?;
    ensure!(in_process.message == done.message);
    Ok(())
}

/// POSTs one JSON-RPC message to the MCP endpoint.
async fn post(
    client: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> Result<reqwest::Response> {
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    // 2026-07-28 repeats the version, the method and the tool in headers.
    let version = &body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"];
    if let Some(version) = version.as_str() {
        request = request
            .header("mcp-protocol-version", version)
            .header("mcp-method", body["method"].as_str().unwrap_or_default())
            .header("mcp-name", body["params"]["name"].as_str().unwrap_or_default());
    }
    Ok(request.send().await?)
}

/// The JSON-RPC messages of a response: its SSE events in order, or its
/// one JSON body.
async fn messages(response: reqwest::Response) -> Result<Vec<Value>> {
    let sse = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let body = response.text().await?;
    if !sse {
        return Ok(vec![serde_json::from_str(&body)?]);
    }
    Ok(body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect())
}

/// Splits a call's messages into its progress and its result.
fn answered(messages: Vec<Value>, id: u64) -> Result<Answered> {
    let mut progress = Vec::new();
    for message in messages {
        if message["method"] == "notifications/progress" {
            progress.push(message["params"].clone());
        } else if message["id"] == id {
            let result = message.get("result").cloned().context(message.to_string())?;
            return Ok(Answered { progress, result });
        }
    }
    anyhow::bail!("the call's stream ended without its result")
}

/// Opens a legacy HTTP session; returns its id.
async fn http_session(client: &reqwest::Client, url: &str) -> Result<String> {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "progress-test", "version": "0"}}});
    let response = post(client, url, None, &init).await?;
    let session = response.headers().get("mcp-session-id").context("no session id")?;
    let session = session.to_str()?.to_owned();
    response.text().await?;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(client, url, Some(&session), &note).await?.text().await?;
    Ok(session)
}

#[tokio::test]
async fn progress_rides_the_calls_own_http_stream_on_both_generations() -> Result<()> {
    let app = order_desk::order_desk_app(ToolSurface::Windows);
    let server = app.serve_http(HttpOptions::default()).await?;
    let (client, url) = (reqwest::Client::new(), server.url());
    let token = json!("over-http");

    // 2025-11-25: a session; the progress comes in the POST's own SSE
    // stream, ahead of the result, and not in another session's.
    let asking = http_session(&client, &url).await?;
    let silent = http_session(&client, &url).await?;
    let legacy_call = call(3, Generation::Legacy, Some(&token));
    let quiet_call = call(3, Generation::Legacy, None);
    let (asked, not_asked) = tokio::join!(
        post(&client, &url, Some(&asking), &legacy_call),
        post(&client, &url, Some(&silent), &quiet_call),
    );
    let asked = answered(messages(asked?).await?, 3)?;
    let not_asked = answered(messages(not_asked?).await?, 3)?;
    ensure!(asked.result["isError"] != true, "{}", asked.result);
    check_progress(&asked.progress, &token)?;
    ensure!(not_asked.progress.is_empty(), "{:?}", not_asked.progress);

    // 2026-07-28: no session; each POST is its own stream.
    let modern_call = call(4, Generation::Modern, Some(&token));
    let quiet_call = call(4, Generation::Modern, None);
    let (asked, not_asked) = tokio::join!(
        post(&client, &url, None, &modern_call),
        post(&client, &url, None, &quiet_call),
    );
    let asked = answered(messages(asked?).await?, 4)?;
    let not_asked = answered(messages(not_asked?).await?, 4)?;
    ensure!(asked.result["isError"] != true, "{}", asked.result);
    check_progress(&asked.progress, &token)?;
    ensure!(not_asked.progress.is_empty(), "{:?}", not_asked.progress);
    server.shutdown().await;
    Ok(())
}

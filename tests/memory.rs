//! What a client can make the reference app hold, repeat and log, driving
//! the real binary: memory bounded by what is configured, not by what a
//! client sends (a `[0,0,…]` body expands ~110× once parsed; a session
//! kept its `initialize` params at any size); no error answer repeats more
//! than 256 characters of what the client sent; and a client repeating a
//! bad request costs the log a bounded number of lines.

use std::{
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::{Context as _, Result, ensure};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");
/// The address space the app is run in for the flood: it idles in a small
/// part of it.
const ADDRESS_SPACE_KIB: u64 = 1024 * 1024;
/// Just under the default 4 MiB body limit.
const BODY_BYTES: usize = 4 * 1024 * 1024 - 256;
const LEGACY: &str = "2025-11-25";

/// A spawned `order_desk --http 127.0.0.1:0` and everything it wrote to
/// stderr so far.
struct Desk {
    child: tokio::process::Child,
    url: String,
    stderr: Arc<Mutex<Vec<u8>>>,
    http: reqwest::Client,
}

impl Desk {
    /// Starts the app, under `ulimit -v` when `address_space_kib` is given.
    async fn spawn(address_space_kib: Option<u64>) -> Result<Self> {
        let limit = address_space_kib.map(|kib| format!("ulimit -v {kib}; ")).unwrap_or_default();
        let mut child = tokio::process::Command::new("bash")
            .args(["-c", &format!("{limit}exec \"$0\" --http 127.0.0.1:0"), ORDER_DESK])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let mut pipe = child.stderr.take().context("stderr")?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = stderr.clone();
        tokio::spawn(async move {
            let mut chunk = vec![0; 64 * 1024];
            while let Ok(n @ 1..) = pipe.read(&mut chunk).await {
                kept.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        let url = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let text = String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
                if let Some(url) = text.split("MCP endpoint ").nth(1) {
                    return url.split_whitespace().next().unwrap_or_default().to_owned();
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .context("order_desk did not print its endpoint")?;
        Ok(Self { child, url, stderr, http: reqwest::Client::new() })
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn logged(&self) -> usize {
        self.stderr.lock().unwrap().len()
    }

    /// The app's peak resident memory so far, in KiB.
    fn peak_kib(&self) -> Result<u64> {
        let pid = self.child.id().context("exited")?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).context("no VmHWM")?;
        Ok(line.split_whitespace().nth(1).context("VmHWM")?.parse()?)
    }

    fn post(&self, body: String, headers: &[(&str, &str)]) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .timeout(Duration::from_secs(60))
            .body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request
    }

    /// Opens a legacy session; its id.
    async fn session(&self) -> Result<String> {
        let reply = self.post(initialize(json!({})).to_string(), &[]).send().await?;
        ensure!(reply.status() == 200, "initialize: {}", reply.status());
        let id = reply.headers().get("mcp-session-id").context("no session id")?;
        let id = id.to_str()?.to_owned();
        let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", LEGACY)];
        self.post(done.to_string(), &headers).send().await?;
        Ok(id)
    }
}

fn initialize(extra: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "flood", "version": "0"},
        "_meta": extra}})
}

/// `[0,0,…,0]` of about `bytes` bytes.
fn zeros(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes);
    text.push('[');
    while text.len() + 3 < bytes {
        text.push_str("0,");
    }
    text.push_str("0]");
    text
}

/// A `tools/call` whose body is [`BODY_BYTES`] long, nearly all zeros.
fn flood_call(id: u64) -> String {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"w1__set_details","arguments":{{"recipient":"#
    );
    format!("{head}{}}}}}}}", zeros(BODY_BYTES - head.len() - 3))
}

/// An `initialize` of [`BODY_BYTES`] whose `_meta` is nearly all zeros.
fn flood_initialize() -> String {
    let head = initialize(json!({"pad": 0})).to_string();
    head.replacen("\"pad\":0", &format!("\"pad\":{}", zeros(BODY_BYTES - head.len())), 1)
}

/// A 2026-07-28 `subscriptions/listen` of [`BODY_BYTES`] whose `_meta` is
/// nearly all zeros.
fn flood_listen(id: u64) -> String {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "flood", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
        "pad": 0,
    });
    let head = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"filter": {"toolsListChanged": true}, "_meta": meta}})
    .to_string();
    head.replacen("\"pad\":0", &format!("\"pad\":{}", zeros(BODY_BYTES - head.len())), 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn s12_a_flood_of_huge_messages_in_a_bounded_address_space_neither_aborts_nor_locks_out()
-> Result<()> {
    let mut desk = Desk::spawn(Some(ADDRESS_SPACE_KIB)).await?;
    let session = desk.session().await?;
    let mut floods = tokio::task::JoinSet::new();
    let mut held = Vec::new();
    // Sessions whose `initialize` carries 4 MiB of zeros, kept open.
    for _ in 0..16 {
        held.push(desk.post(flood_initialize(), &[]).send());
    }
    // Listen streams whose `_meta` carries 4 MiB of zeros, kept open.
    for id in 0..8 {
        held.push(desk.post(flood_listen(id), &[("mcp-protocol-version", "2026-07-28")]).send());
    }
    // Calls of 4 MiB of zeros from several connections at once.
    for id in 0..6 {
        let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LEGACY)];
        let request = desk.post(flood_call(id), &headers);
        floods.spawn(async move { request.send().await.map(|r| r.status()) });
    }
    let held = futures::future::join_all(held).await;
    while floods.join_next().await.is_some() {}
    ensure!(desk.alive(), "the app died under the flood: {}", tail(&desk));
    // Another client is still answered.
    let second = desk.post(initialize(json!({})).to_string(), &[]).send().await;
    let second = second.context("a second client got no answer")?;
    let status = second.status();
    let text = second.text().await?;
    ensure!(status == 200 && text.contains("serverInfo"), "{status}: {text}");
    ensure!(desk.alive(), "the app died: {}", tail(&desk));
    drop(held);
    Ok(())
}

fn tail(desk: &Desk) -> String {
    let text = String::from_utf8_lossy(&desk.stderr.lock().unwrap()).into_owned();
    text.chars().rev().take(600).collect::<Vec<_>>().into_iter().rev().collect()
}

#[tokio::test]
async fn s12_one_huge_message_raises_peak_memory_by_a_small_multiple_of_its_size() -> Result<()> {
    let desk = Desk::spawn(None).await?;
    let session = desk.session().await?;
    let before = desk.peak_kib()?;
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LEGACY)];
    let reply = desk.post(flood_call(2), &headers).send().await?;
    let text = reply.text().await?;
    let after = desk.peak_kib()?;
    eprintln!("peak RSS (VmHWM) before {before} KiB, after one 4 MiB [0,0,…] call {after} KiB");
    ensure!(text.contains("-32600") && text.contains("65536"), "{text}");
    // Two copies of the body and the budget's worth of parsed values, and
    // room to spare: a small multiple of the body, not ~110× it.
    ensure!(after - before < 40 * 1024, "peak RSS grew from {before} KiB to {after} KiB");
    Ok(())
}

#[tokio::test]
async fn jsonrpc_no_error_answer_over_http_repeats_a_long_client_string() -> Result<()> {
    let desk = Desk::spawn(None).await?;
    let long = |n| "v".repeat(n);
    let echoes = |text: &str| text.contains(&long(300));
    // A 1 MB protocolVersion, and one just short of the handshake budget,
    // each with a header that does not match it (rmcp quoted both whole).
    for n in [1_000_000, 60_000] {
        let mut message = initialize(json!({}));
        message["params"]["protocolVersion"] = long(n).into();
        let reply = desk.post(message.to_string(), &[("mcp-protocol-version", LEGACY)]).send();
        let text = reply.await?.text().await?;
        ensure!(text.len() < 1_000 && !echoes(&text), "{n}: {} bytes", text.len());
    }
    // A 200,000-character MCP-Protocol-Version header (rmcp answered it in
    // a plain-text 400, whole).
    let session = desk.session().await?;
    let header = long(200_000);
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}).to_string();
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", header.as_str())];
    let reply = desk.post(list, &headers).send().await?;
    let status = reply.status();
    let text = reply.text().await?;
    ensure!(
        status == 400 && text.len() < 1_000 && !echoes(&text),
        "{status}: {} bytes",
        text.len()
    );
    Ok(())
}

#[tokio::test]
async fn jsonrpc_no_error_answer_over_stdio_repeats_a_long_client_string() -> Result<()> {
    let long = "v".repeat(1_000_000);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": long,
        "io.modelcontextprotocol/clientInfo": {"name": "x", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let frames = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
            "protocolVersion": long, "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}),
    ];
    let mut child = tokio::process::Command::new(ORDER_DESK)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdin = child.stdin.take().context("stdin")?;
    // Written beside the reading: a server that stops reading early must
    // not stall the test.
    tokio::spawn(async move {
        for frame in frames {
            if stdin.write_all(format!("{frame}\n").as_bytes()).await.is_err() {
                return;
            }
        }
    });
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output()).await??;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answers: Vec<&str> = stdout.lines().collect();
    ensure!(answers.len() == 2, "{answers:?}");
    for answer in answers {
        ensure!(
            answer.len() < 1_000 && !answer.contains(&"v".repeat(300)),
            "{} bytes",
            answer.len()
        );
    }
    Ok(())
}

#[tokio::test]
async fn s12_a_client_repeating_bad_requests_costs_the_log_a_bounded_number_of_lines() -> Result<()>
{
    let mut desk = Desk::spawn(None).await?;
    let session = desk.session().await?;
    let started = desk.logged();
    // An initialize whose header contradicts its body: rmcp refused it
    // with a WARN line quoting both, every time.
    let mut message = initialize(json!({}));
    message["params"]["protocolVersion"] = format!("{LEGACY}{}", "x".repeat(40)).into();
    for n in 0..1_000 {
        let reply = desk.post(message.to_string(), &[("mcp-protocol-version", LEGACY)]).send();
        let reply = reply.await.with_context(|| format!("request {n}"))?;
        ensure!(reply.status() == 400, "{}", reply.status());
    }
    // GET streams beyond the per-session limit: one ERROR line each.
    let mut open = Vec::new();
    for _ in 0..200 {
        let get = desk
            .http
            .get(&desk.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", LEGACY)
            .timeout(Duration::from_secs(10))
            .send();
        if let Ok(Ok(reply)) = tokio::time::timeout(Duration::from_secs(2), get).await {
            open.push(reply);
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    ensure!(desk.alive());
    let logged = desk.logged() - started;
    ensure!(logged < 16 * 1024, "1,200 bad requests logged {logged} bytes: {}", tail(&desk));
    Ok(())
}

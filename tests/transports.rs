//! The protocol over real transports: a child process on stdio, and
//! streamable HTTP serving several sessions from one application state.

use std::{process::Stdio, time::Duration};

use anyhow::{Context as _, Result};
use purview::http::HttpOptions;
use purview_tests::{Agent, Editor, Note, demo_app};
use rmcp::{
    ClientLifecycleMode, ClientServiceExt,
    model::ProtocolVersion,
    transport::{
        StreamableHttpClientTransport, TokioChildProcess,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const TEST_APP: &str = env!("CARGO_BIN_EXE_test_app");

fn updated() -> Note {
    Note::Updated(purview::model::WINDOWS_URI.into())
}

#[tokio::test]
async fn s3_stdio_stdout_carries_nothing_but_protocol_frames() -> Result<()> {
    let mut child = tokio::process::Command::new(TEST_APP)
        .env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "app://windows"}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "w1__edit_field", "arguments": {"field": "recipient", "value": "Ada"}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "w1__explode", "arguments": {}}}),
    ];
    for request in &requests {
        stdin.write_all(format!("{request}\n").as_bytes()).await?;
    }
    stdin.flush().await?;
    let mut answered = std::collections::BTreeMap::new();
    while answered.len() < 5 {
        let line = tokio::time::timeout(Duration::from_secs(10), stdout.next_line())
            .await
            .context("stdout went quiet")??
            .context("stdout closed")?;
        let frame: Value =
            serde_json::from_str(&line).with_context(|| format!("not a JSON-RPC frame: {line}"))?;
        assert_eq!(frame["jsonrpc"], "2.0", "{line}");
        if let Some(id) = frame["id"].as_u64() {
            answered.insert(id, frame);
        }
    }
    assert_eq!(answered[&1]["result"]["capabilities"]["resources"]["subscribe"], true);
    let snapshot: Value =
        serde_json::from_str(answered[&2]["result"]["contents"][0]["text"].as_str().unwrap())?;
    assert_eq!(snapshot["operableWindowIds"], json!(["w1"]));
    assert!(answered[&3]["result"]["tools"].as_array().unwrap().len() > 3);
    assert_eq!(answered[&4]["result"]["isError"], false);
    assert_eq!(answered[&5]["result"]["structuredContent"]["code"], "action_failed");
    drop(stdin);
    let mut logs = String::new();
    let _ = tokio::time::timeout(
        Duration::from_secs(5),
        tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut logs),
    )
    .await;
    assert!(logs.contains("action applied"), "tracing logs go to stderr:\n{logs}");
    Ok(())
}

#[tokio::test]
async fn s11_stdio_child_process_driven_by_the_rmcp_client() -> Result<()> {
    let transport = TokioChildProcess::new(tokio::process::Command::new(TEST_APP))?;
    let agent = Agent::over(transport).await?;
    let snap = agent.read().await?;
    assert_eq!(snap.operable_window_ids, ["w1"]);
    let out = agent.call("w1__set_details", json!({"recipient": "", "amount": -1})).await?;
    assert_eq!(out.code(), Some("validation_failed"));
    agent.close().await
}

async fn http_agent(url: &str) -> Result<Agent> {
    Agent::over(StreamableHttpClientTransport::from_uri(url.to_owned())).await
}

#[tokio::test]
async fn s10_1_http_serves_two_sessions_from_one_state() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor { recipient: "Ada".into(), ..Editor::default() })?;
    let server = app.serve_http(HttpOptions::default()).await?;
    let mut watcher = http_agent(&server.url()).await?;
    watcher.subscribe().await?;
    let mut actor = http_agent(&server.url()).await?;
    // One session's edit reaches the other, subscribed, session.
    let out = actor
        .call(&format!("{}__edit_field", editor.id()), json!({"field": "amount", "value": "12.50"}))
        .await?;
    assert!(!out.is_error, "{out:?}");
    watcher.expect(updated()).await?;
    let snap = watcher.read().await?;
    let blocks = serde_json::to_value(&snap.windows[0].blocks)?;
    assert_eq!(blocks[1]["items"][1]["value"], "$12.50");
    // A modal opened by one session: both hear tools/list_changed.
    let out = actor.call(&format!("{}__submit", editor.id()), json!({})).await?;
    let dialog = out.structured["openedWindowIds"][0].as_str().unwrap().to_owned();
    watcher.expect(Note::ToolsChanged).await?;
    actor.expect(Note::ToolsChanged).await?;
    assert!(watcher.tool_names().await?.iter().any(|t| t.starts_with(&format!("{dialog}__"))));
    watcher.close().await?;
    actor.close().await?;
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn s10_1_http_serves_2026_07_28_sessions_with_subscriptions_listen() -> Result<()> {
    let app = demo_app();
    let editor = app.open(Editor::default())?;
    let server = app.serve_http(HttpOptions::default()).await?;
    let (tx, mut notes) = tokio::sync::mpsc::unbounded_channel();
    let client = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.url()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await?;
    let filter = rmcp::model::SubscriptionFilter::builder()
        .tools_list_changed()
        .resource_subscription(purview::model::WINDOWS_URI)
        .build();
    let mut subscription = client.listen(filter).await?;
    tokio::spawn(async move {
        while let Ok(Some(n)) = subscription.next().await {
            let _ = tx.send(n);
        }
    });
    // A person's edit made outside any request reaches the listener.
    editor.update(|e| e.recipient = "Ada".into())?;
    let mut saw_update = false;
    let mut saw_tools = false;
    while !(saw_update && saw_tools) {
        let n =
            tokio::time::timeout(Duration::from_secs(5), notes.recv()).await?.context("closed")?;
        match n {
            rmcp::model::ServerNotification::ResourceUpdatedNotification(u) => {
                saw_update |= u.params.uri == "app://windows"
            }
            rmcp::model::ServerNotification::ToolListChangedNotification(_) => saw_tools = true,
            _ => {}
        }
    }
    let tools = client.list_all_tools().await?;
    assert!(tools.iter().any(|t| t.name == format!("{}__submit", editor.id())));
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn s12_http_rejects_foreign_host_and_origin_headers() -> Result<()> {
    let app = demo_app();
    let server = app.serve_http(HttpOptions::default()).await?;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let http = reqwest::Client::new();
    let post = |host: Option<&str>, origin: Option<&str>| {
        let mut request = http
            .post(server.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init.to_string());
        if let Some(host) = host {
            request = request.header("host", host);
        }
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    assert_eq!(
        post(Some("attacker.example"), None).await?.status(),
        403,
        "DNS rebinding: foreign Host"
    );
    assert_eq!(post(None, Some("http://attacker.example")).await?.status(), 403, "foreign Origin");
    assert_eq!(
        post(None, Some(&format!("http://localhost:{}", server.local_addr().port())))
            .await?
            .status(),
        200
    );
    assert_eq!(post(None, None).await?.status(), 200);
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn s10_1_http_delete_ends_a_session_with_204_and_it_is_gone() -> Result<()> {
    let app = demo_app();
    let server = app.serve_http(HttpOptions::default()).await?;
    let http = reqwest::Client::new();
    let post = |body: Value, session: Option<&str>| {
        let mut request = http
            .post(server.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let opened = post(init, None).await?;
    assert_eq!(opened.status(), 200);
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .context("a session id")?
        .to_owned();
    // 204, as the Python SDK's client expects (it logs 202 as a failure).
    let ended = http.delete(server.url()).header("mcp-session-id", &session).send().await?;
    assert_eq!(ended.status(), 204, "{:?}", ended.headers());
    assert!(ended.bytes().await?.is_empty());
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let after = post(ping, Some(&session)).await?.status();
    assert_eq!(after, 404, "the ended session is gone");
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn s12_http_bearer_token_is_required_when_set() -> Result<()> {
    let app = demo_app();
    app.open(Editor::default())?;
    let server =
        app.serve_http(HttpOptions::default().bearer_token("let-me-in-0123456789")).await?;
    let denied = reqwest::Client::new().post(server.url()).body("{}").send().await?;
    assert_eq!(denied.status(), 401);
    assert!(http_agent(&server.url()).await.is_err(), "no token, no session");
    let config = StreamableHttpClientTransportConfig::with_uri(server.url())
        .auth_header("let-me-in-0123456789");
    let agent = Agent::over(StreamableHttpClientTransport::from_config(config)).await?;
    assert_eq!(agent.read().await?.operable_window_ids.len(), 1);
    server.shutdown().await;
    Ok(())
}

//! Who may open the person's face (purview-web), over plain HTTP: only the
//! session the one-time link's key is exchanged for opens it, sent in the
//! page's own header (a cookie opens nothing), an agent's bearer token
//! never does, the person's credential never calls `/mcp`, every write
//! needs the page's own origin and a JSON body, and the face's connections
//! count in the fair shares like any client's (RELIABILITY.md, the face's
//! rows). Its event stream, once open, sends only what changed.

use std::time::Duration;

use anyhow::{Context as _, Result, ensure};
use purview::http::{HttpOptions, HttpServer};
use purview_web::Face;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

async fn serve(options: HttpOptions) -> Result<(Face, HttpServer, reqwest::Client)> {
    let app = purview_tests::demo_app();
    let face = Face::new(app.clone());
    let server = app.serve_http(face.serve_beside(options)).await?;
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build()?;
    Ok((face, server, client))
}

/// The header the face's page sends the person's credential in.
const SESSION: &str = "x-purview-session";

/// The one-time key in a link (`…/person/#key=…`).
fn key_of(link: &str) -> Result<String> {
    Ok(link.split("#key=").nth(1).context("the link carries its key in its fragment")?.to_owned())
}

/// Exchanges `key` as the face's page does: the answer's status and body.
async fn exchange(
    server: &HttpServer,
    client: &reqwest::Client,
    key: &str,
) -> Result<(u16, String)> {
    let answer = client
        .post(format!("{}/person/open", base(server)))
        .header("origin", base(server))
        .header("content-type", "application/json")
        .body(serde_json::json!({ "key": key }).to_string())
        .send()
        .await?;
    Ok((answer.status().as_u16(), answer.text().await?))
}

/// Opens the face's link once, as its page does: the session credential.
async fn open(face: &Face, server: &HttpServer, client: &reqwest::Client) -> Result<String> {
    let link = face.one_time_link(server).context("a link")?;
    let (status, body) = exchange(server, client, &key_of(&link)?).await?;
    ensure!(status == 200, "the link's key answered {status}: {body}");
    let answer: serde_json::Value = serde_json::from_str(&body)?;
    Ok(answer["session"].as_str().context("a session")?.to_owned())
}

fn base(server: &HttpServer) -> String {
    format!("http://{}", server.local_addr())
}

#[tokio::test]
async fn s12_an_agents_bearer_token_never_opens_the_face() -> Result<()> {
    let (_face, server, client) = serve(HttpOptions::default().bearer_token(TOKEN)).await?;
    let bearer = format!("Bearer {TOKEN}");
    for path in ["/person/scene", "/person/events"] {
        let answer = client
            .get(format!("{}{path}", base(&server)))
            .header("authorization", &bearer)
            .send()
            .await?;
        ensure!(answer.status() == 401, "{path} with the agent's token: {}", answer.status());
    }
    let call = client
        .post(format!("{}/person/intent", base(&server)))
        .header("authorization", &bearer)
        .header("origin", base(&server))
        .header("content-type", "application/json")
        .body(r#"{"kind": "approve", "id": 1}"#)
        .send()
        .await?;
    ensure!(call.status() == 401, "an answer with the agent's token: {}", call.status());
    Ok(())
}

#[tokio::test]
async fn s12_the_persons_credential_never_calls_mcp_and_the_link_opens_once() -> Result<()> {
    let (face, server, client) = serve(HttpOptions::default().bearer_token(TOKEN)).await?;
    let link = face.one_time_link(&server).context("a link")?;
    let key = key_of(&link)?;
    // The key is in the fragment: the link's request line carries none.
    let link_path = link.split('#').next().unwrap_or_default();
    ensure!(!link_path.contains(&key), "the key would reach a server: {link}");
    let (status, body) = exchange(&server, &client, &key).await?;
    ensure!(status == 200, "the key answered {status}: {body}");
    let session = serde_json::from_str::<serde_json::Value>(&body)?["session"]
        .as_str()
        .context("a session")?
        .to_owned();
    let (again, _) = exchange(&server, &client, &key).await?;
    ensure!(again == 401, "a spent key opened again: {again}");
    let scene = client
        .get(format!("{}/person/scene", base(&server)))
        .header(SESSION, &session)
        .send()
        .await?;
    ensure!(scene.status() == 200, "the credential did not open the scene: {}", scene.status());
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    for (name, value) in
        [(SESSION, session.clone()), ("authorization", format!("Bearer {session}"))]
    {
        let mcp = client
            .post(server.url())
            .header(name, &value)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize)
            .send()
            .await?;
        ensure!(mcp.status() == 401, "the person's credential reached MCP: {}", mcp.status());
    }
    Ok(())
}

#[tokio::test]
async fn s12_the_page_holds_no_credential_and_a_cookie_opens_nothing() -> Result<()> {
    let (face, server, client) = serve(HttpOptions::default()).await?;
    let session = open(&face, &server, &client).await?;
    let page = client.get(format!("{}/person/", base(&server))).send().await?;
    let csp = page.headers()["content-security-policy"].to_str()?.to_owned();
    // Only the page's own inline script runs: named by its digest.
    ensure!(csp.contains("script-src 'sha256-") && csp.contains("frame-ancestors 'none'"), "{csp}");
    ensure!(!csp.contains("unsafe-inline"), "{csp}");
    ensure!(page.headers().get("set-cookie").is_none(), "the page sets a cookie");
    // Its connection, the address's, is not the one later requests go on.
    ensure!(page.headers().get("connection").is_some_and(|c| c == "close"), "{:?}", page.headers());
    let html = page.text().await?;
    ensure!(html.contains("x-purview-session") && !html.contains(&session), "{html:.400}");
    // The credential as a cookie, as another port of this host would
    // receive a cookie, opens nothing.
    for cookie in [format!("purview-person={session}"), format!("{SESSION}={session}")] {
        let scene = client
            .get(format!("{}/person/scene", base(&server)))
            .header("cookie", &cookie)
            .send()
            .await?;
        ensure!(scene.status() == 401, "a cookie opened the scene: {}", scene.status());
    }
    Ok(())
}

#[tokio::test]
async fn a_write_needs_the_pages_origin_json_and_the_session() -> Result<()> {
    let (face, server, client) = serve(HttpOptions::default()).await?;
    let session = open(&face, &server, &client).await?;
    let body = r#"{"kind": "press", "window": null, "action": "new_editor"}"#;
    let post = |origin: String, credential: Option<&str>, kind: &str| {
        let mut request = client
            .post(format!("{}/person/intent", base(&server)))
            .header("origin", origin)
            .header("content-type", kind)
            .body(body);
        if let Some(credential) = credential {
            request = request.header(SESSION, credential);
        }
        request.send()
    };
    let own = base(&server);
    let other = format!("http://127.0.0.1:{}", server.local_addr().port().wrapping_add(1));
    let json = "application/json";
    for (origin, credential, kind, status, why) in [
        (own.clone(), None, json, 401, "without the credential"),
        (own.clone(), Some("0".repeat(64)), json, 401, "with a wrong credential"),
        (other, Some(session.clone()), json, 403, "from another origin on this machine"),
        (own.clone(), Some(session.clone()), "text/plain", 403, "as a plain-text form"),
    ] {
        let answer = post(origin, credential.as_deref(), kind).await?;
        ensure!(answer.status() == status, "a write {why} was answered {}", answer.status());
    }
    let answer = post(own, Some(&session), json).await?;
    ensure!(answer.status() == 200, "the page's own write: {}", answer.status());
    Ok(())
}

/// Opens an event stream on a connection of its own, and keeps it.
async fn event_stream(server: &HttpServer, session: &str) -> Result<tokio::net::TcpStream> {
    let mut stream = tokio::net::TcpStream::connect(server.local_addr()).await?;
    let request = format!(
        "GET /person/events HTTP/1.1\r\nHost: {}\r\n{SESSION}: {session}\r\nAccept: text/event-stream\r\n\r\n",
        server.local_addr()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut head = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut head)).await??;
    ensure!(
        head[..read].starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head[..read])
    );
    Ok(stream)
}

#[tokio::test]
async fn the_faces_connections_count_in_the_fair_shares() -> Result<()> {
    // Three connections in all, and the person's browser holds them with
    // event streams. Its credential makes the face session a client of its own
    // (not the address every local process shares), so a connection from
    // another local process gets in, in the place of one of the streams: a
    // client holding fewer always gets in.
    let options = HttpOptions::default().max_connections(3);
    let (face, server, client) = serve(options).await?;
    let session = open(&face, &server, &client).await?;
    drop(client);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(event_stream(&server, &session).await?);
    }
    let mut fourth = tokio::net::TcpStream::connect(server.local_addr()).await?;
    let request = format!(
        "GET /person/scene HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        server.local_addr()
    );
    fourth.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), fourth.read_to_end(&mut answer)).await??;
    let answer = String::from_utf8_lossy(&answer);
    // Answered (refused for its missing session, not for want of a slot).
    ensure!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    let mut cut = 0;
    for stream in &mut held {
        let mut buffer = [0u8; 4096];
        let ended = tokio::time::timeout(Duration::from_secs(2), async {
            loop {
                match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => return true,
                    Ok(_) => {}
                }
            }
        });
        cut += usize::from(ended.await.unwrap_or(false));
    }
    ensure!(cut == 1, "{cut} of the person's streams made way, not one");
    Ok(())
}

#[tokio::test]
async fn a_newer_event_stream_ends_the_oldest_past_the_faces_limit() -> Result<()> {
    let (face, server, client) = serve(HttpOptions::default()).await?;
    let session = open(&face, &server, &client).await?;
    let mut oldest = event_stream(&server, &session).await?;
    let mut newer = Vec::new();
    for _ in 0..purview_web::MAX_EVENT_STREAMS {
        newer.push(event_stream(&server, &session).await?);
    }
    // The oldest stream ends: its chunked body closes, then the connection
    // stays idle or closes; what it reads ends with the last chunk.
    let mut seen = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        let mut buffer = [0u8; 4096];
        loop {
            let read = oldest.read(&mut buffer).await?;
            seen.extend_from_slice(&buffer[..read]);
            if read == 0 || seen.ends_with(b"0\r\n\r\n") {
                return anyhow::Ok(());
            }
        }
    })
    .await;
    ensure!(ended.is_ok(), "the oldest stream stayed open: {}", String::from_utf8_lossy(&seen));
    Ok(())
}

/// The next `scene` event's data on the face's event stream `events`,
/// parsed (`seen` keeps what was read past it).
async fn next_scene(
    events: &mut reqwest::Response,
    seen: &mut Vec<u8>,
) -> Result<serde_json::Value> {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Some(end) = seen.windows(2).position(|w| w == b"\n\n") {
                let event = String::from_utf8(seen.drain(..end + 2).collect())?;
                let data = event.lines().find_map(|line| line.strip_prefix("data: "));
                if let Some(data) = data.filter(|_| event.starts_with("event: scene")) {
                    return Ok(serde_json::from_str(data)?);
                }
                continue;
            }
            let chunk = events.chunk().await?.context("the stream ended")?;
            seen.extend_from_slice(&chunk);
        }
    })
    .await?
}

#[tokio::test]
async fn s6_an_event_carries_only_the_windows_that_changed() -> Result<()> {
    let app = purview_tests::demo_app();
    let face = Face::new(app.clone());
    let server = app.serve_http(face.serve_beside(HttpOptions::default())).await?;
    let client = reqwest::Client::new();
    let editors: Vec<_> =
        (0..3).map(|_| app.open(purview_tests::Editor::default())).collect::<Result<_, _>>()?;
    let session = open(&face, &server, &client).await?;
    let mut stream = client
        .get(format!("{}/person/events", base(&server)))
        .header(SESSION, &session)
        .send()
        .await?;
    ensure!(stream.status() == 200, "the stream: {}", stream.status());
    let mut seen = Vec::new();
    let first = next_scene(&mut stream, &mut seen).await?;
    let ids = |event: &serde_json::Value| -> Vec<String> {
        let windows = event["windows"].as_array().cloned().unwrap_or_default();
        windows.iter().map(|w| w["id"].as_str().unwrap_or_default().to_owned()).collect()
    };
    ensure!(ids(&first).len() == 3, "the first event has every window: {first}");
    ensure!(first["words"].is_object(), "and the page's words: {first}");

    let changed = editors[1].id().to_owned();
    editors[1].update(|e| e.recipient = "Ada".into())?;
    let next = next_scene(&mut stream, &mut seen).await?;
    ensure!(ids(&next) == [changed.clone()], "only the changed window: {next}");
    ensure!(first["ids"].as_array().map(Vec::len) == Some(3), "the order: {first}");
    ensure!(next.get("ids").is_none(), "the order again, unchanged: {next}");
    ensure!(next.get("words").is_none(), "the words once: {next}");
    ensure!(next.to_string().contains("Ada"), "{next}");
    Ok(())
}

#[tokio::test]
async fn s8_2_an_intent_sent_again_after_its_answer_was_cut_is_taken_once() -> Result<()> {
    let app = purview_tests::demo_app();
    let face = Face::new(app.clone());
    let server = app.serve_http(face.serve_beside(HttpOptions::default())).await?;
    let client = reqwest::Client::new();
    let session = open(&face, &server, &client).await?;
    let before = app.scene()?.windows.len();
    let press = |seq: u64| {
        let body = serde_json::json!({"kind": "press", "window": null, "action": "new_editor", "seq": seq});
        client
            .post(format!("{}/person/intent", base(&server)))
            .header("origin", base(&server))
            .header("content-type", "application/json")
            .header(SESSION, &session)
            .header("x-purview-page", "tab")
            .body(body.to_string())
            .send()
    };
    let first: serde_json::Value = press(1).await?.json().await?;
    ensure!(first["ok"] == true, "{first}");
    // The page's retry of the same intent, its first answer lost.
    let again: serde_json::Value = press(1).await?.json().await?;
    ensure!(again["repeated"] == true && again["ok"].is_null(), "{again}");
    ensure!(app.scene()?.windows.len() == before + 1, "the press was taken twice");
    // The next intent is taken.
    let next: serde_json::Value = press(2).await?.json().await?;
    ensure!(next["ok"] == true && app.scene()?.windows.len() == before + 2, "{next}");
    Ok(())
}

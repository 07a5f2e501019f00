//! The fairness harness: for each way a hostile client can hold a scarce
//! thing over streamable HTTP, how well a second client is served while it
//! does. Shared by the tests (`tests/shares.rs`, which assert success
//! rates) and the lock-out bench (`benches/benches/lockout.rs`, which
//! reports them with latencies in BENCHMARKS.md and RELIABILITY.md).
//!
//! The second client works two ways at once: on a keep-alive session it
//! opened before the attack (reads of `app://windows` and writes, or
//! approval-gated calls during the approval flood), and on a new connection
//! each time (a 2026-07-28 `tools/list`, which needs no session; during the
//! session and stream attacks, what the attack holds: a new session, or a
//! new listen stream).
//!
//! Every app also serves the person's face (purview-web) beside `/mcp`,
//! and the [`Strategy::FACE`] attacks hold its routes instead: link guesses,
//! event streams, trickled writes. Through them the second client is an
//! agent on its keep-alive session and the person at the face, whose
//! requests (a scene read, a call) each come on a new connection.
//!
//! Who the clients are is the [`Auth`]: two named clients with tokens of
//! their own (the hostile one holding its token), one token both hold, or
//! no token at all. Only named clients can be told apart, so only they are
//! promised a share whatever the other does.

use std::{
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use purview::{App, http::HttpOptions, settings::Limits};
use rmcp::{
    ClientLifecycleMode, ClientServiceExt, ServiceExt,
    model::{
        CallToolRequestParams, ProtocolVersion, ReadResourceRequestParams, SubscriptionFilter,
    },
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    task::JoinHandle,
};

/// The one token both clients hold, with [`Auth::Shared`].
pub const TOKEN: &str = "fairness-harness-token-0123456789";
/// The hostile client's own token, with [`Auth::Named`].
pub const HOSTILE_TOKEN: &str = "fairness-hostile-token-0123456789";
/// The second client's own token, with [`Auth::Named`].
pub const SECOND_TOKEN: &str = "fairness-second-token-01234567890";

/// Who the two clients are to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// No token: every local process is one client.
    None,
    /// One token that both hold: one client.
    Shared,
    /// Two named clients, each with its own token.
    Named,
}

impl Auth {
    fn options(self) -> HttpOptions {
        match self {
            Self::None => HttpOptions::default(),
            Self::Shared => HttpOptions::default().bearer_token(TOKEN),
            Self::Named => HttpOptions::default()
                .client("hostile", HOSTILE_TOKEN)
                .client("second", SECOND_TOKEN),
        }
    }

    /// The hostile client's token.
    fn hostile(self) -> Option<&'static str> {
        match self {
            Self::None => None,
            Self::Shared => Some(TOKEN),
            Self::Named => Some(HOSTILE_TOKEN),
        }
    }

    /// The second client's token.
    fn second(self) -> Option<&'static str> {
        match self {
            Self::None => None,
            Self::Shared => Some(TOKEN),
            Self::Named => Some(SECOND_TOKEN),
        }
    }
}

/// The window both clients work on.
#[purview::window(title = "Counter", summary = "{count} so far")]
#[derive(Clone, Default)]
pub struct Counter {
    /// How many so far.
    pub count: u64,
}

#[purview::actions]
impl Counter {
    /// Count one more.
    #[action]
    fn increment(&mut self) {
        self.count += 1;
    }

    /// Start again from zero, once a person agrees.
    #[action(approval, destructive)]
    fn reset(
        &mut self,
        /// Who asks.
        by: String,
    ) {
        let _ = by;
        self.count = 0;
    }
}

/// One way to hold what the server has too little of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Nothing: the baseline.
    None,
    /// 300 connections that send nothing, reopened as they are cut.
    Idle,
    /// 300 connections sending their headers a byte a second.
    SlowHeaders,
    /// 300 connections whose headers pass the checks, then a body trickled
    /// a byte every 2 s, reopened as they are cut.
    SlowBody,
    /// 16 tasks connecting and hanging up as fast as they can.
    Churn,
    /// Every session the server allows, held, and more asked for in a loop.
    Sessions,
    /// Sessions with their GET streams, and every `subscriptions/listen`
    /// stream the server allows.
    Streams,
    /// 16 tasks sending wrong bearer tokens.
    WrongTokens,
    /// 16 sessions asking 4 approval questions each that no one answers.
    ApprovalFlood,
    /// 300 kept-alive connections whose headers pass the checks, each
    /// sending a small `GET` every 4 s, reopened as they are cut.
    KeptAlive,
    /// 64 connections sending requests back to back and never reading an
    /// answer.
    NeverRead,
    /// Stateless 2026-07-28 requests asking approval questions that no one
    /// answers, 64 at a time, calling themselves by the second client's
    /// name.
    StatelessApprovals,
    /// 16 tasks guessing the face's one-time link and opening its event
    /// stream without a session, as fast as they can.
    FaceLinks,
    /// 300 event streams of the face held open with a session of its own
    /// (a leaked link), reopened as they are ended.
    FaceStreams,
    /// 300 connections trickling a write to the face a byte every 2 s,
    /// reopened as they are cut.
    FaceSlowWrites,
    /// 300 kept-alive connections through the face's open route (its page,
    /// which needs no credential), each asking again every 4 s,
    /// reopened as they are cut: a token-less crowd. A named client's new
    /// connections and the person's are measured.
    FaceOpenRoutes,
    /// 8 kept-alive connections listing the tools (a 2026-07-28
    /// `tools/list`) back to back: the server's CPU, not a slot.
    Listing,
    /// 8 sessions of a client that renders cards, reading the window
    /// card's scene (`app__card_scene`) back to back: the server's CPU.
    CardScene,
}

impl Strategy {
    /// Every strategy, the baseline first.
    pub const ALL: [Self; 12] = [
        Self::None,
        Self::Idle,
        Self::SlowHeaders,
        Self::SlowBody,
        Self::Churn,
        Self::Sessions,
        Self::Streams,
        Self::WrongTokens,
        Self::ApprovalFlood,
        Self::KeptAlive,
        Self::NeverRead,
        Self::StatelessApprovals,
    ];

    /// The attacks on the person's face.
    pub const FACE: [Self; 4] =
        [Self::FaceLinks, Self::FaceStreams, Self::FaceSlowWrites, Self::FaceOpenRoutes];

    /// Whether it attacks the person's face (and the person is measured).
    pub fn on_the_face(self) -> bool {
        Self::FACE.contains(&self)
    }

    /// How a table names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "no hostile client",
            Self::Idle => "idle connections (300, reopened)",
            Self::SlowHeaders => "slow headers (300, a byte a second)",
            Self::SlowBody => "slow bodies (300, a byte every 2 s, reopened)",
            Self::Churn => "connection churn (16 tasks)",
            Self::Sessions => "every session, and more asked for",
            Self::Streams => "sessions with GET and listen streams",
            Self::WrongTokens => "wrong tokens (16 tasks)",
            Self::ApprovalFlood => "approval flood (16 sessions × 4 questions)",
            Self::KeptAlive => "kept-alive checked connections (300, a GET every 4 s)",
            Self::NeverRead => "pipelined requests never read (64 connections)",
            Self::StatelessApprovals => "stateless 2026-07-28 approval questions (64 at once)",
            Self::FaceLinks => "the face: link guesses and streams without a session (16 tasks)",
            Self::FaceStreams => "the face: event streams held with a leaked session (300)",
            Self::FaceSlowWrites => "the face: writes trickled a byte every 2 s (300, reopened)",
            Self::Listing => "tools/list in a loop (8 kept-alive connections)",
            Self::CardScene => "the card's scene in a loop (8 sessions)",
            Self::FaceOpenRoutes => {
                "the face: its page asked for with no credential (300 kept alive, reopened)"
            }
        }
    }
}

/// How one of the second client's ways of working fared.
#[derive(Debug, Default, Clone)]
pub struct Rate {
    /// Requests that succeeded.
    pub ok: usize,
    /// Requests sent.
    pub sent: usize,
    /// Each request's latency.
    pub latencies: Vec<Duration>,
}

impl Rate {
    /// The share that succeeded, from 0 to 1.
    pub fn share(&self) -> f64 {
        if self.sent == 0 { 0.0 } else { self.ok as f64 / self.sent as f64 }
    }

    /// The `p`-th latency quantile in milliseconds.
    pub fn quantile_ms(&self, p: f64) -> f64 {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let at = ((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1));
        sorted.get(at).map_or(0.0, |d| d.as_secs_f64() * 1e3)
    }

    fn note(&mut self, started: Instant, ok: bool) {
        self.sent += 1;
        self.ok += usize::from(ok);
        self.latencies.push(started.elapsed());
    }
}

/// What one run found.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The attack.
    pub strategy: Strategy,
    /// Who the clients were.
    pub auth: Auth,
    /// On the keep-alive session opened before it.
    pub kept: Rate,
    /// On a new connection each time (the person at the face, during an
    /// attack on the face; the person and the second client in turn during
    /// [`Strategy::FaceOpenRoutes`]).
    pub fresh: Rate,
}

/// A session on the person's face, as its page holds it.
#[derive(Clone)]
struct FaceSession {
    /// `http://host:port`.
    origin: String,
    /// The session credential the page sends in `x-purview-session`.
    session: String,
}

/// Opens a one-time link of `face` on `server` as its page does: the key
/// in the link's fragment exchanged for the session credential.
async fn face_session(
    face: &purview_web::Face,
    server: &purview::http::HttpServer,
) -> Result<FaceSession, String> {
    let link = face.one_time_link(server).ok_or("no randomness for a link")?;
    let key = link.split("#key=").nth(1).ok_or("the link has no key")?;
    let origin = format!("http://{}", server.local_addr());
    let opened = reqwest::Client::new()
        .post(format!("{origin}{}/open", face.prefix()))
        .header("origin", &origin)
        .header("content-type", "application/json")
        .body(serde_json::json!({ "key": key }).to_string())
        .send()
        .await
        .map_err(|e| e.to_string())?
        .text()
        .await
        .map_err(|e| e.to_string())?;
    let opened: serde_json::Value = serde_json::from_str(&opened).map_err(|e| e.to_string())?;
    let session = opened["session"].as_str().ok_or("the key opened no session")?.to_owned();
    Ok(FaceSession { origin, session })
}

/// One request of the person at the face, on a new connection: a read of
/// the scene, or a call of `increment`, as the page makes them.
async fn person_request(person: &FaceSession, i: usize) -> bool {
    let Ok(http) = reqwest::Client::builder().timeout(Duration::from_secs(10)).build() else {
        return false;
    };
    let request = if i.is_multiple_of(2) {
        http.get(format!("{}/person/scene", person.origin))
    } else {
        let call = serde_json::json!({"kind": "press", "window": "w1", "action": "increment"});
        http.post(format!("{}/person/intent", person.origin))
            .header("origin", &person.origin)
            .header("content-type", "application/json")
            .body(call.to_string())
    };
    match request.header("x-purview-session", &person.session).send().await {
        Ok(reply) if reply.status() == 200 => reply.text().await.is_ok_and(|text| {
            if i.is_multiple_of(2) {
                text.contains("Counter")
            } else {
                text.contains(r#""ok":true"#)
            }
        }),
        _ => false,
    }
}

fn transport(url: &str, token: Option<&str>) -> StreamableHttpClientTransport<reqwest::Client> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    let config = match token {
        Some(token) => config.auth_header(token),
        None => config,
    };
    StreamableHttpClientTransport::from_config(config)
}

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// What an attack holds; dropping it (and aborting its tasks) lets go.
/// An attack under way: it stops when dropped.
pub struct Held {
    tasks: Vec<JoinHandle<()>>,
    kept: Vec<Box<dyn Send>>,
}

impl Drop for Held {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Runs `strategy` against a fresh server whose clients are `auth`'s while
/// the second client sends `calls` requests each way.
///
/// # Errors
///
/// When the server cannot start or the second client cannot connect
/// before the attack.
pub async fn run(strategy: Strategy, auth: Auth, calls: usize) -> Result<Outcome, String> {
    let app = App::builder()
        .name("fairness")
        .limits(Limits::default())
        .approval_timeout(Duration::from_secs(30))
        .build();
    app.open(Counter::default()).map_err(|e| e.to_string())?;
    let queue = purview::approval::ApprovalQueue::new();
    app.set_approver(queue.clone());
    // The person approves the second client's questions at once and never
    // answers the hostile ones.
    let answering = tokio::spawn({
        let queue = queue.clone();
        async move {
            loop {
                for pending in queue.pending() {
                    if pending.request.arguments["by"] == "good" {
                        queue.answer(pending.id, purview::approval::Approval::Approve);
                    }
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
    });
    let face = purview_web::Face::answering(app.clone(), queue.clone());
    let options = face.serve_beside(auth.options());
    let server = app.serve_http(options).await.map_err(|e| e.to_string())?;
    let (url, addr) = (server.url(), server.local_addr());
    let token = auth.second();
    let kept_client = ().serve(transport(&url, token)).await.map_err(|e| e.to_string())?;
    let person = face_session(&face, &server).await?;
    // A leaked link: the hostile client's own session on the face.
    let leaked = face_session(&face, &server).await?;
    let held = attack(strategy, &url, addr, auth.hostile(), &leaked.session).await;
    // Long enough for every slot to be taken (connections open at
    // ATTACK_RATE), then some recycled.
    if strategy != Strategy::None {
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let (mut kept, mut fresh) = (Rate::default(), Rate::default());
    for i in 0..calls {
        let started = Instant::now();
        let ok = second_client_call(&kept_client, strategy, i).await;
        kept.note(started, ok);
        let started = Instant::now();
        let ok = match strategy {
            Strategy::Sessions => fresh_session(&url, token).await,
            Strategy::Streams => fresh_listen(&url, token).await,
            // A crowd through the face's open routes is no one's: the
            // person and a named client both open new connections.
            Strategy::FaceOpenRoutes if i % 2 == 1 => fresh_list(&url, token, i).await,
            Strategy::FaceOpenRoutes => person_request(&person, i / 2).await,
            _ if strategy.on_the_face() => person_request(&person, i).await,
            _ => fresh_list(&url, token, i).await,
        };
        fresh.note(started, ok);
        // The attack goes on between the second client's requests.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(held);
    answering.abort();
    let _ = kept_client.cancel().await;
    server.shutdown().await;
    Ok(Outcome { strategy, auth, kept, fresh })
}

/// A new session (2025-11-25), initialized, then ended.
async fn fresh_session(url: &str, token: Option<&str>) -> bool {
    let open = async {
        let client = ().serve(transport(url, token)).await.ok()?;
        let _ = client.cancel().await;
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(10), open).await.ok().flatten().is_some()
}

/// A new 2026-07-28 listen stream, accepted, then closed.
async fn fresh_listen(url: &str, token: Option<&str>) -> bool {
    let open = async {
        let mode = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client = ().serve_with_lifecycle(transport(url, token), mode).await.ok()?;
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let subscription = client.listen(filter).await.ok()?;
        drop(subscription);
        let _ = client.cancel().await;
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(10), open).await.ok().flatten().is_some()
}

/// One request on the keep-alive session: a read or a write, or during the
/// approval flood an approval-gated call.
async fn second_client_call(client: &Client, strategy: Strategy, i: usize) -> bool {
    let timeout = Duration::from_secs(10);
    let call = async {
        if matches!(strategy, Strategy::ApprovalFlood | Strategy::StatelessApprovals) {
            let arguments = serde_json::json!({"by": "good"});
            let params = CallToolRequestParams::new("w1__reset")
                .with_arguments(arguments.as_object().cloned().unwrap_or_default());
            return client.call_tool(params).await.is_ok_and(|r| r.is_error != Some(true));
        }
        if i.is_multiple_of(2) {
            let read = ReadResourceRequestParams::new(purview::model::WINDOWS_URI);
            client.read_resource(read).await.is_ok()
        } else {
            let params = CallToolRequestParams::new("w1__increment");
            client.call_tool(params).await.is_ok_and(|r| r.is_error != Some(true))
        }
    };
    tokio::time::timeout(timeout, call).await.unwrap_or(false)
}

/// A 2026-07-28 `tools/list` on a new connection.
async fn fresh_list(url: &str, token: Option<&str>, i: usize) -> bool {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": i, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "second", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .timeout(Duration::from_secs(10))
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    match request.send().await {
        Ok(reply) if reply.status() == 200 => {
            reply.text().await.is_ok_and(|text| text.contains("w1__increment"))
        }
        _ => false,
    }
}

/// Starts `strategy`'s hostile client.
/// Starts `strategy` against the server at `url` (`addr`), as the client
/// with `token`, holding `face_session` where the attack needs a leaked one.
pub async fn attack(
    strategy: Strategy,
    url: &str,
    addr: SocketAddr,
    token: Option<&'static str>,
    face_session: &str,
) -> Held {
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let mut held = Held { tasks: Vec::new(), kept: Vec::new() };
    match strategy {
        Strategy::None => {}
        Strategy::Idle => {
            held.tasks = paced(|| trickle(addr, String::new(), Duration::from_secs(3600))).await;
        }
        Strategy::SlowHeaders => {
            let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".to_owned();
            held.tasks = paced(|| trickle(addr, head.clone(), Duration::from_secs(1))).await;
        }
        Strategy::SlowBody => {
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: localhost\r\n{auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n"
            );
            held.tasks = paced(|| trickle(addr, head.clone(), Duration::from_secs(2))).await;
        }
        Strategy::Churn => {
            for _ in 0..16 {
                held.tasks.push(tokio::spawn(async move {
                    loop {
                        drop(TcpStream::connect(addr).await);
                        tokio::task::yield_now().await;
                    }
                }));
            }
        }
        Strategy::WrongTokens => {
            for _ in 0..16 {
                held.tasks.push(tokio::spawn(async move {
                    let guess = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer wrong-guess-0000000000\r\nContent-Length: 2\r\n\r\n{}";
                    loop {
                        if let Ok(mut stream) = TcpStream::connect(addr).await {
                            let _ = stream.write_all(guess.as_bytes()).await;
                            let mut reply = [0u8; 256];
                            let _ = stream.read(&mut reply).await;
                        }
                    }
                }));
            }
        }
        Strategy::Sessions => {
            for _ in 0..80 {
                if let Ok(client) = ().serve(transport(url, token)).await {
                    held.kept.push(Box::new(client));
                }
            }
            let url = url.to_owned();
            held.tasks.push(tokio::spawn(async move {
                loop {
                    if let Ok(client) = ().serve(transport(&url, token)).await {
                        let _ = client.cancel().await;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }));
        }
        Strategy::Streams => {
            for _ in 0..20 {
                let Ok(client) = ().serve(transport(url, token)).await else { continue };
                held.kept.push(Box::new(client));
            }
            for _ in 0..80 {
                let mode = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                };
                let Ok(client) = ().serve_with_lifecycle(transport(url, token), mode).await else {
                    continue;
                };
                let filter = SubscriptionFilter::builder().tools_list_changed().build();
                if let Ok(subscription) = client.listen(filter).await {
                    held.kept.push(Box::new(subscription));
                }
                held.kept.push(Box::new(client));
            }
        }
        Strategy::ApprovalFlood => {
            for _ in 0..16 {
                let Ok(client) = ().serve(transport(url, token)).await else { continue };
                let client = Arc::new(client);
                for _ in 0..4 {
                    let client = client.clone();
                    held.tasks.push(tokio::spawn(async move {
                        let arguments = serde_json::json!({"by": "hog"});
                        let params = CallToolRequestParams::new("w1__reset")
                            .with_arguments(arguments.as_object().cloned().unwrap_or_default());
                        // Asked again as soon as it is withdrawn.
                        loop {
                            let _ = client.call_tool(params.clone()).await;
                            tokio::time::sleep(Duration::from_millis(1)).await;
                        }
                    }));
                }
                held.kept.push(Box::new(client));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        Strategy::KeptAlive => {
            let get = format!("GET /mcp HTTP/1.1\r\nHost: localhost\r\n{auth}\r\n");
            held.tasks = paced(|| kept_alive(addr, get.clone())).await;
        }
        Strategy::NeverRead => {
            let one = format!(
                "POST /mcp HTTP/1.1\r\nHost: localhost\r\n{auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Length: {}\r\n\r\n{}",
                STATELESS_LIST.len(),
                STATELESS_LIST
            );
            for _ in 0..64 {
                let one = one.clone();
                held.tasks.push(tokio::spawn(async move {
                    loop {
                        let Ok(mut stream) = TcpStream::connect(addr).await else {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            continue;
                        };
                        // Requests back to back until the server stops
                        // reading them; no answer is ever read.
                        while stream.write_all(one.as_bytes()).await.is_ok() {}
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }));
            }
        }
        Strategy::StatelessApprovals => {
            let url = url.to_owned();
            for _ in 0..64 {
                let url = url.clone();
                held.tasks.push(tokio::spawn(async move {
                    let http = reqwest::Client::new();
                    loop {
                        let body = stateless_call("w1__reset", serde_json::json!({"by": "hog"}));
                        let mut request = http
                            .post(&url)
                            .header("content-type", "application/json")
                            .header("accept", "application/json, text/event-stream")
                            .header("mcp-protocol-version", "2026-07-28")
                            .header("mcp-method", "tools/call")
                            .header("mcp-name", "w1__reset")
                            .body(body.to_string());
                        if let Some(token) = token {
                            request = request.bearer_auth(token);
                        }
                        let _ = request.send().await;
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                }));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        Strategy::FaceLinks => {
            for task in 0..16 {
                held.tasks.push(tokio::spawn(async move {
                    for guess in 0u64.. {
                        let head = if (task + guess).is_multiple_of(2) {
                            {
                            let body = format!(r#"{{"key":"guess{task}x{guess}"}}"#);
                            format!("POST /person/open HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len())
                        }
                        } else {
                            "GET /person/events HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned()
                        };
                        if let Ok(mut stream) = TcpStream::connect(addr).await {
                            let _ = stream.write_all(head.as_bytes()).await;
                            let mut reply = [0u8; 256];
                            let _ = stream.read(&mut reply).await;
                        }
                    }
                }));
            }
        }
        Strategy::FaceStreams => {
            let head = format!(
                "GET /person/events HTTP/1.1\r\nHost: localhost\r\nX-Purview-Session: {face_session}\r\nAccept: text/event-stream\r\n\r\n"
            );
            held.tasks = paced(|| held_open(addr, head.clone())).await;
        }
        Strategy::FaceSlowWrites => {
            let head = format!(
                "POST /person/call HTTP/1.1\r\nHost: localhost\r\nX-Purview-Session: {face_session}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            );
            held.tasks = paced(|| trickle(addr, head.clone(), Duration::from_secs(2))).await;
        }
        Strategy::Listing => {
            let url = url.to_owned();
            for _ in 0..8 {
                let url = url.clone();
                held.tasks.push(tokio::spawn(async move {
                    // One client, so one kept-alive connection each.
                    let http = reqwest::Client::new();
                    loop {
                        let mut request = http
                            .post(&url)
                            .header("content-type", "application/json")
                            .header("accept", "application/json, text/event-stream")
                            .header("mcp-protocol-version", "2026-07-28")
                            .header("mcp-method", "tools/list")
                            .body(STATELESS_LIST);
                        if let Some(token) = token {
                            request = request.bearer_auth(token);
                        }
                        if let Ok(reply) = request.send().await {
                            let _ = reply.bytes().await;
                        } else {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                    }
                }));
            }
        }
        Strategy::CardScene => {
            for _ in 0..8 {
                let url = url.to_owned();
                held.tasks.push(tokio::spawn(async move {
                    let Ok(client) = card_host().serve(transport(&url, token)).await else {
                        return;
                    };
                    loop {
                        let read = client.call_tool(CallToolRequestParams::new("app__card_scene"));
                        if read.await.is_err() {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                    }
                }));
            }
        }
        Strategy::FaceOpenRoutes => {
            let get = "GET /person/ HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned();
            held.tasks = paced(|| kept_alive(addr, get.clone())).await;
        }
    }
    held
}

/// A client that renders cards: it declares the MCP Apps extension.
fn card_host() -> rmcp::model::ClientConfig {
    let mut capabilities = rmcp::model::ClientCapabilities::default();
    let extension = serde_json::json!({
        purview::http::mcp_apps::EXTENSION: {"mimeTypes": [purview::http::mcp_apps::MIME_TYPE]}
    });
    capabilities.extensions = serde_json::from_value(extension).ok();
    rmcp::model::ClientConfig::new(
        capabilities,
        rmcp::model::Implementation::new("card-host", "1.0.0"),
    )
}

/// What one read of the card's scene takes with `windows` windows open,
/// in milliseconds: `reads` reads one after another by one client, alone
/// on the server, the mean (the server's work and the client's parse).
pub async fn card_read_ms(windows: usize, reads: usize) -> Result<f64, String> {
    let app = App::builder().name("fairness").build();
    for _ in 0..windows.max(1) {
        app.open(Counter::default()).map_err(|e| e.to_string())?;
    }
    let face = purview_web::Face::new(app.clone());
    let server = app
        .serve_http(face.serve_beside(HttpOptions::default()))
        .await
        .map_err(|e| e.to_string())?;
    let client =
        card_host().serve(transport(&server.url(), None)).await.map_err(|e| e.to_string())?;
    let read = || client.call_tool(CallToolRequestParams::new("app__card_scene"));
    read().await.map_err(|e| e.to_string())?;
    let started = Instant::now();
    for _ in 0..reads.max(1) {
        read().await.map_err(|e| e.to_string())?;
    }
    let each = started.elapsed().as_secs_f64() * 1e3 / reads.max(1) as f64;
    let _ = client.cancel().await;
    server.shutdown().await;
    Ok(each)
}

/// One connection after another that sends `head` and then only reads
/// (an event stream held open), reopened whenever the server ends it.
async fn held_open(addr: SocketAddr, head: String) {
    loop {
        if let Ok(mut stream) = TcpStream::connect(addr).await
            && stream.write_all(head.as_bytes()).await.is_ok()
        {
            let mut reply = [0u8; 4096];
            while matches!(stream.read(&mut reply).await, Ok(n) if n > 0) {}
        }
        tokio::time::sleep(Duration::from_millis(1000 / ATTACK_RATE)).await;
    }
}

/// A 2026-07-28 `tools/list`, for the attacks that send it raw.
const STATELESS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"hog","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// A 2026-07-28 `tools/call` of `tool` with `arguments`, from a client
/// calling itself by the second client's name: every request of it is
/// still the one asker its credential proves, in the approval places as
/// in the question.
fn stateless_call(tool: &str, arguments: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "second", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}}}})
}

/// One kept-alive connection after another whose `get` passes the header
/// checks, sent again every 4 s, reopened whenever the server cuts it.
async fn kept_alive(addr: SocketAddr, get: String) {
    loop {
        let Ok(mut stream) = TcpStream::connect(addr).await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let mut reply = [0u8; 4096];
        loop {
            if stream.write_all(get.as_bytes()).await.is_err() {
                break;
            }
            // The answer (a 405 or an event stream's head), then quiet.
            let until = tokio::time::sleep(Duration::from_secs(4));
            tokio::pin!(until);
            let cut = loop {
                tokio::select! {
                    () = &mut until => break false,
                    read = stream.read(&mut reply) => if matches!(read, Ok(0) | Err(_)) { break true },
                }
            };
            if cut {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(1000 / ATTACK_RATE)).await;
    }
}

/// New connections a hostile client opens per second, as the probe did
/// (faster, and most of a burst is cut before its headers are read).
const ATTACK_RATE: u64 = 100;

/// 300 tasks of `make`, started at [`ATTACK_RATE`] a second.
async fn paced<F: std::future::Future<Output = ()> + Send + 'static>(
    make: impl Fn() -> F,
) -> Vec<JoinHandle<()>> {
    let mut tasks = Vec::new();
    for _ in 0..300 {
        tasks.push(tokio::spawn(make()));
        tokio::time::sleep(Duration::from_millis(1000 / ATTACK_RATE)).await;
    }
    tasks
}

/// One connection after another that sends `head`, then a byte every
/// `every`, reopened whenever the server cuts it.
async fn trickle(addr: SocketAddr, head: String, every: Duration) {
    loop {
        let Ok(mut stream) = TcpStream::connect(addr).await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        if stream.write_all(head.as_bytes()).await.is_err() {
            continue;
        }
        // A connection the server cut shows as soon as a read ends.
        let mut reply = [0u8; 512];
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {
                    if stream.write_all(b" ").await.is_err() {
                        break;
                    }
                }
                read = stream.read(&mut reply) => {
                    if matches!(read, Ok(0) | Err(_)) {
                        break;
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(1000 / ATTACK_RATE)).await;
    }
}

/// One outcome's two rates as table cells: succeeded, then p50 / p99, on
/// the keep-alive session and then on new connections (or at the face).
fn rate_cells(o: &Outcome) -> String {
    format!(
        "{} / {} | {:.1} / {:.1} ms | {} / {} | {:.1} / {:.1} ms",
        o.kept.ok,
        o.kept.sent,
        o.kept.quantile_ms(0.5),
        o.kept.quantile_ms(0.99),
        o.fresh.ok,
        o.fresh.sent,
        o.fresh.quantile_ms(0.5),
        o.fresh.quantile_ms(0.99),
    )
}

/// Attacks on the person's face as a Markdown table: the agent's requests
/// on its keep-alive session, and the person's clicks at the face.
pub fn face_table(outcomes: &[Outcome]) -> String {
    let mut out = String::from(
        "| attack on the face | agent, keep-alive session: succeeded | p50 / p99 | the person at the face: succeeded | p50 / p99 |\n|---|---|---|---|---|\n",
    );
    for o in outcomes {
        out.push_str(&format!("| {} | {} |\n", o.strategy.name(), rate_cells(o)));
    }
    out
}

/// The table the bench prints and BENCHMARKS.md shows.
pub fn table(outcomes: &[Outcome]) -> String {
    let mut out = String::from(
        "| attack | clients | keep-alive session: succeeded | p50 / p99 | new connections: succeeded | p50 / p99 |\n|---|---|---|---|---|---|\n",
    );
    for o in outcomes {
        let clients = match o.auth {
            Auth::None => "no token",
            Auth::Shared => "one shared token",
            Auth::Named => "two named clients",
        };
        out.push_str(&format!("| {} | {clients} | {} |\n", o.strategy.name(), rate_cells(o)));
    }
    out
}

/// Another client's edits, idle and under an attack on the server's CPU.
#[derive(Debug, Clone)]
pub struct Slowdown {
    /// The attack.
    pub strategy: Strategy,
    /// Windows open.
    pub windows: usize,
    /// Whether the server wrote its answers in CPU turns.
    pub cpu_turns: bool,
    /// The second client's edits before the attack began.
    pub idle: Rate,
    /// The same client's edits while it went on.
    pub attacked: Rate,
}

impl Slowdown {
    /// The attacked edit's p50 over the idle one's.
    pub fn ratio(&self) -> f64 {
        self.attacked.quantile_ms(0.5) / self.idle.quantile_ms(0.5).max(f64::EPSILON)
    }
}

/// Runs `strategy` by one named client against a server with `windows`
/// windows open, measuring the second named client's edit (`w1__increment`
/// on its keep-alive session) `calls` times before the attack and `calls`
/// times during it, in the same run.
///
/// # Errors
///
/// When the server cannot start or the second client cannot connect.
pub async fn slowdown(
    strategy: Strategy,
    windows: usize,
    calls: usize,
) -> Result<Slowdown, String> {
    slowdown_with(strategy, windows, calls, true).await
}

/// [`slowdown`], with the server's CPU turns on or (as before they were
/// taken) off, so that one run measures both.
pub async fn slowdown_with(
    strategy: Strategy,
    windows: usize,
    calls: usize,
    cpu_turns: bool,
) -> Result<Slowdown, String> {
    let auth = Auth::Named;
    let app = App::builder().name("fairness").limits(Limits::default()).build();
    for _ in 0..windows.max(1) {
        app.open(Counter::default()).map_err(|e| e.to_string())?;
    }
    // The card's scene needs the face (and its card) beside `/mcp`.
    let face = purview_web::Face::new(app.clone());
    let options = auth.options();
    let options =
        if strategy == Strategy::CardScene { face.serve_beside(options) } else { options };
    let options = if cpu_turns { options } else { options.without_cpu_turns() };
    let server = app.serve_http(options).await.map_err(|e| e.to_string())?;
    let (url, addr) = (server.url(), server.local_addr());
    let second = ().serve(transport(&url, auth.second())).await.map_err(|e| e.to_string())?;
    let idle = edits(&second, calls).await;
    let held = attack(strategy, &url, addr, auth.hostile(), "").await;
    // Let the attack's connections reach their loop.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let attacked = edits(&second, calls).await;
    drop(held);
    let _ = second.cancel().await;
    server.shutdown().await;
    Ok(Slowdown { strategy, windows, cpu_turns, idle, attacked })
}

/// `calls` edits (`w1__increment`) on `client`'s keep-alive session.
async fn edits(client: &Client, calls: usize) -> Rate {
    let mut rate = Rate::default();
    for _ in 0..calls {
        let started = Instant::now();
        let call = client.call_tool(CallToolRequestParams::new("w1__increment"));
        let ok = tokio::time::timeout(Duration::from_secs(30), call)
            .await
            .is_ok_and(|r| r.is_ok_and(|r| r.is_error != Some(true)));
        rate.note(started, ok);
    }
    rate
}

/// Slowdowns as a Markdown table.
pub fn slowdown_table(runs: &[Slowdown]) -> String {
    let mut out = String::from(
        "| attack | windows | CPU turns | edits: succeeded idle / attacked | p50 idle | p50 attacked | ratio |\n|---|---|---|---|---|---|---|\n",
    );
    for s in runs {
        out.push_str(&format!(
            "| {} | {} | {} | {} / {} and {} / {} | {:.1} ms | {:.1} ms | ×{:.1} |\n",
            s.strategy.name(),
            s.windows,
            if s.cpu_turns { "on" } else { "off (as before)" },
            s.idle.ok,
            s.idle.sent,
            s.attacked.ok,
            s.attacked.sent,
            s.idle.quantile_ms(0.5),
            s.attacked.quantile_ms(0.5),
            s.ratio(),
        ));
    }
    out
}

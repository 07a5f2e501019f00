//! Lock-out: one hostile client holds every slot it can while an
//! authenticated client works, over streamable HTTP with a bearer token and
//! the default limits. Reports how many of the good client's calls
//! succeeded and their latency, without the hostile client and with it
//! (RELIABILITY.md).
//!
//! Two hostile clients, one after the other:
//! - without the token: 300 idle connections held, more reopened in a loop,
//!   and 16 tasks sending wrong tokens;
//! - with the token: every session the server allows (all but the good
//!   client's), their GET streams, and as many `subscriptions/listen`
//!   streams as it can open.
//!
//! `cargo bench -p purview-benches --bench lockout` (`PURVIEW_LOCKOUT_CALLS`
//! changes the 2,000 calls per phase).

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use purview::{App, http::HttpOptions};
use purview_benches::CountWindow;
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
};

const TOKEN: &str = "lockout-bench-token-0123456789abcdef";

fn transport(url: &str) -> StreamableHttpClientTransport<reqwest::Client> {
    StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(TOKEN),
    )
}

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// The good client's `calls` reads and writes; returns successes, failures
/// and each call's latency.
async fn good_client(client: &Client, calls: usize) -> (usize, usize, Vec<Duration>) {
    let mut latencies = Vec::with_capacity(calls);
    let (mut ok, mut failed) = (0, 0);
    for i in 0..calls {
        let started = Instant::now();
        let outcome = if i % 2 == 0 {
            client
                .read_resource(ReadResourceRequestParams::new(purview::model::WINDOWS_URI))
                .await
                .map(|_| ())
        } else {
            client.call_tool(CallToolRequestParams::new("w1__increment")).await.map(|_| ())
        };
        latencies.push(started.elapsed());
        match outcome {
            Ok(()) => ok += 1,
            Err(_) => failed += 1,
        }
    }
    (ok, failed, latencies)
}

/// Without the token: idle connections held and reopened, wrong tokens.
fn hostile_without_token(addr: SocketAddr) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = vec![tokio::spawn(async move {
        let mut held = Vec::new();
        loop {
            if let Ok(stream) = TcpStream::connect(addr).await {
                held.push(stream);
            }
            if held.len() > 300 {
                held.drain(..50);
            }
            tokio::task::yield_now().await;
        }
    })];
    for _ in 0..16 {
        tasks.push(tokio::spawn(async move {
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
    tasks
}

/// With the token: every session and stream it can get; returns what it
/// holds (dropping it lets go).
async fn hostile_with_token(url: &str) -> (Vec<Box<dyn Send>>, usize, usize) {
    let mut held: Vec<Box<dyn Send>> = Vec::new();
    let mut sessions = 0;
    for _ in 0..80 {
        if let Ok(client) = ().serve(transport(url)).await {
            held.push(Box::new(client));
            sessions += 1;
        }
    }
    let mut listens = 0;
    for _ in 0..100 {
        let mode = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let Ok(client) = ().serve_with_lifecycle(transport(url), mode).await else { continue };
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        if let Ok(subscription) = client.listen(filter).await {
            held.push(Box::new(subscription));
            listens += 1;
        }
        held.push(Box::new(client));
    }
    (held, sessions, listens)
}

fn report(name: &str, (ok, failed, mut latencies): (usize, usize, Vec<Duration>)) {
    latencies.sort();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "| {name} | {ok} / {} | {failed} | {:.2} / {:.2} / {:.2} ms |",
        ok + failed,
        pct(0.5),
        pct(0.99),
        latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1e3)
    );
}

fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let calls: usize = std::env::var("PURVIEW_LOCKOUT_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(purview_benches::scaled(2_000, 50));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let app = App::builder().name("lockout").build();
        app.open(CountWindow::default()).expect("open");
        let server =
            app.serve_http(HttpOptions::default().bearer_token(TOKEN)).await.expect("serve");
        let (url, addr) = (server.url(), server.local_addr());
        println!("| phase | good client's calls succeeded | failed | latency p50 / p99 / max |");
        println!("|---|---|---|---|");
        let client = ().serve(transport(&url)).await.expect("the good client connects");
        report("no hostile client", good_client(&client, calls).await);

        let hostile = hostile_without_token(addr);
        tokio::time::sleep(Duration::from_secs(2)).await;
        report("hostile client without the token", good_client(&client, calls).await);
        // A new session while it goes on, too.
        let fresh = ().serve(transport(&url)).await.expect("a new session gets in");
        report("… a session opened meanwhile", good_client(&fresh, calls / 10).await);
        let _ = fresh.cancel().await;
        for task in hostile {
            task.abort();
        }
        tokio::time::sleep(Duration::from_secs(1)).await;

        // The good client's session is open; the hostile one takes the rest.
        let (held, sessions, listens) = hostile_with_token(&url).await;
        report(
            &format!("hostile client with the token ({sessions} sessions, {listens} listen requests, 64 held at most)"),
            good_client(&client, calls).await,
        );
        let _ = client.cancel().await;
        drop(held);
        server.shutdown().await;
    });
}

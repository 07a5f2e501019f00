//! Soak: 8 agents over streamable HTTP doing versioned read-then-write
//! cycles on one counter while a person's thread edits the same counter
//! through `WindowHandle::update`, 10,000 operations each. Reports lost
//! updates (must be 0), version monotonicity, the stale_state rate, RSS
//! before and after, and call latency (RELIABILITY.md).
//!
//! `cargo bench -p purview-benches --bench soak` (`PURVIEW_SOAK_OPS` to
//! change the 10,000).

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use purview::{App, http::HttpOptions};
use purview_benches::CountWindow;
use rmcp::{
    ServiceExt,
    model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents},
    transport::StreamableHttpClientTransport,
};
use serde_json::{Value, json};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// One agent's tally.
#[derive(Default)]
struct Tally {
    applied: u64,
    stale: u64,
    version_went_back: u64,
    latencies: Vec<Duration>,
}

async fn agent(url: String, ops: u64) -> Tally {
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.expect("connect");
    let mut tally = Tally::default();
    let mut last_version = 0u64;
    for _ in 0..ops {
        let read = client
            .read_resource(ReadResourceRequestParams::new(purview::model::WINDOWS_URI))
            .await
            .expect("read");
        let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
            panic!("text content")
        };
        let snapshot: Value = serde_json::from_str(text).expect("json");
        let version = snapshot["windows"][0]["version"].as_u64().expect("version");
        if version < last_version {
            tally.version_went_back += 1;
        }
        last_version = version;
        let args = json!({"expectedVersion": version}).as_object().cloned().unwrap_or_default();
        let started = Instant::now();
        let result = client
            .call_tool(CallToolRequestParams::new("w1__increment").with_arguments(args))
            .await
            .expect("call");
        tally.latencies.push(started.elapsed());
        match result.is_error {
            Some(true) => {
                let code = result.structured_content.as_ref().and_then(|v| v["code"].as_str());
                assert_eq!(code, Some("stale_state"), "{result:?}");
                tally.stale += 1;
            }
            _ => tally.applied += 1,
        }
    }
    let _ = client.cancel().await;
    tally
}

fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let ops: u64 = std::env::var("PURVIEW_SOAK_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(purview_benches::scaled(10_000, 80) as u64);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let app = App::builder().name("soak").build();
    let counter = app.open(CountWindow::default()).expect("open");
    let server = runtime.block_on(app.serve_http(HttpOptions::default())).expect("serve");
    let rss_before = rss_kib();
    let started = Instant::now();

    let person_edits = Arc::new(AtomicU64::new(0));
    let person = {
        let counter = counter.clone();
        let edits = person_edits.clone();
        std::thread::spawn(move || {
            for _ in 0..ops {
                counter.update(|c| c.count += 1).expect("the person's edit");
                edits.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_micros(200));
            }
        })
    };
    let tallies: Vec<Tally> = runtime.block_on(async {
        let agents: Vec<_> = (0..8).map(|_| tokio::spawn(agent(server.url(), ops))).collect();
        let mut tallies = Vec::new();
        for agent in agents {
            tallies.push(agent.await.expect("agent task"));
        }
        tallies
    });
    person.join().expect("person thread");
    let elapsed = started.elapsed();
    let rss_after = rss_kib();

    let applied: u64 = tallies.iter().map(|t| t.applied).sum();
    let stale: u64 = tallies.iter().map(|t| t.stale).sum();
    let went_back: u64 = tallies.iter().map(|t| t.version_went_back).sum();
    let mut latencies: Vec<Duration> = tallies.into_iter().flat_map(|t| t.latencies).collect();
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)];
    let expected = applied + person_edits.load(Ordering::Relaxed);
    let actual = counter.read(|c| c.count).expect("read");
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| agents × operations | 8 × {ops} over streamable HTTP, plus a person's thread × {ops} |"
    );
    println!("| wall time | {:.1} s |", elapsed.as_secs_f64());
    println!("| agent writes applied | {applied} |");
    println!(
        "| stale_state (write refused, nothing applied) | {stale} ({:.1} %) |",
        100.0 * stale as f64 / (8 * ops) as f64
    );
    println!("| person's edits | {} |", person_edits.load(Ordering::Relaxed));
    println!(
        "| lost updates (applied writes + edits − final count) | {} |",
        expected as i64 - actual as i64
    );
    println!("| version seen going back | {went_back} |");
    println!(
        "| call latency p50 / p99 / max | {:.2} / {:.2} / {:.2} ms |",
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        latencies[latencies.len() - 1].as_secs_f64() * 1e3
    );
    println!("| RSS before → after | {} → {} KiB |", rss_before, rss_after);
    runtime.block_on(server.shutdown());
    assert_eq!(expected, actual, "lost updates");
    assert_eq!(went_back, 0, "a version went back");
}

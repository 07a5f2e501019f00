//! Measurements criterion is not built for: bursts of human edits with
//! subscribed sessions, notification fan-out over streamable HTTP, and the
//! memory a window and a session cost. Prints a table; nothing is asserted.
//!
//! `cargo bench -p purview-benches --bench load`

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::atomic::{AtomicIsize, Ordering},
    time::{Duration, Instant},
};

use purview_benches::{Board, Counter, HandWritten, boards, connect};
use rmcp::{ServiceExt, model::SubscribeRequestParams, transport::StreamableHttpClientTransport};

/// Counts live heap bytes, so memory per window and per session can be read.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator and only adds bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

async fn edit_burst() {
    let edits = purview_benches::scaled(10_000, 200) as u32;
    const SESSIONS: usize = 10;
    let app = boards(1);
    let board = app.window::<Board>("w1").expect("board");
    let mut clients = Vec::new();
    let mut counters = Vec::new();
    for _ in 0..SESSIONS {
        let counter = Counter::default();
        let client = connect(app.mcp_server(), counter.clone()).await;
        #[allow(deprecated)]
        client
            .subscribe(SubscribeRequestParams::new(purview::model::WINDOWS_URI))
            .await
            .expect("subscribe");
        clients.push(client);
        counters.push(counter);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let start = Instant::now();
    let cpu = purview_benches::own_cpu();
    // The person's side runs on a thread of its own, as a GUI thread would.
    let person = tokio::task::spawn_blocking(move || {
        for i in 0..edits {
            board.update(|b| b.count = i + 10).expect("edit");
        }
    });
    person.await.expect("edits");
    let edit_wall = start.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let cpu = purview_benches::own_cpu() - cpu;
    let mut sent = 0;
    let mut latencies = Vec::new();
    for counter in &counters {
        let c = counter.0.lock().expect("counts");
        sent += c.updates;
        if let Some(first) = c.first_update {
            latencies.push(first - start);
        }
    }
    latencies.sort();
    println!("## Human edit burst: {edits} edits, {SESSIONS} subscribed sessions");
    println!("| measure | value |\n|---|---|");
    println!(
        "| resources/updated sent (all sessions) | {sent} ({:.1} per session) |",
        sent as f64 / SESSIONS as f64
    );
    println!(
        "| wall time per edit on the editing thread | {:.2} µs |",
        edit_wall.as_secs_f64() * 1e6 / edits as f64
    );
    println!(
        "| process CPU per edit (editing + broadcasting) | {:.2} µs |",
        cpu.as_secs_f64() * 1e6 / edits as f64
    );
    println!(
        "| edit → first notification, p50 over sessions | {:.0} µs |",
        percentile(&latencies, 0.5).as_secs_f64() * 1e6
    );
    println!(
        "| edit → first notification, max over sessions | {:.0} µs |",
        percentile(&latencies, 1.0).as_secs_f64() * 1e6
    );

    // Single edits on an idle app: the latency a person's keystroke sees.
    let board = app.window::<Board>("w1").expect("board");
    let mut single = Vec::new();
    for i in 0..50u32 {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let before: Vec<usize> =
            counters.iter().map(|c| c.0.lock().expect("counts").updates).collect();
        let start = Instant::now();
        board.update(|b| b.count = 100_000 + i).expect("edit");
        let deadline = start + Duration::from_secs(2);
        while Instant::now() < deadline
            && !counters.iter().zip(&before).all(|(c, b)| c.0.lock().expect("counts").updates > *b)
        {
            tokio::time::sleep(Duration::from_micros(100)).await;
        }
        for counter in &counters {
            if let Some(at) = counter.0.lock().expect("counts").last_update
                && at >= start
            {
                single.push(at - start);
            }
        }
    }
    single.sort();
    println!(
        "| single edit on an idle app → notification, p50 / p99 | {:.0} µs / {:.0} µs |\n",
        percentile(&single, 0.5).as_secs_f64() * 1e6,
        percentile(&single, 0.99).as_secs_f64() * 1e6
    );
    for client in clients {
        let _ = client.cancel().await;
    }
}

async fn fan_out() {
    const SESSIONS: usize = 100;
    let rounds = purview_benches::scaled(20, 2);
    let app = boards(1);
    let board = app.window::<Board>("w1").expect("board");
    // More sessions than the default caps (64 sessions, 64 GET streams), so
    // the caps are raised for it.
    let options =
        purview::http::HttpOptions::default().max_sessions(SESSIONS).max_streams(SESSIONS);
    let server = app.serve_http(options).await.expect("serve");
    let mut clients = Vec::new();
    let mut counters = Vec::new();
    for _ in 0..SESSIONS {
        let counter = Counter::default();
        let transport = StreamableHttpClientTransport::from_uri(server.url());
        clients.push(counter.clone().serve(transport).await.expect("session"));
        counters.push(counter);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut latencies = Vec::new();
    for round in 0..rounds {
        let before: Vec<usize> =
            counters.iter().map(|c| c.0.lock().expect("counts").tool_changes).collect();
        let start = Instant::now();
        // Hiding an action changes the tool set: tools/list_changed to all.
        board.set_available("tag", !round.is_multiple_of(2)).expect("toggle");
        let deadline = start + Duration::from_secs(5);
        loop {
            let done = counters
                .iter()
                .zip(&before)
                .all(|(c, b)| c.0.lock().expect("counts").tool_changes > *b);
            if done || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        for counter in &counters {
            if let Some(at) = counter.0.lock().expect("counts").last_tool_change
                && at >= start
            {
                latencies.push(at - start);
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    latencies.sort();
    let reached = counters.iter().filter(|c| c.0.lock().expect("counts").tool_changes > 0).count();
    assert_eq!(reached, SESSIONS, "sessions that never got tools/list_changed");
    println!(
        "## Fan-out: tools/list_changed to {SESSIONS} streamable-HTTP sessions, {rounds} rounds"
    );
    println!("| measure | value |\n|---|---|");
    println!("| deliveries seen | {} of {} |", latencies.len(), SESSIONS * rounds);
    println!(
        "| p50 delivery latency | {:.2} ms |",
        percentile(&latencies, 0.5).as_secs_f64() * 1e3
    );
    println!(
        "| p99 delivery latency | {:.2} ms |\n",
        percentile(&latencies, 0.99).as_secs_f64() * 1e3
    );
    for client in clients {
        let _ = client.cancel().await;
    }
    server.shutdown().await;
}

async fn memory() {
    const WINDOWS: usize = 1_000;
    const SESSIONS: usize = 100;
    let app = boards(0);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let before = live();
    for n in 0..WINDOWS {
        app.open(Board::new(n)).expect("open");
    }
    let with_windows = live();
    // The view-model itself, for comparison: what the app would hold anyway.
    let models_before = live();
    let models: Vec<Board> = (0..WINDOWS).map(Board::new).collect();
    let model_bytes = live() - models_before;
    drop(models);
    let per_window = (with_windows - before) as f64 / WINDOWS as f64;
    let per_model = model_bytes as f64 / WINDOWS as f64;

    let small = boards(1);
    let mut purview_sessions = Vec::new();
    let before = live();
    for _ in 0..SESSIONS {
        purview_sessions.push(connect(small.mcp_server(), Counter::default()).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let purview_per_session = (live() - before) as f64 / SESSIONS as f64;
    let mut plain_sessions = Vec::new();
    let before = live();
    for _ in 0..SESSIONS {
        plain_sessions.push(connect(HandWritten::default(), Counter::default()).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let plain_per_session = (live() - before) as f64 / SESSIONS as f64;
    println!("## Memory (live heap bytes, counting allocator)");
    println!("| measure | bytes |\n|---|---|");
    println!("| per open window, total (view-model + projection + registry) | {per_window:.0} |");
    println!("| of which the view-model itself | {per_model:.0} |");
    println!("| runtime overhead per window | {:.0} |", per_window - per_model);
    println!(
        "| per in-process session, Purview (server + rmcp client) | {purview_per_session:.0} |"
    );
    println!(
        "| per in-process session, hand-written rmcp (server + rmcp client) | {plain_per_session:.0} |"
    );
    println!(
        "| Purview's overhead per session | {:.0} |\n",
        purview_per_session - plain_per_session
    );
    for client in purview_sessions.into_iter().chain(plain_sessions) {
        let _ = client.cancel().await;
    }
}

fn main() {
    // `cargo test --benches` runs bench targets with `--bench`-less args; only
    // measure when asked to benchmark.
    if !purview_benches::should_run() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // `PURVIEW_LOAD_ONLY=memory` (or `edits`, `fan_out`) runs one part.
    let only = std::env::var("PURVIEW_LOAD_ONLY").ok().filter(|o| !o.is_empty());
    let runs = |part: &str| only.as_deref().is_none_or(|o| o == part);
    rt.block_on(async {
        if runs("edits") {
            edit_burst().await;
        }
        if runs("fan_out") {
            fan_out().await;
        }
        if runs("memory") {
            memory().await;
        }
    });
}

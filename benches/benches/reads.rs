//! What one `tools/list` costs with 256 open windows (the most an app
//! lets agents open by default): the server's CPU for the whole answer
//! (the handler's work and its JSON, as the transport writes it), next to
//! the JSON alone in the same run, and how long the answer holds the
//! state lock that the person's edits, the GUI's frames and every other
//! agent wait on. Then the same list asked over streamable HTTP: answered
//! by rmcp, which turns the list into JSON for each request, and from the
//! bytes written once per change, in the same run.
//! `cargo bench -p purview-benches --bench reads`

use std::time::{Duration, Instant};

use purview_benches::{boards, own_cpu, quick, scaled, thread_cpu};

fn per(total: Duration, n: usize) -> f64 {
    total.as_secs_f64() * 1e3 / n as f64
}

fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let app = boards(256);
    let rounds = scaled(200, 3);
    // Warm: the first list after a change may build what later ones reuse.
    let reply = app.tools_list_reply().expect("tools/list");
    let bytes = serde_json::to_vec(&reply).expect("json").len();

    let start = thread_cpu();
    for _ in 0..rounds {
        let reply = app.tools_list_reply().expect("tools/list");
        std::hint::black_box(serde_json::to_vec(&reply).expect("json"));
    }
    let whole = thread_cpu() - start;

    let start = thread_cpu();
    for _ in 0..rounds {
        std::hint::black_box(serde_json::to_vec(&reply).expect("json"));
    }
    let json_only = thread_cpu() - start;

    let mut held = Duration::ZERO;
    let wall = Instant::now();
    for _ in 0..rounds {
        held += app.tools_lock_hold().expect("lock");
    }
    let _ = wall.elapsed();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let http = runtime.block_on(over_http(&app, scaled(100, 3)));

    if quick() {
        return;
    }
    println!("## tools/list with 256 open windows ({} tools, {bytes} bytes)", reply.tools.len());
    println!("| measure | per list |");
    println!("|---|---|");
    println!("| server CPU, whole answer | {:.2} ms |", per(whole, rounds));
    println!("| of which JSON alone (same run) | {:.2} ms |", per(json_only, rounds));
    println!("| whole ÷ JSON alone | {:.2} |", whole.as_secs_f64() / json_only.as_secs_f64());
    println!("| state lock held | {:.1} µs |", per(held, rounds) * 1e3);
    println!();
    println!("## the same list over HTTP, in a session (client and server in this process)");
    println!("| answered | wall p50 | process CPU per list |");
    println!("|---|---|---|");
    println!("| by rmcp (JSON for each request) | {:.2} ms | {:.2} ms |", http.rmcp.0, http.rmcp.1);
    println!("| from the shared bytes | {:.2} ms | {:.2} ms |", http.shared.0, http.shared.1);
    println!(
        "| shared ÷ rmcp | {:.2} | {:.2} |",
        http.shared.0 / http.rmcp.0,
        http.shared.1 / http.rmcp.1
    );
}

/// What one list costs over HTTP in a session: through rmcp and from the
/// shared bytes, each as (wall p50 ms, process CPU ms per list).
struct OverHttp {
    rmcp: (f64, f64),
    shared: (f64, f64),
}

async fn over_http(app: &purview::App, rounds: usize) -> OverHttp {
    let server = app.serve_http(purview::http::HttpOptions::default()).await.expect("serves");
    let url = server.url();
    let client = reqwest::Client::new();
    let post = |accept: &'static str, session: Option<String>, body: String| {
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", accept)
            .body(body);
        if let Some(id) = session {
            request =
                request.header("mcp-session-id", id).header("mcp-protocol-version", "2025-11-25");
        }
        request.send()
    };
    let plain = "application/json, text/event-stream";
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
    let opened = post(plain, None, init.to_owned()).await.expect("initialize");
    let id = opened.headers()["mcp-session-id"].to_str().expect("an id").to_owned();
    let _ = opened.bytes().await;
    let done = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let _ = post(plain, Some(id.clone()), done.to_owned()).await.expect("initialized");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    // A weighted Accept header is one only rmcp answers.
    let weighted = "application/json;q=1, text/event-stream;q=0.9";
    let measure = async |accept: &'static str| {
        let mut walls = Vec::with_capacity(rounds);
        let cpu = own_cpu();
        for _ in 0..rounds {
            let at = Instant::now();
            let answer = post(accept, Some(id.clone()), list.to_owned()).await.expect("a list");
            std::hint::black_box(answer.bytes().await.expect("its body"));
            walls.push(at.elapsed());
        }
        let cpu = own_cpu() - cpu;
        walls.sort();
        (walls[walls.len() / 2].as_secs_f64() * 1e3, per(cpu, rounds))
    };
    let rmcp = measure(weighted).await;
    let shared = measure(plain).await;
    server.shutdown().await;
    OverHttp { rmcp, shared }
}

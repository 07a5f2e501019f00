//! A same-work comparison with what a Python developer would write instead:
//! order_desk's editor served by the official Python SDK's high-level server
//! (benches/python/order_desk_server.py) next to Purview's order_desk, both
//! on stdio, both driven by the same rmcp client doing read + edit rounds.
//!
//! Needs the order_desk binary and a Python with `mcp` installed; run it
//! through `scripts/bench`, which provides both.

use std::time::{Duration, Instant};

use purview_benches::Counter;
use rmcp::{
    ServiceExt,
    model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents},
    transport::TokioChildProcess,
};
use serde_json::{Value, json};

/// Rounds per server (a few in the quick run).
fn rounds() -> usize {
    purview_benches::scaled(1_000, 20)
}

/// Rounds per second of: read app://windows, then edit_field with the
/// version just read.
async fn rounds_per_second(command: tokio::process::Command) -> f64 {
    let client = Counter::default()
        .serve(TokioChildProcess::new(command).expect("spawn"))
        .await
        .expect("connect");
    let round = |i: usize| {
        let client = &client;
        async move {
            let read = client
                .read_resource(ReadResourceRequestParams::new("app://windows"))
                .await
                .expect("read");
            let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
                panic!("text")
            };
            let snapshot: Value = serde_json::from_str(text).expect("json");
            let version = snapshot["windows"][0]["version"].as_u64().expect("version");
            let value = if i.is_multiple_of(2) { "Ada" } else { "Grace" };
            let args = json!({"field": "recipient", "value": value, "expectedVersion": version});
            let params = CallToolRequestParams::new("w1__edit_field")
                .with_arguments(args.as_object().cloned().unwrap_or_default());
            let result = client.call_tool(params).await.expect("call");
            assert_ne!(result.is_error, Some(true), "{result:?}");
        }
    };
    for i in 0..100 {
        round(i).await;
    }
    let start = Instant::now();
    let rounds = rounds();
    for i in 0..rounds {
        round(i).await;
    }
    let elapsed = start.elapsed();
    let _ = client.cancel().await;
    rounds as f64 / elapsed.max(Duration::from_nanos(1)).as_secs_f64()
}

fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let (Ok(order_desk), Ok(python)) =
        (std::env::var("PURVIEW_ORDER_DESK"), std::env::var("PURVIEW_BENCH_PYTHON"))
    else {
        println!(
            "compare: not run; `scripts/bench` provides PURVIEW_ORDER_DESK and PURVIEW_BENCH_PYTHON"
        );
        return;
    };
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/python/order_desk_server.py");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut purview = tokio::process::Command::new(&order_desk);
        purview.env("RUST_LOG", "error").stderr(std::process::Stdio::null());
        let mut python_cmd = tokio::process::Command::new(&python);
        python_cmd.arg(server).stderr(std::process::Stdio::null());
        let purview = rounds_per_second(purview).await;
        let python = rounds_per_second(python_cmd).await;
        let rounds = rounds();
        println!("## Same work, other stack: {rounds} rounds of read app://windows + edit_field over stdio");
        println!("| server | rounds/s |\n|---|---|");
        println!("| Purview order_desk (release) | {purview:.0} |");
        println!("| Python SDK MCPServer (FastMCP) | {python:.0} |");
        println!("| ratio Purview / Python | {:.1}× |\n", purview / python);
    });
}

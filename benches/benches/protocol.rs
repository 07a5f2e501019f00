//! Purview next to its baselines, measured in the same run:
//! 1. a call round trip through rmcp's client: Purview vs a hand-written
//!    rmcp ServerHandler doing the same work;
//! 2. reading app://windows at 10, 100 and 1,000 windows vs serde_json of the
//!    same pre-built value;
//! 3. tools/list at 1,000 windows × 10 actions vs serde_json of the pre-built
//!    list;
//! 8. what hosts without resources or tool refresh pay: app__read_windows vs
//!    reading app://windows, and app__act vs the window's own tool.
//!
//! `cargo bench -p purview-benches --bench protocol`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use purview_benches::{Counter, HandWritten, boards, connect};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

fn call_round_trip(c: &mut Criterion) {
    let rt = runtime();
    let app = boards(1);
    let (purview, hand) = rt.block_on(async {
        (
            connect(app.mcp_server(), Counter::default()).await,
            connect(HandWritten::default(), Counter::default()).await,
        )
    });
    let args = json!({"expectedVersion": 1}).as_object().cloned().unwrap_or_default();
    let mut group = c.benchmark_group("call_round_trip");
    for (name, client) in [("purview", &purview), ("hand_written_rmcp", &hand)] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let params = CallToolRequestParams::new("w1__touch").with_arguments(args.clone());
                let result = client.call_tool(params).await.expect("call");
                assert_ne!(result.is_error, Some(true));
            })
        });
    }
    group.finish();
}

fn snapshot_read(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot_read");
    for windows in [10usize, 100, 1_000] {
        let app = boards(windows);
        let floor: Value =
            serde_json::from_str(&app.snapshot_json().expect("snapshot")).expect("json");
        group.throughput(Throughput::Elements(windows as u64));
        group.bench_with_input(
            BenchmarkId::new("purview_after_change", windows),
            &app,
            |b, app| b.iter(|| app.snapshot_json_uncached().expect("snapshot").len()),
        );
        group.bench_with_input(BenchmarkId::new("purview_cached", windows), &app, |b, app| {
            b.iter(|| app.snapshot_json().expect("snapshot").len())
        });
        group.bench_with_input(
            BenchmarkId::new("serde_json_floor", windows),
            &floor,
            |b, floor| b.iter(|| serde_json::to_string(floor).expect("json").len()),
        );
    }
    group.finish();
}

fn tools_list(c: &mut Criterion) {
    let mut group = c.benchmark_group("tools_list");
    for windows in [100usize, 1_000] {
        let app = boards(windows);
        let floor = app.tools().expect("tools");
        group.throughput(Throughput::Elements((windows * 10) as u64));
        group.bench_with_input(BenchmarkId::new("purview", windows), &app, |b, app| {
            b.iter(|| serde_json::to_string(&app.tools().expect("tools")).expect("json").len())
        });
        group.bench_with_input(
            BenchmarkId::new("serde_json_floor", windows),
            &floor,
            |b, floor| b.iter(|| serde_json::to_string(floor).expect("json").len()),
        );
    }
    group.finish();
}

fn dispatcher(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("dispatcher");
    for windows in [10usize, 100] {
        let app = boards(windows);
        let client = rt.block_on(connect(app.mcp_server(), Counter::default()));
        group.bench_with_input(
            BenchmarkId::new("read_app_windows", windows),
            &client,
            |b, client| {
                b.to_async(&rt).iter(|| async {
                    let params = ReadResourceRequestParams::new(purview::model::WINDOWS_URI);
                    client.read_resource(params).await.expect("read").contents.len()
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("app__read_windows", windows),
            &client,
            |b, client| {
                b.to_async(&rt).iter(|| async {
                    let result = client
                        .call_tool(CallToolRequestParams::new("app__read_windows"))
                        .await
                        .expect("call");
                    assert_ne!(result.is_error, Some(true));
                })
            },
        );
    }
    let app = boards(1);
    let client = rt.block_on(connect(app.mcp_server(), Counter::default()));
    let direct = json!({"expectedVersion": 1}).as_object().cloned().unwrap_or_default();
    let act = json!({"window": "w1", "action": "touch", "expectedVersion": 1})
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (name, tool, args) in [("w1__touch", "w1__touch", direct), ("app__act", "app__act", act)] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let params = CallToolRequestParams::new(tool).with_arguments(args.clone());
                let result = client.call_tool(params).await.expect("call");
                assert_ne!(result.is_error, Some(true));
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = call_round_trip, snapshot_read, tools_list, dispatcher
}
criterion_main!(benches);

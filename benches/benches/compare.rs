//! The same work on three stacks, over stdio, driven by one rmcp client
//! doing rounds of: read app://windows, then edit_field with the version
//! just read.
//!
//! - Purview's order_desk (release build);
//! - the same editor written by hand on rmcp (`src/bin/order_desk_rmcp.rs`),
//!   once on `rmcp::transport::stdio()` and once on `stdio_pipes()`: the
//!   baseline, what Purview's own machinery costs on top of rmcp;
//! - the same editor written with the official Python SDK's high-level
//!   server (`python/order_desk_server.py`).
//!
//! Each runs twice: with the client not subscribed (no notifications), and
//! subscribed to app://windows (a server that supports it then sends
//! resources/updated after the edits; Purview coalesces them, the
//! hand-written server sends one per edit).
//!
//! Needs the order_desk binary and a Python with `mcp` installed; run it
//! through `scripts/bench`, which provides both. `PURVIEW_COMPARE_ROUNDS`
//! overrides the number of rounds, `PURVIEW_COMPARE_ONLY` (`purview`,
//! `rmcp`, `rmcp_pipes` or `python`) runs one server, for profiling.

use std::{
    process::Stdio,
    time::{Duration, Instant},
};

use purview_benches::Counter;
use rmcp::{
    ServiceExt,
    model::{
        CallToolRequestParams, ReadResourceRequestParams, ResourceContents, SubscribeRequestParams,
    },
    transport::TokioChildProcess,
};
use serde_json::{Value, json};

/// Rounds per server (a few in the quick run).
fn rounds() -> usize {
    let asked = std::env::var("PURVIEW_COMPARE_ROUNDS").ok().and_then(|r| r.parse().ok());
    asked.unwrap_or_else(|| purview_benches::scaled(2_000, 20))
}

/// What one measured run saw.
struct Run {
    rounds_per_second: f64,
    /// CPU time of the server process per round (user + system).
    server_cpu: Duration,
    /// CPU time of this process (the client) per round.
    client_cpu: Duration,
    /// resources/updated received during the measured rounds.
    updates: usize,
    /// Whether the server let the client subscribe.
    subscribed: bool,
}

/// User + system CPU time of process `pid`, from /proc (Linux).
fn process_cpu(pid: u32) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // The fields after the command name (which may hold spaces) are
    // space-separated; utime and stime are the 12th and 13th of them.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 =
        after.split_whitespace().skip(11).take(2).filter_map(|t| t.parse::<u64>().ok()).sum();
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_nanos(ticks * 1_000_000_000 / per_second)
}

/// User + system CPU time of this process.
fn own_cpu() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct we own.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1_000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Runs the rounds against the server `command` starts.
async fn run(command: tokio::process::Command, subscribe: bool) -> Run {
    let (transport, _) =
        TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("spawn");
    let pid = transport.id().expect("a child process id");
    let counter = Counter::default();
    let client = counter.clone().serve(transport).await.expect("connect");
    let can_subscribe = client
        .peer_info()
        .and_then(|info| info.capabilities.resources.as_ref()?.subscribe)
        .unwrap_or(false);
    let subscribed = subscribe && can_subscribe;
    if subscribed {
        #[allow(deprecated)]
        // resources/subscribe is the 2025-11-25 way, which this client speaks.
        client.subscribe(SubscribeRequestParams::new("app://windows")).await.expect("subscribe");
    }
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
    let rounds = rounds();
    let updates_before = counter.0.lock().expect("counts").updates;
    let (server_before, client_before) = (process_cpu(pid), own_cpu());
    let start = Instant::now();
    for i in 0..rounds {
        round(i).await;
    }
    let elapsed = start.elapsed();
    let (server_cpu, client_cpu) = (process_cpu(pid) - server_before, own_cpu() - client_before);
    let updates = counter.0.lock().expect("counts").updates - updates_before;
    let _ = client.cancel().await;
    Run {
        rounds_per_second: rounds as f64 / elapsed.max(Duration::from_nanos(1)).as_secs_f64(),
        server_cpu: server_cpu / rounds as u32,
        client_cpu: client_cpu / rounds as u32,
        updates,
        subscribed,
    }
}

/// One server to measure: how to start it, and what to call it.
struct Server<'a> {
    /// Its name for `PURVIEW_COMPARE_ONLY`.
    key: &'a str,
    name: &'a str,
    program: &'a str,
    args: &'a [&'a str],
    envs: &'a [(&'a str, &'a str)],
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
    let only = std::env::var("PURVIEW_COMPARE_ONLY").ok();
    let python_server = concat!(env!("CARGO_MANIFEST_DIR"), "/python/order_desk_server.py");
    let hand_written = env!("CARGO_BIN_EXE_order_desk_rmcp");
    let servers = [
        Server {
            key: "purview",
            name: "Purview order_desk (release)",
            program: &order_desk,
            args: &[],
            envs: &[("RUST_LOG", "error")],
        },
        Server {
            key: "rmcp",
            name: "hand-written rmcp, `stdio()`",
            program: hand_written,
            args: &[],
            envs: &[],
        },
        Server {
            key: "rmcp_pipes",
            name: "hand-written rmcp, `stdio_pipes()`",
            program: hand_written,
            args: &["--pipes"],
            envs: &[],
        },
        Server {
            key: "python",
            name: "Python SDK MCPServer (FastMCP)",
            program: &python,
            args: &[python_server],
            envs: &[],
        },
    ];
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let rounds = rounds();
        println!(
            "## Same work, other stacks: {rounds} rounds of read app://windows + edit_field over stdio"
        );
        println!(
            "| server | client | rounds/s | µs/round | server CPU/round | client CPU/round | resources/updated |"
        );
        println!("|---|---|---|---|---|---|---|");
        let mut plain = Vec::new();
        for Server { key, name, program, args, envs } in servers {
            if only.as_deref().is_some_and(|o| o != key) {
                continue;
            }
            for subscribe in [false, true] {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(envs.iter().copied());
                let run = run(command, subscribe).await;
                if subscribe && !run.subscribed {
                    println!("| {name} | cannot subscribe | | | | | |");
                    continue;
                }
                println!(
                    "| {name} | {} | {:.0} | {:.0} | {:.0} µs | {:.0} µs | {} |",
                    if subscribe { "subscribed" } else { "not subscribed" },
                    run.rounds_per_second,
                    1e6 / run.rounds_per_second,
                    run.server_cpu.as_secs_f64() * 1e6,
                    run.client_cpu.as_secs_f64() * 1e6,
                    run.updates,
                );
                if !subscribe {
                    plain.push((key, run.rounds_per_second));
                }
            }
        }
        let rate = |key: &str| plain.iter().find(|(k, _)| *k == key).map(|(_, r)| *r);
        if let Some(purview) = rate("purview") {
            let best_rmcp = rate("rmcp").into_iter().chain(rate("rmcp_pipes")).reduce(f64::max);
            if let Some(rmcp) = best_rmcp {
                println!(
                    "\nPurview's round / the faster hand-written rmcp round (not subscribed): {:.2}",
                    rmcp / purview
                );
            }
            if let Some(python) = rate("python") {
                println!("Purview / Python SDK, rounds per second: {:.1}×", purview / python);
            }
        }
        println!();
    });
}

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
//! Each server is also driven once by a bare line client: the same rounds
//! written and read as JSON lines with blocking pipes on one thread, no
//! runtime, so that what a round costs is mostly the server's. The rmcp
//! client spends about as much CPU per round as the Rust servers do,
//! which narrows every ratio between servers.
//!
//! Each server is connected twice: with the client not subscribed (no
//! notifications), and subscribed to app://windows (a server that supports
//! it then sends resources/updated after the edits; Purview coalesces them,
//! the hand-written server sends one per edit). Every session is opened
//! and warmed up first; then the rounds run in short trials, taking each
//! session in turn, so that a change in the machine's load (it is shared)
//! falls on all of them alike. Rates are the median over the trials.
//!
//! Needs the order_desk binary and a Python with `mcp` installed; run it
//! through `scripts/bench`, which provides both. `PURVIEW_ORDER_DESK_BEFORE`
//! adds another order_desk build (an older commit's) to the same run;
//! `PURVIEW_COMPARE_ROUNDS` overrides the number of rounds and
//! `PURVIEW_COMPARE_ONLY` (`purview`, `before`, `rmcp`, `rmcp_pipes` or
//! `python`) runs one server, for profiling.

use std::{
    process::Stdio,
    time::{Duration, Instant},
};

use purview_benches::Counter;
use rmcp::{
    RoleClient, ServiceExt,
    model::{
        CallToolRequestParams, ReadResourceRequestParams, ResourceContents, SubscribeRequestParams,
    },
    service::RunningService,
    transport::TokioChildProcess,
};
use serde_json::{Value, json};

/// Rounds per session (a few in the quick run).
fn rounds() -> usize {
    let asked = std::env::var("PURVIEW_COMPARE_ROUNDS").ok().and_then(|r| r.parse().ok());
    asked.unwrap_or_else(|| purview_benches::scaled(4_000, 20))
}

/// How many trials the rounds are split into.
fn trials() -> usize {
    purview_benches::scaled(20, 2)
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

/// One server to measure: how to start it, and what to call it.
struct Server<'a> {
    /// Its name for `PURVIEW_COMPARE_ONLY`.
    key: &'a str,
    name: &'a str,
    program: &'a str,
    args: &'a [&'a str],
    envs: &'a [(&'a str, &'a str)],
}

/// One client session and what it measured.
struct Session {
    key: String,
    name: String,
    subscribed: bool,
    client: RunningService<RoleClient, Counter>,
    counter: Counter,
    pid: u32,
    /// Rounds made so far (the value edited alternates with it).
    made: usize,
    measured: Measured,
    updates: usize,
}

impl Session {
    /// Starts the server and connects; `None` when it was asked to
    /// subscribe and cannot.
    async fn open(server: &Server<'_>, subscribe: bool) -> Option<Self> {
        let mut command = tokio::process::Command::new(server.program);
        command.args(server.args).envs(server.envs.iter().copied());
        let (transport, _) =
            TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("spawn");
        let pid = transport.id().expect("a child process id");
        let counter = Counter::default();
        let client = counter.clone().serve(transport).await.expect("connect");
        if subscribe {
            let can = client
                .peer_info()
                .and_then(|info| info.capabilities.resources.as_ref()?.subscribe)
                .unwrap_or(false);
            if !can {
                let _ = client.cancel().await;
                return None;
            }
            #[allow(deprecated)]
            // resources/subscribe is the 2025-11-25 way, which this client speaks.
            client
                .subscribe(SubscribeRequestParams::new("app://windows"))
                .await
                .expect("subscribe");
        }
        let mut session = Self {
            key: server.key.to_owned(),
            name: server.name.to_owned(),
            subscribed: subscribe,
            client,
            counter,
            pid,
            made: 0,
            measured: Measured::default(),
            updates: 0,
        };
        for _ in 0..100 {
            session.round().await;
        }
        Some(session)
    }

    /// Read app://windows, then edit_field with the version just read.
    async fn round(&mut self) {
        let read = self
            .client
            .read_resource(ReadResourceRequestParams::new("app://windows"))
            .await
            .expect("read");
        let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
            panic!("text")
        };
        let snapshot: Value = serde_json::from_str(text).expect("json");
        let version = snapshot["windows"][0]["version"].as_u64().expect("version");
        let value = if self.made.is_multiple_of(2) { "Ada" } else { "Grace" };
        let args = json!({"field": "recipient", "value": value, "expectedVersion": version});
        let params = CallToolRequestParams::new("w1__edit_field")
            .with_arguments(args.as_object().cloned().unwrap_or_default());
        let result = self.client.call_tool(params).await.expect("call");
        assert_ne!(result.is_error, Some(true), "{result:?}");
        self.made += 1;
    }

    /// One trial of `rounds` rounds.
    async fn trial(&mut self, rounds: usize) {
        let updates = self.counter.0.lock().expect("counts").updates;
        let (server, client) = (process_cpu(self.pid), purview_benches::own_cpu());
        let start = Instant::now();
        for _ in 0..rounds {
            self.round().await;
        }
        let (server, client) =
            (process_cpu(self.pid) - server, purview_benches::own_cpu() - client);
        self.measured.add(rounds, start.elapsed(), server, client);
        self.updates += self.counter.0.lock().expect("counts").updates - updates;
    }
}

/// What one session's trials measured.
#[derive(Default)]
struct Measured {
    rates: Vec<f64>,
    rounds: usize,
    server_cpu: Duration,
    client_cpu: Duration,
}

impl Measured {
    /// Adds a trial of `rounds` rounds that took `elapsed`, with the CPU
    /// the server and the client spent on it.
    fn add(&mut self, rounds: usize, elapsed: Duration, server: Duration, client: Duration) {
        self.server_cpu += server;
        self.client_cpu += client;
        self.rounds += rounds;
        self.rates.push(rounds as f64 / elapsed.max(Duration::from_nanos(1)).as_secs_f64());
    }

    /// The median rate over the trials.
    fn rate(&self) -> f64 {
        let mut rates = self.rates.clone();
        rates.sort_by(f64::total_cmp);
        rates.get(rates.len() / 2).copied().unwrap_or(0.0)
    }

    fn per_round(&self, total: Duration) -> f64 {
        total.as_secs_f64() * 1e6 / self.rounds.max(1) as f64
    }
}

/// The bare line client: one server process, blocking pipes, JSON lines.
struct Bare {
    key: String,
    name: String,
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
    line: String,
    next_id: u64,
    made: usize,
    measured: Measured,
}

impl Bare {
    fn open(server: &Server<'_>) -> Self {
        let mut child = std::process::Command::new(server.program)
            .args(server.args)
            .envs(server.envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let input = child.stdin.take().expect("stdin");
        let output = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut bare = Self {
            key: server.key.to_owned(),
            name: server.name.to_owned(),
            child,
            input,
            output,
            line: String::new(),
            next_id: 0,
            made: 0,
            measured: Measured::default(),
        };
        let hello = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bare-line-client", "version": "1.0"},
        });
        bare.request("initialize", &hello);
        bare.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        for _ in 0..100 {
            bare.round();
        }
        bare
    }

    fn send(&mut self, message: &Value) {
        use std::io::Write as _;
        let mut bytes = serde_json::to_vec(message).expect("json");
        bytes.push(b'\n');
        self.input.write_all(&bytes).expect("write");
    }

    /// Sends a request and returns its result, skipping notifications.
    fn request(&mut self, method: &str, params: &Value) -> Value {
        use std::io::BufRead as _;
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            self.line.clear();
            let read = self.output.read_line(&mut self.line).expect("read");
            assert!(read > 0, "{} closed its output", self.name);
            let mut message: Value = serde_json::from_str(&self.line).expect("a JSON line");
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].take();
            }
        }
    }

    /// The same round as [`Session::round`].
    fn round(&mut self) {
        let read = self.request("resources/read", &json!({"uri": "app://windows"}));
        let text = read["contents"][0]["text"].as_str().expect("text");
        let snapshot: Value = serde_json::from_str(text).expect("json");
        let version = snapshot["windows"][0]["version"].as_u64().expect("version");
        let value = if self.made.is_multiple_of(2) { "Ada" } else { "Grace" };
        let params = json!({
            "name": "w1__edit_field",
            "arguments": {"field": "recipient", "value": value, "expectedVersion": version},
        });
        let result = self.request("tools/call", &params);
        assert_ne!(result["isError"], json!(true), "{result}");
        self.made += 1;
    }

    fn trial(&mut self, rounds: usize) {
        let (server, client) = (process_cpu(self.child.id()), purview_benches::thread_cpu());
        let start = Instant::now();
        for _ in 0..rounds {
            self.round();
        }
        let (server, client) =
            (process_cpu(self.child.id()) - server, purview_benches::thread_cpu() - client);
        self.measured.add(rounds, start.elapsed(), server, client);
    }
}

impl Drop for Bare {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
    let before = std::env::var("PURVIEW_ORDER_DESK_BEFORE").ok().filter(|b| !b.is_empty());
    let only = std::env::var("PURVIEW_COMPARE_ONLY").ok().filter(|o| !o.is_empty());
    let python_server = [concat!(env!("CARGO_MANIFEST_DIR"), "/python/order_desk_server.py")];
    let hand_written = env!("CARGO_BIN_EXE_order_desk_rmcp");
    let quiet: &[(&str, &str)] = &[("RUST_LOG", "error")];
    let mut servers = vec![Server {
        key: "purview",
        name: "Purview order_desk",
        program: &order_desk,
        args: &[],
        envs: quiet,
    }];
    if let Some(before) = &before {
        servers.push(Server {
            key: "before",
            name: "Purview order_desk, earlier build",
            program: before,
            args: &[],
            envs: quiet,
        });
    }
    servers.extend([
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
            args: &python_server,
            envs: &[],
        },
    ]);
    servers.retain(|s| only.as_deref().is_none_or(|o| o == s.key));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut sessions = Vec::new();
        for server in &servers {
            for subscribe in [false, true] {
                sessions.extend(Session::open(server, subscribe).await);
            }
        }
        // The bare client blocks this thread while it waits for a line:
        // nothing else runs meanwhile, and the rmcp sessions' tasks live on
        // the runtime's workers.
        let mut bare: Vec<Bare> = servers.iter().map(Bare::open).collect();
        let (rounds, trials) = (rounds(), trials());
        for _ in 0..trials {
            for session in &mut sessions {
                session.trial(rounds / trials).await;
            }
            for session in &mut bare {
                session.trial(rounds / trials);
            }
        }
        println!(
            "## Same work, other stacks: read app://windows + edit_field over stdio, {rounds} rounds per session in {trials} interleaved trials"
        );
        println!(
            "| server | client | rounds/s (median) | µs/round | server CPU/round | client CPU/round | resources/updated |"
        );
        println!("|---|---|---|---|---|---|---|");
        let row = |name: &str, client: &str, m: &Measured, updates: String| {
            println!(
                "| {name} | {client} | {:.0} | {:.0} | {:.0} µs | {:.0} µs | {updates} |",
                m.rate(),
                1e6 / m.rate(),
                m.per_round(m.server_cpu),
                m.per_round(m.client_cpu),
            );
        };
        for s in &sessions {
            let client = if s.subscribed { "subscribed" } else { "not subscribed" };
            row(&s.name, client, &s.measured, s.updates.to_string());
        }
        for s in &bare {
            row(&s.name, "bare line client, not subscribed", &s.measured, "—".to_owned());
        }
        let bare_rate = |key: &str| bare.iter().find(|s| s.key == key).map(|s| s.measured.rate());
        let rate = |key: &str, subscribed: bool| {
            sessions.iter().find(|s| s.key == key && s.subscribed == subscribed).map(|s| s.measured.rate())
        };
        println!();
        for subscribed in [false, true] {
            let client = if subscribed { "subscribed" } else { "not subscribed" };
            let hand = rate("rmcp", subscribed).into_iter().chain(rate("rmcp_pipes", subscribed));
            if let Some(hand) = hand.reduce(f64::max) {
                for (key, name) in [("purview", "Purview"), ("before", "the earlier build")] {
                    if let Some(purview) = rate(key, subscribed) {
                        println!(
                            "{client}: {name}'s round / the faster hand-written rmcp round: {:.2}",
                            hand / purview
                        );
                    }
                }
            }
        }
        if let Some(python) = rate("python", false) {
            for (key, name) in [("purview", "Purview"), ("before", "the earlier build")] {
                if let Some(purview) = rate(key, false) {
                    println!(
                        "not subscribed: {name} / Python SDK, rounds per second: {:.1}×",
                        purview / python
                    );
                }
            }
        }
        if let Some(hand) = bare_rate("rmcp").into_iter().chain(bare_rate("rmcp_pipes")).reduce(f64::max) {
            for (key, name) in [("purview", "Purview"), ("before", "the earlier build")] {
                if let Some(purview) = bare_rate(key) {
                    println!(
                        "bare line client: {name}'s round / the faster hand-written rmcp round: {:.2}",
                        hand / purview
                    );
                }
            }
        }
        if let Some(python) = bare_rate("python") {
            for (key, name) in [("purview", "Purview"), ("rmcp_pipes", "hand-written rmcp, `stdio_pipes()`")] {
                if let Some(other) = bare_rate(key) {
                    println!(
                        "bare line client: {name} / Python SDK, rounds per second: {:.1}×",
                        other / python
                    );
                }
            }
        }
        println!();
        drop(bare);
        for session in sessions {
            let _ = session.client.cancel().await;
        }
    });
}

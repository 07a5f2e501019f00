//! Fixtures shared by Purview's benchmarks: a window of about ten blocks and
//! ten actions, a hand-written rmcp server doing the same work as one of its
//! actions, and small clients that count what they receive.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

pub mod task_server;

/// The part of tools/list a model reads (names, titles, descriptions and
/// input schemas), in bytes of compact JSON.
pub fn tools_list_bytes(app: &App) -> usize {
    let tools = app.tools().expect("tools");
    let visible: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({"name": t.name, "title": t.title, "description": t.description,
                   "inputSchema": Value::Object((*t.input_schema).clone())})
        })
        .collect();
    serde_json::to_string(&visible).map_or(0, |s| s.len())
}

/// Whether this is the quick run `scripts/test` makes of every benchmark
/// (`PURVIEW_BENCH_QUICK` set): the same code on a few iterations, so a
/// bench that no longer runs fails the tests. Its figures mean nothing.
pub fn quick() -> bool {
    std::env::var_os("PURVIEW_BENCH_QUICK").is_some()
}

/// Whether to run at all: under `cargo bench` (`--bench`), or in the quick
/// run. A plain `cargo test --benches` without it runs nothing.
pub fn should_run() -> bool {
    quick() || std::env::args().any(|a| a == "--bench")
}

/// `full` iterations when measuring, `few` in the quick run.
pub fn scaled(full: usize, few: usize) -> usize {
    if quick() { few } else { full }
}

/// User + system CPU time of this process so far.
pub fn own_cpu() -> Duration {
    cpu_of(libc::RUSAGE_SELF)
}

/// User + system CPU time of the calling thread so far (Linux).
pub fn thread_cpu() -> Duration {
    cpu_of(libc::RUSAGE_THREAD)
}

fn cpu_of(who: libc::c_int) -> Duration {
    // SAFETY: getrusage writes into the zeroed struct we own.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1_000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

use purview::{App, Context, actions, window};
use rmcp::{
    ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ResourceUpdatedNotificationParam,
        ServerCapabilities, ServerConfig,
    },
    service::{NotificationContext, RequestContext, RunningService},
};
use serde_json::{Value, json};

/// A window of ten blocks (text, a fields group, table, list, notice,
/// custom…) and ten actions.
#[window(title = "Board {number}", summary = "Board {number}: {count} items, status {status}")]
#[derive(Clone)]
pub struct Board {
    pub number: usize,
    pub count: u32,
    pub hidden: u64,
    #[block(text)]
    pub heading: String,
    #[block(field)]
    pub owner: String,
    #[block(field)]
    pub status: String,
    #[block(field)]
    pub amount: String,
    #[block(table, columns = ["Item", "Quantity"])]
    pub items: Vec<(String, u32)>,
    #[block(list)]
    pub tags: Vec<String>,
    #[block(notice = "info")]
    pub note: String,
    #[block(text)]
    pub description: String,
    #[block(text)]
    pub footer: String,
    #[block(custom)]
    pub extra: Value,
}

impl Board {
    /// Board number `number`.
    pub fn new(number: usize) -> Self {
        Self {
            number,
            count: 3,
            hidden: 0,
            heading: format!("Board {number}"),
            owner: "Ada Lovelace".into(),
            status: "open".into(),
            amount: "$100.00".into(),
            items: vec![("A".into(), 2), ("B".into(), 1), ("C".into(), 7)],
            tags: vec!["urgent".into(), "q3".into()],
            note: "Everything is in order".into(),
            description: "A board with a handful of items, used to measure projection costs".into(),
            footer: "Last changed by the person".into(),
            extra: json!({"channel": "web", "priority": 2}),
        }
    }
}

#[actions]
impl Board {
    /// Change state that is not shown (the version stays put).
    #[action(idempotent)]
    fn touch(&mut self) {
        self.hidden += 1;
    }
    /// Set the owner.
    #[action]
    fn set_owner(
        &mut self,
        /// The new owner.
        owner: String,
    ) {
        self.owner = owner;
    }
    /// Set the status.
    #[action]
    fn set_status(
        &mut self,
        /// The new status.
        status: String,
    ) {
        self.status = status;
    }
    /// Add an item.
    #[action]
    fn add_item(
        &mut self,
        /// Item name.
        name: String,
        /// How many.
        quantity: u32,
    ) {
        self.items.push((name, quantity));
    }
    /// Tag the board.
    #[action]
    fn tag(
        &mut self,
        /// The tag.
        tag: String,
    ) {
        self.tags.push(tag);
    }
    /// Clear the note.
    #[action(idempotent)]
    fn clear_note(&mut self) {
        self.note.clear();
    }
    /// Count the items.
    #[action(read_only)]
    fn count_items(&self) -> usize {
        self.items.len()
    }
    /// Open a copy.
    #[action]
    fn duplicate(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open(self.clone())?;
        Ok(())
    }
    /// Bring to the front.
    #[action(read_only, idempotent)]
    fn focus(&self, cx: &mut Context) {
        cx.request_focus();
    }
    /// Close the board.
    #[action(destructive)]
    fn close(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// An app with `windows` boards.
pub fn boards(windows: usize) -> App {
    // Room for the memory bench's 1,000 windows (the default cap is 256).
    let app = App::builder()
        .name("bench")
        .limits(purview::settings::Limits::default().max_windows(2_000))
        .build();
    for n in 0..windows {
        app.open(Board::new(n)).expect("open a board");
    }
    app
}

/// The smallest window: one count, one `increment` action. The soak and
/// lockout benches load it from many clients at once.
#[window(title = "Counter", summary = "Counted to {count}")]
#[derive(Clone, Default)]
pub struct CountWindow {
    #[block(field)]
    pub count: u64,
}

#[actions]
impl CountWindow {
    /// Add one to the count; meant to be called with expectedVersion.
    #[action]
    fn increment(&mut self) {
        self.count += 1;
    }
}

/// The hand-written alternative to Purview for one `touch` action: checks
/// `expectedVersion`, changes invisible state, answers with the same
/// structured result.
#[derive(Clone)]
pub struct HandWritten {
    /// (version, hidden counter); versions start at 1 as Purview's do.
    state: Arc<Mutex<(u64, u64)>>,
}

impl Default for HandWritten {
    fn default() -> Self {
        Self { state: Arc::new(Mutex::new((1, 0))) }
    }
}

impl ServerHandler for HandWritten {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build(),
        )
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let expected = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("expectedVersion"))
            .and_then(Value::as_u64);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (version, hidden) = &mut *state;
        if request.name != "w1__touch" {
            return Ok(CallToolResult::structured_error(
                json!({"code": "action_not_available", "message": "no such tool"}),
            )
            .into());
        }
        if expected.is_some_and(|e| e != *version) {
            return Ok(CallToolResult::structured_error(
                json!({"code": "stale_state", "message": "stale", "currentVersion": *version}),
            )
            .into());
        }
        *hidden += 1;
        Ok(CallToolResult::structured(json!({"message": "Completed `touch`."})).into())
    }
}

/// What a counting client has received.
#[derive(Default)]
pub struct Counts {
    pub updates: usize,
    pub tool_changes: usize,
    pub first_update: Option<Instant>,
    pub last_update: Option<Instant>,
    pub last_tool_change: Option<Instant>,
}

/// A client that counts notifications and records when they arrive.
#[derive(Clone, Default)]
pub struct Counter(pub Arc<Mutex<Counts>>);

impl ClientHandler for Counter {
    async fn on_resource_updated(
        &self,
        _: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let mut c = self.0.lock().unwrap_or_else(|e| e.into_inner());
        c.updates += 1;
        let now = Instant::now();
        c.first_update.get_or_insert(now);
        c.last_update = Some(now);
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        let mut c = self.0.lock().unwrap_or_else(|e| e.into_inner());
        c.tool_changes += 1;
        c.last_tool_change = Some(Instant::now());
    }
}

/// Connects a counting client to `server` over an in-process duplex.
pub async fn connect<S: ServerHandler>(
    server: S,
    counter: Counter,
) -> RunningService<RoleClient, Counter> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    counter.serve(client_side).await.expect("client connects")
}

//! The walk: read, pick a call, make it, read again, and judge everything
//! that came back against the protocol.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    sync::Arc,
    time::{Duration, Instant},
};

use jsonschema::Validator;
use purview::App;
use rand::{RngExt as _, SeedableRng as _};
use rmcp::model::Tool;
use serde_json::{Map, Value, json};

use crate::{
    checks::{Check, Level},
    generate::{InputSchema, Rand, Validity},
    report::{CheckReport, Coverage, Evidence, Report, Shrunk, Status},
    script::{Call, ExpectedVersion, Intent, Script, Step},
    target::{CallOutcome, Endpoint, Event, Note, Server, Session, WINDOWS_URI},
    windows::{Windows, check_operable, contains_token, is_masked, name_safe},
};

/// The JSON Schema of app://windows (§4.2, §4.4 and Appendix B), as the
/// explorer checks every read against it.
pub const APP_WINDOWS_SCHEMA: &str = include_str!("../schemas/app-windows.schema.json");

/// Purview's documented dispatcher tools, an extension of §5 for hosts that
/// never refresh their tool list: `app__read_windows` answers with the
/// snapshot itself (plus each operable window's actions), and `app__act`'s
/// `validation_failed` names the dispatched action's own fields.
const PURVIEW_READ: &str = "app__read_windows";
const PURVIEW_ACT: &str = "app__act";

/// How the explorer's made-up secrets begin.
const SECRET_PREFIX: &str = "pv-secret-";

/// The §7.4 codes.
const SPEC_CODES: [&str; 6] = [
    "stale_state",
    "validation_failed",
    "blocked_by_modal",
    "window_not_found",
    "action_not_available",
    "action_timeout",
];

/// The codes Purview documents as extensions of §7.4.
const PURVIEW_CODES: [&str; 3] = ["action_failed", "limit_reached", "approval_denied"];

/// Explores a GUI Bridge server: a seeded walk of its agent surface that
/// checks the protocol after every step.
///
/// An app's own test, in three lines:
///
/// ```no_run
/// # fn my_app() -> purview::App { purview::App::builder().build() }
/// # async fn demo() {
/// use purview_conformance::Explorer;
///
/// let report = Explorer::new().steps(2_000).seed(7).explore(my_app).await;
/// report.assert_clean();
/// # }
/// ```
///
/// Any server, over stdio or HTTP:
///
/// ```no_run
/// # async fn demo() {
/// use purview_conformance::{Endpoint, Explorer};
///
/// let report = Explorer::new().run(&Endpoint::stdio("python3", ["server.py"])).await;
/// assert!(report.passed(), "{report}");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Explorer {
    steps: usize,
    seed: u64,
    secrets: Vec<String>,
    hints: HashMap<String, Vec<Value>>,
    allow_destructive: bool,
    call_timeout: Duration,
    notification_timeout: Option<Duration>,
    settle: Option<Duration>,
    shrink: bool,
    extension_codes: BTreeSet<String>,
}

impl Default for Explorer {
    fn default() -> Self {
        Self::new()
    }
}

impl Explorer {
    /// 500 steps, seed 0, destructive tools left alone, shrinking on.
    pub fn new() -> Self {
        Self {
            steps: 500,
            seed: 0,
            secrets: Vec::new(),
            hints: HashMap::new(),
            allow_destructive: false,
            call_timeout: Duration::from_secs(30),
            notification_timeout: None,
            settle: None,
            shrink: true,
            extension_codes: PURVIEW_CODES.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    /// How many calls to make.
    pub fn steps(mut self, steps: usize) -> Self {
        self.steps = steps;
        self
    }

    /// The seed: the same seed against the same server gives the same walk.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// A value that must never come back from the server (a password the
    /// app holds, an API key): every byte of every answer is searched for it.
    /// Values sent to `writeOnly` parameters are searched for anyway.
    pub fn secret(mut self, value: impl Into<String>) -> Self {
        self.secrets.push(value.into());
        self
    }

    /// A value worth trying for every parameter called `parameter` (the
    /// right PIN, an existing customer id), offered alongside generated ones
    /// so the walk can get past gates random values never open.
    pub fn hint(mut self, parameter: impl Into<String>, value: impl Into<Value>) -> Self {
        self.hints.entry(parameter.into()).or_default().push(value.into());
        self
    }

    /// Whether to call tools that are, or may be, destructive
    /// (`destructiveHint: true`, or no annotations, which MCP reads as
    /// destructive). Off by default, so pointing the explorer at an app
    /// never submits, deletes or pays for anything.
    pub fn allow_destructive(mut self, allow: bool) -> Self {
        self.allow_destructive = allow;
        self
    }

    /// How long one call may take before the walk stops (30 s).
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// How long to wait for the notification a change calls for (2 s
    /// in-process, 5 s otherwise).
    pub fn notification_timeout(mut self, timeout: Duration) -> Self {
        self.notification_timeout = Some(timeout);
        self
    }

    /// How long to listen after a refused call for a notification that must
    /// not come (0 in-process, 25 ms otherwise; a stray one arriving later
    /// is still caught at the next step).
    pub fn settle(mut self, settle: Duration) -> Self {
        self.settle = Some(settle);
        self
    }

    /// Whether to shrink each failure to the shortest sequence of calls
    /// that still shows it (on by default; needs a server that can be
    /// started afresh, so not over HTTP).
    pub fn shrink(mut self, shrink: bool) -> Self {
        self.shrink = shrink;
        self
    }

    /// An error code the server documents as its own extension of §7.4.
    /// Purview's (`action_failed`, `limit_reached`, `approval_denied`) are
    /// known already.
    pub fn extension_code(mut self, code: impl Into<String>) -> Self {
        self.extension_codes.insert(code.into());
        self
    }

    /// Explores a Purview app in-process. `make` builds the app in its
    /// initial state (windows open); it runs again for every replay while
    /// shrinking.
    pub async fn explore(&self, make: impl Fn() -> App + Send + Sync + 'static) -> Report {
        self.run(&Endpoint::in_process(make)).await
    }

    /// Explores any GUI Bridge server.
    pub async fn run(&self, endpoint: &Endpoint) -> Report {
        let started = Instant::now();
        let mut walk = match Walk::connect(self, endpoint).await {
            Ok(walk) => walk,
            Err(why) => return self.unreachable(endpoint, why, started.elapsed()),
        };
        walk.random(self.steps).await;
        let elapsed = started.elapsed();
        let trace = walk.trace.clone();
        let firsts = walk.tally.firsts();
        let mut report = walk.finish(endpoint, elapsed).await;
        for (check, step) in firsts.into_iter().take(6) {
            if !matches!(check.level(), Level::Must | Level::App) {
                continue;
            }
            let prefix = &trace[..step.min(trace.len())];
            report.shrunk.push(if self.shrink && endpoint.restartable() {
                self.shrink_to(endpoint, prefix, check).await
            } else {
                Shrunk {
                    check,
                    reproduced: false,
                    script: Script { steps: prefix.to_vec() },
                    replays: 0,
                }
            });
        }
        report
    }

    /// Replays a script (from a report) against a server and checks every
    /// step as a walk would.
    pub async fn replay(&self, endpoint: &Endpoint, script: &Script) -> Report {
        let started = Instant::now();
        let mut walk = match Walk::connect(self, endpoint).await {
            Ok(walk) => walk,
            Err(why) => return self.unreachable(endpoint, why, started.elapsed()),
        };
        for step in &script.steps {
            if walk.stopped.is_some() {
                break;
            }
            walk.execute(step.clone()).await;
        }
        walk.finish(endpoint, started.elapsed()).await
    }

    fn unreachable(&self, endpoint: &Endpoint, why: String, elapsed: Duration) -> Report {
        let mut tally = Tally::default();
        tally.fail(Check::Capabilities, 0, format!("could not open an MCP session: {why}"));
        Report {
            target: endpoint.to_string(),
            server: None,
            seed: self.seed,
            steps: 0,
            elapsed,
            stopped: Some(why),
            checks: tally.reports(),
            coverage: Coverage::default(),
            shrunk: Vec::new(),
        }
    }

    /// Shortens `trace` while a fresh server still fails `check` on it.
    async fn shrink_to(&self, endpoint: &Endpoint, trace: &[Step], check: Check) -> Shrunk {
        let budget = if endpoint.in_memory() { 400 } else { 40 };
        let deadline =
            Instant::now() + Duration::from_secs(if endpoint.in_memory() { 60 } else { 90 });
        let mut replays = 0;
        let within = |replays: usize| replays < budget && Instant::now() < deadline;
        let mut best = trace.to_vec();
        if !self.fails_on(endpoint, &best, check, &mut replays).await {
            return Shrunk { check, reproduced: false, script: Script { steps: best }, replays };
        }
        // The windows a fresh server starts with: a call made in a window
        // opened later may show the same failure in one of these.
        let initial: Vec<String> = match Walk::connect(self, endpoint).await {
            Ok(walk) => {
                let ids = walk.obs.windows.by_id.keys().cloned().collect();
                walk.finish(endpoint, Duration::ZERO).await;
                ids
            }
            Err(_) => Vec::new(),
        };
        // Often the last call alone shows it, maybe in a window there from
        // the start.
        if let Some(last) = best.last().cloned() {
            for candidate in std::iter::once(last.clone()).chain(retargeted(&last, &initial)) {
                if within(replays)
                    && self
                        .fails_on(endpoint, std::slice::from_ref(&candidate), check, &mut replays)
                        .await
                {
                    return Shrunk {
                        check,
                        reproduced: true,
                        script: Script { steps: vec![candidate] },
                        replays,
                    };
                }
            }
        }
        // What matters is usually near the failure: find the shortest tail
        // that still fails (a binary search over where it starts)…
        let (mut keep, mut drop) = (0, best.len());
        while drop - keep > 1 && within(replays) {
            let mid = (keep + drop) / 2;
            if self.fails_on(endpoint, &best[mid..], check, &mut replays).await {
                keep = mid;
            } else {
                drop = mid;
            }
        }
        best.drain(..keep);
        // …then remove whatever else it can do without, trying calls in
        // windows that are there from the start instead of later ones.
        loop {
            let before = best.len();
            best = self.without_unneeded(endpoint, best, check, &mut replays, &within).await;
            for i in 0..best.len() {
                for candidate in retargeted(&best[i], &initial) {
                    if !within(replays) {
                        break;
                    }
                    let mut tried = best.clone();
                    tried[i] = candidate;
                    if self.fails_on(endpoint, &tried, check, &mut replays).await {
                        best = tried;
                        break;
                    }
                }
            }
            let again =
                self.without_unneeded(endpoint, best.clone(), check, &mut replays, &within).await;
            let done = again.len() >= before || !within(replays);
            best = again;
            if done {
                break;
            }
        }
        Shrunk { check, reproduced: true, script: Script { steps: best }, replays }
    }

    /// Delta debugging: drops chunks of steps, halving the chunk size,
    /// while the failure stays.
    async fn without_unneeded(
        &self,
        endpoint: &Endpoint,
        mut best: Vec<Step>,
        check: Check,
        replays: &mut usize,
        within: &impl Fn(usize) -> bool,
    ) -> Vec<Step> {
        let mut chunk = (best.len() / 2).max(1);
        loop {
            let mut progressed = false;
            let mut i = 0;
            while i < best.len() && best.len() > 1 {
                if !within(*replays) {
                    return best;
                }
                let mut candidate = best.clone();
                candidate.drain(i..(i + chunk).min(best.len()));
                if self.fails_on(endpoint, &candidate, check, replays).await {
                    best = candidate;
                    progressed = true;
                } else {
                    i += chunk;
                }
            }
            if chunk == 1 {
                if !progressed {
                    return best;
                }
            } else {
                chunk /= 2;
            }
        }
    }

    async fn fails_on(
        &self,
        endpoint: &Endpoint,
        steps: &[Step],
        check: Check,
        replays: &mut usize,
    ) -> bool {
        *replays += 1;
        let Ok(mut walk) = Walk::connect(self, endpoint).await else { return false };
        if walk.tally.failed(check) {
            return true;
        }
        for step in steps {
            walk.execute(step.clone()).await;
            if walk.tally.failed(check) {
                return true;
            }
            if walk.stopped.is_some() {
                break;
            }
        }
        walk.settle_notifications().await;
        walk.tally.failed(check)
    }
}

/// Results per check, as the walk goes.
#[derive(Default)]
struct Tally {
    entries: BTreeMap<Check, Entry>,
}

#[derive(Default)]
struct Entry {
    observed: u64,
    failures: u64,
    evidence: Vec<Evidence>,
    first: Option<usize>,
    note: Option<String>,
}

impl Tally {
    fn ok(&mut self, check: Check) {
        self.entries.entry(check).or_default().observed += 1;
    }

    fn fail(&mut self, check: Check, step: usize, detail: String) {
        let entry = self.entries.entry(check).or_default();
        entry.observed += 1;
        entry.failures += 1;
        entry.first.get_or_insert(step);
        if entry.evidence.len() < 5 && !entry.evidence.iter().any(|e| e.detail == detail) {
            entry.evidence.push(Evidence { step, detail });
        }
    }

    fn judge(&mut self, check: Check, step: usize, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.ok(check),
            Err(detail) => self.fail(check, step, detail),
        }
    }

    fn note(&mut self, check: Check, why: impl Into<String>) {
        self.entries.entry(check).or_default().note = Some(why.into());
    }

    fn failed(&self, check: Check) -> bool {
        self.entries.get(&check).is_some_and(|e| e.failures > 0)
    }

    /// Failed checks with the step of their first failure, earliest first.
    fn firsts(&self) -> Vec<(Check, usize)> {
        let mut out: Vec<(Check, usize)> =
            self.entries.iter().filter_map(|(c, e)| e.first.map(|s| (*c, s))).collect();
        out.sort_by_key(|(c, s)| (*s, *c));
        out
    }

    fn reports(&self) -> Vec<CheckReport> {
        let mut out: Vec<CheckReport> = Check::ALL
            .iter()
            .map(|&check| {
                let entry = self.entries.get(&check);
                let observed = entry.map_or(0, |e| e.observed);
                let failures = entry.map_or(0, |e| e.failures);
                let status = if failures > 0 {
                    Status::Fail
                } else if observed > 0 {
                    Status::Pass
                } else {
                    Status::NotExercised
                };
                CheckReport {
                    check,
                    level: check.level(),
                    sections: check.sections(),
                    title: check.title(),
                    status,
                    observed,
                    failures,
                    evidence: entry.map(|e| e.evidence.clone()).unwrap_or_default(),
                    note: entry
                        .and_then(|e| e.note.clone())
                        .filter(|_| status == Status::NotExercised),
                }
            })
            .collect();
        out.sort_by_key(|c| c.level);
        out
    }
}

/// A tool as listed, with its schemas compiled.
struct ToolInfo {
    name: String,
    /// The window id for `{winId}__{action}` tools; `None` for `app__…`.
    window: Option<String>,
    action: String,
    schema: InputSchema,
    output: Option<Validator>,
    destructive: bool,
    read_only: bool,
    /// The definition as listed, to notice when a listing changes it.
    tool: Tool,
}

impl ToolInfo {
    fn new(tool: &Tool, window: Option<String>, action: String) -> Self {
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
        // MCP's defaults: destructive unless marked read-only or
        // explicitly not destructive.
        let destructive =
            !read_only && tool.annotations.as_ref().and_then(|a| a.destructive_hint) != Some(false);
        let output = tool
            .output_schema
            .as_ref()
            .and_then(|s| jsonschema::options().build(&Value::Object((**s).clone())).ok());
        Self {
            name: tool.name.to_string(),
            window,
            action,
            schema: InputSchema::new(Value::Object((*tool.input_schema).clone())),
            output,
            destructive,
            read_only,
            tool: tool.clone(),
        }
    }

    fn has_version(&self) -> bool {
        self.schema.has("expectedVersion")
    }
}

/// What one read of the server showed.
#[derive(Clone)]
struct Obs {
    windows: Windows,
    tools: BTreeMap<String, Arc<ToolInfo>>,
}

impl Obs {
    fn names(&self) -> Vec<&String> {
        self.tools.keys().collect()
    }

    fn version(&self, window: &str) -> Option<u64> {
        self.windows.by_id.get(window).and_then(|w| w.version)
    }
}

/// Where a called tool stood when it was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// In the current tools/list.
    Listed,
    /// Listed earlier in this walk, not now.
    Withdrawn,
    /// Never listed in this walk.
    Never,
}

struct Prepared {
    call: Call,
    arguments: Map<String, Value>,
    role: Role,
    info: Option<Arc<ToolInfo>>,
    validity: Validity,
    version_before: Option<u64>,
    /// Sent together with other calls (another may have landed first).
    together: bool,
}

struct Walk<'a> {
    cfg: &'a Explorer,
    _server: Server,
    main: Session,
    observer: Option<Session>,
    rng: Rand,
    tally: Tally,
    app_windows: Validator,
    obs: Obs,
    step: usize,
    trace: Vec<Step>,
    stopped: Option<String>,
    server_name: Option<String>,
    /// Every tool listed so far, by name.
    ever_listed: HashMap<String, Arc<ToolInfo>>,
    seen_ids: HashSet<String>,
    closed_ids: HashSet<String>,
    /// Values sent to writeOnly parameters, to look for in every answer.
    sent_secrets: Vec<String>,
    /// String values sent to other parameters (which may come back).
    sent_plain: HashSet<String>,
    /// Successful writes that changed their window, by window, for the
    /// serialization probe.
    effective: HashMap<String, Vec<Call>>,
    /// The last few calls that succeeded, to send again.
    recent: Vec<Call>,
    /// Whether every single change seen moved its window's version by one.
    unit_steps: Option<bool>,
    /// Notifications recorded on `main` up to the end of the last step.
    cursor: usize,
    observer_cursor: usize,
    /// Whether the last step changed nothing (so a notification arriving
    /// now belongs to it).
    last_quiet: bool,
    fresh_ids: usize,
    coverage: Coverage,
    titles: HashMap<String, String>,
    notify_wait: Duration,
    settle: Duration,
}

impl<'a> Walk<'a> {
    async fn connect(cfg: &'a Explorer, endpoint: &Endpoint) -> Result<Walk<'a>, String> {
        let mut server = endpoint.start();
        let main = server.session(true).await?;
        let observer =
            if server.many_sessions() { Some(server.session(false).await?) } else { None };
        let app_windows = jsonschema::validator_for(
            &serde_json::from_str(APP_WINDOWS_SCHEMA).expect("the bundled schema is JSON"),
        )
        .expect("the bundled schema compiles");
        let fast = endpoint.in_memory();
        let empty = Obs { windows: Windows::parse(json!({})), tools: BTreeMap::new() };
        let mut walk = Walk {
            cfg,
            _server: server,
            main,
            observer,
            rng: Rand::seed_from_u64(cfg.seed),
            tally: Tally::default(),
            app_windows,
            obs: empty,
            step: 0,
            trace: Vec::new(),
            stopped: None,
            server_name: None,
            ever_listed: HashMap::new(),
            seen_ids: HashSet::new(),
            closed_ids: HashSet::new(),
            sent_secrets: Vec::new(),
            sent_plain: HashSet::new(),
            effective: HashMap::new(),
            recent: Vec::new(),
            unit_steps: None,
            cursor: 0,
            observer_cursor: 0,
            last_quiet: true,
            fresh_ids: 0,
            coverage: Coverage::default(),
            titles: HashMap::new(),
            notify_wait: cfg.notification_timeout.unwrap_or(Duration::from_secs(if fast {
                2
            } else {
                5
            })),
            settle: cfg.settle.unwrap_or(if fast {
                Duration::ZERO
            } else {
                Duration::from_millis(25)
            }),
        };
        walk.handshake().await;
        match walk.observe().await {
            Some(obs) => {
                walk.after_observation(&obs);
                walk.obs = obs;
            }
            None => {
                return Err(walk.stopped.clone().unwrap_or_else(|| "the first read failed".into()));
            }
        }
        Ok(walk)
    }

    /// Step 0: initialize, resources/list, resources/subscribe.
    async fn handshake(&mut self) {
        let info = self.main.info();
        if let Some(info) = &info {
            self.server_name =
                info.server_info.as_ref().map(|i| format!("{} {}", i.name, i.version));
            let caps = &info.capabilities;
            let subscribe = caps.resources.as_ref().and_then(|r| r.subscribe) == Some(true);
            let list_changed = caps.tools.as_ref().and_then(|t| t.list_changed) == Some(true);
            let mut missing = Vec::new();
            if !subscribe {
                missing.push("resources.subscribe: true");
            }
            if !list_changed {
                missing.push("tools.listChanged: true");
            }
            self.tally.judge(
                Check::Capabilities,
                0,
                if missing.is_empty() {
                    Ok(())
                } else {
                    Err(format!("initialize does not declare {}", missing.join(" or ")))
                },
            );
            let instructions = info.instructions.as_deref().unwrap_or("");
            let mut lacking = Vec::new();
            if !instructions.contains(WINDOWS_URI) {
                lacking.push("app://windows");
            }
            if !instructions.contains("expectedVersion") {
                lacking.push("expectedVersion");
            }
            self.tally.judge(
                Check::Instructions,
                0,
                if instructions.trim().is_empty() {
                    Err("initialize has no instructions".into())
                } else if lacking.is_empty() {
                    Ok(())
                } else {
                    Err(format!("the instructions never mention {}", lacking.join(" or ")))
                },
            );
        } else {
            self.tally.fail(Check::Capabilities, 0, "no initialize result".into());
        }
        match self.main.resources().await {
            Ok(list) => {
                let uris: Vec<&str> = list
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r.get("uri").and_then(Value::as_str))
                    .collect();
                self.tally.judge(
                    Check::Resource,
                    0,
                    if uris == [WINDOWS_URI] {
                        Ok(())
                    } else {
                        Err(format!("resources/list returns {uris:?}; §12.1 lists exactly one, app://windows"))
                    },
                );
            }
            Err(e) => self.tally.fail(Check::Resource, 0, format!("resources/list failed: {e}")),
        }
        for (session, which) in [(Some(&self.main), "the"), (self.observer.as_ref(), "a second")] {
            let Some(session) = session else { continue };
            if let Err(e) = session.subscribe().await {
                self.tally.fail(
                    Check::Capabilities,
                    0,
                    format!(
                        "resources/subscribe to app://windows failed on {which} connection: {e}"
                    ),
                );
            }
        }
    }

    /// The random walk.
    async fn random(&mut self, steps: usize) {
        for _ in 0..steps {
            if self.stopped.is_some() {
                break;
            }
            let step = self.plan();
            self.execute(step).await;
        }
        self.settle_notifications().await;
    }

    /// Lets the last step's stray notifications arrive and be judged.
    async fn settle_notifications(&mut self) {
        tokio::time::sleep(self.settle.max(Duration::from_millis(5))).await;
        self.check_late();
    }

    fn allowed(&self, tool: &ToolInfo) -> bool {
        self.cfg.allow_destructive || !tool.destructive
    }

    /// Picks the next step.
    fn plan(&mut self) -> Step {
        if self.rng.random_bool(0.08)
            && let Some(step) = self.probe()
        {
            return step;
        }
        let callable: Vec<Arc<ToolInfo>> =
            self.obs.tools.values().filter(|t| self.allowed(t)).cloned().collect();
        let roll = self.rng.random_range(0..100u8);
        if roll < 7 {
            let mut withdrawn: Vec<Arc<ToolInfo>> = self
                .ever_listed
                .values()
                .filter(|t| !self.obs.tools.contains_key(&t.name) && self.allowed(t))
                .cloned()
                .collect();
            withdrawn.sort_by(|a, b| a.name.cmp(&b.name));
            if !withdrawn.is_empty() {
                let tool = withdrawn[self.rng.random_range(0..withdrawn.len())].clone();
                return Step::Call(self.valid_call(&tool));
            }
        }
        if roll < 10 || callable.is_empty() {
            return Step::Call(self.unknown_window());
        }
        if roll < 12 {
            let operable = self.obs.windows.operable.clone();
            if !operable.is_empty() {
                let window = &operable[self.rng.random_range(0..operable.len())];
                let tool = format!("{window}__no_such_action");
                if !self.ever_listed.contains_key(&tool) {
                    return Step::Call(Call {
                        tool,
                        arguments: Map::new(),
                        expected_version: ExpectedVersion::Omit,
                        intent: Intent::UnknownAction,
                    });
                }
            }
        }
        if roll < 18 {
            // The same write again: what it set is already there, so a
            // version that moves now moved for nothing (§7.1).
            let again: Vec<Call> = self
                .recent
                .iter()
                .filter(|c| self.obs.tools.contains_key(&c.tool))
                .cloned()
                .collect();
            if !again.is_empty() {
                let mut call = again[self.rng.random_range(0..again.len())].clone();
                if call.expected_version == ExpectedVersion::Stale {
                    call.expected_version = ExpectedVersion::Current;
                }
                return Step::Call(call);
            }
        }
        let tool = callable[self.rng.random_range(0..callable.len())].clone();
        if roll < 28
            && let Some(call) = self.invalid_call(&tool)
        {
            return Step::Call(call);
        }
        let mut call = self.valid_call(&tool);
        if roll < 36 && tool.window.is_some() && tool.has_version() {
            call.expected_version = ExpectedVersion::Stale;
        }
        Step::Call(call)
    }

    fn secret_value(rng: &mut Rand) -> String {
        format!("{SECRET_PREFIX}{:08x}", rng.random_range(0..u32::MAX))
    }

    fn valid_call(&mut self, tool: &ToolInfo) -> Call {
        let (mut arguments, _) =
            tool.schema.valid(&mut self.rng, &self.cfg.hints, &mut Self::secret_value);
        let mut expected_version = ExpectedVersion::Omit;
        if tool.window.is_some() && tool.has_version() {
            arguments.remove("expectedVersion");
            if self.rng.random_bool(0.8) {
                expected_version = ExpectedVersion::Current;
            }
        }
        Call { tool: tool.name.clone(), arguments, expected_version, intent: Intent::Valid }
    }

    fn invalid_call(&mut self, tool: &ToolInfo) -> Option<Call> {
        let (mut arguments, broke) =
            tool.schema.invalid(&mut self.rng, &self.cfg.hints, &mut Self::secret_value)?;
        let mut expected_version = ExpectedVersion::Omit;
        if tool.window.is_some()
            && tool.has_version()
            && !broke.iter().any(|b| b == "expectedVersion")
        {
            arguments.remove("expectedVersion");
            expected_version = ExpectedVersion::Current;
        }
        Some(Call {
            tool: tool.name.clone(),
            arguments,
            expected_version,
            intent: Intent::Invalid(broke),
        })
    }

    fn unknown_window(&mut self) -> Call {
        let mut id;
        loop {
            self.fresh_ids += 1;
            id = format!("nowin{}", self.fresh_ids);
            if !self.seen_ids.contains(&id) {
                break;
            }
        }
        let actions: Vec<String> = self.obs.tools.values().map(|t| t.action.clone()).collect();
        let action = if actions.is_empty() {
            "close".to_owned()
        } else {
            actions[self.rng.random_range(0..actions.len())].clone()
        };
        Call {
            tool: format!("{id}__{action}"),
            arguments: Map::new(),
            expected_version: ExpectedVersion::Omit,
            intent: Intent::UnknownWindow,
        }
    }

    /// Two writes that each changed the same window before, sent together
    /// on the same version (§10.1).
    fn probe(&mut self) -> Option<Step> {
        if self.unit_steps != Some(true) {
            return None;
        }
        let mut windows: Vec<&String> = self
            .effective
            .iter()
            .filter(|(w, calls)| {
                self.obs.windows.is_operable(w)
                    && calls.iter().filter(|c| self.obs.tools.contains_key(&c.tool)).count() >= 2
            })
            .map(|(w, _)| w)
            .collect();
        windows.sort();
        if windows.is_empty() {
            return None;
        }
        let window = windows[self.rng.random_range(0..windows.len())].clone();
        let calls: Vec<Call> = self.effective[&window]
            .iter()
            .filter(|c| self.obs.tools.contains_key(&c.tool))
            .cloned()
            .collect();
        let first = self.rng.random_range(0..calls.len());
        let mut second = self.rng.random_range(0..calls.len() - 1);
        if second >= first {
            second += 1;
        }
        Some(Step::Together(vec![calls[first].clone(), calls[second].clone()]))
    }

    /// Whether a window of this id is open (or "app").
    fn resolve(&self, name: &str, windows: &Windows) -> Option<(Option<String>, String)> {
        let mut best: Option<(Option<String>, String)> = None;
        for id in windows.by_id.keys() {
            if let Some(action) = name.strip_prefix(id.as_str()).and_then(|r| r.strip_prefix("__"))
                && !action.is_empty()
                && best.as_ref().is_none_or(|(w, _)| w.as_ref().is_some_and(|w| w.len() < id.len()))
            {
                best = Some((Some(id.clone()), action.to_owned()));
            }
        }
        best.or_else(|| {
            name.strip_prefix("app__").filter(|a| !a.is_empty()).map(|a| (None, a.to_owned()))
        })
    }

    fn prepare(&mut self, call: &Call) -> Prepared {
        let (role, info) = if let Some(info) = self.obs.tools.get(&call.tool) {
            (Role::Listed, Some(info.clone()))
        } else if let Some(info) = self.ever_listed.get(&call.tool) {
            (Role::Withdrawn, Some(info.clone()))
        } else {
            (Role::Never, None)
        };
        let window = info
            .as_ref()
            .and_then(|i| i.window.clone())
            .or_else(|| self.resolve(&call.tool, &self.obs.windows).and_then(|(w, _)| w));
        let version_before = window.as_deref().and_then(|w| self.obs.version(w));
        let mut arguments = call.arguments.clone();
        match call.expected_version {
            ExpectedVersion::Omit => {}
            ExpectedVersion::Current => {
                if let Some(v) = version_before {
                    arguments.insert("expectedVersion".into(), json!(v));
                }
            }
            ExpectedVersion::Stale => {
                arguments.insert("expectedVersion".into(), json!(version_before.unwrap_or(0) + 1));
            }
        }
        let validity = info.as_ref().map_or(Validity::Unknown, |i| i.schema.judge(&arguments));
        let write_only = info.as_ref().map(|i| i.schema.write_only()).unwrap_or_default();
        for (name, value) in &arguments {
            let Value::String(s) = value else { continue };
            if !write_only.contains(name) {
                self.sent_plain.insert(s.clone());
                continue;
            }
            // Only values that cannot turn up by chance: the explorer's own
            // made-up secrets and the app's hinted ones that are long enough
            // (a four-digit PIN turns up in any table of numbers).
            let hinted = self.cfg.hints.get(name).is_some_and(|h| h.contains(value));
            if (s.starts_with(SECRET_PREFIX) || (hinted && s.chars().count() >= 6))
                && !self.sent_secrets.contains(s)
            {
                self.sent_secrets.push(s.clone());
            }
        }
        Prepared {
            call: call.clone(),
            arguments,
            role,
            info,
            validity,
            version_before,
            together: false,
        }
    }

    /// Runs one step and judges it.
    async fn execute(&mut self, step: Step) {
        self.step += 1;
        let n = self.step;
        self.check_late();
        let before = self.obs.clone();
        let main_from = self.main.event_count();
        let observer_from = self.observer.as_ref().map_or(0, Session::event_count);
        let together = step.calls().len() > 1;
        let prepared: Vec<Prepared> =
            step.calls().iter().map(|c| Prepared { together, ..self.prepare(c) }).collect();
        let timeout = self.cfg.call_timeout;
        let outcomes: Vec<CallOutcome> = futures::future::join_all(
            prepared.iter().map(|p| self.main.call(&p.call.tool, &p.arguments, timeout)),
        )
        .await;
        self.trace.push(step.clone());
        let Some(after) = self.observe().await else { return };
        let changed = before.windows.value != after.windows.value;
        let tools_changed = before.names() != after.names();
        let mut wanted = Vec::new();
        if changed {
            wanted.push(Note::WindowsUpdated);
        }
        if tools_changed {
            wanted.push(Note::ToolsChanged);
        }
        // A server that never sends a kind of notification has shown it;
        // after two misses, do not spend the full wait on every step.
        let missed = |check| self.tally.entries.get(&check).is_some_and(|e| e.failures >= 2);
        let wait = if (changed && missed(Check::NotifyAfterEffect))
            || (tools_changed && missed(Check::ToolsListChanged))
        {
            Duration::ZERO
        } else {
            self.notify_wait
        };
        let deadline = tokio::time::Instant::now() + wait;
        let mut events = self.main.wait_for(main_from, &wanted, deadline).await;
        for (p, outcome) in prepared.iter().zip(&outcomes) {
            self.judge_call(n, p, outcome, &before, &after);
        }
        let all_refused = outcomes.iter().all(CallOutcome::rejected);
        if all_refused {
            let check = if step.calls().iter().any(|c| c.expected_version == ExpectedVersion::Stale)
            {
                Check::StaleState
            } else {
                Check::RuntimeValidation
            };
            self.tally.judge(
                check,
                n,
                if changed || tools_changed {
                    Err(format!(
                        "{} was refused, yet it changed {}",
                        describe_calls(&prepared),
                        describe_change(&before, &after)
                    ))
                } else {
                    Ok(())
                },
            );
            if !changed && !tools_changed && self.last_quiet {
                if !self.settle.is_zero() {
                    tokio::time::sleep(self.settle).await;
                }
                events = self.main.events_since(main_from);
                self.tally.judge(
                    Check::NotifyAfterEffect,
                    n,
                    if events.is_empty() {
                        Ok(())
                    } else {
                        Err(format!(
                            "{} was refused and changed nothing, yet {} arrived",
                            describe_calls(&prepared),
                            describe_events(&events)
                        ))
                    },
                );
            }
        }
        self.judge_notifications(n, &before, &after, changed, tools_changed, &events);
        if let Some(observer) = &self.observer {
            let seen = observer.wait_for(observer_from, &wanted, deadline).await;
            let missing: Vec<&Note> =
                wanted.iter().filter(|w| !seen.iter().any(|e| &e.note == *w)).collect();
            self.tally.judge(
                Check::Broadcast,
                n,
                if missing.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "after {}, the second connection did not receive {} within {} s",
                        describe_calls(&prepared),
                        missing.iter().map(|m| note_name(m)).collect::<Vec<_>>().join(" or "),
                        self.notify_wait.as_secs_f32()
                    ))
                },
            );
            self.observer_cursor = observer.event_count();
        }
        if let Step::Together(_) = &step {
            self.judge_probe(n, &prepared, &outcomes, &before, &after);
        } else if let (Some(p), Some(outcome)) = (prepared.first(), outcomes.first()) {
            self.learn(p, outcome, &before, &after);
        }
        self.after_observation(&after);
        self.obs = after;
        self.cursor = self.main.event_count();
        self.last_quiet = !changed && !tools_changed;
    }

    /// Notifications that arrived between steps belong to the last step;
    /// after a step that changed nothing, there must be none.
    fn check_late(&mut self) {
        let late = self.main.events_since(self.cursor);
        if !late.is_empty() && self.last_quiet && self.step > 0 {
            let detail = format!(
                "{} arrived after step {}, which changed nothing",
                describe_events(&late),
                self.step.saturating_sub(1)
            );
            self.tally.fail(Check::NotifyAfterEffect, self.step.saturating_sub(1), detail);
        }
        self.cursor = self.main.event_count();
        if let Some(observer) = &self.observer {
            self.observer_cursor = observer.event_count();
        }
    }

    fn judge_notifications(
        &mut self,
        n: usize,
        before: &Obs,
        after: &Obs,
        changed: bool,
        tools_changed: bool,
        events: &[Event],
    ) {
        if changed {
            let got = events.iter().any(|e| e.note == Note::WindowsUpdated);
            self.tally.judge(
                Check::NotifyAfterEffect,
                n,
                if got {
                    Ok(())
                } else {
                    Err(format!(
                        "app://windows changed ({}) but no notifications/resources/updated arrived within {} s",
                        describe_change(before, after),
                        self.notify_wait.as_secs_f32()
                    ))
                },
            );
            for event in events.iter().filter(|e| e.note == Note::WindowsUpdated) {
                let Some(read) = &event.read else { continue };
                let Ok(seen) = serde_json::from_str::<Value>(read) else { continue };
                if seen == before.windows.value {
                    self.tally.fail(
                        Check::NotifyAfterEffect,
                        n,
                        "resources/updated arrived, but reading app://windows right away still showed the state from before the call: the notification went out before the change took effect".into(),
                    );
                }
            }
        }
        if tools_changed {
            let got = events.iter().any(|e| e.note == Note::ToolsChanged);
            let (added, removed) = diff_names(before, after);
            self.tally.judge(
                Check::ToolsListChanged,
                n,
                if got {
                    Ok(())
                } else {
                    Err(format!(
                        "tools/list changed (added {added:?}, removed {removed:?}) but no notifications/tools/list_changed arrived within {} s",
                        self.notify_wait.as_secs_f32()
                    ))
                },
            );
            let old: Vec<String> = before.tools.keys().cloned().collect();
            for event in events.iter().filter(|e| e.note == Note::ToolsChanged) {
                if event.tools.as_ref() == Some(&old) {
                    self.tally.fail(
                        Check::ToolsListChanged,
                        n,
                        "tools/list_changed arrived, but listing tools right away still gave the old list: it went out before the change".into(),
                    );
                }
            }
        }
    }

    /// Checks one call's answer.
    fn judge_call(
        &mut self,
        n: usize,
        p: &Prepared,
        outcome: &CallOutcome,
        before: &Obs,
        after: &Obs,
    ) {
        let tool = &p.call.tool;
        self.search_secrets(n, &format!("the answer to {tool}"), &outcome.visible_text());
        let key = self.coverage_key(p.info.as_deref(), before);
        let count = self.coverage.tools.entry(key).or_default();
        count.calls += 1;
        if !outcome.rejected() {
            count.succeeded += 1;
        }
        let (is_error, structured, has_text) = match outcome {
            CallOutcome::Broken(why) => {
                self.stopped.get_or_insert_with(|| format!("step {n}: {tool}: {why}"));
                return;
            }
            CallOutcome::Rpc { code, message, .. } => {
                let detail = format!(
                    "{tool} {} came back as JSON-RPC error {code} ({message}) instead of an isError result",
                    shown(&p.arguments, p.info.as_deref())
                );
                match p.role {
                    Role::Listed => self.tally.fail(Check::StructuredResults, n, detail),
                    Role::Withdrawn => self.tally.fail(
                        Check::RuntimeValidation,
                        n,
                        format!("{detail}; a call to an operation tools/list no longer offers must get a §7.4 tool error"),
                    ),
                    Role::Never => self.tally.fail(
                        Check::ErrorCodes,
                        n,
                        format!("{detail}; §7.4 has window_not_found / action_not_available for names that were never offered"),
                    ),
                }
                return;
            }
            CallOutcome::Result { is_error, structured, has_text, .. } => {
                (*is_error, structured, *has_text)
            }
        };
        self.tally.judge(
            Check::ContentMirror,
            n,
            if has_text {
                Ok(())
            } else {
                Err(format!("the answer to {tool} has no text item in content"))
            },
        );
        if is_error {
            self.judge_error(n, p, structured.as_ref(), before);
        } else {
            self.judge_success(n, p, structured.as_ref(), before, after);
        }
    }

    fn judge_error(&mut self, n: usize, p: &Prepared, structured: Option<&Value>, before: &Obs) {
        let tool = &p.call.tool;
        let object = structured.filter(|s| s.is_object());
        let code =
            object.and_then(|s| s.get("code")).and_then(Value::as_str).filter(|c| !c.is_empty());
        let message = object.and_then(|s| s.get("message")).and_then(Value::as_str);
        let Some(code) = code.filter(|_| message.is_some()) else {
            self.tally.fail(
                Check::StructuredResults,
                n,
                format!(
                    "{tool} failed (isError) without a {{code, message}} object in structuredContent: {}",
                    structured.map_or("nothing".into(), |s| clip(&s.to_string()))
                ),
            );
            return;
        };
        self.tally.ok(Check::StructuredResults);
        let object = object.expect("checked above");
        *self.coverage.codes.entry(code.to_owned()).or_default() += 1;
        let known = SPEC_CODES.contains(&code) || self.cfg.extension_codes.contains(code);
        self.tally.judge(
            Check::ErrorCodes,
            n,
            if known {
                Ok(())
            } else {
                Err(format!("{tool} answered code {code:?}, which is neither a §7.4 code nor a declared extension"))
            },
        );
        match code {
            "stale_state" => {
                let current = object.get("currentVersion").and_then(Value::as_u64);
                let outcome = match (current, p.version_before) {
                    (None, _) => {
                        Err(format!("stale_state from {tool} carries no integer currentVersion"))
                    }
                    (Some(c), Some(v))
                        if p.info.as_ref().is_some_and(|i| i.window.is_some())
                            && (c < v || (c != v && !p.together)) =>
                    {
                        Err(format!(
                            "stale_state from {tool} says currentVersion {c}, but the window is at {v}"
                        ))
                    }
                    _ if p.call.expected_version == ExpectedVersion::Current
                        && p.role == Role::Listed
                        && !p.together =>
                    {
                        Err(format!(
                            "{tool} refused with stale_state although it carried the window's current version {}",
                            p.version_before.unwrap_or(0)
                        ))
                    }
                    _ => Ok(()),
                };
                self.tally.judge(Check::StaleState, n, outcome);
            }
            "validation_failed" => self.judge_fields(n, p, object),
            _ => {}
        }
        match p.role {
            Role::Listed => {
                let refusal = matches!(
                    code,
                    "blocked_by_modal" | "window_not_found" | "action_not_available"
                );
                let wrongly = match &p.info.as_ref().and_then(|i| i.window.clone()) {
                    Some(_) => refusal,
                    None => {
                        code == "blocked_by_modal"
                            && before.windows.app_modal_open()
                            && !mentions_target(&p.arguments, &before.windows)
                    }
                };
                if p.validity == Validity::Valid
                    && p.call.expected_version != ExpectedVersion::Stale
                {
                    self.tally.judge(
                        Check::ToolsOnlyOperable,
                        n,
                        if wrongly {
                            Err(format!(
                                "tools/list offered {tool}, but calling it answered {code}: {}",
                                message.unwrap_or("")
                            ))
                        } else {
                            Ok(())
                        },
                    );
                    self.tally.judge(
                        Check::HandlerFailed,
                        n,
                        if code == "action_failed" {
                            Err(format!(
                                "{tool} {} failed inside the application: {}",
                                shown(&p.arguments, p.info.as_deref()),
                                message.unwrap_or("")
                            ))
                        } else {
                            Ok(())
                        },
                    );
                }
            }
            Role::Withdrawn => {
                self.tally.ok(Check::RuntimeValidation);
                let window = p.info.as_ref().and_then(|i| i.window.clone());
                let expected: &[&str] = match &window {
                    Some(w) if !before.windows.by_id.contains_key(w) => &["window_not_found"],
                    Some(w) if !before.windows.is_operable(w) => {
                        &["blocked_by_modal", "action_not_available"]
                    }
                    Some(_) => &["action_not_available"],
                    None => &["blocked_by_modal", "action_not_available"],
                };
                self.judge_code(n, tool, code, expected, "no longer offered");
            }
            Role::Never => match p.call.intent {
                Intent::UnknownWindow => self.judge_code(
                    n,
                    tool,
                    code,
                    &["window_not_found"],
                    "naming a window that never existed",
                ),
                Intent::UnknownAction => self.judge_code(
                    n,
                    tool,
                    code,
                    &["action_not_available"],
                    "naming an action the window never offered",
                ),
                _ => {}
            },
        }
    }

    fn judge_code(&mut self, n: usize, tool: &str, code: &str, expected: &[&str], what: &str) {
        self.tally.judge(
            Check::ErrorCodes,
            n,
            if expected.contains(&code) {
                Ok(())
            } else {
                Err(format!(
                    "a call to {tool}, {what}, answered {code}; §7.4 says {}",
                    expected.join(" or ")
                ))
            },
        );
    }

    /// §7.3: `fields[]` names parameters of the tool, and the one broken.
    fn judge_fields(&mut self, n: usize, p: &Prepared, object: &Value) {
        let tool = &p.call.tool;
        let fields = object.get("fields").and_then(Value::as_array);
        let names: Option<Vec<&str>> = fields.filter(|f| !f.is_empty()).and_then(|f| {
            f.iter()
                .map(|item| {
                    item.get("error").and_then(Value::as_str)?;
                    item.get("field").and_then(Value::as_str)
                })
                .collect()
        });
        let Some(names) = names else {
            self.tally.fail(
                Check::FieldErrors,
                n,
                format!(
                    "validation_failed from {tool} has no fields[] of {{field, error}}: {}",
                    clip(&object.to_string())
                ),
            );
            return;
        };
        let mut parameters: Vec<String> =
            p.info.as_ref().map(|i| i.schema.parameters()).unwrap_or_default();
        let mut checkable = p.info.is_some();
        if tool == PURVIEW_ACT {
            // Purview's dispatcher names the dispatched action's own fields.
            let inner = p.arguments.get("arguments").and_then(Value::as_object);
            parameters.extend(inner.into_iter().flatten().map(|(k, _)| k.clone()));
            let target = match (p.arguments.get("window"), p.arguments.get("action")) {
                (Some(Value::String(w)), Some(Value::String(a))) => {
                    self.ever_listed.get(&format!("{w}__{a}"))
                }
                _ => None,
            };
            match target {
                Some(target) => parameters.extend(target.schema.parameters()),
                // Its schema was never listed (the dispatcher surface): the
                // names cannot be told from here.
                None => checkable = false,
            }
        }
        let head = |field: &str| {
            field.split(['.', '[', '/']).find(|s| !s.is_empty()).unwrap_or("").to_owned()
        };
        let mut outcome = Ok(());
        if checkable {
            let sent: Vec<&String> = p.arguments.keys().collect();
            if let Some(stranger) = names.iter().find(|f| {
                let h = head(f);
                !parameters.contains(&h) && !sent.contains(&&h) && h != "expectedVersion"
            }) {
                outcome = Err(format!(
                    "validation_failed from {tool} names field {stranger:?}, which is not one of its parameters {parameters:?}"
                ));
            }
        }
        self.tally.judge(Check::FieldErrors, n, outcome);
        if let Validity::Invalid(broke) = &p.validity
            && p.call.intent != Intent::Valid
        {
            self.tally.judge(
                Check::RejectsInvalid,
                n,
                if broke.iter().any(|b| names.iter().any(|f| head(f) == *b)) {
                    Ok(())
                } else {
                    Err(format!("{tool} was sent a bad {broke:?}, but validation_failed names only {names:?}"))
                },
            );
        }
    }

    fn judge_success(
        &mut self,
        n: usize,
        p: &Prepared,
        structured: Option<&Value>,
        before: &Obs,
        after: &Obs,
    ) {
        let tool = &p.call.tool;
        let Some(result) = structured.filter(|s| s.is_object()) else {
            self.tally.fail(
                Check::StructuredResults,
                n,
                format!("{tool} succeeded without a ToolResult object in structuredContent"),
            );
            return;
        };
        let schema_check = match p.info.as_ref().and_then(|i| i.output.as_ref()) {
            Some(validator) => match validator.iter_errors(result).next() {
                Some(e) => Err(format!(
                    "the result of {tool} does not match its outputSchema: {e} at {} in {}",
                    e.instance_path(),
                    clip(&result.to_string())
                )),
                None => Ok(()),
            },
            None => Ok(()),
        };
        self.tally.judge(Check::StructuredResults, n, schema_check);
        // Purview's app__read_windows answers with the snapshot itself.
        let message_expected = tool != PURVIEW_READ;
        self.tally.judge(
            Check::ResultMessage,
            n,
            if !message_expected || result.get("message").and_then(Value::as_str).is_some() {
                Ok(())
            } else {
                Err(format!("the result of {tool} has no message"))
            },
        );
        if let Some(opened) = result.get("openedWindowIds") {
            let ids: Option<Vec<&str>> =
                opened.as_array().and_then(|a| a.iter().map(Value::as_str).collect());
            let outcome = match ids {
                None => Err(format!("openedWindowIds from {tool} is not an array of ids")),
                Some(ids) => match ids.iter().find(|id| {
                    !after.windows.by_id.contains_key(**id)
                        || before.windows.by_id.contains_key(**id)
                }) {
                    Some(id) => Err(format!(
                        "{tool} reports opening {id}, but app://windows does not show {id} as newly opened"
                    )),
                    None => Ok(()),
                },
            };
            self.tally.judge(Check::ToolNames, n, outcome);
        }
        match p.role {
            Role::Listed => {
                if p.call.expected_version == ExpectedVersion::Stale
                    && p.info.as_ref().is_some_and(|i| i.window.is_some())
                {
                    self.tally.fail(
                        Check::StaleState,
                        n,
                        format!(
                            "{tool} carried expectedVersion {} while its window was at {}, and was accepted",
                            p.version_before.unwrap_or(0) + 1,
                            p.version_before.unwrap_or(0)
                        ),
                    );
                }
                if let Validity::Invalid(broke) = &p.validity {
                    self.tally.fail(
                        Check::RejectsInvalid,
                        n,
                        format!(
                            "{tool} accepted arguments its inputSchema rejects (bad {broke:?})"
                        ),
                    );
                }
                if p.validity == Validity::Valid {
                    self.tally.ok(Check::ToolsOnlyOperable);
                    self.tally.ok(Check::HandlerFailed);
                }
            }
            Role::Withdrawn => self.tally.fail(
                Check::RuntimeValidation,
                n,
                format!("{tool} is no longer offered by tools/list, yet calling it succeeded"),
            ),
            Role::Never => self.tally.fail(
                Check::RuntimeValidation,
                n,
                format!("{tool} names nothing that is open or offered, yet calling it succeeded"),
            ),
        }
    }

    /// The §10.1 probe: two writes on the same version must not both land.
    fn judge_probe(
        &mut self,
        n: usize,
        prepared: &[Prepared],
        outcomes: &[CallOutcome],
        before: &Obs,
        after: &Obs,
    ) {
        let Some(window) =
            prepared.first().and_then(|p| p.info.as_ref()).and_then(|i| i.window.clone())
        else {
            return;
        };
        let (Some(v0), Some(v1)) = (before.version(&window), after.version(&window)) else {
            return;
        };
        let both = outcomes.iter().all(|o| !o.rejected());
        self.tally.judge(
            Check::Serialized,
            n,
            if both && v1 >= v0 + 2 {
                Err(format!(
                    "{} were sent together, both with expectedVersion {v0}; both took effect and {window} went from version {v0} to {v1}, so the second ran against a version that was no longer current",
                    describe_calls(prepared)
                ))
            } else {
                Ok(())
            },
        );
    }

    /// Learns from a successful write: what changes which window, and by
    /// how much a single change moves a version.
    fn learn(&mut self, p: &Prepared, outcome: &CallOutcome, before: &Obs, after: &Obs) {
        if p.role != Role::Listed || outcome.rejected() || p.validity != Validity::Valid {
            return;
        }
        if self.recent.len() >= 8 {
            self.recent.remove(0);
        }
        self.recent.push(p.call.clone());
        let Some(window) = p.info.as_ref().and_then(|i| i.window.clone()) else { return };
        let (Some(b), Some(a)) =
            (before.windows.by_id.get(&window), after.windows.by_id.get(&window))
        else {
            return;
        };
        if b.content == a.content || p.call.expected_version != ExpectedVersion::Current {
            return;
        }
        if let (Some(v0), Some(v1)) = (b.version, a.version) {
            let unit = v1 == v0 + 1;

            self.unit_steps = Some(self.unit_steps.unwrap_or(true) && unit);
        }
        let calls = self.effective.entry(window).or_default();
        if calls.len() < 6
            && !calls.iter().any(|c| c.tool == p.call.tool && c.arguments == p.call.arguments)
        {
            calls.push(p.call.clone());
        }
    }

    /// Reads app://windows and tools/list, and checks both.
    async fn observe(&mut self) -> Option<Obs> {
        let n = self.step;
        let read = match self.main.read().await {
            Ok(read) => read,
            Err(e) => {
                self.tally.fail(
                    Check::Resource,
                    n,
                    format!("resources/read of app://windows failed: {e}"),
                );
                self.stopped.get_or_insert_with(|| {
                    format!("step {n}: app://windows could not be read: {e}")
                });
                return None;
            }
        };
        let wrapping = match read.contents.as_array().map(Vec::as_slice) {
            Some([item]) => {
                let uri = item.get("uri").and_then(Value::as_str);
                let mime = item.get("mimeType").and_then(Value::as_str);
                if uri != Some(WINDOWS_URI) {
                    Err(format!("the read's content has uri {uri:?}, not app://windows"))
                } else if mime != Some("application/json") {
                    Err(format!("the read's content has mimeType {mime:?}, not application/json"))
                } else if read.text.is_none() {
                    Err("the read's content is not a text item".into())
                } else {
                    Ok(())
                }
            }
            _ => Err(format!(
                "resources/read returned {} contents; §12.2 wants exactly one",
                read.contents.as_array().map_or(0, Vec::len)
            )),
        };
        self.tally.judge(Check::Resource, n, wrapping);
        let text = read.text.unwrap_or_default();
        self.search_secrets(n, "app://windows", &text);
        let value: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(e) => {
                self.tally.fail(Check::Resource, n, format!("app://windows is not JSON: {e}"));
                self.stopped.get_or_insert_with(|| format!("step {n}: app://windows is not JSON"));
                return None;
            }
        };
        let errors: Vec<String> = self
            .app_windows
            .iter_errors(&value)
            .take(3)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        self.tally.judge(
            Check::Resource,
            n,
            if errors.is_empty() {
                Ok(())
            } else {
                Err(format!("app://windows does not match the §4 schema: {}", errors.join("; ")))
            },
        );
        let windows = Windows::parse(value);
        self.judge_windows(n, &windows);
        let tools = match self.main.tools().await {
            Ok(tools) => tools,
            Err(e) => {
                self.tally.fail(Check::ToolsOnlyOperable, n, format!("tools/list failed: {e}"));
                self.stopped.get_or_insert_with(|| format!("step {n}: tools/list failed: {e}"));
                return None;
            }
        };
        let tools = self.judge_tools(n, &windows, &tools);
        Some(Obs { windows, tools })
    }

    fn judge_windows(&mut self, n: usize, windows: &Windows) {
        self.tally.judge(Check::Operability, n, check_operable(windows));
        // Ids: unique, name-safe, never reused; block ids unique per window.
        let mut seen = HashSet::new();
        let mut ids = Ok(());
        for id in &windows.order {
            if !seen.insert(id) {
                ids = Err(format!("window id {id} appears twice in windows[]"));
            } else if self.closed_ids.contains(id) {
                ids = Err(format!("window id {id} was closed earlier and is in use again"));
            }
        }
        for (id, w) in &windows.by_id {
            let mut block_ids = HashSet::new();
            for block in &w.blocks {
                if let Some(b) = block.get("id").and_then(Value::as_str)
                    && !block_ids.insert(b)
                {
                    ids = Err(format!("block id {b} appears twice in window {id}"));
                }
            }
        }
        self.tally.judge(Check::Ids, n, ids);
        let unsafe_id = windows.by_id.keys().find(|id| !name_safe(id));
        self.tally.judge(
            Check::ToolNames,
            n,
            match unsafe_id {
                Some(id) => {
                    Err(format!("window id {id:?} is not name-safe ([A-Za-z0-9_-] only, §12.4)"))
                }
                None => Ok(()),
            },
        );
        // Versions against the previous read.
        let mut versions = Ok(());
        for (id, w) in &windows.by_id {
            let Some(v) = w.version else {
                versions = Err(format!("window {id} has no 64-bit integer version"));
                continue;
            };
            let Some(old) = self.obs.windows.by_id.get(id) else { continue };
            let Some(v0) = old.version else { continue };
            if v < v0 {
                versions = Err(format!("window {id} went back from version {v0} to {v}"));
            } else if old.content == w.content && v != v0 {
                versions = Err(format!(
                    "window {id} went from version {v0} to {v} although its summary and blocks did not change"
                ));
            } else if old.content != w.content && v == v0 {
                versions = Err(format!(
                    "window {id} changed its summary or blocks but stayed at version {v}"
                ));
            }
        }
        self.tally.judge(Check::Versions, n, versions);
        // Masking, summaries, media.
        for (id, w) in &windows.by_id {
            let mut masking = Ok(());
            for block in &w.blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("fields") => {
                        for item in
                            block.get("items").and_then(Value::as_array).into_iter().flatten()
                        {
                            if item.get("sensitive") == Some(&Value::Bool(true))
                                && let Some(value) = item.get("value")
                                && !is_masked(value)
                            {
                                let label =
                                    item.get("label").and_then(Value::as_str).unwrap_or("?");
                                masking = Err(format!(
                                    "field {label:?} in window {id} is marked sensitive but its value is not masked ({} characters that are not mask characters)",
                                    value.as_str().map_or(value.to_string().len(), |s| s
                                        .chars()
                                        .filter(|c| !is_masked(&Value::String(c.to_string())))
                                        .count())
                                ));
                            }
                        }
                    }
                    Some("media") => {
                        self.tally.judge(
                            Check::MediaAlt,
                            n,
                            if block
                                .get("alt")
                                .and_then(Value::as_str)
                                .is_some_and(|a| !a.trim().is_empty())
                            {
                                Ok(())
                            } else {
                                Err(format!("a media block in window {id} has no alt text"))
                            },
                        );
                    }
                    _ => {}
                }
            }
            self.tally.judge(Check::Masking, n, masking);
            self.tally.judge(
                Check::Summaries,
                n,
                if w.summary.as_deref().is_some_and(|s| !s.trim().is_empty()) {
                    Ok(())
                } else {
                    Err(format!("window {id} ({}) has no summary", w.title))
                },
            );
        }
    }

    fn judge_tools(
        &mut self,
        n: usize,
        windows: &Windows,
        tools: &[Tool],
    ) -> BTreeMap<String, Arc<ToolInfo>> {
        let mut out = BTreeMap::new();
        let mut names = HashSet::new();
        for tool in tools {
            let name = tool.name.to_string();
            if !names.insert(name.clone()) {
                self.tally.fail(Check::ToolNames, n, format!("tools/list lists {name} twice"));
                continue;
            }
            let resolved = self.resolve(&name, windows);
            let shape = if !name_safe(&name) {
                Err(format!("tool name {name:?} uses characters outside [A-Za-z0-9_-]"))
            } else if !name.contains("__") {
                Err(format!("tool name {name:?} is not {{winId}}__{{action}}"))
            } else {
                Ok(())
            };
            self.tally.judge(Check::ToolNames, n, shape);
            let (window, action) = match resolved {
                Some(found) => found,
                None => {
                    let (prefix, action) = name.split_once("__").unwrap_or((name.as_str(), ""));
                    self.tally.fail(
                        Check::ToolsOnlyOperable,
                        n,
                        format!("tools/list offers {name}, but no window {prefix} is open"),
                    );
                    (Some(prefix.to_owned()), action.to_owned())
                }
            };
            if let Some(w) = &window {
                self.tally.judge(
                    Check::ToolsOnlyOperable,
                    n,
                    if windows.is_operable(w) || !windows.by_id.contains_key(w) {
                        Ok(())
                    } else {
                        Err(format!(
                            "tools/list offers {name} while window {w} is not operable (operableWindowIds is {:?})",
                            windows.operable
                        ))
                    },
                );
            }
            let info = match self.ever_listed.get(&name) {
                Some(known) if known.tool == *tool => known.clone(),
                _ => {
                    // A definition not seen before: judge it once.
                    let info = Arc::new(ToolInfo::new(tool, window.clone(), action.clone()));
                    self.judge_tool(n, tool, &info);
                    info
                }
            };
            self.ever_listed.insert(name.clone(), info.clone());
            if !self.allowed(&info) {
                let key = self.coverage_key(
                    Some(&info),
                    &Obs { windows: windows.clone(), tools: BTreeMap::new() },
                );
                self.coverage.skipped_destructive.insert(key);
            }
            out.insert(name, info);
        }
        out
    }

    /// The per-definition checks of one tool.
    fn judge_tool(&mut self, n: usize, tool: &Tool, info: &ToolInfo) {
        let name = &info.name;
        self.tally.judge(
            Check::StructuredResults,
            n,
            match &tool.output_schema {
                None => Err(format!("{name} declares no outputSchema (§12.3)")),
                Some(_) if info.output.is_none() => {
                    Err(format!("the outputSchema of {name} is not a valid JSON Schema"))
                }
                Some(_) => Ok(()),
            },
        );
        let words = tool.title.as_deref().is_some_and(|t| !t.trim().is_empty())
            || tool.description.as_deref().is_some_and(|d| !d.trim().is_empty());
        self.tally.judge(
            Check::ToolWords,
            n,
            if words {
                Ok(())
            } else {
                Err(format!("{name} has neither a title nor a description"))
            },
        );
        self.tally.judge(
            Check::Annotations,
            n,
            match &tool.annotations {
                Some(a) if a.destructive_hint.is_some() || a.read_only_hint == Some(true) => Ok(()),
                Some(_) => Err(format!(
                    "{name} has annotations but says neither readOnlyHint nor destructiveHint"
                )),
                None => Err(format!("{name} has no annotations")),
            },
        );
        if info.window.is_some() && !info.read_only {
            self.tally.judge(
                Check::ExpectedVersionParam,
                n,
                if info.has_version() {
                    Ok(())
                } else {
                    Err(format!("{name} writes (not readOnlyHint) but takes no expectedVersion"))
                },
            );
        }
    }

    /// Bookkeeping after every read: ids seen and closed, coverage.
    fn after_observation(&mut self, obs: &Obs) {
        for id in self.obs.windows.by_id.keys() {
            if !obs.windows.by_id.contains_key(id) {
                self.closed_ids.insert(id.clone());
            }
        }
        for (id, w) in &obs.windows.by_id {
            if self.seen_ids.insert(id.clone()) {
                *self.coverage.windows.entry(w.title.clone()).or_default() += 1;
            }
            self.titles.insert(id.clone(), w.title.clone());
        }
        self.coverage.most_open = self.coverage.most_open.max(obs.windows.by_id.len());
    }

    fn coverage_key(&self, info: Option<&ToolInfo>, obs: &Obs) -> String {
        match info {
            Some(ToolInfo { window: Some(w), action, .. }) => {
                let title = obs
                    .windows
                    .by_id
                    .get(w)
                    .map(|w| w.title.clone())
                    .or_else(|| self.titles.get(w).cloned())
                    .unwrap_or_else(|| w.clone());
                format!("{title} · {action}")
            }
            Some(ToolInfo { window: None, action, .. }) => format!("app · {action}"),
            None => "(names never offered)".to_owned(),
        }
    }

    /// Looks for every secret in `text`.
    fn search_secrets(&mut self, n: usize, place: &str, text: &str) {
        let mut outcome = Ok(());
        for (i, secret) in self.cfg.secrets.iter().enumerate() {
            if found(text, secret) {
                outcome = Err(format!("the secret registered as #{} appears in {place}", i + 1));
            }
        }
        for secret in &self.sent_secrets {
            if !self.sent_plain.contains(secret) && found(text, secret) {
                outcome =
                    Err(format!("{secret:?}, sent to a writeOnly parameter, came back in {place}"));
            }
        }
        self.tally.judge(Check::Masking, n, outcome);
    }

    /// Builds the report.
    async fn finish(mut self, endpoint: &Endpoint, elapsed: Duration) -> Report {
        if self.observer.is_none() {
            self.tally.note(
                Check::Broadcast,
                "this transport gives one connection per server (stdio); explore over HTTP or in-process to check it",
            );
        }
        self.tally.note(
            Check::Serialized,
            match self.unit_steps {
                Some(false) => "a single change moved versions by more than one, so two landing writes cannot be told from one",
                _ => "no window had two different writes that each changed it, so none were sent together",
            },
        );
        self.tally.note(Check::MediaAlt, "no media block was seen");
        self.tally.note(
            Check::StaleState,
            "no write tool takes expectedVersion, or none was called with an old one",
        );
        self.tally.note(Check::FieldErrors, "no call was refused with validation_failed");
        self.tally.note(
            Check::RejectsInvalid,
            "no tool's inputSchema could be broken, or none was called",
        );
        let called: HashSet<String> = self.coverage.tools.keys().cloned().collect();
        let offered: Vec<String> = self
            .ever_listed
            .values()
            .map(|info| self.coverage_key(Some(info), &self.obs))
            .collect();
        for key in offered {
            if !called.contains(&key) && !self.coverage.skipped_destructive.contains(&key) {
                self.coverage.never_called.insert(key);
            }
        }
        let report = Report {
            target: endpoint.to_string(),
            server: self.server_name.clone(),
            seed: self.cfg.seed,
            steps: self.step,
            elapsed,
            stopped: self.stopped.clone(),
            checks: self.tally.reports(),
            coverage: std::mem::take(&mut self.coverage),
            shrunk: Vec::new(),
        };
        if let Some(observer) = self.observer.take() {
            observer.close().await;
        }
        self.main.close().await;
        report
    }
}

/// `step` with its (single) call moved to each of `windows` in turn.
fn retargeted(step: &Step, windows: &[String]) -> Vec<Step> {
    let Step::Call(call) = step else { return Vec::new() };
    let Some((window, action)) = call.tool.split_once("__") else { return Vec::new() };
    windows
        .iter()
        .filter(|w| w.as_str() != window && window != "app")
        .map(|w| Step::Call(Call { tool: format!("{w}__{action}"), ..call.clone() }))
        .collect()
}

fn found(text: &str, secret: &str) -> bool {
    if contains_token(text, secret) {
        return true;
    }
    let escaped = serde_json::to_string(secret).unwrap_or_default();
    let escaped = escaped.trim_matches('"');
    escaped != secret && contains_token(text, escaped)
}

/// Whether some string argument names an open window (or "app"): then a
/// `blocked_by_modal` from an app-level tool may be about that window.
fn mentions_target(arguments: &Map<String, Value>, windows: &Windows) -> bool {
    arguments.values().any(|v| match v {
        Value::String(s) => s == "app" || windows.by_id.contains_key(s),
        _ => false,
    })
}

/// Arguments as shown in evidence, writeOnly values masked.
fn shown(arguments: &Map<String, Value>, info: Option<&ToolInfo>) -> String {
    let secret = info.map(|i| i.schema.write_only()).unwrap_or_default();
    let masked: Map<String, Value> = arguments
        .iter()
        .map(|(k, v)| (k.clone(), if secret.contains(k) { json!("••••••") } else { v.clone() }))
        .collect();
    clip(&Value::Object(masked).to_string())
}

fn clip(s: &str) -> String {
    if s.chars().count() > 240 {
        format!("{}…", s.chars().take(240).collect::<String>())
    } else {
        s.to_owned()
    }
}

fn describe_calls(prepared: &[Prepared]) -> String {
    prepared
        .iter()
        .map(|p| format!("{} {}", p.call.tool, shown(&p.arguments, p.info.as_deref())))
        .collect::<Vec<_>>()
        .join(" and ")
}

fn describe_events(events: &[Event]) -> String {
    let names: Vec<&str> = events.iter().map(|e| note_name(&e.note)).collect();
    names.join(", ")
}

fn note_name(note: &Note) -> &'static str {
    match note {
        Note::ToolsChanged => "notifications/tools/list_changed",
        Note::WindowsUpdated => "notifications/resources/updated",
    }
}

fn describe_change(before: &Obs, after: &Obs) -> String {
    let b = &before.windows.by_id;
    let a = &after.windows.by_id;
    let opened: Vec<&String> = a.keys().filter(|id| !b.contains_key(*id)).collect();
    let closed: Vec<&String> = b.keys().filter(|id| !a.contains_key(*id)).collect();
    let changed: Vec<&String> = a
        .iter()
        .filter(|(id, w)| {
            b.get(*id).is_some_and(|old| old.content != w.content || old.version != w.version)
        })
        .map(|(id, _)| id)
        .collect();
    let mut parts = Vec::new();
    if !opened.is_empty() {
        parts.push(format!("opened {opened:?}"));
    }
    if !closed.is_empty() {
        parts.push(format!("closed {closed:?}"));
    }
    if !changed.is_empty() {
        parts.push(format!("changed {changed:?}"));
    }
    if before.windows.operable != after.windows.operable {
        parts
            .push(format!("operable {:?} → {:?}", before.windows.operable, after.windows.operable));
    }
    let (added, removed) = diff_names(before, after);
    if !added.is_empty() || !removed.is_empty() {
        parts.push(format!("tools +{added:?} -{removed:?}"));
    }
    if parts.is_empty() { "the snapshot".into() } else { parts.join(", ") }
}

fn diff_names(before: &Obs, after: &Obs) -> (Vec<String>, Vec<String>) {
    let added = after.tools.keys().filter(|k| !before.tools.contains_key(*k)).cloned().collect();
    let removed = before.tools.keys().filter(|k| !after.tools.contains_key(*k)).cloned().collect();
    (added, removed)
}

//! One walk over one server: the sessions, what the last read showed, and
//! everything learned so far. The step itself is split by concern:
//! `plan` picks the next call, `observe` reads and checks the snapshot and
//! the tool list, `judge` checks each answer and the notifications.

mod cover;
mod describe;
mod dispatch;
mod judge;
mod observe;
mod paging;
mod plan;
mod probe;
mod restart;
mod step;

use purview::naming;

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    sync::Arc,
    time::Duration,
};

use jsonschema::Validator;
use rand::SeedableRng as _;
use rmcp::model::Tool;
use serde_json::{Map, Value, json};

use crate::{
    checks::Check,
    coverage::Coverage,
    generate::{InputSchema, Rand, Shown, Validity},
    script::{Call, ExpectedVersion, Step},
    settings::{APP_WINDOWS_SCHEMA, Settings},
    tally::Tally,
    target::{Endpoint, Server, Session, WINDOWS_URI},
    windows::Windows,
};

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
pub(crate) const PURVIEW_CODES: [&str; 3] = ["action_failed", "limit_reached", "approval_denied"];

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
    /// The tables it says it pages, from the `[pages table …]` mark of its
    /// signature in Purview's `app__read_windows` (none for a listed tool:
    /// tools/list has no such mark).
    pages: Vec<String>,
    /// It waits for a person's approval: its outputSchema has Purview's
    /// `approvedBy`, or its signature the `[needs approval]` mark.
    approval: bool,
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
            pages: Vec::new(),
            approval: tool
                .output_schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .is_some_and(|p| p.get("approvedBy").is_some()),
            tool: tool.clone(),
        }
    }

    /// The same, with the tables a dispatcher signature says it pages.
    fn paging(mut self, pages: Vec<String>) -> Self {
        self.pages = pages;
        self
    }

    /// The same, waiting for a person's approval when its signature says so.
    fn needs_approval(mut self, approval: bool) -> Self {
        self.approval |= approval;
        self
    }

    fn has_version(&self) -> bool {
        self.schema.has(naming::EXPECTED_VERSION)
    }
}

/// What one read of the server showed.
#[derive(Clone)]
struct Obs {
    windows: Windows,
    tools: BTreeMap<String, Arc<ToolInfo>>,
    /// What Purview's `app__read_windows` offers to `app__act`, keyed
    /// `{window}__{action}` (empty without the dispatcher tools).
    dispatch: BTreeMap<String, Arc<ToolInfo>>,
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
    /// For `app__act`: the action it names, as `app__read_windows` offered it.
    target: Option<Arc<ToolInfo>>,
    /// The window the call acts on (for `app__act`, the one it names).
    window: Option<String>,
    validity: Validity,
    version_before: Option<u64>,
    /// Sent together with other calls (another may have landed first).
    together: bool,
}

pub(crate) struct Walk<'a> {
    cfg: &'a Settings,
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
    /// Every action `app__read_windows` offered so far, by `{window}__{action}`.
    ever_dispatched: HashMap<String, Arc<ToolInfo>>,
    seen_ids: HashSet<String>,
    closed_ids: HashSet<String>,
    /// Values sent to writeOnly parameters, and whether each had appeared
    /// in an answer before it was first sent (then it is the app's own
    /// data that equals it, not a leak).
    sent_secrets: Vec<(String, bool)>,
    /// `--secret` values the app showed in its first reads, before the walk
    /// did anything: taken for other data that equals them.
    told_ambient: Vec<bool>,
    /// Everything the server answered so far, to tell whether a value sent
    /// later had appeared before (bounded: [`observe::HISTORY_LIMIT`]).
    history: String,
    /// For a replay: recorded window ids this server never showed, and the
    /// open window each was sent to instead ([`Walk::rebased`]).
    aliases: HashMap<String, String>,
    /// What the app showed lately: values worth sending back.
    shown: Shown,
    /// The operations whose call opened a window, by the opened window's
    /// title: the way back to a window type whose operations are not all
    /// covered yet.
    openers: BTreeMap<String, BTreeSet<String>>,
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
    /// Each window id's kind, as [`Walk::kind_title`] names it.
    titles: HashMap<String, String>,
    /// The title of the first window of each kind met, by
    /// [`cover::kind_shape`]; kept across fresh starts, so an operation is
    /// the same one in every life of the app.
    kinds: HashMap<String, String>,
    /// Some write changed the window it was called on, in any life of the
    /// app: without one, no walk can race two writes on a window (§10.1).
    changed_own_window: bool,
    notify_wait: Duration,
    settle: Duration,
    /// The steps a random walk may take in all (the §10.1 probe's
    /// follow-up steps stop at it); unbounded for a replay.
    budget: usize,
    /// What the walk learned about calls that take operations away, and
    /// its fresh starts of the app.
    lives: restart::Lives,
}

impl<'a> Walk<'a> {
    /// The steps taken so far.
    pub(crate) fn trace(&self) -> &[Step] {
        &self.trace
    }

    /// Whether `check` has failed in this walk.
    pub(crate) fn failed(&self, check: Check) -> bool {
        self.tally.failed(check)
    }

    /// Failed checks with the step of their first failure, earliest first.
    pub(crate) fn firsts(&self) -> Vec<(Check, usize)> {
        self.tally.firsts()
    }

    /// Whether the walk had to stop (the server stopped answering).
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.is_some()
    }

    /// Where the start of the app that `step` belongs to begins in the
    /// trace: a failure replays on a fresh server from there.
    pub(crate) fn life_start(&self, step: usize) -> usize {
        self.lives.starts.iter().copied().filter(|s| *s < step).max().unwrap_or(0)
    }

    /// The ids of the windows open at the last read.
    pub(crate) fn window_ids(&self) -> Vec<String> {
        self.obs.windows.by_id.keys().cloned().collect()
    }

    pub(crate) async fn connect(
        cfg: &'a Settings,
        endpoint: &Endpoint,
    ) -> Result<Walk<'a>, String> {
        let mut server = endpoint.start();
        let main = server.session(true, cfg.approve).await?;
        let observer = if server.many_sessions() {
            Some(server.session(false, cfg.approve).await?)
        } else {
            None
        };
        let app_windows = jsonschema::validator_for(
            &serde_json::from_str(APP_WINDOWS_SCHEMA).expect("the bundled schema is JSON"),
        )
        .expect("the bundled schema compiles");
        let fast = endpoint.in_memory();
        let empty = Obs {
            windows: Windows::parse(json!({})),
            tools: BTreeMap::new(),
            dispatch: BTreeMap::new(),
        };
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
            ever_dispatched: HashMap::new(),
            seen_ids: HashSet::new(),
            closed_ids: HashSet::new(),
            sent_secrets: Vec::new(),
            told_ambient: vec![false; cfg.secrets.len()],
            history: String::new(),
            aliases: HashMap::new(),
            shown: Shown::default(),
            openers: BTreeMap::new(),
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
            kinds: HashMap::new(),
            changed_own_window: false,
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
            budget: usize::MAX,
            lives: restart::Lives::default(),
        };
        walk.handshake(0).await;
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

    /// Step 0 (of each start of the app): initialize, resources/list,
    /// resources/subscribe.
    async fn handshake(&mut self, n: usize) {
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
                n,
                if missing.is_empty() {
                    Ok(())
                } else {
                    Err(format!("initialize does not declare {}", missing.join(" or ")))
                },
            );
            let instructions = info.instructions.as_deref().unwrap_or("");
            self.search_secrets(n, "the instructions", instructions);
            let mut lacking = Vec::new();
            if !instructions.contains(WINDOWS_URI) {
                lacking.push("app://windows");
            }
            if !instructions.contains(naming::EXPECTED_VERSION) {
                lacking.push(naming::EXPECTED_VERSION);
            }
            self.tally.judge(
                Check::Instructions,
                n,
                if instructions.trim().is_empty() {
                    Err("initialize has no instructions".into())
                } else if lacking.is_empty() {
                    Ok(())
                } else {
                    Err(format!("the instructions never mention {}", lacking.join(" or ")))
                },
            );
        } else {
            self.tally.fail(Check::Capabilities, n, "no initialize result".into());
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
                    n,
                    if uris == [WINDOWS_URI] {
                        Ok(())
                    } else {
                        Err(format!("resources/list returns {uris:?}; §12.1 lists exactly one, app://windows"))
                    },
                );
            }
            Err(e) => self.tally.fail(Check::Resource, n, format!("resources/list failed: {e}")),
        }
        for (session, which) in [(Some(&self.main), "the"), (self.observer.as_ref(), "a second")] {
            let Some(session) = session else { continue };
            if let Err(e) = session.subscribe().await {
                self.tally.fail(
                    Check::Capabilities,
                    n,
                    format!(
                        "resources/subscribe to app://windows failed on {which} connection: {e}"
                    ),
                );
            }
        }
    }

    /// The random walk, starting `endpoint` afresh when a call took away
    /// for good what the walk has not covered ([`restart`]).
    pub(crate) async fn random(&mut self, steps: usize, endpoint: &Endpoint) {
        // The steps that follow the §10.1 probe count towards the budget.
        self.budget = steps;
        while self.step < steps {
            if self.stopped.is_some() {
                break;
            }
            if let Some(restart) = self.due_restart(endpoint, steps)
                && !self.restart(endpoint, restart).await
            {
                break;
            }
            let step = self.plan();
            self.execute(step).await;
        }
        self.settle_notifications().await;
    }

    /// Lets the last step's stray notifications arrive and be judged.
    pub(crate) async fn settle_notifications(&mut self) {
        tokio::time::sleep(self.settle.max(Duration::from_millis(5))).await;
        self.check_late();
    }

    fn allowed(&self, tool: &ToolInfo) -> bool {
        // app__act is as safe as the actions the walk sends it to.
        self.cfg.allow_destructive
            || !tool.destructive
            || (tool.name == PURVIEW_ACT && !self.dispatchable().is_empty())
    }

    /// Whether a window of this id is open (or "app").
    fn resolve(&self, name: &str, windows: &Windows) -> Option<(Option<String>, String)> {
        let mut best: Option<(Option<String>, String)> = None;
        for id in windows.by_id.keys() {
            if let Some(action) =
                name.strip_prefix(id.as_str()).and_then(|r| r.strip_prefix(naming::SEPARATOR))
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
        let target = if call.tool == PURVIEW_ACT { self.act_target(&call.arguments) } else { None };
        let window = match &target {
            Some(t) => t.window.clone(),
            None => info
                .as_ref()
                .and_then(|i| i.window.clone())
                .or_else(|| self.resolve(&call.tool, &self.obs.windows).and_then(|(w, _)| w)),
        };
        let version_before = window.as_deref().and_then(|w| self.obs.version(w));
        let mut arguments = call.arguments.clone();
        match call.expected_version {
            ExpectedVersion::Omit => {}
            ExpectedVersion::Current => {
                if let Some(v) = version_before {
                    arguments.insert(naming::EXPECTED_VERSION.into(), json!(v));
                }
            }
            ExpectedVersion::Stale => {
                arguments.insert(
                    naming::EXPECTED_VERSION.into(),
                    json!(version_before.unwrap_or(0) + 1),
                );
            }
        }
        let mut validity = info.as_ref().map_or(Validity::Unknown, |i| i.schema.judge(&arguments));
        if let (Some(t), Validity::Valid) = (&target, &validity) {
            let inner = arguments.get("arguments").and_then(Value::as_object);
            validity = t.schema.judge(&inner.cloned().unwrap_or_default());
        }
        self.note_sent(&arguments, info.as_deref());
        if let (Some(t), Some(Value::Object(inner))) = (&target, arguments.get("arguments")) {
            self.note_sent(inner, Some(t));
        }
        Prepared {
            call: call.clone(),
            arguments,
            role,
            info,
            target,
            window,
            validity,
            version_before,
            together: false,
        }
    }
}

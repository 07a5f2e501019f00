//! The explorer: its settings, a run (a random walk, then shrinking every
//! failure to the shortest sequence that still shows it) and replays.

use purview::naming;
use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use purview::App;
use serde_json::Value;

use crate::{
    checks::{Check, Level},
    coverage::Coverage,
    report::{Report, Shrunk},
    script::{Call, Script, Step},
    settings::Settings,
    tally::Tally,
    target::Endpoint,
    verdict::CoverageLevel,
    walk::{PURVIEW_CODES, Walk},
};

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
    settings: Settings,
}

impl Default for Explorer {
    fn default() -> Self {
        Self::new()
    }
}

impl Explorer {
    /// 500 steps, seed 0, destructive tools left alone, shrinking on.
    pub fn new() -> Self {
        let extension_codes = PURVIEW_CODES.iter().map(|c| (*c).to_owned()).collect();
        Self {
            settings: Settings {
                steps: 500,
                seed: 0,
                secrets: Vec::new(),
                hints: HashMap::new(),
                allow_destructive: false,
                call_timeout: Duration::from_secs(30),
                notification_timeout: None,
                settle: None,
                shrink: true,
                extension_codes,
                required: CoverageLevel::Any,
                allowed: Default::default(),
                approve: None,
            },
        }
    }

    /// How many calls to make.
    pub fn steps(mut self, steps: usize) -> Self {
        self.settings.steps = steps;
        self
    }

    /// The seed: the same seed against the same server gives the same walk.
    pub fn seed(mut self, seed: u64) -> Self {
        self.settings.seed = seed;
        self
    }

    /// A value that must never come back from the server (a password the
    /// app holds, an API key), whatever its length. Every answer's text (the
    /// strings of a JSON answer, or the plain text) is searched for it as a
    /// whole word, and for every value the walk sent to a `writeOnly`
    /// parameter. A value seen in the app's first reads (a `--secret`), or
    /// in any answer before it was sent (a value sent), is taken for the
    /// app's own data that equals it, not a leak.
    pub fn secret(mut self, value: impl Into<String>) -> Self {
        self.settings.secrets.push(value.into());
        self
    }

    /// A value for every parameter called `parameter` (the right PIN, an
    /// existing customer id), so the walk gets past gates made-up values
    /// never open. A parameter with hints always takes one of them where its
    /// type fits (a number given for a string is taken as its digits);
    /// parameters without take values the app shows, or made-up ones.
    /// Invalid calls still break parameters on purpose.
    pub fn hint(mut self, parameter: impl Into<String>, value: impl Into<Value>) -> Self {
        self.settings.hints.entry(parameter.into()).or_default().push(value.into());
        self
    }

    /// Whether to call tools that are, or may be, destructive
    /// (`destructiveHint: true`, or no annotations, which MCP reads as
    /// destructive). Off by default, so pointing the explorer at an app
    /// never submits, deletes or pays for anything.
    pub fn allow_destructive(mut self, allow: bool) -> Self {
        self.settings.allow_destructive = allow;
        self
    }

    /// How long one call may take before the walk stops (30 s).
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.settings.call_timeout = timeout;
        self
    }

    /// How long to wait for the notification a change calls for (2 s
    /// in-process, 5 s otherwise).
    pub fn notification_timeout(mut self, timeout: Duration) -> Self {
        self.settings.notification_timeout = Some(timeout);
        self
    }

    /// How long to listen after a refused call for a notification that must
    /// not come (0 in-process, 25 ms otherwise; a stray one arriving later
    /// is still caught at the next step).
    pub fn settle(mut self, settle: Duration) -> Self {
        self.settings.settle = Some(settle);
        self
    }

    /// Whether to shrink each failure to the shortest sequence of calls
    /// that still shows it (on by default; needs a server that can be
    /// started afresh, so not over HTTP).
    pub fn shrink(mut self, shrink: bool) -> Self {
        self.settings.shrink = shrink;
        self
    }

    /// An error code the server documents as its own extension of §7.4.
    /// Purview's (`action_failed`, `limit_reached`, `approval_denied`) are
    /// known already.
    pub fn extension_code(mut self, code: impl Into<String>) -> Self {
        self.settings.extension_codes.insert(code.into());
        self
    }

    /// How much of the app a walk must cover for
    /// [`Report::assert_clean`](crate::Report::assert_clean) to accept it
    /// ([`CoverageLevel::Any`] unless set). Whatever is asked, the report
    /// says what was not covered and why ([`Report::gaps`](crate::Report::gaps)).
    ///
    /// ```no_run
    /// # fn my_app() -> purview::App { purview::App::builder().build() }
    /// # async fn demo() {
    /// use purview_conformance::{CoverageLevel, Explorer};
    ///
    /// Explorer::new()
    ///     .steps(2_000)
    ///     .hint("pin", "1234")
    ///     .require_coverage(CoverageLevel::EveryOperation)
    ///     .explore(my_app)
    ///     .await
    ///     .assert_clean();
    /// # }
    /// ```
    pub fn require_coverage(mut self, level: CoverageLevel) -> Self {
        self.settings.required = level;
        self
    }

    /// How the walk answers the approval questions an app asks its client
    /// (MCP elicitation on 2025-11-25; the same form on 2026-07-28): `true`
    /// says yes to every one, `false` no to every one. Unset (the default),
    /// the walk's client cannot be asked, so an action that needs a
    /// person's approval is refused with `approval_denied` and the report
    /// names that as the cause of the gap.
    ///
    /// ```
    /// let explorer = purview_conformance::Explorer::new().approve(true);
    /// # let _ = explorer;
    /// ```
    pub fn approve(mut self, yes: bool) -> Self {
        self.settings.approve = Some(yes);
        self
    }

    /// Lets `check` fail without failing the walk: its failures are still
    /// reported, marked as allowed, and [`Report::verdict`] and
    /// [`Report::assert_clean`] pass over them. For a finding the app's
    /// team has decided to live with for now (`handler-failed` on a known
    /// bug), never to hide one.
    ///
    /// ```
    /// use purview_conformance::{Check, Explorer};
    ///
    /// let explorer = Explorer::new().allow(Check::HandlerFailed);
    /// # let _ = explorer;
    /// ```
    pub fn allow(mut self, check: Check) -> Self {
        self.settings.allowed.insert(check);
        self
    }

    /// Explores a Purview app in-process. `make` builds the app in its
    /// initial state (windows open); it runs again for every replay while
    /// shrinking.
    pub async fn explore(&self, make: impl Fn() -> App + Send + Sync + 'static) -> Report {
        // What the app would log on starting to serve, for the report.
        let setup = make().__setup_warnings();
        let mut report = self.run(&Endpoint::in_process(make)).await;
        report.setup = setup;
        report
    }

    /// Explores any GUI Bridge server.
    pub async fn run(&self, endpoint: &Endpoint) -> Report {
        let started = Instant::now();
        // Before the walk, which changes the app: they only read.
        let apps = crate::apps::check(endpoint).await;
        let mut walk = match Walk::connect(&self.settings, endpoint).await {
            Ok(walk) => walk,
            Err(why) => return self.unreachable(endpoint, why, started.elapsed()),
        };
        walk.random(self.settings.steps, endpoint).await;
        let elapsed = started.elapsed();
        let trace = walk.trace().to_vec();
        let firsts: Vec<(Check, usize, usize)> =
            walk.firsts().into_iter().map(|(c, step)| (c, walk.life_start(step), step)).collect();
        let mut report = walk.finish(endpoint, elapsed).await;
        crate::apps::merge(&mut report.checks, &apps);
        for (check, start, step) in firsts.into_iter().take(6) {
            if !matches!(check.level(), Level::Must | Level::App) {
                continue;
            }
            // From the start of the app the failure happened in: the walk
            // may have started it afresh since the first.
            let end = step.min(trace.len());
            let prefix = &trace[start.min(end)..end];
            report.shrunk.push(if self.settings.shrink && endpoint.restartable() {
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
        let mut walk = match Walk::connect(&self.settings, endpoint).await {
            Ok(walk) => walk,
            Err(why) => return self.unreachable(endpoint, why, started.elapsed()),
        };
        for step in &script.steps {
            if walk.stopped() {
                break;
            }
            let step = walk.rebased(step.clone());
            walk.execute(step).await;
        }
        walk.finish(endpoint, started.elapsed()).await
    }

    fn unreachable(&self, endpoint: &Endpoint, why: String, elapsed: Duration) -> Report {
        let mut tally = Tally::default();
        tally.fail(Check::Capabilities, 0, format!("could not open an MCP session: {why}"));
        Report {
            target: endpoint.to_string(),
            server: None,
            seed: self.settings.seed,
            steps: 0,
            elapsed,
            stopped: Some(why),
            checks: tally.reports(),
            coverage: Coverage::default(),
            shrunk: Vec::new(),
            gaps: Vec::new(),
            required: self.settings.required,
            allowed: self.settings.allowed.iter().copied().collect(),
            setup: Vec::new(),
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
        match self.fails_on(endpoint, &best, check, &mut replays).await {
            Some(sent) => best = sent,
            None => {
                return Shrunk {
                    check,
                    reproduced: false,
                    script: Script { steps: best },
                    replays,
                };
            }
        }
        // The windows a fresh server starts with: a call made in a window
        // opened later may show the same failure in one of these.
        let initial: Vec<String> = match Walk::connect(&self.settings, endpoint).await {
            Ok(walk) => {
                let ids = walk.window_ids();
                walk.finish(endpoint, Duration::ZERO).await;
                ids
            }
            Err(_) => Vec::new(),
        };
        // Often the last call alone shows it, maybe in a window there from
        // the start.
        if let Some(last) = best.last().cloned() {
            for candidate in std::iter::once(last.clone()).chain(retargeted(&last, &initial)) {
                if !within(replays) {
                    break;
                }
                let tried = std::slice::from_ref(&candidate);
                if let Some(sent) = self.fails_on(endpoint, tried, check, &mut replays).await {
                    return Shrunk {
                        check,
                        reproduced: true,
                        script: Script { steps: sent },
                        replays,
                    };
                }
            }
        }
        // What matters is usually near the failure: find the shortest tail
        // that still fails…
        best = self.shortest_tail(endpoint, best, check, &mut replays, &within).await;
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
                    if let Some(sent) = self.fails_on(endpoint, &tried, check, &mut replays).await {
                        best = sent;
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

    /// The shortest tail of `best` that still fails (a binary search over
    /// where it starts), as sent.
    async fn shortest_tail(
        &self,
        endpoint: &Endpoint,
        best: Vec<Step>,
        check: Check,
        replays: &mut usize,
        within: &impl Fn(usize) -> bool,
    ) -> Vec<Step> {
        let (mut keep, mut drop) = (0, best.len());
        let mut tail = None;
        while drop - keep > 1 && within(*replays) {
            let mid = (keep + drop) / 2;
            match self.fails_on(endpoint, &best[mid..], check, replays).await {
                Some(sent) => {
                    keep = mid;
                    tail = Some(sent);
                }
                None => drop = mid,
            }
        }
        tail.unwrap_or(best)
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
                match self.fails_on(endpoint, &candidate, check, replays).await {
                    Some(sent) => {
                        best = sent;
                        progressed = true;
                    }
                    None => i += chunk,
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

    /// Replays `steps` on a fresh server: the steps as sent (window ids
    /// [`rebased`](Walk::rebased)) when `check` fails on them.
    async fn fails_on(
        &self,
        endpoint: &Endpoint,
        steps: &[Step],
        check: Check,
        replays: &mut usize,
    ) -> Option<Vec<Step>> {
        *replays += 1;
        let mut walk = Walk::connect(&self.settings, endpoint).await.ok()?;
        let mut sent = Vec::new();
        if walk.failed(check) {
            return Some(sent);
        }
        for step in steps {
            let step = walk.rebased(step.clone());
            sent.push(step.clone());
            walk.execute(step).await;
            if walk.failed(check) {
                return Some(sent);
            }
            if walk.stopped() {
                break;
            }
        }
        walk.settle_notifications().await;
        walk.failed(check).then_some(sent)
    }
}

/// `step` with its (single) call moved to each of `windows` in turn.
fn retargeted(step: &Step, windows: &[String]) -> Vec<Step> {
    let Step::Call(call) = step else { return Vec::new() };
    let Some((window, action)) = call.tool.split_once(naming::SEPARATOR) else { return Vec::new() };
    windows
        .iter()
        .filter(|w| w.as_str() != window && window != "app")
        .map(|w| Step::Call(Call { tool: naming::tool_name(w, action), ..call.clone() }))
        .collect()
}

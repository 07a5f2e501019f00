//! Reach that does not depend on the seed when a call takes operations
//! away for good. The walk learns from the tool list which operation
//! withdrew which (a window open and operable again lost an action it
//! offered before: to the call just made, or to the last destructive one
//! made while the window was blocked); when what it withdrew, or a window
//! only it opened, still holds an operation that never succeeded, and
//! nothing else in reach is left to cover, the walk starts the app afresh
//! and holds the withdrawing operation back there until that is covered.
//!
//! Waiting with every destructive call until everything the walk has met
//! succeeded would not do: the walk cannot know beforehand which call
//! takes what away, and waiting for everything costs other apps their
//! coverage.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::{
    coverage::Restart,
    target::{Endpoint, Session},
    verdict::{Blocked, NoRestart},
};

use super::{Obs, PURVIEW_ACT, PURVIEW_READ, ToolInfo, Walk};

/// How many times one walk may start the app afresh.
pub(super) const MAX_RESTARTS: usize = 3;

/// The fewest steps a fresh start needs to be worth it, for a walk of
/// `steps`.
pub(super) fn min_life(steps: usize) -> usize {
    (steps / 8).max(25)
}

/// Steps without a new operation met or covered after which a walk with
/// stranded operations stops waiting for its aim to run dry.
fn stall(steps: usize) -> usize {
    (steps / 8).max(40)
}

/// What a walk learns about the calls that take operations away, kept
/// across fresh starts of the app except where it says otherwise.
#[derive(Default)]
pub(super) struct Lives {
    /// Per open window id, the operations it offered the last time it was
    /// operable.
    pub(super) last_offered: HashMap<String, BTreeSet<String>>,
    /// Per open window that is blocked now, the successful calls made
    /// since it was last operable (coverage key, destructive).
    pub(super) calls_while_blocked: HashMap<String, Vec<(String, bool)>>,
    /// Operations withdrawn since the app started (or started afresh) and
    /// not offered since: coverage key → the operation whose call withdrew
    /// it, and the step.
    pub(super) withdrawn: BTreeMap<String, (String, usize)>,
    /// What each operation's call ever withdrew, by coverage key, across
    /// fresh starts: what [`Walk::held_back`] holds back.
    pub(super) withdrew: BTreeMap<String, BTreeSet<String>>,
    /// Per window title, the operations whose call opened one (coverage
    /// keys, across fresh starts).
    pub(super) opened_by: BTreeMap<String, BTreeSet<String>>,
    /// The operations met before the app was last started afresh.
    pub(super) met_before: BTreeSet<String>,
    /// Whether a server before the last fresh start listed window tools,
    /// and tools that take a version.
    pub(super) listed_before: bool,
    pub(super) versioned_before: bool,
    /// Where each fresh start of the app begins in the trace (the first
    /// start, at 0, is implied): a failure replays from the start of its
    /// own.
    pub(super) starts: Vec<usize>,
    /// Operations met plus operations covered, and the step that count
    /// last grew.
    pub(super) progress: (usize, usize),
}

/// The window title of the coverage key `key` (`"Title · action"`), if it
/// names a window's operation.
pub(super) fn window_title(key: &str) -> Option<&str> {
    let action = purview::naming::last_title_part(key);
    let title = key.strip_suffix(action)?.strip_suffix(purview::naming::TITLE_SEPARATOR)?;
    (title != purview::naming::APP).then_some(title)
}

impl Walk<'_> {
    /// The operations each operable window offers in `obs`, by window id.
    fn offered_by_window(&self, obs: &Obs) -> HashMap<String, BTreeSet<String>> {
        let mut out: HashMap<String, BTreeSet<String>> = HashMap::new();
        for info in obs.tools.values().chain(obs.dispatch.values()) {
            let Some(window) = &info.window else { continue };
            if obs.windows.is_operable(window) {
                out.entry(window.clone()).or_default().insert(self.coverage_key(Some(info), obs));
            }
        }
        out
    }

    /// After a successful call to `by` (a coverage key, `destructive` or
    /// not): each window open and operable now that offered an operation
    /// the last time it was operable and offers it no more lost it to a
    /// call made since. That is `by` when the window stayed operable; when
    /// a dialog or an app-level modal blocked it meanwhile, the last
    /// destructive call made since (closing the books in the modal, not
    /// closing the modal), else `by`.
    pub(super) fn note_withdrawn(&mut self, by: &str, destructive: bool, after: &Obs) {
        let now = self.offered_by_window(after);
        let windows: Vec<String> = self.lives.last_offered.keys().cloned().collect();
        for window in windows {
            if !after.windows.by_id.contains_key(&window) {
                continue;
            }
            let calls = self.lives.calls_while_blocked.entry(window.clone()).or_default();
            calls.push((by.to_owned(), destructive));
            if !after.windows.is_operable(&window) {
                continue;
            }
            let calls = self.lives.calls_while_blocked.remove(&window).unwrap_or_default();
            let culprit = calls
                .iter()
                .rev()
                .find(|(_, destructive)| *destructive)
                .map_or(by, |(key, _)| key.as_str())
                .to_owned();
            let empty = BTreeSet::new();
            let offers = now.get(&window).unwrap_or(&empty);
            let Some(before) = self.lives.last_offered.get(&window) else { continue };
            for key in before.difference(offers) {
                if *key == culprit {
                    continue; // what takes itself away succeeded: nothing lost
                }
                let step = self.step;
                self.lives.withdrawn.entry(key.clone()).or_insert_with(|| (culprit.clone(), step));
                self.lives.withdrew.entry(culprit.clone()).or_default().insert(key.clone());
            }
        }
    }

    /// Bookkeeping after every read: what each operable window offers, and
    /// the withdrawn operations offered again.
    pub(super) fn refresh_offered(&mut self, obs: &Obs) {
        let now = self.offered_by_window(obs);
        self.lives.last_offered.retain(|id, _| obs.windows.by_id.contains_key(id));
        self.lives
            .calls_while_blocked
            .retain(|id, _| obs.windows.by_id.contains_key(id) && !obs.windows.is_operable(id));
        for (window, offers) in now {
            for key in &offers {
                self.lives.withdrawn.remove(key);
            }
            self.lives.last_offered.insert(window, offers);
        }
        for info in obs.tools.values().chain(obs.dispatch.values()) {
            if info.window.is_none() {
                let key = self.coverage_key(Some(info), obs);
                self.lives.withdrawn.remove(&key);
            }
        }
        let met = self.met().len();
        let covered = self.coverage.tools.values().filter(|c| c.succeeded > 0).count();
        if met + covered > self.lives.progress.0 {
            self.lives.progress = (met + covered, self.step);
        }
    }

    /// Every operation the walk has met, in this start of the app or an
    /// earlier one, by coverage key.
    pub(super) fn met(&self) -> BTreeSet<String> {
        let mut met = self.lives.met_before.clone();
        for info in self.ever_listed.values().chain(self.ever_dispatched.values()) {
            met.insert(self.coverage_key(Some(info), &self.obs));
        }
        met.extend(self.coverage.tools.keys().filter(|k| !k.starts_with('(')).cloned());
        met
    }

    /// Whether an operation the walk may call has never succeeded.
    pub(super) fn is_uncovered(&self, key: &str) -> bool {
        !self.coverage.skipped_destructive.contains(key)
            && self.coverage.tools.get(key).is_none_or(|c| c.succeeded == 0)
    }

    /// The operations `keys` lead to: those of the window types they opened,
    /// and so on.
    fn downstream(&self, keys: &BTreeSet<String>, met: &BTreeSet<String>) -> BTreeSet<String> {
        let mut reached = keys.clone();
        let mut titles = BTreeSet::new();
        loop {
            let opened: Vec<&String> = self
                .lives
                .opened_by
                .iter()
                .filter(|(title, by)| !titles.contains(*title) && !by.is_disjoint(&reached))
                .map(|(title, _)| title)
                .collect();
            if opened.is_empty() {
                return reached;
            }
            for title in opened {
                titles.insert(title.clone());
                let in_window = met.iter().filter(|k| window_title(k) == Some(title.as_str()));
                reached.extend(in_window.cloned());
            }
        }
    }

    /// The operations to hold back now: each that once withdrew an
    /// operation which, or whose windows' operations, never succeeded.
    pub(super) fn held_back(&self) -> BTreeSet<String> {
        if self.lives.withdrew.is_empty() {
            return BTreeSet::new();
        }
        let met = self.met();
        self.lives
            .withdrew
            .iter()
            .filter(|(by, withdrawn)| {
                let behind = self.downstream(withdrawn, &met);
                behind.iter().any(|k| k != *by && self.is_uncovered(k))
            })
            .map(|(by, _)| by.clone())
            .collect()
    }

    /// What took away the way to the operation `key`, if something did in
    /// this start of the app: the operation itself withdrawn and not
    /// offered since, or every way the walk knows of to open its window
    /// (the operations that once opened one, and theirs in turn), with no
    /// such window open now.
    pub(super) fn blocked_way(&self, key: &str) -> Option<Blocked> {
        if let Some((by, step)) = self.lives.withdrawn.get(key) {
            return Some(Blocked { withdrawn: key.to_owned(), by: by.clone(), step: *step });
        }
        let mut titles = vec![window_title(key)?.to_owned()];
        let mut seen = BTreeSet::new();
        let mut found = None;
        while let Some(title) = titles.pop() {
            if !seen.insert(title.clone()) {
                continue;
            }
            if self.obs.windows.by_id.values().any(|w| self.kind_title(w) == title) {
                return None; // a window on the way is open: the way is there
            }
            let openers = self.lives.opened_by.get(&title)?;
            for opener in openers {
                match self.lives.withdrawn.get(opener) {
                    Some((by, step)) => {
                        found.get_or_insert(Blocked {
                            withdrawn: opener.clone(),
                            by: by.clone(),
                            step: *step,
                        });
                    }
                    None => match window_title(opener) {
                        Some(t) => titles.push(t.to_owned()),
                        // An application-level opener not withdrawn: a way back.
                        None => return None,
                    },
                }
            }
        }
        found
    }

    /// The operations that never succeeded and that a call took away for
    /// good in this start of the app, each with what blocks it.
    pub(crate) fn stranded(&self) -> BTreeMap<String, Blocked> {
        if self.lives.withdrawn.is_empty() {
            return BTreeMap::new();
        }
        let offered: BTreeSet<String> = self
            .obs
            .tools
            .values()
            .chain(self.obs.dispatch.values())
            .map(|t| self.coverage_key(Some(t), &self.obs))
            .collect();
        self.met()
            .into_iter()
            .filter(|k| self.is_uncovered(k) && !offered.contains(k))
            .filter_map(|k| {
                let blocked = self.blocked_way(&k)?;
                Some((k, blocked))
            })
            .collect()
    }

    /// Whether something offered now is worth aiming at: an operation that
    /// never succeeded, or one that opens a window type with such an
    /// operation.
    fn aim_left(&self) -> bool {
        let openers = self.wanted_openers();
        self.obs
            .tools
            .values()
            .chain(self.obs.dispatch.values())
            .filter(|t| t.name != PURVIEW_ACT && t.name != PURVIEW_READ && self.allowed(t))
            .any(|t| {
                openers.contains(&t.name)
                    || self.is_uncovered(&self.coverage_key(Some(t), &self.obs))
            })
    }

    /// Why the walk would not start `endpoint` afresh now, with `steps` in
    /// all; `None` when it could.
    pub(crate) fn no_restart(&self, endpoint: &Endpoint, steps: usize) -> Option<NoRestart> {
        let left = steps.saturating_sub(self.step);
        if !endpoint.restartable() {
            Some(NoRestart::NotRestartable)
        } else if self.coverage.restarts.len() >= MAX_RESTARTS {
            Some(NoRestart::Limit(self.coverage.restarts.len()))
        } else if left < min_life(steps) {
            Some(NoRestart::TooFewSteps(left, min_life(steps)))
        } else {
            None
        }
    }

    /// The restart to make now, if the walk should start the app afresh:
    /// something is stranded, and nothing else in reach is left to cover
    /// (or nothing new was covered for a long while).
    pub(super) fn due_restart(&self, endpoint: &Endpoint, steps: usize) -> Option<Restart> {
        if self.no_restart(endpoint, steps).is_some() {
            return None;
        }
        let stranded = self.stranded();
        if stranded.is_empty() {
            return None;
        }
        let stalled = self.step.saturating_sub(self.lives.progress.1) >= stall(steps);
        if !stalled && self.aim_left() {
            return None;
        }
        let withdrawn = stranded.values().map(|b| (b.withdrawn.clone(), b.by.clone())).collect();
        Some(Restart {
            after_step: self.step,
            withdrawn,
            stranded: stranded.into_keys().collect(),
            held_back: BTreeSet::new(),
        })
    }

    /// Starts the app afresh: new sessions on a new server, with what the
    /// walk learned (coverage, checks, what withdrew what) kept and what
    /// belonged to the old server (window ids, tool names) dropped.
    /// Whether the walk can go on.
    pub(super) async fn restart(&mut self, endpoint: &Endpoint, mut restart: Restart) -> bool {
        let mut server = endpoint.start();
        let main = match server.session(true, self.cfg.approve).await {
            Ok(session) => session,
            Err(why) => {
                self.stopped = Some(format!(
                    "after step {}: the app could not be started afresh: {why}",
                    self.step
                ));
                return false;
            }
        };
        let observer = if server.many_sessions() {
            match server.session(false, self.cfg.approve).await {
                Ok(session) => Some(session),
                Err(why) => {
                    self.stopped = Some(format!(
                        "after step {}: the app started afresh refused a second connection: {why}",
                        self.step
                    ));
                    return false;
                }
            }
        } else {
            None
        };
        self.carry_over();
        let old_main = std::mem::replace(&mut self.main, main);
        let old_observer = std::mem::replace(&mut self.observer, observer);
        if let Some(old) = old_observer {
            old.close().await;
        }
        old_main.close().await;
        self._server = server;
        self.forget_server();
        restart.held_back = self.held_back();
        self.coverage.restarts.push(restart);
        self.lives.starts.push(self.trace.len());
        self.handshake(self.step).await;
        let Some(obs) = self.observe().await else { return false };
        self.after_observation(&obs);
        self.obs = obs;
        self.cursor = self.main.event_count();
        self.observer_cursor = self.observer.as_ref().map_or(0, Session::event_count);
        self.last_quiet = true;
        self.lives.progress.1 = self.step;
        true
    }

    /// What the old server offered, kept for the report: the operations
    /// met, and the dispatched ones left alone as destructive.
    fn carry_over(&mut self) {
        let met = self.met();
        for info in self.ever_dispatched.values() {
            if !self.allowed(info) {
                let key = self.coverage_key(Some(info), &self.obs);
                self.coverage.skipped_destructive.insert(key);
            }
        }
        self.lives.listed_before |=
            self.ever_listed.keys().any(|t| t != PURVIEW_READ && t != PURVIEW_ACT);
        self.lives.versioned_before |= self.ever_listed.values().any(|t| t.has_version());
        self.lives.met_before = met;
    }

    /// Drops what names the old server's windows and tools.
    fn forget_server(&mut self) {
        self.obs = Obs {
            windows: crate::windows::Windows::parse(serde_json::json!({})),
            tools: BTreeMap::new(),
            dispatch: BTreeMap::new(),
        };
        self.ever_listed.clear();
        self.ever_dispatched.clear();
        self.seen_ids.clear();
        self.closed_ids.clear();
        self.aliases.clear();
        self.openers.clear();
        self.effective.clear();
        self.recent.clear();
        self.titles.clear();
        self.lives.withdrawn.clear();
        self.lives.last_offered.clear();
        self.lives.calls_while_blocked.clear();
    }

    /// After a fresh start, the tools offered now on the way to an
    /// operation met before it that never succeeded: what opened its
    /// window type, what opened that one's, and so on, known by operation
    /// (the old server's tool names mean nothing to the new one). A booking
    /// chain covered up to its last dialog is walked again to that dialog.
    pub(super) fn openers_from_before(&self, offered: &BTreeSet<String>) -> BTreeSet<String> {
        if self.lives.met_before.is_empty() {
            return BTreeSet::new();
        }
        let mut titles: Vec<&str> = self
            .lives
            .met_before
            .iter()
            .filter(|k| !offered.contains(*k) && self.is_uncovered(k))
            .filter_map(|k| window_title(k))
            .collect();
        let mut seen = BTreeSet::new();
        let mut ways = BTreeSet::new();
        while let Some(title) = titles.pop() {
            if !seen.insert(title)
                || self.obs.windows.by_id.values().any(|w| self.kind_title(w) == title)
            {
                continue; // open already: its own operations are aimed at
            }
            for opener in self.lives.opened_by.get(title).into_iter().flatten() {
                ways.insert(opener.as_str());
                titles.extend(window_title(opener));
            }
        }
        self.obs
            .tools
            .values()
            .chain(self.obs.dispatch.values())
            .filter(|t| {
                self.allowed(t) && ways.contains(self.coverage_key(Some(t), &self.obs).as_str())
            })
            .map(|t| t.name.clone())
            .collect()
    }

    /// Whether `tool` is an operation held back in `held`.
    pub(super) fn is_held(&self, tool: &ToolInfo, held: &BTreeSet<String>) -> bool {
        !held.is_empty() && held.contains(&self.coverage_key(Some(tool), &self.obs))
    }
}

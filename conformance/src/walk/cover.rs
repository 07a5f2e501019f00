//! What the walk covered: windows and operations reached, how each
//! operation's calls came out, and the report built from them.

use std::{collections::HashSet, time::Duration};

use purview::naming;
use serde_json::Value;

use crate::{
    checks::Check,
    report::Report,
    target::{CallOutcome, Endpoint},
    verdict::{self, NEVER_OFFERED, Reach},
};

use super::{Obs, PURVIEW_ACT, PURVIEW_READ, Prepared, Role, ToolInfo, Walk};
use crate::windows::Win;
use crate::{generate::Validity, script::ExpectedVersion};

impl Walk<'_> {
    /// Bookkeeping after every read: ids seen and closed, coverage.
    pub(super) fn after_observation(&mut self, obs: &Obs) {
        for id in self.obs.windows.by_id.keys() {
            if !obs.windows.by_id.contains_key(id) {
                self.closed_ids.insert(id.clone());
            }
        }
        self.learn_kinds(obs);
        for (id, w) in &obs.windows.by_id {
            let kind = self.kind_title(w);
            if self.seen_ids.insert(id.clone()) {
                *self.coverage.windows.entry(kind.clone()).or_default() += 1;
            }
            self.titles.insert(id.clone(), kind);
        }
        self.coverage.most_open = self.coverage.most_open.max(obs.windows.by_id.len());
        let windows = obs.windows.by_id.iter().map(|(id, w)| (id.as_str(), w.blocks.as_slice()));
        self.shown.read_windows(windows);
        self.refresh_offered(obs);
    }

    /// Remembers the kind of each window in `obs` not met before, under
    /// the title of the first window of that kind.
    pub(super) fn learn_kinds(&mut self, obs: &Obs) {
        for w in obs.windows.by_id.values() {
            self.kinds.entry(kind_shape(w)).or_insert_with(|| w.title.clone());
        }
    }

    /// The title a window's operations are counted under: that of the
    /// first window of its kind the walk met, so every "Return RMA-…"
    /// adds one kind of window to cover, not one per record.
    pub(super) fn kind_title(&self, w: &Win) -> String {
        self.kinds.get(&kind_shape(w)).cloned().unwrap_or_else(|| w.title.clone())
    }

    pub(super) fn coverage_key(&self, info: Option<&ToolInfo>, obs: &Obs) -> String {
        match info {
            Some(ToolInfo { window: Some(w), action, .. }) => {
                let title = obs
                    .windows
                    .by_id
                    .get(w)
                    .map(|w| self.kind_title(w))
                    .or_else(|| self.titles.get(w).cloned())
                    .unwrap_or_else(|| w.clone());
                purview::naming::joined_title(&[&title, action])
            }
            Some(ToolInfo { window: None, action, .. }) => {
                purview::naming::joined_title(&[purview::naming::APP, action])
            }
            None => NEVER_OFFERED.to_owned(),
        }
    }

    /// Builds the report.
    pub(crate) async fn finish(mut self, endpoint: &Endpoint, elapsed: Duration) -> Report {
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
            Check::LargeData,
            "no table or list was cut short in a window with operations of its own to look at",
        );
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
        self.coverage.skipped_destructive.retain(|k| !called.contains(k));
        for info in self.ever_dispatched.values() {
            if !self.allowed(info) {
                let key = self.coverage_key(Some(info), &self.obs);
                self.coverage.skipped_destructive.insert(key);
            }
        }
        let offered: Vec<String> = self
            .ever_listed
            .values()
            .chain(self.ever_dispatched.values())
            .map(|info| self.coverage_key(Some(info), &self.obs))
            .chain(self.lives.met_before.iter().cloned())
            .collect();
        for key in offered {
            if !called.contains(&key) && !self.coverage.skipped_destructive.contains(&key) {
                self.coverage.never_called.insert(key);
            }
        }
        let reach = self.reach(endpoint);
        let checks = self.tally.reports();
        let gaps = verdict::gaps(&checks, &self.coverage, &reach);
        let report = Report {
            target: endpoint.to_string(),
            server: self.server_name.clone(),
            seed: self.cfg.seed,
            steps: self.step,
            elapsed,
            stopped: self.stopped.clone(),
            checks,
            coverage: std::mem::take(&mut self.coverage),
            shrunk: Vec::new(),
            gaps,
            required: self.cfg.required,
            allowed: self.cfg.allowed.iter().copied().collect(),
            setup: Vec::new(),
        };
        if let Some(observer) = self.observer.take() {
            observer.close().await;
        }
        self.main.close().await;
        report
    }

    /// What the walk knew about its transport, surface and reach, for the
    /// gaps.
    fn reach(&self, endpoint: &Endpoint) -> Reach {
        Reach {
            observer: self.observer.is_some(),
            dispatcher_only: !self.lives.listed_before
                && self.ever_listed.keys().all(|t| t == PURVIEW_READ || t == PURVIEW_ACT),
            versioned: self.lives.versioned_before
                || self.ever_listed.values().any(|t| t.has_version()),
            steps: self.step,
            blocked: self.stranded(),
            restarts: self.coverage.restarts.len(),
            no_restart: self.no_restart(endpoint, self.budget.min(self.cfg.steps)),
            unit_steps: self.unit_steps,
            changed_own_window: self.changed_own_window,
            breakable: self
                .ever_listed
                .values()
                .chain(self.ever_dispatched.values())
                .filter(|t| t.name != PURVIEW_ACT && t.name != PURVIEW_READ)
                .any(|t| t.schema.parameters().iter().any(|p| p != naming::EXPECTED_VERSION)),
        }
    }

    /// Counts one call against its operation, with why it was refused when
    /// a valid call to an offered operation was.
    pub(super) fn count_call(&mut self, key: String, p: &Prepared, outcome: &CallOutcome) {
        let count = self.coverage.tools.entry(key).or_default();
        count.calls += 1;
        if !outcome.rejected() {
            count.succeeded += 1;
            return;
        }
        if p.role != Role::Listed
            || p.validity != Validity::Valid
            || p.call.expected_version == ExpectedVersion::Stale
        {
            return;
        }
        let CallOutcome::Result { structured: Some(s), .. } = outcome else { return };
        let mut code = s.get("code").and_then(Value::as_str).unwrap_or("no code").to_owned();
        // Why a person's approval was not given is the whole story.
        if let Some(reason) = s.get("reason").and_then(Value::as_str)
            && code == "approval_denied"
        {
            code = format!("{code}: {reason}");
        }
        *count.refused.entry(code).or_default() += 1;
        for field in s.get("fields").and_then(Value::as_array).into_iter().flatten() {
            if let Some(name) = field.get("field").and_then(Value::as_str) {
                *count.fields.entry(name.to_owned()).or_default() += 1;
            }
        }
    }
}

/// What windows of one kind share: their blocks (ids and types, in order;
/// notices and media, which come and go, left out), whether they are
/// modal, and the words of their titles that hold no digit (a record's
/// number or reference is not part of its kind). Windows of one Rust type
/// in a Purview app have the same blocks.
pub(super) fn kind_shape(w: &Win) -> String {
    let blocks: Vec<String> = w
        .blocks
        .iter()
        .filter_map(|b| {
            let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
            let id = b.get("id").and_then(Value::as_str).unwrap_or("");
            (!matches!(kind, "notice" | "media")).then(|| format!("{id}:{kind}"))
        })
        .collect();
    let words: Vec<&str> = w
        .title
        .split_whitespace()
        .filter(|word| !word.chars().any(|c| c.is_ascii_digit()))
        .collect();
    format!("{}|{}|{}", w.modal, words.join(" "), blocks.join(","))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::kind_shape;
    use crate::windows::Windows;

    fn shapes(snapshot: serde_json::Value) -> Vec<String> {
        Windows::parse(snapshot).by_id.values().map(kind_shape).collect()
    }

    #[test]
    fn records_of_one_kind_are_one_kind_and_other_windows_are_not() {
        let table = json!({"type": "table", "id": "lines", "columns": ["Item"], "rows": []});
        let warn =
            json!({"type": "notice", "id": "warning", "severity": "warning", "text": "Late"});
        let s = shapes(json!({"windows": [
            {"id": "w1", "title": "Return RMA-10003", "version": 1, "blocks": [table]},
            {"id": "w2", "title": "Return RMA-10004", "version": 1, "blocks": [table, warn]},
            {"id": "w3", "title": "Refund?", "version": 1, "modal": true, "blocks": [table]},
            {"id": "w4", "title": "Return RMA-10005", "version": 1, "blocks": []},
        ]}));
        assert_eq!(s[0], s[1], "a notice that comes and goes does not make another kind");
        assert_ne!(s[0], s[2]);
        assert_ne!(s[0], s[3], "other blocks, another kind");
    }
}

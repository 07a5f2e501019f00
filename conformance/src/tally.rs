//! Results per check as a walk goes, and the report lines they become.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::checks::{Check, Level};

/// Results per check, as the walk goes.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) entries: BTreeMap<Check, Entry>,
}

#[derive(Default)]
pub(crate) struct Entry {
    pub(crate) observed: u64,
    pub(crate) failures: u64,
    pub(crate) evidence: Vec<Evidence>,
    pub(crate) first: Option<usize>,
    pub(crate) note: Option<String>,
}

impl Tally {
    pub(crate) fn ok(&mut self, check: Check) {
        self.entries.entry(check).or_default().observed += 1;
    }

    pub(crate) fn fail(&mut self, check: Check, step: usize, detail: String) {
        let entry = self.entries.entry(check).or_default();
        entry.observed += 1;
        entry.failures += 1;
        entry.first.get_or_insert(step);
        if entry.evidence.len() < 5 && !entry.evidence.iter().any(|e| e.detail == detail) {
            entry.evidence.push(Evidence { step, detail });
        }
    }

    pub(crate) fn judge(&mut self, check: Check, step: usize, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.ok(check),
            Err(detail) => self.fail(check, step, detail),
        }
    }

    pub(crate) fn note(&mut self, check: Check, why: impl Into<String>) {
        self.entries.entry(check).or_default().note = Some(why.into());
    }

    pub(crate) fn failed(&self, check: Check) -> bool {
        self.entries.get(&check).is_some_and(|e| e.failures > 0)
    }

    /// Failed checks with the step of their first failure, earliest first.
    pub(crate) fn firsts(&self) -> Vec<(Check, usize)> {
        let mut out: Vec<(Check, usize)> =
            self.entries.iter().filter_map(|(c, e)| e.first.map(|s| (*c, s))).collect();
        out.sort_by_key(|(c, s)| (*s, *c));
        out
    }

    pub(crate) fn reports(&self) -> Vec<CheckReport> {
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

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Observed at least once and never violated.
    Pass,
    /// Violated at least once.
    Fail,
    /// The walk never reached a situation that tests it.
    NotExercised,
}

/// One observed violation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// The step it happened at (0 is the connection and first read).
    pub step: usize,
    /// What was seen, in words.
    pub detail: String,
}

/// One check's result.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// Which check.
    pub check: Check,
    /// MUST, SHOULD or application.
    pub level: Level,
    /// The spec sections it covers.
    pub sections: &'static str,
    /// What passing means.
    pub title: &'static str,
    /// The outcome.
    pub status: Status,
    /// How many times the walk tested it.
    pub observed: u64,
    /// How many of those failed.
    pub failures: u64,
    /// The first few failures.
    pub evidence: Vec<Evidence>,
    /// Why it was not exercised, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

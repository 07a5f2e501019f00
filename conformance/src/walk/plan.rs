//! Picking the next step: a listed tool with valid or broken arguments, a
//! stale version, a withdrawn tool, a name that never existed, a write
//! repeated, or two writes sent together.

use purview::naming;
use std::{collections::BTreeSet, sync::Arc};

use rand::RngExt as _;
use serde_json::{Map, Value};

use crate::{
    checks::Check,
    coverage::Coverage,
    generate::{Rand, Sources, Validity},
    script::{Call, ExpectedVersion, Intent, Step},
};

use super::{PURVIEW_ACT, SECRET_PREFIX, ToolInfo, Walk};

impl Walk<'_> {
    /// Picks the next step.
    pub(super) fn plan(&mut self) -> Step {
        // Until the §10.1 probe has run once, run it as soon as it can be.
        if (self.unprobed() || self.rng.random_bool(0.08))
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
            // version that moves now moved for nothing (§7.1). Mostly the
            // latest write, whose value is surely still the current one;
            // sometimes an older one.
            let again: Vec<Call> = self
                .recent
                .iter()
                .filter(|c| self.obs.tools.contains_key(&c.tool))
                .cloned()
                .collect();
            if let Some(latest) = again.last() {
                let mut call = if self.rng.random_bool(0.75) {
                    latest.clone()
                } else {
                    again[self.rng.random_range(0..again.len())].clone()
                };
                if call.expected_version == ExpectedVersion::Stale {
                    call.expected_version = ExpectedVersion::Current;
                }
                return Step::Call(call);
            }
        }
        let tool = self.pick_uncovered(&callable);
        if tool.name == PURVIEW_ACT
            && let Some(call) = self.act_call(roll)
        {
            return Step::Call(call);
        }
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

    /// The parameters of the tool counted under `key` that the app refused
    /// (by name, in valid calls) at least twice and more often than the
    /// tool succeeded: made-up values do not do for them.
    pub(super) fn refused(coverage: &Coverage, key: &str) -> BTreeSet<String> {
        let Some(count) = coverage.tools.get(key) else { return BTreeSet::new() };
        let refused = |times: &usize| *times >= 2 && *times > count.succeeded;
        count.fields.iter().filter(|(_, t)| refused(t)).map(|(name, _)| name.clone()).collect()
    }

    /// Valid arguments for `tool`, from its hints, what the app showed and
    /// its schema.
    pub(super) fn valid_arguments(&mut self, tool: &ToolInfo) -> (Map<String, Value>, Validity) {
        let refused = Self::refused(&self.coverage, &self.coverage_key(Some(tool), &self.obs));
        let sources = Sources {
            hints: &self.cfg.hints,
            shown: &self.shown,
            window: tool.window.as_deref(),
            refused: &refused,
        };
        tool.schema.valid(&mut self.rng, sources, &mut Self::secret_value)
    }

    /// Arguments for `tool` with one parameter broken, and which.
    pub(super) fn invalid_arguments(
        &mut self,
        tool: &ToolInfo,
    ) -> Option<(Map<String, Value>, Vec<String>)> {
        let refused = Self::refused(&self.coverage, &self.coverage_key(Some(tool), &self.obs));
        let sources = Sources {
            hints: &self.cfg.hints,
            shown: &self.shown,
            window: tool.window.as_deref(),
            refused: &refused,
        };
        tool.schema.invalid(&mut self.rng, sources, &mut Self::secret_value)
    }

    pub(super) fn secret_value(rng: &mut Rand) -> String {
        format!("{SECRET_PREFIX}{:08x}", rng.random_range(0..u32::MAX))
    }

    pub(super) fn valid_call(&mut self, tool: &ToolInfo) -> Call {
        let (mut arguments, _) = self.valid_arguments(tool);
        let mut expected_version = ExpectedVersion::Omit;
        if tool.window.is_some() && tool.has_version() {
            arguments.remove(naming::EXPECTED_VERSION);
            if self.rng.random_bool(0.8) {
                expected_version = ExpectedVersion::Current;
            }
        }
        Call { tool: tool.name.clone(), arguments, expected_version, intent: Intent::Valid }
    }

    pub(super) fn invalid_call(&mut self, tool: &ToolInfo) -> Option<Call> {
        let (mut arguments, broke) = self.invalid_arguments(tool)?;
        let mut expected_version = ExpectedVersion::Omit;
        if tool.window.is_some()
            && tool.has_version()
            && !broke.iter().any(|b| b == naming::EXPECTED_VERSION)
        {
            arguments.remove(naming::EXPECTED_VERSION);
            expected_version = ExpectedVersion::Current;
        }
        Some(Call {
            tool: tool.name.clone(),
            arguments,
            expected_version,
            intent: Intent::Invalid(broke),
        })
    }

    pub(super) fn unknown_window(&mut self) -> Call {
        let mut id;
        loop {
            self.fresh_ids += 1;
            id = format!("nowin{}", self.fresh_ids);
            if !self.seen_ids.contains(&id) {
                break;
            }
        }
        // Only names the walk may call anyway: a server that wrongly routed
        // an unknown window's tool must not be led into a destructive one.
        let actions: Vec<String> =
            self.obs.tools.values().filter(|t| self.allowed(t)).map(|t| t.action.clone()).collect();
        let action = if actions.is_empty() {
            "no_such_action".to_owned()
        } else {
            actions[self.rng.random_range(0..actions.len())].clone()
        };
        Call {
            tool: naming::tool_name(&id, &action),
            arguments: Map::new(),
            expected_version: ExpectedVersion::Omit,
            intent: Intent::UnknownWindow,
        }
    }

    /// Whether the §10.1 probe has not yet been judged once.
    pub(super) fn unprobed(&self) -> bool {
        self.tally.entries.get(&Check::Serialized).is_none_or(|e| e.observed == 0)
    }

    /// Two writes that each changed the same window before, sent together
    /// on the same version (§10.1).
    pub(super) fn probe(&mut self) -> Option<Step> {
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
}

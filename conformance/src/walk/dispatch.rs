//! Purview's dispatcher tools, driven as an agent on a host that never
//! refreshes its tool list would: `app__read_windows` says what each
//! operable window offers (asked with `schemas: true`, so with each
//! action's inputSchema and annotations beside its signature), and
//! `app__act` calls it. So the walk reaches on the `dispatcher` surface
//! what the per-window tools reach on the others.

use purview::naming;
use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use rand::RngExt as _;
use rmcp::model::Tool;
use serde_json::{Map, Value, json};

use crate::{
    script::{Call, ExpectedVersion, Intent},
    target::CallOutcome,
};

use super::{PURVIEW_ACT, PURVIEW_READ, ToolInfo, Walk};

/// The window id `app__act` uses for application-level actions.
const APP: &str = "app";

/// The action a signature such as `edit_field(field: string)` names.
pub(super) fn signature_name(signature: &str) -> &str {
    purview::naming::signature_action(signature)
}

impl Walk<'_> {
    /// What `app__read_windows` offers now, keyed `{window}__{action}` as
    /// the per-window tool would be named; empty when the server has no
    /// dispatcher tools or the read fails (that read is judged where the
    /// walk calls it as a step).
    pub(super) async fn read_dispatch(
        &mut self,
        listed: &BTreeMap<String, Arc<ToolInfo>>,
    ) -> BTreeMap<String, Arc<ToolInfo>> {
        let mut out = BTreeMap::new();
        if !listed.contains_key(PURVIEW_READ) || !listed.contains_key(PURVIEW_ACT) {
            return out;
        }
        let mut ask = Map::new();
        ask.insert("schemas".into(), Value::Bool(true));
        let outcome = self.main.call(PURVIEW_READ, &ask, self.cfg.call_timeout).await;
        self.search_secrets(self.step, "the answer to app__read_windows", &outcome.visible_text());
        let CallOutcome::Result { is_error: false, structured: Some(result), .. } = outcome else {
            return out;
        };
        let Some(actions) = result.get("actions").and_then(Value::as_object) else { return out };
        let schemas = result.get("schemas").and_then(Value::as_object);
        for (window, list) in actions {
            let definitions = schemas.and_then(|s| {
                let entry = s.get(window)?;
                // A window of a type already described names that window.
                match entry.as_str() {
                    Some(same_as) => s.get(same_as),
                    None => Some(entry),
                }
            });
            for signature in list.as_array().into_iter().flatten().filter_map(Value::as_str) {
                let name = signature_name(signature);
                let action = definitions.and_then(|d| d.get(name));
                let field = |key: &str| action.and_then(|a| a.get(key)).cloned();
                let tool_name = naming::tool_name(window, name);
                let definition = json!({
                    "name": tool_name,
                    "title": field("title"),
                    "description": field("description"),
                    "inputSchema": field("inputSchema").unwrap_or(json!({"type": "object"})),
                    "annotations": field("annotations"),
                });
                let Ok(tool) = serde_json::from_value::<Tool>(definition) else { continue };
                let target_window = (window != APP).then(|| window.clone());
                let pages: Vec<String> = naming::signature_marks(signature)
                    .into_iter()
                    .filter_map(naming::paged_table)
                    .map(str::to_owned)
                    .collect();
                let approval = naming::signature_marks(signature).contains(&"needs approval");
                let info = match self.ever_dispatched.get(&tool_name) {
                    Some(known) if known.tool == tool && known.pages == pages => known.clone(),
                    _ => Arc::new(
                        ToolInfo::new(&tool, target_window, name.to_owned())
                            .paging(pages)
                            .needs_approval(approval),
                    ),
                };
                self.ever_dispatched.insert(tool_name.clone(), info.clone());
                out.insert(tool_name, info);
            }
        }
        out
    }

    /// The dispatched actions the walk may call now.
    pub(super) fn dispatchable(&self) -> Vec<Arc<ToolInfo>> {
        let allowed = |t: &&Arc<ToolInfo>| self.cfg.allow_destructive || !t.destructive;
        self.obs.dispatch.values().filter(allowed).cloned().collect()
    }

    /// The target an `app__act` call names, if the walk has seen it offered.
    pub(super) fn act_target(&self, arguments: &Map<String, Value>) -> Option<Arc<ToolInfo>> {
        let window = arguments.get("window").and_then(Value::as_str)?;
        let action = arguments.get("action").and_then(Value::as_str)?;
        let name = naming::tool_name(window, action);
        self.obs.dispatch.get(&name).or_else(|| self.ever_dispatched.get(&name)).cloned()
    }

    /// An `app__act` call: mostly a valid call to an action the last read
    /// offered (operations that never succeeded first), sometimes with one
    /// of its arguments broken, an old version, or `app__act`'s own
    /// arguments wrong.
    pub(super) fn act_call(&mut self, roll: u8) -> Option<Call> {
        let targets = self.dispatchable();
        if targets.is_empty() {
            return None;
        }
        let target = self.pick_uncovered(&targets);
        let versioned = target.window.is_some();
        let (inner, intent) = match roll {
            10..=21 => {
                match self.invalid_arguments(&target) {
                    // The version goes beside `window`, not among the action's
                    // own arguments (where a second one would be a conflict).
                    Some((mut inner, broke))
                        if !broke.iter().any(|b| b == naming::EXPECTED_VERSION) =>
                    {
                        inner.remove(naming::EXPECTED_VERSION);
                        (inner, Intent::Invalid(broke))
                    }
                    _ => (self.valid_inner(&target), Intent::Valid),
                }
            }
            _ => (self.valid_inner(&target), Intent::Valid),
        };
        let window = target.window.clone().unwrap_or_else(|| APP.to_owned());
        let mut arguments = Map::new();
        arguments.insert("window".into(), json!(window));
        arguments.insert("action".into(), json!(target.action));
        arguments.insert("arguments".into(), Value::Object(inner));
        let mut expected_version = if versioned && self.rng.random_bool(0.8) {
            ExpectedVersion::Current
        } else {
            ExpectedVersion::Omit
        };
        let mut intent = intent;
        if intent == Intent::Valid && (22..=27).contains(&roll) {
            // app__act's own arguments wrong: an action left out, or a
            // version that is not a number.
            if self.rng.random_bool(0.5) {
                arguments.remove("action");
                intent = Intent::Invalid(vec!["action".into()]);
            } else {
                arguments.insert(naming::EXPECTED_VERSION.into(), json!("not a version"));
                expected_version = ExpectedVersion::Omit;
                intent = Intent::Invalid(vec![naming::EXPECTED_VERSION.into()]);
            }
        } else if intent == Intent::Valid && versioned && (28..=35).contains(&roll) {
            expected_version = ExpectedVersion::Stale;
        }
        Some(Call { tool: PURVIEW_ACT.to_owned(), arguments, expected_version, intent })
    }

    fn valid_inner(&mut self, target: &ToolInfo) -> Map<String, Value> {
        let (mut inner, _) = self.valid_arguments(target);
        inner.remove(naming::EXPECTED_VERSION);
        inner
    }

    /// Mostly one of the operations that has not succeeded yet, or one
    /// that once opened a window type whose operations have not all
    /// succeeded (the way back to a dialog the walk closed too early), so
    /// a walk covers what it can instead of repeating what it has.
    ///
    /// What cannot be undone (submitting, locking) waits, since it may end
    /// what the rest needs: until every other operation in reach has
    /// succeeded and the §10.1 probe has had its two writes, or at most
    /// until half the walk is spent. Without that, whether a walk covered the app
    /// would depend on its seed: one that submitted early never got back.
    pub(super) fn pick_uncovered(&mut self, tools: &[Arc<ToolInfo>]) -> Arc<ToolInfo> {
        let openers = self.wanted_openers();
        let uncovered = |walk: &Self, t: &ToolInfo| {
            let key = walk.coverage_key(Some(t), &walk.obs);
            walk.coverage.tools.get(&key).is_none_or(|c| c.succeeded == 0)
        };
        let dispatch_aims =
            self.dispatchable().iter().any(|t| uncovered(self, t) || openers.contains(&t.name));
        // `app__act` is as final as the action it is sent to, which
        // `act_call` picks by these same rules.
        let lasting = |t: &Arc<ToolInfo>| t.destructive && t.name != PURVIEW_ACT;
        let undoable_left = tools.iter().any(|t| !lasting(t) && uncovered(self, t));
        let probe_pending = self.unit_steps != Some(false) && self.unprobed();
        let patient = self.trace().len() < self.cfg.steps / 2;
        // Patience for the first half only: an operation that never
        // succeeds must not keep the destructive ones from being called.
        let wait = patient && tools.iter().any(|t| !lasting(t)) && (undoable_left || probe_pending);
        // What once withdrew an operation that has not succeeded since
        // waits too, for as long as that is so, unless nothing else is
        // offered (see `restart`).
        let held = self.held_back();
        let holds = tools.iter().any(|t| !self.is_held(t, &held) && (!wait || !lasting(t)));
        let keep =
            |t: &&Arc<ToolInfo>| (!wait || !lasting(t)) && (!holds || !self.is_held(t, &held));
        let aimed: Vec<&Arc<ToolInfo>> = tools
            .iter()
            .filter(keep)
            .filter(|t| {
                uncovered(self, t)
                    || openers.contains(&t.name)
                    || (t.name == PURVIEW_ACT && dispatch_aims)
            })
            .collect();
        let pool: Vec<&Arc<ToolInfo>> = tools.iter().filter(keep).collect();
        if !aimed.is_empty() && self.rng.random_bool(0.75) {
            return aimed[self.rng.random_range(0..aimed.len())].clone();
        }
        pool[self.rng.random_range(0..pool.len())].clone()
    }

    /// The operations that once opened a window of a type with an
    /// operation that never succeeded and is not offered now (and, after a
    /// fresh start, those on the way to one: [`Walk::openers_from_before`]).
    pub(super) fn wanted_openers(&self) -> BTreeSet<String> {
        let offered: BTreeSet<String> = self
            .obs
            .tools
            .values()
            .chain(self.obs.dispatch.values())
            .map(|t| self.coverage_key(Some(t), &self.obs))
            .collect();
        let mut wanted = BTreeSet::new();
        for info in self.ever_listed.values().chain(self.ever_dispatched.values()) {
            let Some(title) = info.window.as_ref().and_then(|w| self.titles.get(w)) else {
                continue;
            };
            let key = self.coverage_key(Some(info), &self.obs);
            if self.allowed(info)
                && !offered.contains(&key)
                && self.coverage.tools.get(&key).is_none_or(|c| c.succeeded == 0)
                && let Some(openers) = self.openers.get(title)
            {
                wanted.extend(openers.iter().cloned());
            }
        }
        wanted.extend(self.openers_from_before(&offered));
        wanted
    }
}

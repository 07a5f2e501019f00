//! One step: send its calls, read again, wait for what should be
//! announced, and judge it all.

use std::time::Duration;

use purview::naming;
use serde_json::Value;

use crate::{
    checks::Check,
    script::{ExpectedVersion, Intent, Step},
    target::{CallOutcome, Event, Note, Session},
};

use super::{
    Obs, PURVIEW_ACT, Prepared, Walk,
    describe::{describe_calls, describe_change, describe_events, note_name},
};

impl Walk<'_> {
    /// `step` as a replay sends it: a call meant for a window (valid or
    /// with broken arguments) that names an id this server never showed
    /// goes to the newest open window offering the same action instead,
    /// and so does every later call naming that id. A shortened walk
    /// then still reaches "the dialog the delete opened" when the steps it
    /// left out would have made that dialog's id another.
    pub(crate) fn rebased(&mut self, mut step: Step) -> Step {
        let calls = match &mut step {
            Step::Call(call) => std::slice::from_mut(call),
            Step::Together(calls) => calls.as_mut_slice(),
        };
        for call in calls {
            if !matches!(call.intent, Intent::Valid | Intent::Invalid(_)) {
                continue;
            }
            if call.tool == PURVIEW_ACT {
                let named = call.arguments.get("window").and_then(Value::as_str);
                let action = call.arguments.get("action").and_then(Value::as_str);
                if let (Some(window), Some(action)) = (named, action)
                    && let Some(live) = self.alias(window, action, true)
                {
                    call.arguments.insert("window".into(), Value::String(live));
                }
            } else if let Some((window, action)) = call.tool.split_once(naming::SEPARATOR)
                && let Some(live) = self.alias(window, action, false)
            {
                call.tool = naming::tool_name(&live, action);
            }
        }
        step
    }

    /// The open window a recorded `window` id stands for, when this server
    /// never showed that id.
    fn alias(&mut self, window: &str, action: &str, dispatched: bool) -> Option<String> {
        if window == "app" || self.seen_ids.contains(window) {
            return None;
        }
        if let Some(live) = self.aliases.get(window) {
            return Some(live.clone());
        }
        let offers = |id: &String| {
            let name = naming::tool_name(id, action);
            if dispatched {
                self.obs.dispatch.contains_key(&name)
            } else {
                self.obs.tools.contains_key(&name)
            }
        };
        let live = self.obs.windows.order.iter().rev().find(|id| offers(id))?.clone();
        self.aliases.insert(window.to_owned(), live.clone());
        Some(live)
    }

    /// Runs one step and judges it.
    pub(crate) async fn execute(&mut self, step: Step) {
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
        let (changed, tools_changed, wanted) = called_for(&before, &after);
        // A server that never sends a kind of notification has shown it;
        // after two misses, that kind is not waited for on every step. The
        // other kind still is: were a step that changed both the windows
        // and the tools not to wait for the windows' update either, that
        // update could arrive during the next step and be blamed on it.
        let missed = |check| self.tally.entries.get(&check).is_some_and(|e| e.failures >= 2);
        let awaited: Vec<Note> = wanted
            .iter()
            .filter(|note| match note {
                Note::WindowsUpdated => !missed(Check::NotifyAfterEffect),
                Note::ToolsChanged => !missed(Check::ToolsListChanged),
            })
            .cloned()
            .collect();
        let wait = if awaited.is_empty() { Duration::ZERO } else { self.notify_wait };
        let deadline = tokio::time::Instant::now() + wait;
        let mut events = self.main.wait_for(main_from, &awaited, deadline).await;
        // Two writes sent together: which of them succeeds (or whether a
        // write that changes nothing lets the other through) is the
        // server's timing. Their answers are checked, but only a failure
        // counts, so the report does not depend on the order they ran in.
        let quiet = (together).then(|| {
            let counts: Vec<(Check, u64, u64)> =
                self.tally.entries.iter().map(|(c, e)| (*c, e.observed, e.failures)).collect();
            (counts, self.coverage.codes.clone())
        });
        for (p, outcome) in prepared.iter().zip(&outcomes) {
            self.judge_call(n, p, outcome, &before, &after);
        }
        if let Some((counts, codes)) = quiet {
            for (check, entry) in &mut self.tally.entries {
                let (observed, failures) =
                    counts.iter().find(|(c, ..)| c == check).map_or((0, 0), |(_, o, f)| (*o, *f));
                entry.observed = observed + (entry.failures - failures);
            }
            self.coverage.codes = codes;
        }
        if outcomes.iter().all(CallOutcome::rejected)
            && let Some(late) =
                self.judge_refused(n, &step, &prepared, &before, &after, main_from).await
        {
            events = late;
        }
        self.judge_notifications(n, &before, &after, changed, tools_changed, &events);
        self.judge_broadcast(n, &prepared, (&wanted, &awaited), observer_from, deadline).await;
        if let Step::Together(_) = &step {
            self.judge_probe(n, &prepared, &outcomes, &before, &after);
        } else if let (Some(p), Some(outcome)) = (prepared.first(), outcomes.first()) {
            self.learn(p, outcome, &before, &after);
            if p.role == super::Role::Listed && !outcome.rejected() {
                let info = p.target.as_deref().or(p.info.as_deref());
                let by = self.coverage_key(info, &before);
                let destructive = info.is_some_and(|i| i.destructive);
                self.note_withdrawn(&by, destructive, &after);
            }
        }
        self.after_observation(&after);
        self.obs = after;
        self.cursor = self.main.event_count();
        self.last_quiet = !changed && !tools_changed;
        if let Step::Together(calls) = step {
            self.coverage.races += 1;
            Box::pin(self.resync(calls)).await;
        }
    }

    /// After two writes raced (the §10.1 probe), sends each again on its
    /// own, in the order the walk chose them, on the current version: the
    /// app then ends in the same state whichever had won, so the rest of
    /// the walk (and its report) does not depend on the server's timing.
    /// These steps are in the trace, so a replay sends them too; they are
    /// read and checked like any other, but count for no operation and
    /// expect no particular notification (one of them may change nothing).
    async fn resync(&mut self, calls: Vec<crate::script::Call>) {
        for mut call in calls {
            if self.stopped.is_some() || self.step >= self.budget {
                return;
            }
            self.step += 1;
            self.check_late();
            call.expected_version = ExpectedVersion::Current;
            let prepared = self.prepare(&call);
            let from = self.main.event_count();
            let outcome = self
                .main
                .call(&prepared.call.tool, &prepared.arguments, self.cfg.call_timeout)
                .await;
            self.search_secrets(
                self.step,
                &format!("the answer to {}", call.tool),
                &outcome.visible_text(),
            );
            self.trace.push(Step::Call(call));
            let before = self.obs.clone();
            let Some(after) = self.observe().await else { return };
            let (changed, tools_changed, wanted) = called_for(&before, &after);
            let deadline = tokio::time::Instant::now() + self.notify_wait;
            let _ = self.main.wait_for(from, &wanted, deadline).await;
            self.after_observation(&after);
            self.obs = after;
            self.cursor = self.main.event_count();
            self.last_quiet = !changed && !tools_changed;
        }
    }

    /// Notifications that arrived between steps belong to the last step;
    /// after a step that changed nothing, there must be none.
    pub(super) fn check_late(&mut self) {
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

    /// A step whose every call was refused: it must have changed nothing,
    /// and after a quiet step no notification may follow. Returns the
    /// notifications seen meanwhile, when it waited for them.
    async fn judge_refused(
        &mut self,
        n: usize,
        step: &Step,
        prepared: &[Prepared],
        before: &Obs,
        after: &Obs,
        main_from: usize,
    ) -> Option<Vec<Event>> {
        let quiet = before.windows.value == after.windows.value && before.names() == after.names();
        let check = if step.calls().iter().any(|c| c.expected_version == ExpectedVersion::Stale) {
            Check::StaleState
        } else {
            Check::RuntimeValidation
        };
        self.tally.judge(
            check,
            n,
            if !quiet {
                Err(format!(
                    "{} was refused, yet it changed {}",
                    describe_calls(prepared),
                    describe_change(before, after)
                ))
            } else {
                Ok(())
            },
        );
        if quiet && self.last_quiet {
            if !self.settle.is_zero() {
                tokio::time::sleep(self.settle).await;
            }
            let events = self.main.events_since(main_from);
            self.tally.judge(
                Check::NotifyAfterEffect,
                n,
                if events.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "{} was refused and changed nothing, yet {} arrived",
                        describe_calls(prepared),
                        describe_events(&events)
                    ))
                },
            );
            return Some(events);
        }
        None
    }

    /// Whatever the step made the server announce reached the second
    /// connection too (§8.3), when there is one.
    async fn judge_broadcast(
        &mut self,
        n: usize,
        prepared: &[Prepared],
        (wanted, awaited): (&[Note], &[Note]),
        observer_from: usize,
        deadline: tokio::time::Instant,
    ) {
        let Some(observer) = &self.observer else { return };
        // Waits only for the kinds the main session waited for; judges
        // every kind the step called for.
        let seen = observer.wait_for(observer_from, awaited, deadline).await;
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
                    describe_calls(prepared),
                    missing.iter().map(|m| note_name(m)).collect::<Vec<_>>().join(" or "),
                    self.notify_wait.as_secs_f32()
                ))
            },
        );
        self.observer_cursor = observer.event_count();
    }
}

/// Whether app://windows and tools/list changed between two reads, and the
/// notifications those changes call for.
fn called_for(before: &Obs, after: &Obs) -> (bool, bool, Vec<Note>) {
    let changed = before.windows.value != after.windows.value;
    let tools_changed = before.names() != after.names();
    let mut wanted = Vec::new();
    if changed {
        wanted.push(Note::WindowsUpdated);
    }
    if tools_changed {
        wanted.push(Note::ToolsChanged);
    }
    (changed, tools_changed, wanted)
}

//! The §10.1 serialization probe: learning which writes change which
//! window, and judging two of them sent together on the same version.

use crate::{checks::Check, generate::Validity, script::ExpectedVersion, target::CallOutcome};

use super::{Obs, Prepared, Role, Walk, describe::describe_calls};

impl Walk<'_> {
    /// The §10.1 probe: two writes on the same version must not both land.
    pub(super) fn judge_probe(
        &mut self,
        n: usize,
        prepared: &[Prepared],
        outcomes: &[CallOutcome],
        before: &Obs,
        after: &Obs,
    ) {
        let Some(window) = prepared.first().and_then(|p| p.window.clone()) else {
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
    pub(super) fn learn(&mut self, p: &Prepared, outcome: &CallOutcome, before: &Obs, after: &Obs) {
        if p.role != Role::Listed || outcome.rejected() || p.validity != Validity::Valid {
            return;
        }
        if self.recent.len() >= 8 {
            self.recent.remove(0);
        }
        self.recent.push(p.call.clone());
        if let CallOutcome::Result { structured: Some(s), .. } = outcome {
            self.shown.read_answer(s);
        }
        let name = p.target.as_ref().or(p.info.as_ref()).map(|t| t.name.clone());
        let key = self.coverage_key(p.target.as_deref().or(p.info.as_deref()), before);
        self.learn_kinds(after);
        for (id, w) in &after.windows.by_id {
            if let Some(name) = &name
                && !before.windows.by_id.contains_key(id)
            {
                let kind = self.kind_title(w);
                self.openers.entry(kind.clone()).or_default().insert(name.clone());
                self.lives.opened_by.entry(kind).or_default().insert(key.clone());
            }
        }
        let Some(window) = p.window.clone() else { return };
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
        self.changed_own_window = true;
        let calls = self.effective.entry(window).or_default();
        if calls.len() < 6
            && !calls.iter().any(|c| c.tool == p.call.tool && c.arguments == p.call.arguments)
        {
            calls.push(p.call.clone());
        }
    }
}

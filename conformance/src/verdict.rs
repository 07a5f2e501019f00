//! Whether a walk proved anything: what it could not exercise, why, and
//! what to do about it. A walk that held every MUST it reached but reached
//! too little is *inconclusive*, never a pass.

use std::{collections::BTreeMap, fmt};

use serde::{Deserialize, Serialize};

use crate::{
    checks::{Check, Level},
    coverage::{Coverage, ToolCount},
    tally::{CheckReport, Status},
};

/// How a walk came out, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every MUST held, and the walk exercised what it could.
    Pass,
    /// No MUST failed, but the walk could not exercise part of the app (see
    /// [`Report::gaps`](crate::Report::gaps)): it proves too little to pass.
    Inconclusive,
    /// A MUST failed, or the walk could not finish.
    Fail,
}

/// How much of an app a walk must have covered for
/// [`Report::assert_clean`](crate::Report::assert_clean) to accept it, set
/// with [`Explorer::require_coverage`](crate::Explorer::require_coverage).
///
/// ```
/// use purview_conformance::{CoverageLevel, Explorer};
///
/// let explorer = Explorer::new().require_coverage(CoverageLevel::Conclusive);
/// # let _ = explorer;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoverageLevel {
    /// Nothing beyond the MUSTs that were exercised (the default).
    #[default]
    Any,
    /// Every operation the app offered (destructive ones aside, unless
    /// allowed) succeeded at least once.
    EveryOperation,
    /// Every operation succeeded, and every MUST this transport can
    /// exercise was exercised: the walk is not inconclusive.
    Conclusive,
}

/// Something a walk could not exercise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    /// What was not exercised: an operation (`"Locked · unlock"`) or a check.
    pub what: String,
    /// Whether it is an operation (as opposed to a check).
    pub operation: bool,
    /// What the walk saw instead, in words.
    pub cause: String,
    /// What is likely to get the walk there.
    pub fix: String,
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}; {}", self.what, self.cause, self.fix)
    }
}

/// What the walk knew about its transport and surface, for telling a
/// check it could not reach from one nobody could.
pub(crate) struct Reach {
    /// A second connection watched the walk (not stdio).
    pub(crate) observer: bool,
    /// Only Purview's two dispatcher tools were ever listed: the tool list
    /// never changes, and no tool takes a version of its own.
    pub(crate) dispatcher_only: bool,
    /// Some operation takes `expectedVersion`.
    pub(crate) versioned: bool,
    /// Steps the walk took.
    pub(crate) steps: usize,
    /// Operations that never succeeded and that a call took away for good
    /// when the walk ended (itself, or every known way to its window).
    pub(crate) blocked: BTreeMap<String, Blocked>,
    /// How many times the walk started the app afresh.
    pub(crate) restarts: usize,
    /// Why it could not start the app afresh again, if it could not.
    pub(crate) no_restart: Option<NoRestart>,
    /// Whether every change moved a window's version by exactly one
    /// (`None` when no change was seen).
    pub(crate) unit_steps: Option<bool>,
    /// Whether some write changed the window it was called on.
    pub(crate) changed_own_window: bool,
    /// Whether some operation takes an argument besides `expectedVersion`,
    /// which the walk can break.
    pub(crate) breakable: bool,
}

/// What stands between the walk and an operation: the operation withdrawn
/// (itself, or one that opened its window), what withdrew it, and when.
#[derive(Debug, Clone)]
pub(crate) struct Blocked {
    pub(crate) withdrawn: String,
    pub(crate) by: String,
    pub(crate) step: usize,
}

/// Why the walk did not start the app afresh for what is still stranded
/// when it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NoRestart {
    /// The server cannot be started afresh (over HTTP).
    NotRestartable,
    /// It had already started afresh this many times.
    Limit(usize),
    /// Too few steps were left: this many, of the fewest a start needs.
    TooFewSteps(usize, usize),
}

/// Every gap of a finished walk: operations that never succeeded first.
pub(crate) fn gaps(checks: &[CheckReport], coverage: &Coverage, reach: &Reach) -> Vec<Gap> {
    let mut out = Vec::new();
    if coverage.most_open == 0 {
        // Nothing else the report could say means anything.
        out.push(Gap {
            what: "windows".into(),
            operation: false,
            cause: "the application has no windows: app://windows listed none at any step, so there was nothing to operate".into(),
            fix: "open the app's first window before serving it (App::open before serve_stdio or serve_http); a Purview app logs a warning on stderr when it serves with none".into(),
        });
    }
    let mut failing: Vec<(&String, &ToolCount)> = coverage
        .tools
        .iter()
        .filter(|(key, count)| count.succeeded == 0 && *key != NEVER_OFFERED)
        .collect();
    // The operations that refused what the walk sent first, most tried first.
    failing.sort_by_key(|(key, count)| (count.fields.is_empty(), usize::MAX - count.calls, *key));
    // One that took a quarter of the walk and never let it past: the trap
    // that explains why others were hardly reached.
    let trap = failing
        .iter()
        .find(|(key, c)| {
            !c.fields.is_empty() && c.calls * 4 >= reach.steps && !key.starts_with("app · ")
        })
        .map(|(key, c)| ((*key).clone(), c.calls));
    for (key, count) in &failing {
        let mut gap = operation_gap(key, count);
        if count.refused.is_empty() {
            blame(&mut gap, trap.as_ref(), reach.steps);
        }
        blame_withdrawal(&mut gap, reach);
        out.push(gap);
    }
    for key in &coverage.never_called {
        let mut gap = Gap {
            what: key.clone(),
            operation: true,
            cause: "offered, but the walk never called it".into(),
            fix: "give the walk more --steps".into(),
        };
        blame(&mut gap, trap.as_ref(), reach.steps);
        blame_withdrawal(&mut gap, reach);
        out.push(gap);
    }
    // Every operation succeeded and none changed the tool list: as far as
    // a walk can tell, this app's list never changes.
    let fixed_list = out.is_empty();
    for c in checks {
        if c.level != Level::Must || c.status != Status::NotExercised || !reachable(c.check, reach)
        {
            continue;
        }
        if c.check == Check::ToolsListChanged && fixed_list {
            continue;
        }
        let note = c.note.as_deref().unwrap_or("the walk never met a situation that tests it");
        let (cause, fix) = match beyond_any_length(c.check, reach).filter(|_| fixed_list) {
            Some((why, what_would)) => (
                format!(
                    "never exercised ({note}); every operation succeeded and {why}, so no walk of this app exercises it, at any number of steps"
                ),
                format!("more --steps will not help: {what_would}"),
            ),
            None => (
                format!("never exercised ({note})"),
                "cover more of the app (see the operations above), or give the walk more --steps"
                    .into(),
            ),
        };
        out.push(Gap { what: c.check.name().to_owned(), operation: false, cause, fix });
    }
    out
}

/// A MUST that a walk which covered every operation can still not reach,
/// because of what the app is: why, and what kind of action would
/// exercise it.
fn beyond_any_length(check: Check, reach: &Reach) -> Option<(&'static str, &'static str)> {
    match check {
        Check::Serialized if !reach.changed_own_window => Some((
            "none of its writes changed the window it was called on (each opened, closed or changed other windows, or changed nothing)",
            "the §10.1 probe sends two writes that each change the same window together, on one version; an action that changes what its own window shows (sets one of its fields, adds a line to its table) gives it those, two calls of it with different arguments or of two such actions. If the app has no such action, nothing can race on one window and the check does not apply to it",
        )),
        Check::Serialized if reach.unit_steps == Some(false) => Some((
            "a single change moved a window's version by more than one",
            "the §10.1 probe tells two writes that both landed from one by the version moving by two; an app whose single change moves it by more cannot be judged this way, and its serialization is left to its own tests",
        )),
        Check::FieldErrors if !reach.breakable => Some((
            "none of them takes an argument besides expectedVersion, so there is no call for the walk to break",
            "§7.3 is checked on a call refused with validation_failed; an operation that takes an argument (a number with a range, text with a length or a pattern, any required one) gives the walk one to break. If the app has none, the check does not apply to it",
        )),
        _ => None,
    }
}

/// Why a call that waits for a person's approval never came back, and how
/// to walk the app anyway: the app asks the person in the app itself (its
/// approver, such as the browser face's queue or a desk), which no MCP
/// client can answer, so more steps or hints change nothing.
pub(crate) fn unanswered_approval(why: &str, action: &str) -> String {
    format!(
        "{why}: `{action}` waits for a person's approval that this app asks in the app itself (its approver: the browser face, a desk), which the walk cannot give from outside, at any number of steps. \
         To walk it, build the app for the walk so that someone the walk can answer approves: `AppBuilder::who_approves(WhoApproves::InAppOrClient)` with no approver registered, then pass --approve; \
         or a rule, `who_approves(WhoApproves::policy(|_| Approval::Approve))`; \
         or walk it in-process in a test, with `App::builder().approver(..)` answering yes"
    )
}

/// The coverage key of calls to names nobody offered.
pub(crate) const NEVER_OFFERED: &str = "(names never offered)";

fn reachable(check: Check, reach: &Reach) -> bool {
    match check {
        Check::Broadcast => reach.observer,
        Check::ToolsListChanged => !reach.dispatcher_only,
        Check::StaleState => reach.versioned,
        _ => true,
    }
}

/// Points a gap at the call that took it away for good, if one did, and
/// says why the walk did not (or could not) start the app afresh to reach
/// it: more steps do not bring back what nothing offers again.
fn blame_withdrawal(gap: &mut Gap, reach: &Reach) {
    let Some(Blocked { withdrawn, by, step }) = reach.blocked.get(&gap.what) else { return };
    let way = if *withdrawn == gap.what {
        String::new()
    } else {
        format!(" (the way to it goes through `{withdrawn}`)")
    };
    let restarted = match reach.restarts {
        0 => "the walk never started the app afresh".to_owned(),
        1 => "the walk had started the app afresh once".to_owned(),
        n => format!("the walk had started the app afresh {n} times"),
    };
    gap.cause = format!(
        "{}; at step {step} `{by}` withdrew `{withdrawn}`{way}, nothing offered it again, and {restarted}",
        gap.cause
    );
    let until = format!("until `{withdrawn}` and what it opens are covered");
    gap.fix = match &reach.no_restart {
        Some(NoRestart::NotRestartable) => format!(
            "more --steps will not help: nothing brings `{withdrawn}` back once `{by}` has run, and a server reached over HTTP cannot be started afresh. Walk it over stdio (or in-process, in a Purview app's test), where the walk starts the app afresh and holds `{by}` back there {until}; or leave `{by}` out with a walk without --allow-destructive"
        ),
        Some(NoRestart::Limit(n)) => format!(
            "more --steps will not help: the walk started the app afresh {n} times (its limit), holding `{by}` back {until}, and `{}` still never succeeded; see why it had not succeeded before `{by}` ran (its other causes above), or walk without --allow-destructive to leave `{by}` out",
            gap.what
        ),
        Some(NoRestart::TooFewSteps(_, needed)) => format!(
            "nothing brings `{withdrawn}` back once `{by}` has run; the walk then starts the app afresh and holds `{by}` back there {until}, once nothing else in reach is left to cover and at least {needed} of its steps remain, which did not happen before its steps ran out: give the walk more --steps"
        ),
        None => format!(
            "nothing brings `{withdrawn}` back once `{by}` has run; the walk starts the app afresh and holds `{by}` back there {until} once nothing else in reach is left to cover"
        ),
    };
}

/// Points a gap at the trap that kept the walk from it.
fn blame(gap: &mut Gap, trap: Option<&(String, usize)>, steps: usize) {
    let Some((trap, calls)) = trap else { return };
    if *trap == gap.what {
        return;
    }
    gap.cause.push_str(&format!(
        ", probably because the walk spent {calls} of its {steps} steps on `{trap}`, which never let it past"
    ));
    gap.fix = format!("get past `{trap}` first (see its fix)");
}

fn operation_gap(key: &str, count: &ToolCount) -> Gap {
    let action = purview::naming::last_title_part(key);
    let refusals: Vec<String> = count.refused.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
    let cause = if refusals.is_empty() {
        format!(
            "never succeeded in {} call(s), none of them a valid call to it while offered",
            count.calls
        )
    } else {
        format!(
            "never succeeded in {} call(s): refused with {}; whatever it opens was never reached",
            count.calls,
            refusals.join(", ")
        )
    };
    let named: Vec<&String> = count.fields.keys().collect();
    let fix = if let Some(field) = named.first() {
        let more = if named.len() > 1 {
            format!(
                " (it also named {})",
                named[1..].iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
            )
        } else {
            String::new()
        };
        format!(
            "`{action}` refuses the values the walk makes up for `{field}`{more}: give one that works with `--hint {field}=…` (`Explorer::hint(\"{field}\", …)` in a test)"
        )
    } else if let Some((denied, _)) =
        count.refused.iter().find(|(code, _)| code.starts_with("approval_denied"))
    {
        let told = if denied.ends_with("declined") {
            "the walk said no (--decline)"
        } else {
            "no one the app accepts a yes from could be asked"
        };
        format!(
            "`{action}` needs a person's approval and was refused with `{denied}`: {told}. Pass --approve to say yes to every approval question (`Explorer::approve(true)` in a test), or build the app for the test with `AppBuilder::when_no_one_can_approve(Approval::Approve)`"
        )
    } else if count.refused.contains_key("action_failed") {
        format!("`{action}` fails inside the application: see handler-failed")
    } else if count.refused.contains_key("stale_state") {
        "it was refused as stale every time: give the walk more --steps".into()
    } else {
        "give the walk more --steps, or --hint values for its parameters".into()
    };
    Gap { what: key.to_owned(), operation: true, cause, fix }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serialized_never_exercised() -> CheckReport {
        CheckReport {
            check: Check::Serialized,
            level: Level::Must,
            sections: Check::Serialized.sections(),
            title: Check::Serialized.title(),
            status: Status::NotExercised,
            observed: 0,
            failures: 0,
            evidence: Vec::new(),
            note: Some("no window had two different writes that each changed it".into()),
        }
    }

    #[test]
    fn s7_3_an_app_with_no_argument_to_break_is_told_so_not_more_steps() {
        let mut coverage = Coverage { most_open: 1, ..Coverage::default() };
        coverage.tools.insert(
            "Printer · print".into(),
            ToolCount { calls: 9, succeeded: 9, ..ToolCount::default() },
        );
        let checks = [CheckReport {
            check: Check::FieldErrors,
            sections: Check::FieldErrors.sections(),
            title: Check::FieldErrors.title(),
            note: Some("no call was refused with validation_failed".into()),
            ..serialized_never_exercised()
        }];
        let reach = Reach { breakable: false, ..reach(true) };
        let gaps = gaps(&checks, &coverage, &reach);
        assert!(gaps[0].cause.contains("no call for the walk to break"), "{gaps:?}");
        assert!(gaps[0].fix.starts_with("more --steps will not help"), "{gaps:?}");
        let gaps = super::gaps(&checks, &coverage, &Reach { breakable: true, ..reach });
        assert!(gaps[0].fix.contains("give the walk more --steps"), "{gaps:?}");
    }

    fn reach(changed_own_window: bool) -> Reach {
        Reach {
            observer: true,
            dispatcher_only: false,
            versioned: true,
            steps: 400,
            blocked: BTreeMap::new(),
            restarts: 0,
            no_restart: None,
            unit_steps: Some(true),
            changed_own_window,
            breakable: true,
        }
    }

    #[test]
    fn s10_1_an_app_whose_writes_never_change_their_own_window_is_told_so_not_more_steps() {
        let mut coverage = Coverage::default();
        coverage.windows.insert("Returns".into(), 1);
        coverage.most_open = 1;
        coverage.tools.insert(
            "Returns · open_return".into(),
            ToolCount { calls: 9, succeeded: 9, ..ToolCount::default() },
        );
        let checks = [serialized_never_exercised()];
        let gaps = gaps(&checks, &coverage, &reach(false));
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        assert!(gaps[0].cause.contains("at any number of steps"), "{}", gaps[0].cause);
        assert!(gaps[0].fix.starts_with("more --steps will not help"), "{}", gaps[0].fix);
        assert!(gaps[0].fix.contains("changes what its own window shows"), "{}", gaps[0].fix);
        // A write that changed its own window: more steps may find a second.
        let gaps = super::gaps(&checks, &coverage, &reach(true));
        assert!(gaps[0].fix.contains("give the walk more --steps"), "{}", gaps[0].fix);
    }
}

//! The outcome of a walk: one line per check with its evidence, what the
//! walk reached, and the shortest failing sequences found.

use std::{fmt, time::Duration};

use serde::Serialize;

use crate::{
    checks::{Check, Level},
    coverage::Coverage,
    script::Script,
    tally::{CheckReport, Status},
    verdict::{CoverageLevel, Gap, Verdict},
};

/// The shortest sequence of calls found that still fails a check.
#[derive(Debug, Clone, Serialize)]
pub struct Shrunk {
    /// The check it fails.
    pub check: Check,
    /// Whether a replay on a fresh server failed the check again. When it
    /// did not (a server that behaves differently each run), `script` is
    /// the whole walk up to the failure.
    pub reproduced: bool,
    /// The calls.
    pub script: Script,
    /// How many replays shrinking took.
    pub replays: usize,
}

/// The result of exploring a server. [`Report::passed`] says whether every
/// MUST held; `Display` renders it for a person; it serializes to JSON.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// What was explored.
    pub target: String,
    /// The server's name and version from `initialize`.
    pub server: Option<String>,
    /// The seed of the walk.
    pub seed: u64,
    /// Steps taken.
    pub steps: usize,
    /// How long the walk took (shrinking not included).
    #[serde(serialize_with = "seconds")]
    pub elapsed: Duration,
    /// Why the walk ended before its steps were done, if it did.
    pub stopped: Option<String>,
    /// Every check, MUSTs first.
    pub checks: Vec<CheckReport>,
    /// What the walk reached.
    pub coverage: Coverage,
    /// Shortest failing sequences, one per failed check that was shrunk.
    pub shrunk: Vec<Shrunk>,
    /// What the walk could not exercise, each with its likely cause and
    /// fix. Any gap makes the walk [`Verdict::Inconclusive`].
    pub gaps: Vec<Gap>,
    /// The coverage [`Report::assert_clean`] asks for.
    pub required: CoverageLevel,
    /// Checks whose failures were allowed on purpose
    /// ([`Explorer::allow`](crate::Explorer::allow)): reported, but they do
    /// not fail the walk.
    pub allowed: Vec<Check>,
    /// What the app's setup leaves agents without, each said as what to do
    /// (an `#[actions(app)]` type the app does not install): what the app
    /// logs when it starts serving, here for an in-process walk
    /// ([`Explorer::explore`](crate::Explorer::explore)). A note: it does
    /// not change the verdict.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<String>,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl Report {
    /// Whether every MUST held (SHOULDs and application findings aside,
    /// and failures [allowed](crate::Explorer::allow) on purpose) and the
    /// walk was not cut short.
    pub fn passed(&self) -> bool {
        self.stopped.is_none()
            && self.failed(Level::Must).next().is_none()
            && self.failed(Level::McpApps).next().is_none()
    }

    /// Whether every MUST held and the application has no finding (a
    /// handler that failed on arguments its schema accepts), allowed ones
    /// aside: the walk is not [`Verdict::Fail`].
    pub fn clean(&self) -> bool {
        self.passed() && self.failed(Level::App).next().is_none()
    }

    /// The checks of `level` that failed and were not allowed.
    pub fn failed(&self, level: Level) -> impl Iterator<Item = &CheckReport> {
        self.checks.iter().filter(move |c| {
            c.level == level && c.status == Status::Fail && !self.allowed.contains(&c.check)
        })
    }

    /// One check's result.
    ///
    /// # Panics
    ///
    /// Never: every check is in every report.
    pub fn check(&self, check: Check) -> &CheckReport {
        self.checks.iter().find(|c| c.check == check).expect("every check is reported")
    }

    /// Whether the walk exercised everything it could: no [`Gap`].
    pub fn conclusive(&self) -> bool {
        self.gaps.is_empty()
    }

    /// Pass, inconclusive or fail — the one verdict the command line's exit
    /// code gives too (0, 3 and 1):
    ///
    /// - **fail** when a MUST failed, the application has a finding
    ///   (`handler-failed`; a leaked secret fails `masking`, a MUST), or the
    ///   walk could not finish — failures [allowed](crate::Explorer::allow)
    ///   on purpose aside;
    /// - **inconclusive** when nothing failed but the walk could not
    ///   exercise part of the app ([`Report::gaps`]);
    /// - **pass** otherwise.
    pub fn verdict(&self) -> Verdict {
        if !self.clean() {
            Verdict::Fail
        } else if self.conclusive() {
            Verdict::Pass
        } else {
            Verdict::Inconclusive
        }
    }

    /// Whether the walk reached `level` of coverage.
    pub fn covers(&self, level: CoverageLevel) -> bool {
        match level {
            CoverageLevel::Any => true,
            CoverageLevel::EveryOperation => !self.gaps.iter().any(|g| g.operation),
            CoverageLevel::Conclusive => self.conclusive(),
        }
    }

    /// Panics with the whole report unless [`Report::clean`] and the walk
    /// covered what [`Explorer::require_coverage`](crate::Explorer::require_coverage)
    /// asked for. When it passes it still prints (on stderr, which the test
    /// harness shows with `--nocapture` or on a failure elsewhere) what
    /// the walk covered, what it did not, and every SHOULD that failed.
    ///
    /// ```no_run
    /// # async fn demo(make: fn() -> purview::App) {
    /// purview_conformance::Explorer::new().steps(2_000).explore(make).await.assert_clean();
    /// # }
    /// ```
    #[track_caller]
    pub fn assert_clean(&self) {
        assert!(self.clean(), "the agent surface has problems:\n{self}");
        assert!(
            self.covers(self.required),
            "the walk covered less than {:?} asks for:\n{self}",
            self.required
        );
        eprint!("{}", self.summary());
    }

    /// The short form of the report: the SHOULDs that failed, what the walk
    /// covered and could not cover, and the result line.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let _ = self.write_summary(&mut out);
        out
    }

    fn write_summary(&self, f: &mut impl fmt::Write) -> fmt::Result {
        for c in self.failed(Level::Should) {
            writeln!(f, "SHOULD failed: {} ({}) {}", c.check.name(), c.sections, c.title)?;
            for e in &c.evidence {
                writeln!(f, "{:>12}step {}: {}", "", e.step, e.detail)?;
            }
        }
        self.write_coverage(f)?;
        self.write_gaps(f)?;
        self.write_result(f)
    }

    /// The report as pretty JSON.
    ///
    /// Beside the fields it has a `verdict`: `"pass"`, `"inconclusive"` or
    /// `"fail"`.
    pub fn to_json(&self) -> String {
        let mut value = serde_json::to_value(self).expect("a report is plain JSON");
        if let serde_json::Value::Object(map) = &mut value {
            let verdict = serde_json::to_value(self.verdict()).expect("a verdict is a string");
            map.insert("verdict".into(), verdict);
        }
        serde_json::to_string_pretty(&value).expect("a report is plain JSON")
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "MCP GUI Bridge Protocol v0.1.0 conformance — {}", self.target)?;
        if let Some(server) = &self.server {
            writeln!(f, "server: {server}")?;
        }
        writeln!(
            f,
            "walk: {} steps, seed {}, {:.1} s",
            self.steps,
            self.seed,
            self.elapsed.as_secs_f64()
        )?;
        if let Some(why) = &self.stopped {
            writeln!(f, "stopped early: {why}")?;
        }
        for said in &self.setup {
            writeln!(f, "setup: {said}")?;
        }
        self.write_checks(f)?;
        self.write_coverage(f)?;
        self.write_gaps(f)?;
        self.write_shrunk(f)?;
        self.write_result(f)
    }
}

impl Report {
    fn write_checks(&self, f: &mut impl fmt::Write) -> fmt::Result {
        for (level, heading) in [
            (Level::Must, "\n§11 MUST"),
            (Level::McpApps, "\nMCP APPS (io.modelcontextprotocol/ui, when declared)"),
            (Level::Should, "\nSHOULD (observable ones)"),
            (Level::App, "\nAPPLICATION"),
        ] {
            writeln!(f, "{heading}")?;
            for c in self.checks.iter().filter(|c| c.level == level) {
                let status = match c.status {
                    Status::Pass => "pass",
                    Status::Fail => "FAIL",
                    Status::NotExercised => "n/a ",
                };
                let bullet = c.check.bullet().map_or("  ".to_owned(), |b| format!("{b:>2}"));
                writeln!(
                    f,
                    "  {status} {bullet} {:<24} {:<18} {}",
                    c.check.name(),
                    c.sections,
                    c.title
                )?;
                if c.status == Status::NotExercised
                    && let Some(note) = &c.note
                {
                    writeln!(f, "{:>12}not exercised: {note}", "")?;
                }
                for e in &c.evidence {
                    writeln!(f, "{:>12}step {}: {}", "", e.step, e.detail)?;
                }
                if c.failures > c.evidence.len() as u64 {
                    writeln!(f, "{:>12}… {} failures in all", "", c.failures)?;
                }
            }
        }
        Ok(())
    }

    fn write_shrunk(&self, f: &mut impl fmt::Write) -> fmt::Result {
        for s in &self.shrunk {
            writeln!(
                f,
                "\nSHORTEST FAILING SEQUENCE for {} ({} replays{})",
                s.check,
                s.replays,
                if s.reproduced {
                    ""
                } else {
                    "; not reproduced on a fresh server, so the whole walk"
                }
            )?;
            for (i, step) in s.script.steps.iter().enumerate() {
                for call in step.calls() {
                    let together = if step.calls().len() > 1 { " (sent together)" } else { "" };
                    let version = match call.expected_version {
                        crate::script::ExpectedVersion::Omit => String::new(),
                        crate::script::ExpectedVersion::Current => {
                            " expectedVersion=current".into()
                        }
                        crate::script::ExpectedVersion::Stale => " expectedVersion=stale".into(),
                    };
                    writeln!(
                        f,
                        "  {:>3}. {} {}{version}{together}",
                        i + 1,
                        call.tool,
                        serde_json::Value::Object(call.arguments.clone())
                    )?;
                }
            }
            writeln!(f, "  replay: save this line as a file and pass it to --replay")?;
            writeln!(f, "  {}", s.script.to_json())?;
            writeln!(f, "  or, for a Purview app, as a test of its own (my_app builds the app):")?;
            for line in s.script.as_rust_test(s.check).lines() {
                writeln!(f, "    {line}")?;
            }
        }
        Ok(())
    }

    fn write_coverage(&self, f: &mut impl fmt::Write) -> fmt::Result {
        let cov = &self.coverage;
        writeln!(f, "\nCOVERAGE")?;
        let windows: Vec<String> =
            cov.windows.iter().map(|(title, n)| format!("{title} ×{n}")).collect();
        writeln!(
            f,
            "  windows seen: {} (at most {} open at once)",
            windows.join(", "),
            cov.most_open
        )?;
        let called: Vec<String> = cov
            .tools
            .iter()
            .map(|(name, n)| format!("{name} {}/{}", n.succeeded, n.calls))
            .collect();
        writeln!(f, "  operations called (succeeded/calls): {}", called.join(", "))?;
        if !cov.never_called.is_empty() {
            let names: Vec<&str> = cov.never_called.iter().map(String::as_str).collect();
            writeln!(f, "  offered but never called: {}", names.join(", "))?;
        }
        if !cov.skipped_destructive.is_empty() {
            let names: Vec<&str> = cov.skipped_destructive.iter().map(String::as_str).collect();
            writeln!(
                f,
                "  left alone as destructive (allow with --allow-destructive): {}",
                names.join(", ")
            )?;
        }
        if cov.races > 0 {
            writeln!(
                f,
                "  §10.1 probe: {} pair(s) of writes sent together; which of a pair wins is the server's timing, so each pair was then sent again one after the other in a fixed order, and the walk went on the same way whichever won",
                cov.races
            )?;
        }
        self.write_restarts(f)?;
        let codes: Vec<String> = cov.codes.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        writeln!(
            f,
            "  error codes seen: {}",
            if codes.is_empty() { "none".into() } else { codes.join(", ") }
        )?;
        Ok(())
    }

    /// Each fresh start of the app: what withdrew what, what was out of
    /// reach, what was held back, and what the fresh start reached.
    fn write_restarts(&self, f: &mut impl fmt::Write) -> fmt::Result {
        let quoted = |names: &mut dyn Iterator<Item = &String>| {
            names.map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        };
        for restart in &self.coverage.restarts {
            let withdrew: Vec<String> = restart
                .withdrawn
                .iter()
                .map(|(what, by)| format!("`{by}` withdrew `{what}`"))
                .collect();
            writeln!(
                f,
                "  started the app afresh after step {}: {} and nothing offered it again, so {} could not be reached",
                restart.after_step,
                withdrew.join(", "),
                quoted(&mut restart.stranded.iter())
            )?;
            if !restart.held_back.is_empty() {
                writeln!(
                    f,
                    "    then held back {} until what it withdrew was covered",
                    quoted(&mut restart.held_back.iter())
                )?;
            }
            let reached: Vec<&String> = restart
                .stranded
                .iter()
                .filter(|k| self.coverage.tools.get(*k).is_some_and(|c| c.succeeded > 0))
                .collect();
            if !reached.is_empty() {
                writeln!(f, "    and reached {}", quoted(&mut reached.into_iter()))?;
            }
        }
        Ok(())
    }

    fn write_gaps(&self, f: &mut impl fmt::Write) -> fmt::Result {
        if self.gaps.is_empty() {
            return Ok(());
        }
        writeln!(
            f,
            "\nNOT COVERED (the walk could not exercise these, so it proves nothing about them)"
        )?;
        for gap in &self.gaps {
            writeln!(f, "  {}: {}", gap.what, gap.cause)?;
            writeln!(f, "{:>12}fix: {}", "", gap.fix)?;
        }
        Ok(())
    }

    fn write_result(&self, f: &mut impl fmt::Write) -> fmt::Result {
        let must_failed = self.failed(Level::Must).count() + self.failed(Level::McpApps).count();
        let app_failed = self.failed(Level::App).count();
        let should_failed: Vec<&str> = self.failed(Level::Should).map(|c| c.check.name()).collect();
        let mut also = Vec::new();
        let allowed: Vec<&str> = self
            .checks
            .iter()
            .filter(|c| c.status == Status::Fail && self.allowed.contains(&c.check))
            .map(|c| c.check.name())
            .collect();
        if !allowed.is_empty() {
            also.push(format!("allowed on purpose: {}", allowed.join(", ")));
        }
        if !should_failed.is_empty() {
            also.push(format!("SHOULD failed: {}", should_failed.join(", ")));
        }
        let also = if also.is_empty() { String::new() } else { format!("; {}", also.join("; ")) };
        match self.verdict() {
            Verdict::Pass => writeln!(f, "\nRESULT: every MUST holds{also}"),
            Verdict::Inconclusive => {
                let what: Vec<String> =
                    self.gaps.iter().take(6).map(|g| format!("`{}`", g.what)).collect();
                let more = if self.gaps.len() > 6 {
                    format!(" and {} more", self.gaps.len() - 6)
                } else {
                    String::new()
                };
                writeln!(
                    f,
                    "\nRESULT: INCONCLUSIVE: no MUST failed, but the walk could not exercise {}{more} (see NOT COVERED){also}",
                    what.join(", ")
                )
            }
            Verdict::Fail if must_failed > 0 => {
                let app = if app_failed > 0 { "; the application has findings above" } else { "" };
                writeln!(f, "\nRESULT: FAIL: {must_failed} MUST check(s) failed{app}{also}")
            }
            Verdict::Fail if app_failed > 0 => {
                let names: Vec<&str> = self.failed(Level::App).map(|c| c.check.name()).collect();
                writeln!(
                    f,
                    "\nRESULT: FAIL: every MUST holds, but the application has findings above ({}; to live with one for now, pass --allow {}){also}",
                    names.join(", "),
                    names[0]
                )
            }
            Verdict::Fail => writeln!(f, "\nRESULT: FAIL: the walk could not finish{also}"),
        }
    }
}

//! The `purview-conformance` command against real servers over stdio and
//! HTTP: order_desk and the other examples pass; a hand-written server with
//! one planted defect fails, each time with the check for that defect named.
//!
//! This test binary is also the servers: started with
//! `PURVIEW_CONFORMANCE_TEST_SERVER` set, it becomes order_desk,
//! hello_windows, by_hand, the clinic of `support/clinic.rs`, or the mutant
//! note app, so the command under test drives exactly what `cargo run
//! --example` would run.

#[path = "../../examples/by_hand.rs"]
#[allow(dead_code)]
mod by_hand;
#[path = "support/clinic.rs"]
#[allow(dead_code)]
mod clinic;
#[path = "../../examples/hello_windows.rs"]
#[allow(dead_code)]
mod hello_windows;
#[path = "support/mutant.rs"]
mod mutant;
#[path = "../../examples/order_desk/main.rs"]
#[allow(dead_code)]
mod order_desk;

use std::{
    io::{BufRead as _, BufReader},
    process::{Command, ExitCode, Stdio},
};

use serde_json::Value;

const CLI: &str = env!("CARGO_BIN_EXE_purview-conformance");
const ROLE: &str = "PURVIEW_CONFORMANCE_TEST_SERVER";

type Outcome = Result<(), String>;
type Test = (&'static str, fn() -> Outcome);

fn main() -> ExitCode {
    match std::env::var(ROLE).ok().as_deref() {
        Some("order_desk") => return order_desk::main(),
        Some("hello_windows") => return hello_windows::main(),
        Some("by_hand") => return by_hand::main(),
        Some("clinic") => {
            let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
            let app = clinic::clinic(purview::App::builder());
            return match runtime.block_on(app.serve_stdio()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            };
        }
        Some(role) if role.starts_with("mutant") => {
            let defect = role.strip_prefix("mutant:").unwrap_or("").to_owned();
            let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
            runtime.block_on(mutant::serve(&defect));
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let tests: [Test; 9] = [
        ("s11_order_desk_passes_over_stdio", s11_order_desk_passes_over_stdio),
        ("the_same_seed_gives_the_same_report_twice", the_same_seed_gives_the_same_report_twice),
        (
            "a_walk_without_the_pin_is_inconclusive_with_exit_status_3",
            a_walk_without_the_pin_is_inconclusive_with_exit_status_3,
        ),
        ("s11_order_desk_passes_over_http", s11_order_desk_passes_over_http),
        (
            "over_stdio_a_walk_starts_the_clinic_afresh_to_reach_what_close_books_withdrew",
            over_stdio_a_walk_starts_the_clinic_afresh_to_reach_what_close_books_withdrew,
        ),
        ("s11_the_other_examples_pass", s11_the_other_examples_pass),
        ("s11_the_mutant_without_a_defect_passes", s11_the_mutant_without_a_defect_passes),
        (
            "s11_each_planted_defect_fails_its_own_check",
            s11_each_planted_defect_fails_its_own_check,
        ),
        (
            "s9_a_paging_mark_naming_no_table_fails_large_data",
            s9_a_paging_mark_naming_no_table_fails_large_data,
        ),
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    // The names asked for: libtest's arguments without its flags and the
    // values some of them take (`--format terse`).
    let mut filters: Vec<&String> = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if ["--format", "--color", "--test-threads", "--skip", "--logfile"].contains(&word.as_str())
        {
            words.next();
        } else if !word.starts_with('-') {
            filters.push(word);
        }
    }
    let chosen: Vec<Test> = tests
        .into_iter()
        .filter(|(name, _)| {
            filters.is_empty()
                || filters
                    .iter()
                    .any(|f| if flag("--exact") { name == f } else { name.contains(f.as_str()) })
        })
        .collect();
    // libtest's listing, which test runners such as cargo-nextest read;
    // none of these tests is ignored.
    if flag("--list") {
        if !flag("--ignored") {
            for (name, _) in &chosen {
                println!("{name}: test");
            }
        }
        return ExitCode::SUCCESS;
    }
    println!("\nrunning {} tests", chosen.len());
    let failed = run_together(chosen);
    println!(
        "\ntest result: {}. {} failed: {failed:?}",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len()
    );
    if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Runs the tests a few at a time (each mostly waits for the walks it
/// starts), printing each result as it comes; the names of those that
/// failed, in the order given.
fn run_together(tests: Vec<Test>) -> Vec<&'static str> {
    const AT_ONCE: usize = 4;
    let queue = std::sync::Mutex::new(tests.iter().copied().enumerate().collect::<Vec<_>>());
    let failed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().expect("queue").pop();
                    let Some((index, (name, test))) = next else { break };
                    match test() {
                        Ok(()) => println!("test {name} ... ok"),
                        Err(why) => {
                            println!("test {name} ... FAILED\n{why}\n");
                            failed.lock().expect("failures").push((index, name));
                        }
                    }
                }
            });
        }
    });
    let mut failed = failed.into_inner().expect("failures");
    failed.sort();
    failed.into_iter().map(|(_, name)| name).collect()
}

/// Runs the command with `args`, this binary acting as `role` behind
/// `stdio` targets; returns the exit code and the JSON report.
fn conformance(role: &str, args: &[&str]) -> Result<(i32, Value), String> {
    let output = Command::new(CLI)
        .arg("--json")
        .args(args)
        .env(ROLE, role)
        .env_remove("RUST_LOG")
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("could not run {CLI}: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(&stdout).map_err(|e| {
        format!(
            "no JSON report ({e}); stdout: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    Ok((output.status.code().unwrap_or(-1), report))
}

fn stdio_args<'a>(me: &'a str, options: &[&'a str]) -> Vec<&'a str> {
    let mut args = options.to_vec();
    args.extend(["stdio", "--", me]);
    args
}

fn status<'a>(report: &'a Value, check: &str) -> &'a str {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["check"] == check)
        .and_then(|c| c["status"].as_str())
        .unwrap_or("missing")
}

fn failed_musts(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["level"] == "must" && c["status"] == "fail")
        .filter_map(|c| c["check"].as_str().map(str::to_owned))
        .collect()
}

/// Every MUST held, and these were really exercised (not "n/a").
fn passes(report: &Value, code: i32, exercised: &[&str]) -> Outcome {
    let failed = failed_musts(report);
    if code != 0 || !failed.is_empty() {
        return Err(format!("exit {code}, failed MUSTs {failed:?}:\n{report:#}"));
    }
    for check in exercised {
        if status(report, check) != "pass" {
            return Err(format!("{check} is {} in:\n{report:#}", status(report, check)));
        }
    }
    Ok(())
}

fn me() -> Result<String, String> {
    Ok(std::env::current_exe().map_err(|e| e.to_string())?.to_string_lossy().into_owned())
}

/// The checks a walk over order_desk reaches.
const DESK_EXERCISES: [&str; 12] = [
    "capabilities",
    "resource",
    "operability",
    "tools-only-operable",
    "tools-list-changed",
    "tool-names",
    "stale-state",
    "runtime-validation",
    "structured-results",
    "field-errors",
    "notify-after-effect",
    "versions",
];

fn s11_order_desk_passes_over_stdio() -> Outcome {
    let me = me()?;
    let options = [
        "--steps",
        "400",
        "--seed",
        "12",
        "--allow-destructive",
        "--hint",
        "pin=\"1234\"",
        "--secret",
        "hunter2",
    ];
    let (code, report) = conformance("order_desk", &stdio_args(&me, &options))?;
    passes(&report, code, &DESK_EXERCISES)?;
    if status(&report, "broadcast") != "not-exercised" {
        return Err("stdio has one connection, so broadcast cannot be exercised".into());
    }
    Ok(())
}

/// The walk the issue reported: 400 steps at seed 7 without the PIN used to
/// end "every MUST holds" with exit 0 after a walk spent on the lock screen.
/// The report without its timings (`elapsed`, in seconds), which are the
/// only thing two walks of one seed may differ in.
fn without_timings(mut report: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("elapsed");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut report);
    report
}

/// Where two JSON values differ, as pointers with both values (at most 20).
fn differ(at: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if out.len() >= 20 || a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let (va, vb) =
                    (x.get(key).unwrap_or(&Value::Null), y.get(key).unwrap_or(&Value::Null));
                differ(&format!("{at}/{key}"), va, vb, out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                differ(&format!("{at}/{i}"), va, vb, out);
            }
        }
        _ => out.push(format!("  {at}: {a} / {b}")),
    }
}

/// Two runs of seed 7 on order_desk gave different reports (`set_details
/// 9/15` against `8/15`, `stale_state ×11` against `×12`): which write won
/// the §10.1 probe's race decided the rest of the walk.
fn the_same_seed_gives_the_same_report_twice() -> Outcome {
    let me = me()?;
    let options =
        ["--steps", "300", "--seed", "7", "--allow-destructive", "--hint", "pin=\"1234\""];
    let (first_code, first) = conformance("order_desk", &stdio_args(&me, &options))?;
    let (second_code, second) = conformance("order_desk", &stdio_args(&me, &options))?;
    if first["coverage"]["races"].as_u64().unwrap_or(0) == 0 {
        return Err("the walk never raced two writes, so it proves nothing here".into());
    }
    if first_code != second_code
        || without_timings(first.clone()) != without_timings(second.clone())
    {
        let mut differences = Vec::new();
        differ("", &without_timings(first), &without_timings(second), &mut differences);
        return Err(format!(
            "exit {first_code} then {second_code}; the reports differ at:\n{}",
            differences.join("\n")
        ));
    }
    Ok(())
}

fn a_walk_without_the_pin_is_inconclusive_with_exit_status_3() -> Outcome {
    let me = me()?;
    let options = ["--steps", "400", "--seed", "7", "--allow-destructive"];
    let (code, report) = conformance("order_desk", &stdio_args(&me, &options))?;
    let failed = failed_musts(&report);
    if code != 3 || !failed.is_empty() || report["verdict"] != "inconclusive" {
        return Err(format!("exit {code}, failed MUSTs {failed:?}, expected 3:\n{report:#}"));
    }
    let gaps = report["gaps"].as_array().cloned().unwrap_or_default();
    let unlock = gaps.iter().find(|g| g["what"] == "Locked · unlock");
    match unlock.and_then(|g| g["fix"].as_str()) {
        Some(fix) if fix.contains("--hint pin=") => Ok(()),
        _ => Err(format!("no gap for unlock with the --hint pin fix: {gaps:#?}")),
    }
}

/// Over stdio the walk starts the server afresh as it does in-process: a
/// seed that closes the clinic's books before booking (withdrawing `book`)
/// starts a new process, reaches the booking chain there and passes.
fn over_stdio_a_walk_starts_the_clinic_afresh_to_reach_what_close_books_withdrew() -> Outcome {
    let me = me()?;
    let mut tried = Vec::new();
    for seed in ["1", "2", "3", "4", "5", "6"] {
        let options =
            ["--steps", "400", "--seed", seed, "--allow-destructive", "--hint", "pin=\"4417\""];
        let (code, report) = conformance("clinic", &stdio_args(&me, &options))?;
        let restarts = report["coverage"]["restarts"].as_array().cloned().unwrap_or_default();
        if code != 0 || report["verdict"] != "pass" {
            return Err(format!("seed {seed}: exit {code}, expected 0:\n{report:#}"));
        }
        if let Some(restart) = restarts.first() {
            let by = &restart["withdrawn"]["Appointments · book"];
            if by != "End of day · close_books" {
                return Err(format!("seed {seed}: book withdrawn by {by}:\n{report:#}"));
            }
            return Ok(());
        }
        tried.push(seed);
    }
    Err(format!("no seed of {tried:?} started the clinic afresh"))
}

fn s11_order_desk_passes_over_http() -> Outcome {
    let me = me()?;
    let mut desk = Command::new(&me)
        .args(["--http", "127.0.0.1:0"])
        .env(ROLE, "order_desk")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut lines = BufReader::new(desk.stderr.take().ok_or("no stderr")?).lines();
    let url = loop {
        match lines.next() {
            Some(Ok(line)) => {
                if let Some(url) = line.split("MCP endpoint ").nth(1) {
                    break url.trim().to_owned();
                }
            }
            _ => {
                let _ = desk.kill();
                return Err("order_desk exited before printing its endpoint".into());
            }
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    let result = conformance(
        "",
        &[
            "--steps",
            "300",
            "--seed",
            "12",
            "--allow-destructive",
            "--hint",
            "pin=\"1234\"",
            "--secret",
            "hunter2",
            "http",
            &url,
        ],
    );
    let _ = desk.kill();
    let _ = desk.wait();
    let (code, report) = result?;
    passes(&report, code, &DESK_EXERCISES)?;
    // Over HTTP a second session watches: every notification reaches it.
    passes(&report, code, &["broadcast"])?;
    // order_desk shows its window card to MCP Apps hosts: checked as one.
    passes(
        &report,
        code,
        &[
            "apps-resource",
            "apps-document",
            "apps-csp",
            "apps-hidden",
            "apps-content",
            "apps-meta-placement",
        ],
    )
}

fn s11_the_other_examples_pass() -> Outcome {
    let me = me()?;
    for example in ["hello_windows", "by_hand"] {
        let (code, report) = conformance(
            example,
            &stdio_args(&me, &["--steps", "300", "--seed", "13", "--allow-destructive"]),
        )?;
        passes(&report, code, &["operability", "tools-only-operable", "stale-state", "versions"])
            .map_err(|e| format!("{example}: {e}"))?;
    }
    Ok(())
}

fn s11_the_mutant_without_a_defect_passes() -> Outcome {
    let me = me()?;
    let (code, report) =
        conformance("mutant", &stdio_args(&me, &["--steps", "300", "--seed", "5"]))?;
    passes(
        &report,
        code,
        &[
            "tools-only-operable",
            "tools-list-changed",
            "versions",
            "ids",
            "masking",
            "notify-after-effect",
            "structured-results",
        ],
    )
}

fn s11_each_planted_defect_fails_its_own_check() -> Outcome {
    let me = me()?;
    let mut problems = Vec::new();
    for (defect, check) in mutant::DEFECTS {
        let (code, report) = conformance(
            &format!("mutant:{defect}"),
            &stdio_args(&me, &["--steps", "200", "--seed", "5", "--notification-timeout", "1"]),
        )?;
        let failed = failed_musts(&report);
        if code != 1 || failed != [check] {
            problems.push(format!(
                "{defect}: exit {code}, failed MUSTs {failed:?}, expected exactly [{check}]"
            ));
        }
        // Every failure comes with the calls that show it.
        let shrunk = report["shrunk"].as_array().cloned().unwrap_or_default();
        if !shrunk.iter().any(|s| s["check"] == check && s["reproduced"] == true) {
            problems.push(format!("{defect}: no reproduced, shrunk sequence for {check}"));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

/// A server whose `app__read_windows` says an action pages a table the
/// window does not have: `large-data` (a SHOULD) fails with the action's
/// name, and no MUST does.
fn s9_a_paging_mark_naming_no_table_fails_large_data() -> Outcome {
    let me = me()?;
    let (_, report) = conformance(
        "mutant:pages-nothing",
        &stdio_args(&me, &["--steps", "200", "--seed", "5", "--notification-timeout", "1"]),
    )?;
    let failed = failed_musts(&report);
    if !failed.is_empty() {
        return Err(format!("failed MUSTs {failed:?}:\n{report:#}"));
    }
    let check = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["check"] == "large-data")
        .ok_or("no large-data check in the report")?;
    let named = check["evidence"].as_array().into_iter().flatten().any(|e| {
        e["detail"].as_str().is_some_and(|d| {
            d.contains("set_title says it pages table history, but its window has no table history")
        })
    });
    if check["status"] == "fail" && named {
        Ok(())
    } else {
        Err(format!("large-data is not failed with the mark's evidence:\n{check:#}"))
    }
}

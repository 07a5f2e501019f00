//! The argument check against the official JSON Schema Test Suite
//! (draft 2020-12; `purview/tests/json-schema-test-suite`, copied from
//! json-schema-org/JSON-Schema-Test-Suite at 44401e0c, MIT): every case of
//! every keyword file Purview checks, of the format files it asserts, and
//! of the optional files on ECMA-262 patterns.
//!
//! Schemas that hold a reference (`$ref`, `$dynamicRef`) or define one
//! (`$id`, `$anchor`, `$defs`) are not run: Purview inlines references
//! before it validates (`crate::schema::self_contained`), and its
//! validator refuses a schema that still holds one. Everything else must
//! give the suite's verdict, but where [`LENIENT`] names a group of cases
//! the check lets through, with its reason.

use std::{fs, path::PathBuf};

use serde_json::Value;

use super::schema::Node;

/// Groups whose invalid cases the check may let through: (file, group,
/// why), and how many such cases there are at most.
const LENIENT: &[(&str, &str, &str)] = &[(
    "hostname.json",
    "validation of A-label (punycode) host names",
    "A-labels are decoded by the idna crate, which applies UTS 46, not IDNA2008's context \
     rules (RFC 5892: MIDDLE DOT, KERAIA, GERESH, KATAKANA MIDDLE DOT) or its disallowed \
     exceptions; a host name an app takes still has to decode to its own type",
)];
const LENIENT_AT_MOST: usize = 13;

fn suite() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema-test-suite")
}

/// Whether `schema` holds or defines a reference, anywhere.
fn refers(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.keys().any(|k| {
                ["$ref", "$dynamicRef", "$id", "$anchor", "$dynamicAnchor", "$defs"]
                    .contains(&k.as_str())
            }) || map.values().any(refers)
        }
        Value::Array(items) => items.iter().any(refers),
        _ => false,
    }
}

#[derive(Default)]
struct Tally {
    run: usize,
    skipped: usize,
    lenient: usize,
    wrong: Vec<String>,
}

fn run_file(path: &std::path::Path, tally: &mut Tally) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
    let text = fs::read_to_string(path).expect("a suite file");
    let groups: Vec<Value> = serde_json::from_str(&text).expect("suite JSON");
    for group in &groups {
        let schema = &group["schema"];
        let cases = group["tests"].as_array().expect("tests");
        if refers(schema) {
            tally.skipped += cases.len();
            continue;
        }
        let node = match Node::compile(schema) {
            Ok(node) => Some(node),
            Err(e) => {
                tally
                    .wrong
                    .push(format!("{name}: {}: does not compile: {e}", group["description"]));
                None
            }
        };
        let Some(node) = node else { continue };
        for case in cases {
            let description = case["description"].as_str().unwrap_or_default();
            let expected = case["valid"].as_bool().expect("valid");
            let lenient = !expected
                && LENIENT.iter().any(|(f, g, _)| *f == name && group["description"] == *g);
            tally.run += 1;
            if node.is_valid(&case["data"]) != expected {
                if lenient {
                    tally.lenient += 1;
                    continue;
                }
                tally.wrong.push(format!(
                    "{name}: {}: {description}: expected valid = {expected}",
                    group["description"]
                ));
            }
        }
    }
}

/// Every case of `files`, which must all give the suite's verdict (or be
/// let through by [`LENIENT`]).
fn verdicts(files: &[PathBuf]) -> Tally {
    let mut tally = Tally::default();
    for file in files {
        run_file(file, &mut tally);
    }
    assert!(tally.wrong.is_empty(), "{} wrong:\n{}", tally.wrong.len(), tally.wrong.join("\n"));
    tally
}

fn json_files(dir: PathBuf) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("the suite is there")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn s7_3_every_keyword_gives_the_official_suites_verdicts() {
    let files = json_files(suite());
    assert!(files.len() >= 35, "only {} keyword files", files.len());
    let tally = verdicts(&files);
    assert_eq!(tally.lenient, 0);
    // Nearly every case runs: the check cannot pass by skipping.
    assert!(
        tally.run > 900 && tally.skipped * 10 < tally.run,
        "{} run, {} skipped",
        tally.run,
        tally.skipped
    );
}

#[test]
fn s7_3_every_asserted_format_gives_the_official_suites_verdicts() {
    let tally = verdicts(&json_files(suite().join("optional/format")));
    assert!(tally.run > 500, "{} run", tally.run);
    assert!(tally.lenient <= LENIENT_AT_MOST, "{} let through", tally.lenient);
}

#[test]
fn s7_3_patterns_take_their_ecma_262_meaning_as_the_suite_asks() {
    let tally = verdicts(&json_files(suite().join("optional/regex")));
    assert!(tally.run > 50, "{} run", tally.run);
}

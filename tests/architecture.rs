//! Checks on the shape of the code itself, so the boundaries
//! ARCHITECTURE.md describes cannot erode unnoticed.

use std::{fs, path::Path};

use purview_tests::rooms;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the workspace")
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// A source file's code: no comment lines, no `#[cfg(test)]` module.
fn code_of(text: &str) -> String {
    text.split("\n#[cfg(test)]\n")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_core_imports_nothing_from_the_transport() {
    let app = workspace().join("purview/src/app");
    for file in rust_files(&app) {
        let text = fs::read_to_string(&file).expect("readable source");
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            assert!(
                !line.contains("crate::server") && !line.contains("rmcp"),
                "{} reaches the transport: {line}",
                file.display()
            );
        }
    }
}

#[test]
fn architecture_md_names_only_files_that_exist() {
    let text = fs::read_to_string(workspace().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut named = 0;
    for word in text.split(|c: char| c == '`' || c.is_whitespace() || c == '(' || c == ')') {
        let word = word.trim_end_matches([',', '.', ':', ';']);
        let is_path = (word.starts_with("purview")
            || word.starts_with("examples/")
            || word.starts_with("conformance/"))
            && word.contains('/')
            && (word.ends_with(".rs") || word.ends_with('/'));
        if is_path {
            named += 1;
            assert!(
                workspace().join(word).exists(),
                "ARCHITECTURE.md names {word}, which does not exist"
            );
        }
    }
    assert!(named > 20, "only {named} paths found: the check is not reading the document");
}

/// The rooms ARCHITECTURE.md names: the paths in backticks of its `###`
/// headings, and the folders a heading lists "(with `a/`, `b/`)" inside
/// its first path.
fn rooms_named(text: &str) -> Vec<String> {
    let mut rooms = Vec::new();
    for heading in text.lines().filter_map(|l| l.strip_prefix("### ")) {
        let (own, with) = heading.split_once(" (with ").unwrap_or((heading, ""));
        let ticked = |text: &str| -> Vec<String> {
            text.split('`').skip(1).step_by(2).map(|p| p.trim_end_matches('/').to_owned()).collect()
        };
        let own = ticked(own);
        if let Some(base) = own.first() {
            rooms.extend(ticked(with).into_iter().map(|inner| format!("{base}/{inner}")));
        }
        rooms.extend(own);
    }
    rooms
}

/// Every folder under a workspace crate's `src/`, the `src/` itself included.
fn source_folders() -> Vec<String> {
    let manifest = fs::read_to_string(workspace().join("Cargo.toml")).expect("Cargo.toml");
    let members = manifest.split("members = [").nth(1).and_then(|m| m.split(']').next());
    let mut folders = Vec::new();
    for member in members.unwrap_or_default().split(',') {
        let member = member.trim().trim_matches('"');
        let src = workspace().join(member).join("src");
        let mut stack = vec![src];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else { continue };
            let relative = dir.strip_prefix(workspace()).unwrap_or(&dir);
            folders.push(relative.display().to_string());
            stack.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    folders
}

#[test]
fn every_source_folder_is_a_room_architecture_md_names() {
    let text = fs::read_to_string(workspace().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let rooms = rooms_named(&text);
    let folders = source_folders();
    assert!(folders.len() > 10, "only {} source folders found: {folders:?}", folders.len());
    let unnamed: Vec<&String> = folders.iter().filter(|f| !rooms.contains(f)).collect();
    assert!(
        unnamed.is_empty(),
        "source folders ARCHITECTURE.md names no room for (a `###` heading, or \"(with `x/`)\" \
         in one): {unnamed:?}"
    );
    let gone: Vec<&String> =
        rooms.iter().filter(|r| r.contains("/src") && !workspace().join(r).is_dir()).collect();
    assert!(gone.is_empty(), "ARCHITECTURE.md names rooms that do not exist: {gone:?}");
}

#[test]
fn compile_errors_never_name_an_internal_path() {
    let fail = workspace().join("ui-tests/fail");
    for entry in fs::read_dir(&fail).expect("ui-tests/fail") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "stderr") {
            let text = fs::read_to_string(&path).expect("stderr snapshot");
            for internal in
                ["purview::__private", "purview::project::", "purview::app::", "purview::server::"]
            {
                assert!(!text.contains(internal), "{} names {internal}", path.display());
            }
        }
    }
}

/// Where the tests the docs cite live: the integration tests, every
/// crate's unit tests, the examples and the conformance kit.
const TESTED_SOURCES: [&str; 7] = [
    "tests",
    "purview/src",
    "purview-person/src",
    "purview-web/src",
    "purview-egui/src",
    "conformance",
    "examples",
];

/// Every test the docs cite by name (a backticked snake_case name with at
/// least three underscores) exists, so the conformance tables cannot rot.
#[test]
fn the_docs_cite_only_tests_that_exist() {
    let mut sources = String::new();
    for dir in TESTED_SOURCES {
        for file in rust_files(&workspace().join(dir)) {
            sources.push_str(&fs::read_to_string(file).expect("readable source"));
        }
    }
    let mut cited = 0;
    for doc in [
        "README.md",
        "RELIABILITY.md",
        "conformance/README.md",
        "purview-egui/README.md",
        "purview-web/README.md",
        "purview/guide/windows.md",
        "purview/guide/persons-side.md",
        "purview/guide/serving.md",
        "purview/guide/hosts.md",
        "purview/guide/approvals.md",
        "purview/guide/what-an-agent-sees.md",
        "purview/guide/patterns.md",
    ] {
        let text = fs::read_to_string(workspace().join(doc)).expect("doc");
        for (i, chunk) in text.split('`').enumerate() {
            let is_test_name = i % 2 == 1
                && chunk.matches('_').count() >= 3
                && !chunk.contains("__")
                && chunk.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if is_test_name {
                cited += 1;
                assert!(
                    sources.contains(&format!("fn {chunk}(")),
                    "{doc} cites {chunk}, which is no test"
                );
            }
        }
    }
    assert!(cited > 30, "only {cited} test names found: the check is not reading the docs");
}

#[test]
fn every_refusal_is_declared_in_the_refusals_file() {
    let src = workspace().join("purview/src");
    let allowed = [src.join("refusals.rs"), src.join("model/tool.rs")];
    let mut checked = 0;
    for file in rust_files(&src) {
        checked += 1;
        if allowed.contains(&file) {
            continue;
        }
        let text = fs::read_to_string(&file).expect("readable source");
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            assert!(
                !line.contains("ToolError::new"),
                "{} words a refusal itself; declare it in purview/src/refusals.rs: {line}",
                file.display()
            );
        }
    }
    assert!(checked > 30, "only {checked} files read: the check is not reading the sources");
}

#[test]
fn protocol_words_are_spelled_only_in_purview_naming() {
    // A tool name composed or split by hand, `expectedVersion` or a window
    // id spelled out: each belongs to purview-naming.
    let by_hand = [
        "\"__\"",
        "\"expectedVersion\"",
        "format!(\"w{",
        "}__{}\"",
        "}__{a}\"",
        "}__{action}\"",
        "}__{name}\"",
        "\"app__{",
    ];
    let mut checked = 0;
    for dir in ["purview/src", "purview-macros/src", "purview-egui/src", "conformance/src"] {
        for file in rust_files(&workspace().join(dir)) {
            checked += 1;
            let text = fs::read_to_string(&file).expect("readable source");
            // A file's unit tests come last and may hold frames as a client
            // writes them, words and all.
            for line in code_of(&text).lines() {
                for word in by_hand {
                    assert!(
                        !line.contains(word),
                        "{} spells {word} itself; use purview_naming (tool_name, split_tool_name, SEPARATOR, EXPECTED_VERSION, window_id): {line}",
                        file.display()
                    );
                }
            }
        }
    }
    assert!(checked > 60, "only {checked} files read: the check is not reading the sources");
}

#[test]
fn settings_and_the_lock_helper_are_leaves() {
    // ToolSurface and Limits sit below everything that reads them: the
    // settings module uses nothing of Purview's own, and the modules that
    // read them name it rather than the builder (which re-exports them).
    // The lock helper is a leaf too, so shared.rs is no longer in a loop
    // with every file that keeps a Mutex.
    let src = workspace().join("purview/src");
    for leaf in ["settings.rs", "lock.rs"] {
        let text = fs::read_to_string(src.join(leaf)).expect("a leaf module");
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            assert!(
                !line.contains("crate::") && !line.contains("super::"),
                "purview/src/{leaf} must stay a leaf: {line}"
            );
        }
    }
    for (file, uses) in
        [("validate/mod.rs", "settings::Limits"), ("instructions.rs", "settings::ToolSurface")]
    {
        let text = fs::read_to_string(src.join(file)).expect("readable source");
        assert!(text.contains(uses), "purview/src/{file} should take {uses} from the leaf");
        assert!(!text.contains("app::builder"), "purview/src/{file} reaches into the builder");
    }
}

#[test]
fn in_the_kit_the_walk_never_reaches_back_into_the_explorer() {
    // explore.rs runs walks; a walk reads only its settings, which sit
    // below both (conformance/src/settings.rs).
    let kit = workspace().join("conformance/src");
    let mut checked = 0;
    for file in rust_files(&kit.join("walk")) {
        checked += 1;
        let text = fs::read_to_string(&file).expect("readable source");
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            assert!(
                !line.contains("explore::") && !line.contains("Explorer"),
                "{} reaches back into the explorer: {line}",
                file.display()
            );
        }
    }
    assert!(checked > 5, "only {checked} walk files read");
    let settings = fs::read_to_string(kit.join("settings.rs")).expect("settings.rs");
    for line in settings.lines().filter(|l| !l.trim_start().starts_with("//")) {
        assert!(
            !line.contains("explore") && !line.contains("walk"),
            "conformance/src/settings.rs must stay below the explorer and the walk: {line}"
        );
    }
}

/// The paths a source file names through `crate::`, as the identifiers in
/// them (`use crate::{a::B, C}` and `crate::a::{B, C}` give `a`, `B`, `C`;
/// a glob gives `*`), outside comments and the file's test module.
fn crate_paths(text: &str) -> Vec<String> {
    let code = code_of(text);
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        // The path's segments, then the brace group it may end in.
        let chain = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let mut end = chain;
        if rest[chain..].starts_with('{') {
            let mut depth = 0;
            end = rest[chain..]
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(rest.len(), |(i, _)| chain + i + 1);
        } else if rest[chain..].starts_with('*') {
            names.push("*".to_owned());
        }
        names.extend(
            rest[..end]
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '*'))
                .filter(|w| !w.is_empty())
                .map(str::to_owned),
        );
    }
    names
}

#[test]
fn no_type_reaches_up_from_below_the_core() {
    // ARCHITECTURE.md: the model, the action specs, argument decoding, the
    // projection and the modules beside them sit below `app/`. A type the
    // core defines, reached through a root re-export (`crate::Context`),
    // would make a cycle the import graph does not show, so every name
    // `app/` defines is looked for in what these files take from the crate.
    let src = workspace().join("purview/src");
    // The root's modules that re-export app/'s types count as app/ too,
    // and a glob could bring in anything.
    let mut defined: Vec<String> =
        ["app", "App", "approval", "activity", "http", "by_hand", "prelude", "window", "*"]
            .map(str::to_owned)
            .to_vec();
    for file in rust_files(&src.join("app")) {
        let text = fs::read_to_string(&file).expect("readable source");
        for line in text.lines() {
            let line = line.trim_start();
            for kind in ["pub struct ", "pub enum ", "pub trait ", "pub type "] {
                if let Some(rest) = line.strip_prefix(kind) {
                    let name: String =
                        rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    defined.push(name);
                }
            }
        }
    }
    assert!(defined.len() > 20, "only {} names found in app/", defined.len());
    let mut below: Vec<_> = rust_files(&src.join("model"));
    below.extend(rust_files(&src.join("validate")));
    for file in [
        "action.rs",
        "args.rs",
        "view.rs",
        "projection.rs",
        "schema.rs",
        "signature.rs",
        "redact.rs",
        "instructions.rs",
        "settings.rs",
        "lock.rs",
        "refusals.rs",
        "constraint.rs",
    ] {
        below.push(src.join(file));
    }
    for file in below {
        let text = fs::read_to_string(&file).expect("a module below app/");
        for name in crate_paths(&text) {
            assert!(
                !defined.contains(&name),
                "{} sits below app/ but names `{name}`, which app/ defines",
                file.display()
            );
        }
    }
}

#[test]
fn no_source_file_runs_over_600_lines() {
    // Function length is clippy's `too_many_lines` (clippy.toml), turned on
    // in these crates; file length is checked here.
    let mut checked = 0;
    for krate in [
        "purview/src",
        "purview-macros/src",
        "conformance/src",
        "purview-egui/src",
        "purview-naming/src",
        "purview-pattern/src",
    ] {
        for file in rust_files(&workspace().join(krate)) {
            checked += 1;
            let lines = fs::read_to_string(&file).expect("readable source").lines().count();
            assert!(lines <= 600, "{} has {lines} lines; split it by concern", file.display());
        }
    }
    assert!(checked > 60, "only {checked} files read");
}

/// The names `purview`'s root lists in its documentation: every public
/// module, item and macro at the top level of lib.rs and every name a root
/// `pub use` brings in, once each (a trait and its derive share a name),
/// leaving out what is `#[doc(hidden)]`. A glob counts as `*`, which the
/// test refuses.
fn root_names(lib: &str) -> Vec<String> {
    const ITEMS: [&str; 9] = [
        "pub mod ",
        "pub fn ",
        "pub struct ",
        "pub enum ",
        "pub trait ",
        "pub type ",
        "pub const ",
        "pub static ",
        "macro_rules! ",
    ];
    let mut names = Vec::new();
    let (mut depth, mut hidden, mut exported) = (0i32, false, false);
    let mut statement = None::<String>;
    for line in lib.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let trimmed = line.trim();
        if let Some(text) = statement.as_mut() {
            text.push_str(trimmed);
            text.push(' ');
        } else if depth == 0 {
            if trimmed.starts_with("#[doc(hidden)]") {
                hidden = true;
            } else if trimmed.starts_with("#[macro_export]") {
                exported = true;
            } else if trimmed.starts_with("pub use ") {
                statement = Some(format!("{trimmed} "));
            } else if let Some(rest) = ITEMS.iter().find_map(|k| trimmed.strip_prefix(k)) {
                let name: String =
                    rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let public = !trimmed.starts_with("macro_rules!") || exported;
                if public && !hidden {
                    names.push(name);
                }
                (hidden, exported) = (false, false);
            } else if !trimmed.starts_with("#[") {
                (hidden, exported) = (false, false);
            }
        }
        if statement.as_ref().is_some_and(|t| t.trim_end().ends_with(';')) {
            let text = statement.take().unwrap_or_default();
            let body = text.trim().trim_start_matches("pub use ").trim_end_matches(';');
            if !std::mem::take(&mut hidden) {
                names.extend(used_names(body));
            }
            continue;
        }
        if statement.is_none() {
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The names one `use` tree brings in: `a::{b::C, D as E}` gives C and E.
fn used_names(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    match tree.find('{') {
        Some(open) => {
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
            for c in inner.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        parts.push(std::mem::take(&mut current));
                        continue;
                    }
                    _ => {}
                }
                current.push(c);
            }
            parts.push(current);
            parts.iter().filter(|p| !p.trim().is_empty()).flat_map(|p| used_names(p)).collect()
        }
        None => {
            let last = tree.rsplit(" as ").next().unwrap_or(tree);
            vec![last.rsplit("::").next().unwrap_or(last).trim().to_owned()]
        }
    }
}

#[test]
fn the_public_root_lists_at_most_40_names() {
    // One can hold the root in one's head: everything else sits in a
    // module named for what it is (approval, activity, http, settings,
    // projection, model, by_hand). CHANGELOG.md lists where each name went.
    let lib = fs::read_to_string(workspace().join("purview/src/lib.rs")).expect("lib.rs");
    let names = root_names(&lib);
    for expected in ["App", "window", "Row", "model", "serde_json", "approval"] {
        assert!(names.iter().any(|n| n == expected), "the count missed `{expected}`: {names:?}");
    }
    assert!(!names.iter().any(|n| n.starts_with("__")), "hidden modules are not listed");
    assert!(!names.iter().any(|n| n == "*"), "a glob at the root hides what it lists");
    assert!(names.len() <= 40, "the root lists {} names: {names:?}", names.len());
}

/// The crates `cargo tree` shows `package` pulling in (normal dependencies
/// only, with `flags`).
fn dependencies_of(package: &str, flags: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .current_dir(workspace())
        .args(["tree", "--locked", "-e", "normal", "--prefix", "none", "-p", package])
        .args(flags)
        .output()
        .expect("cargo tree runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut crates: Vec<String> =
        text.lines().filter_map(|l| l.split_whitespace().next()).map(str::to_owned).collect();
    crates.sort();
    crates.dedup();
    crates
}

/// Headless apps and the kit never compile a GUI crate; the kit installed with
/// `--no-default-features` (stdio and in-process walks) and a stdio app
/// on `cli` without `http` (README's first app) no HTTP stack: both are
/// build time a developer would wait for and not use.
#[test]
fn headless_examples_pull_no_gui_crate_and_the_stdio_only_kit_no_http_client() {
    let gui = ["egui", "eframe", "winit", "wgpu", "glow", "accesskit", "purview-egui"];
    let examples = dependencies_of("purview-examples", &[]);
    assert!(examples.iter().any(|c| c == "purview"), "{examples:?}");
    let pulled: Vec<&String> = examples.iter().filter(|c| gui.contains(&c.as_str())).collect();
    assert!(pulled.is_empty(), "the headless examples pull {pulled:?}");

    let http = ["reqwest", "hyper", "hyper-util", "ureq", "axum", "tower-http"];
    let kit = dependencies_of("purview-conformance", &["--no-default-features"]);
    assert!(kit.iter().any(|c| c == "rmcp"), "{kit:?}");
    let pulled: Vec<&String> = kit.iter().filter(|c| http.contains(&c.as_str())).collect();
    assert!(pulled.is_empty(), "the stdio-only kit pulls {pulled:?}");
    // The default kit does speak HTTP: the check above can fail.
    let full = dependencies_of("purview-conformance", &[]);
    assert!(full.iter().any(|c| c == "reqwest"), "{full:?}");
    // Neither kit installs a GUI crate (its tests use the web face, which
    // is no GUI crate either, and they are not installed).
    for kit in [&kit, &full] {
        let pulled: Vec<&String> = kit.iter().filter(|c| gui.contains(&c.as_str())).collect();
        assert!(pulled.is_empty(), "the kit pulls {pulled:?}");
    }
    let headless = dependencies_of("purview", &["--no-default-features"]);
    assert!(!headless.iter().any(|c| c == "hyper"), "purview without `http` pulls hyper");
    // The command line without `http`: clap, and no HTTP crate.
    let command = dependencies_of("purview", &["--no-default-features", "--features", "cli"]);
    assert!(command.iter().any(|c| c == "clap"), "{command:?}");
    let pulled: Vec<&String> = command.iter().filter(|c| http.contains(&c.as_str())).collect();
    assert!(pulled.is_empty(), "purview with `cli` and without `http` pulls {pulled:?}");
    // The README's first app: logging only, so no clap either, and no
    // regex engine built a second time for the macros.
    let start = dependencies_of("purview", &["--no-default-features", "--features", "logging"]);
    assert!(start.iter().any(|c| c == "tracing-subscriber"), "{start:?}");
    let pulled: Vec<&String> =
        start.iter().filter(|c| http.contains(&c.as_str()) || *c == "clap").collect();
    assert!(pulled.is_empty(), "purview with `logging` pulls {pulled:?}");
    // Arguments are checked by Purview's own validator for its own
    // self-contained schemas: no general-purpose validator, whose tree
    // (fancy-regex, fraction and the num crates, referencing, uuid-simd,
    // email_address, ahash) would double the first app's build. The kit,
    // which checks other servers' schemas, keeps one: the check can fail.
    let validators = ["jsonschema", "boon", "fancy-regex", "fraction", "referencing"];
    for flags in [&["--no-default-features", "--features", "logging"][..], &[]] {
        let runtime = dependencies_of("purview", flags);
        let pulled: Vec<&String> =
            runtime.iter().filter(|c| validators.contains(&c.as_str())).collect();
        assert!(pulled.is_empty(), "purview {flags:?} pulls {pulled:?}");
    }
    assert!(full.iter().any(|c| c == "jsonschema"), "{full:?}");
    let macros = dependencies_of("purview-macros", &[]);
    let engines: Vec<&String> = macros
        .iter()
        .filter(|c| ["regex-automata", "fancy-regex", "regex"].contains(&c.as_str()))
        .collect();
    assert!(engines.is_empty(), "the macros build a regex engine: {engines:?}");
}

/// Every public method of `App`, with its signature up to the body: the
/// `impl App` blocks of every file of purview/src/app, and of lib.rs.
fn app_methods() -> Vec<(String, String)> {
    let mut methods = Vec::new();
    let mut files = rust_files(&workspace().join("purview/src/app"));
    files.push(workspace().join("purview/src/lib.rs"));
    for file in files {
        let text = code_of(&fs::read_to_string(&file).expect("readable source"));
        let mut in_app = false;
        let mut signature: Option<String> = None;
        for line in text.lines() {
            if line.starts_with("impl App {") {
                in_app = true;
            } else if line.starts_with('}') {
                in_app = false;
            }
            if !in_app {
                continue;
            }
            let trimmed = line.trim();
            if signature.is_none()
                && let Some(rest) = trimmed
                    .strip_prefix("pub fn ")
                    .or_else(|| trimmed.strip_prefix("pub async fn "))
            {
                signature = Some(rest.to_owned());
            } else if let Some(text) = signature.as_mut() {
                text.push(' ');
                text.push_str(trimmed);
            }
            if signature.as_ref().is_some_and(|s| s.contains('{') || s.ends_with(';')) {
                let text = signature.take().unwrap_or_default();
                let name: String =
                    text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                methods.push((name, text));
            }
        }
    }
    methods
}

#[test]
fn app_has_one_way_to_start_a_call_besides_the_typed_ones() {
    // A call from any side is a `Call`: typed (`handle.act()`,
    // `app.act::<A>()`) or by tool name (`App::call`); who calls and
    // cancellation are options on it.
    let methods = app_methods();
    assert!(methods.len() > 20, "only {} methods of App found: {methods:?}", methods.len());
    let mut starters: Vec<&str> = methods
        .iter()
        .filter(|(_, signature)| signature.contains("Call<") || signature.contains("::Calls"))
        .map(|(name, _)| name.as_str())
        .collect();
    starters.sort_unstable();
    assert_eq!(starters, ["act", "call"], "the methods of App that start a call");
    for gone in ["perform", "call_cancellable", "call_tool", "call_typed"] {
        assert!(
            !methods.iter().any(|(n, _)| n == gone),
            "App::{gone} is back: make it a Call option"
        );
    }
    assert!(
        methods.iter().all(|(_, s)| !s.contains("-> Result<model::ToolResult")
            && !s.contains("-> Result<ToolResult")
            && !s.contains("-> ToolOutcome")),
        "an App method returns a wire result instead of a Call"
    );
}

#[test]
fn app_is_a_thin_facade_and_every_call_takes_one_path() {
    // `App`'s methods live in app/facade.rs and delegate to the rooms that
    // decide; serving an app is the server's (server/mod.rs, http.rs).
    // The rooms below are functions over the shared state: none adds
    // methods to `App`.
    let src = workspace().join("purview/src");
    let mut with_impl: Vec<String> = rust_files(&src)
        .into_iter()
        .filter(|file| {
            let text = code_of(&fs::read_to_string(file).expect("readable source"));
            text.lines().any(|line| line.starts_with("impl App {"))
        })
        .map(|file| file.strip_prefix(&src).unwrap_or(&file).display().to_string())
        .collect();
    with_impl.sort_unstable();
    assert!(with_impl.len() <= 3, "`impl App` in {} files: {with_impl:?}", with_impl.len());
    let in_app: Vec<&String> = with_impl.iter().filter(|f| f.starts_with("app/")).collect();
    assert_eq!(in_app, ["app/facade.rs"], "`impl App` below the facade");
    // Every call — typed, by tool name, listed by a scene, an agent's
    // tools/call — is a `Call` that ends in `phases::perform`: the old
    // side doors stay shut.
    for file in rust_files(&src) {
        let text = code_of(&fs::read_to_string(&file).expect("readable source"));
        for gone in ["call_tool_as", "call_action", "run_call", "route_tool"] {
            assert!(
                !text.contains(&format!("fn {gone}")) && !text.contains(&format!(".{gone}(")),
                "{gone} is back in {}: every call is a `Call`",
                file.display()
            );
        }
    }
}

#[test]
fn a_call_result_has_two_names_and_the_wire_types_stay_in_model() {
    // What a handler returns (ActionOutput) and what a caller gets back
    // (Performed); `model` holds the MCP wire forms.
    let lib = fs::read_to_string(workspace().join("purview/src/lib.rs")).expect("lib.rs");
    let mut results: Vec<String> = root_names(&lib)
        .into_iter()
        .filter(|n| ["Result", "Output", "Outcome", "Performed"].iter().any(|w| n.ends_with(w)))
        .collect();
    results.sort();
    assert_eq!(results, ["ActionOutput", "Performed"]);
    let prelude = lib.split("pub mod prelude").nth(1).expect("a prelude");
    let prelude = &prelude[..prelude.find("}\n").unwrap_or(prelude.len())];
    for wire in ["ToolResult", "ToolOutcome", "ActionResult"] {
        assert!(!prelude.contains(wire), "the prelude offers `{wire}`");
    }
}

/// The words between the backticks of `text`.
fn ticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// RELIABILITY.md "Inventory": every scarce thing a client can hold has a
/// row naming what bounds it, whom it is counted against, and an attack
/// that exists — so a new limit, pool or queue cannot be added without
/// saying who shares it and how it was attacked. The sources of truth:
/// every field of `Limits`, every limit of `HttpOptions`, every `MAX_*`
/// and `OUTBOUND_FRAMES` bound of the transport and the core, and every
/// file that makes a fair-share pool.
#[test]
fn every_scarce_thing_is_in_the_inventory_with_an_attack_that_exists() {
    let root = workspace();
    let reliability = fs::read_to_string(root.join("RELIABILITY.md")).expect("RELIABILITY.md");
    let inventory = reliability
        .split("\n## Inventory")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("RELIABILITY.md has an Inventory section");
    let rows: Vec<Vec<&str>> = inventory
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| scarce thing"))
        .map(|l| l.split(" | ").collect())
        .collect();
    assert!(rows.len() >= 10, "{} rows", rows.len());

    // What must be named.
    let mut bounds = Vec::new();
    let field_names = |path: &str, strukt: &str| -> Vec<String> {
        let text = fs::read_to_string(root.join(path)).expect("readable source");
        let body = text
            .split(&format!("pub struct {strukt} {{"))
            .nth(1)
            .and_then(|b| b.split("\n}").next())
            .unwrap_or_else(|| panic!("{strukt} in {path}"));
        body.lines()
            .filter_map(|l| {
                let l = l.trim();
                let l = l.strip_prefix("pub(super) ").or_else(|| l.strip_prefix("pub "))?;
                Some(l.split(':').next()?.trim().to_owned())
            })
            .collect()
    };
    for field in field_names("purview/src/settings.rs", "Limits") {
        bounds.push(format!("Limits::{field}"));
    }
    let not_limits = [
        "addr",
        "path",
        "clients",
        "allowed_hosts",
        "allowed_origins",
        "remote_without_token",
        "nagle",
        // A measurement's switch (CPU turns off), not a bound.
        "no_cpu_turns",
        // The window card: what is shown, not a bound.
        "card",
    ];
    for field in field_names("purview/src/server/http_options.rs", "HttpOptions") {
        if !not_limits.contains(&field.as_str()) {
            bounds.push(format!("HttpOptions::{field}"));
        }
    }
    let mut pools = Vec::new();
    for dir in ["purview/src/server", "purview/src/app"] {
        for file in rust_files(&root.join(dir)) {
            let code = code_of(&fs::read_to_string(&file).expect("readable source"));
            // Top-level bounds only: a function's own constants bound its
            // own work.
            for line in code.lines() {
                let declared = line
                    .strip_prefix("pub(crate) const ")
                    .or_else(|| line.strip_prefix("pub(super) const "))
                    .or_else(|| line.strip_prefix("const "))
                    .and_then(|rest| rest.split(':').next());
                if let Some(name) = declared
                    && (name.starts_with("MAX_") || name == "OUTBOUND_FRAMES")
                {
                    bounds.push(name.to_owned());
                }
            }
            if code.contains("Pool::new(") || code.contains("Pool::recycling(") {
                let name = file.strip_prefix(root.join("purview/src")).expect("inside");
                pools.push(name.display().to_string());
            }
        }
    }
    assert!(bounds.len() >= 20 && pools.len() >= 4, "{bounds:?} {pools:?}");

    // Each is named in some row.
    for bound in &bounds {
        assert!(
            rows.iter()
                .any(|row| row.get(1).is_some_and(|cell| ticked(cell).contains(&bound.as_str()))),
            "`{bound}` bounds something a client can hold, and RELIABILITY.md's inventory has no row for it"
        );
    }
    for pool in &pools {
        assert!(
            rows.iter().any(|row| row.last().is_some_and(|cell| cell.contains(pool.as_str()))),
            "{pool} makes a fair-share pool, and no inventory row names it"
        );
    }

    // Each row's attacks exist: a fairness-harness strategy or a test.
    let fairness =
        fs::read_to_string(root.join("tests/support/fairness.rs")).expect("the fairness harness");
    let mut sources = String::new();
    for dir in TESTED_SOURCES {
        for file in rust_files(&root.join(dir)) {
            sources.push_str(&fs::read_to_string(&file).expect("readable source"));
        }
    }
    for row in &rows {
        let attacks = row.get(4).map(|cell| ticked(cell)).unwrap_or_default();
        assert!(!attacks.is_empty(), "an inventory row names no attack: {row:?}");
        for attack in attacks {
            let exists = match attack.strip_prefix("Strategy::") {
                Some(variant) => fairness.contains(&format!("    {variant},")),
                None => sources.contains(&format!("fn {attack}(")),
            };
            assert!(exists, "the inventory names `{attack}`, which is not a strategy or a test");
        }
    }
}

/// Each line a circle of files that use each other, or the rule broken.
fn assert_no_circles(found: &[String]) {
    assert!(
        found.is_empty(),
        "{} file circle(s); move what one file needs into the file that decides it:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// No two files of purview use each other, directly or around a circle
/// (tests/support/rooms.rs builds the graph): each file is one room.
#[test]
fn no_file_circles_in_purview() {
    assert_no_circles(&rooms::circles_in(&[workspace().join("purview/src")]));
}

#[test]
fn no_file_circles_in_any_other_crate() {
    let others: Vec<std::path::PathBuf> =
        rooms::crate_sources().into_iter().filter(|src| !src.ends_with("purview/src")).collect();
    assert!(others.len() >= 5, "only {} crates found beside purview", others.len());
    assert_no_circles(&rooms::circles_in(&others));
}

/// The graph finds what it is meant to: a pair, a longer circle, a circle
/// through a re-export, and none through a file's own folder.
#[test]
fn the_circle_finder_sees_pairs_longer_circles_and_re_exports() {
    let dir = std::env::temp_dir().join(format!("purview-rooms-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("a")).expect("a scratch folder");
    let files = [
        ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\npub use d::D;\n"),
        ("a/mod.rs", "mod inner;\npub struct Top;\n"),
        (
            "a/inner.rs",
            "use super::Top;\n// crate::b::B in a comment\nfn f() -> &'static str { \"crate::b::B\" }\n",
        ),
        ("b.rs", "pub struct B;\npub fn make() -> crate::c::C { crate::c::C }\n"),
        ("c.rs", "use crate::D;\npub struct C;\n"),
        (
            "d.rs",
            "pub struct D;\npub fn b() -> super::b::B { super::b::B }\n#[cfg(test)]\nmod tests { use crate::a::Top; }\n",
        ),
    ];
    for (file, text) in files {
        std::fs::write(src.join(file), text).expect("a scratch file");
    }
    let found = rooms::circles_in(&[src]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 1, "{found:?}");
    for file in ["b.rs", "c.rs", "d.rs"] {
        assert!(found[0].contains(&format!("src/{file}")), "{}", found[0]);
    }
    assert!(found[0].contains("(crate::D)"), "through the root's re-export: {}", found[0]);
    assert!(!found[0].contains("a/"), "a file may use its folder's: {}", found[0]);
}

/// Above the files, purview's top-level modules may name each other in at
/// most three pairs: today only `app` ↔ `window`, where a handler's
/// `Context` names the core's data files and the core stores the windows
/// whose actions take a `Context`.
#[test]
fn at_most_three_pairs_of_purview_modules_use_each_other() {
    let pairs = rooms::mutual_modules(&workspace().join("purview/src"));
    assert!(pairs.len() <= 3, "{} pairs:\n{}", pairs.len(), pairs.join("\n"));
    assert!(
        pairs.iter().any(|p| p.starts_with("app ↔ window")),
        "the finder no longer sees the one known pair: {pairs:?}"
    );
}

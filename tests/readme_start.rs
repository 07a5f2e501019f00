//! The README's "Start a new app" section, built as a new user would: its
//! `[dependencies]` block and its code copied out of the README text into
//! a fresh crate outside the workspace (only `version = "0.1"` becomes a
//! path to this repository's purview, which is not published yet), built
//! offline, and then checked with the conformance kit as the section says;
//! then built again with `"http"` added, as the section suggests.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use purview_conformance::{Endpoint, Explorer, Verdict};

const SECTION: &str = "## Start a new app";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the repository").into()
}

/// The text of the section, up to the next `## ` heading.
fn section(readme: &str) -> &str {
    let start = readme.find(SECTION).expect("the README has a \"Start a new app\" section");
    let rest = &readme[start + SECTION.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The body of the first fenced block whose info string starts with `lang`.
fn block<'a>(text: &'a str, lang: &str) -> &'a str {
    let fence = format!("```{lang}");
    let start = text.find(&fence).unwrap_or_else(|| panic!("no ```{lang} block in the section"));
    let body = &text[start..];
    let body = &body[body.find('\n').expect("a fence line ends") + 1..];
    &body[..body.find("```").expect("the block is closed")]
}

/// The README's `[dependencies]`, with purview taken from this repository.
fn dependencies(toml: &str) -> String {
    let purview = repo().join("purview");
    let mut replaced = 0;
    let lines: Vec<String> = toml
        .lines()
        .map(|line| {
            if line.starts_with("purview ") && line.contains("version = \"0.1\"") {
                replaced += 1;
                line.replace("version = \"0.1\"", &format!("path = {:?}", purview.display()))
            } else {
                line.to_owned()
            }
        })
        .collect();
    assert_eq!(replaced, 1, "the block names purview once, by version:\n{toml}");
    lines.join("\n")
}

/// Writes the crate into a fresh directory; the workspace's lock file pins
/// the same versions, so it builds offline from the cargo cache.
fn write_crate(readme: &str) -> PathBuf {
    let text = section(readme);
    let dir = std::env::temp_dir().join(format!("purview-readme-start-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).expect("create the crate");
    let manifest = format!(
        "[package]\nname = \"inbox\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         # Not part of any workspace.\n[workspace]\n\n{}\n",
        dependencies(block(text, "toml"))
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("write Cargo.toml");
    std::fs::write(dir.join("src/main.rs"), block(text, "rust")).expect("write main.rs");
    for file in ["Cargo.lock", "rust-toolchain.toml"] {
        std::fs::copy(repo().join(file), dir.join(file)).expect("copy from the repository");
    }
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readme_start_section_builds_outside_the_workspace_and_passes_the_kit() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("read README.md");
    let dir = write_crate(&readme);
    // The workspace's target directory: a dependency the workspace has
    // already built with the same features is not built again, and the
    // app's own crate, outside the workspace, is built from its sources.
    let target = repo().join("target");
    if let Err(why) = cargo("build", &dir, &target) {
        panic!("the README's start example does not build:\n{why}");
    }
    let binary = target.join("debug").join("inbox");
    // The section's check: `purview-conformance --steps 300 --allow-destructive stdio -- …`.
    let report = Explorer::new()
        .steps(300)
        .allow_destructive(true)
        .run(&Endpoint::stdio(&binary, Vec::<String>::new()))
        .await;
    assert_eq!(report.verdict(), Verdict::Pass, "{report}");

    // The section says to add "http" to serve streamable HTTP as well:
    // that set builds too.
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("read Cargo.toml");
    let with_http = with_feature(&manifest, "http");
    std::fs::write(dir.join("Cargo.toml"), &with_http).expect("write Cargo.toml");
    if let Err(why) = cargo("check", &dir, &target) {
        panic!(
            "the README's start example with \"http\" added does not build:\n{with_http}\n{why}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cargo {command} --offline` of the crate in `dir`, into `target`: what
/// it printed on stderr if it failed.
fn cargo(command: &str, dir: &Path, target: &Path) -> Result<(), String> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([command, "--offline", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cargo did not run: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// `manifest` with `feature` added to purview's features.
fn with_feature(manifest: &str, feature: &str) -> String {
    let mut added = 0;
    let lines: Vec<String> = manifest
        .lines()
        .map(|line| {
            if line.starts_with("purview ") && line.contains("features = [") {
                added += 1;
                line.replacen("features = [", &format!("features = [\"{feature}\", "), 1)
            } else {
                line.to_owned()
            }
        })
        .collect();
    assert_eq!(added, 1, "purview's line names its features:\n{manifest}");
    lines.join("\n")
}

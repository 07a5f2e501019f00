//! Every sentence the person reads that no app wrote lives in
//! `src/words.rs`, and the faces (purview-egui, purview-web and the page's
//! script the card shares) draw it from the model: none writes a sentence
//! of its own, reads a schema, or computes a page.

use std::{fs, path::Path};

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate sits in the workspace")
}

/// The string literals of `code` quoted with `quote`, comment lines and a
/// Rust file's test module left out.
fn literals(code: &str, quote: char) -> Vec<String> {
    let code = code.split("\n#[cfg(test)]\n").next().unwrap_or_default();
    let mut found = Vec::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut parts = line.split(quote);
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next().or(Some(""))) {
            found.push(inside.to_owned());
        }
    }
    found
}

/// The fixed pieces of every sentence `words.rs` declares: the text of
/// its literals between the `{..}` it fills in, at least two words long.
fn sentences() -> Vec<String> {
    let words = fs::read_to_string(workspace().join("purview-person/src/words.rs")).unwrap();
    let mut pieces = Vec::new();
    for literal in literals(&words, '"') {
        for piece in literal.split(['{', '}']).step_by(2) {
            let piece = piece.trim();
            if piece.split_whitespace().count() >= 2 {
                pieces.push(piece.to_owned());
            }
        }
    }
    pieces
}

fn sources(dir: &str, ext: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for entry in fs::read_dir(workspace().join(dir)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == ext) {
            files.push((path.display().to_string(), fs::read_to_string(&path).unwrap()));
        }
    }
    files
}

#[test]
fn every_sentence_a_person_reads_is_declared_in_the_words_file() {
    let sentences = sentences();
    for expected in ["Agent is waiting for your approval", "Blocked by", "This cannot be undone."] {
        assert!(
            sentences.iter().any(|s| s.contains(expected)),
            "{expected:?} not read: {sentences:?}"
        );
    }
    let mut faces = sources("purview-egui/src", "rs");
    faces.extend(sources("purview-web/src", "rs"));
    let script = sources("purview-web/assets", "js");
    assert!(faces.len() > 20 && script.len() == 2, "the faces' sources were not read");
    let mut checked = 0;
    for (file, code) in faces
        .iter()
        .map(|(f, c)| (f, literals(c, '"')))
        .chain(script.iter().map(|(f, c)| (f, literals(c, '\''))))
    {
        for literal in code {
            checked += 1;
            for sentence in &sentences {
                // A two-word piece ("Go to row" is three) is common
                // enough in other text: only a literal that is it counts.
                let long = sentence.split_whitespace().count() >= 3;
                let words_it = if long {
                    literal.contains(sentence.as_str())
                } else {
                    literal.trim() == sentence.as_str()
                };
                assert!(
                    !words_it,
                    "{file} words {sentence:?} itself; take it from purview_person::words: {literal:?}"
                );
            }
        }
    }
    assert!(checked > 200, "only {checked} literals read");
}

#[test]
fn the_page_reads_no_schema_and_decides_no_confirmation_or_page() {
    let face = fs::read_to_string(workspace().join("purview-web/assets/face.js")).unwrap();
    let card = fs::read_to_string(workspace().join("purview-web/assets/card.js")).unwrap();
    for script in [&face, &card] {
        for schema in ["properties", "anyOf", "$ref", "inputSchema", "required["] {
            assert!(!script.contains(schema), "the page reads a schema: {schema}");
        }
        // The model says whether an action asks first and where each
        // pager button goes; the page only draws that.
        for rule in [".destructive)", "offset +", "offset -", "/ limit", "* limit"] {
            assert!(!script.contains(rule), "the page decides for itself: {rule}");
        }
    }
    // What the person holds open (forms and their text, failures, the
    // question asked, pages of rows) is the server's person's: the page
    // keeps none of it and reports every intent.
    for held in ["forms[", "failures[", "confirming", "pages[", ".values["] {
        assert!(!face.contains(held) && !card.contains(held), "the page keeps {held} itself");
    }
    for kind in ["press", "type", "choose", "page", "goTo", "submit", "confirm", "refuse", "cancel"]
    {
        assert!(face.contains(&format!("kind: '{kind}'")), "the page does not report {kind}");
    }
    // Budgets that keep decisions out of the scripts. face.js draws the
    // model, keeps the windows an event did not change in the page (so a
    // field being typed into is never replaced), reports intents in order,
    // and holds the page's transport (the credential's exchange and the
    // live events read through fetch, merged into the windows the page
    // has); card.js is the host bridge an MCP Apps view must be (theme,
    // sizing, teardown, cancelled tools, the last scene when the app is
    // gone) and draws through face.js.
    let (face, card) = (face.lines().count(), card.lines().count());
    assert!(face <= 404, "face.js grew to {face} lines");
    assert!(card <= 285, "card.js grew to {card} lines");
}

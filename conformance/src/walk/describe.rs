//! Words for what a step did: the calls as sent (secrets masked), the
//! notifications that came, what changed between two reads. Findings
//! quote them.

use serde_json::{Map, Value, json};

use crate::target::{Event, Note};

use super::{Obs, Prepared, ToolInfo};

/// Arguments as shown in evidence, writeOnly values masked.
pub(super) fn shown(arguments: &Map<String, Value>, info: Option<&ToolInfo>) -> String {
    let secret = info.map(|i| i.schema.write_only()).unwrap_or_default();
    let masked: Map<String, Value> = arguments
        .iter()
        .map(|(k, v)| (k.clone(), if secret.contains(k) { json!("••••••") } else { v.clone() }))
        .collect();
    clip(&Value::Object(masked).to_string())
}

pub(super) fn clip(s: &str) -> String {
    if s.chars().count() > 240 {
        format!("{}…", s.chars().take(240).collect::<String>())
    } else {
        s.to_owned()
    }
}

pub(super) fn describe_calls(prepared: &[Prepared]) -> String {
    prepared
        .iter()
        .map(|p| format!("{} {}", p.call.tool, shown(&p.arguments, p.info.as_deref())))
        .collect::<Vec<_>>()
        .join(" and ")
}

pub(super) fn describe_events(events: &[Event]) -> String {
    let names: Vec<&str> = events.iter().map(|e| note_name(&e.note)).collect();
    names.join(", ")
}

pub(super) fn note_name(note: &Note) -> &'static str {
    match note {
        Note::ToolsChanged => "notifications/tools/list_changed",
        Note::WindowsUpdated => "notifications/resources/updated",
    }
}

pub(super) fn describe_change(before: &Obs, after: &Obs) -> String {
    let b = &before.windows.by_id;
    let a = &after.windows.by_id;
    let opened: Vec<&String> = a.keys().filter(|id| !b.contains_key(*id)).collect();
    let closed: Vec<&String> = b.keys().filter(|id| !a.contains_key(*id)).collect();
    let changed: Vec<&String> = a
        .iter()
        .filter(|(id, w)| {
            b.get(*id).is_some_and(|old| old.content != w.content || old.version != w.version)
        })
        .map(|(id, _)| id)
        .collect();
    let mut parts = Vec::new();
    if !opened.is_empty() {
        parts.push(format!("opened {opened:?}"));
    }
    if !closed.is_empty() {
        parts.push(format!("closed {closed:?}"));
    }
    if !changed.is_empty() {
        parts.push(format!("changed {changed:?}"));
    }
    if before.windows.operable != after.windows.operable {
        parts
            .push(format!("operable {:?} → {:?}", before.windows.operable, after.windows.operable));
    }
    let (added, removed) = diff_names(before, after);
    if !added.is_empty() || !removed.is_empty() {
        parts.push(format!("tools +{added:?} -{removed:?}"));
    }
    if parts.is_empty() { "the snapshot".into() } else { parts.join(", ") }
}

pub(super) fn diff_names(before: &Obs, after: &Obs) -> (Vec<String>, Vec<String>) {
    let added = after.tools.keys().filter(|k| !before.tools.contains_key(*k)).cloned().collect();
    let removed = before.tools.keys().filter(|k| !after.tools.contains_key(*k)).cloned().collect();
    (added, removed)
}

//! Reading the server after a step: app://windows (wrapping, schema,
//! operability, ids, versions, masking) and tools/list (names, operability,
//! each definition once), and the search for secrets in every answer.

use purview::naming;
use std::{
    collections::{BTreeMap, HashSet},
    sync::Arc,
};

use rmcp::model::Tool;
use serde_json::{Map, Value};

use crate::{
    checks::Check,
    target::WINDOWS_URI,
    windows::{Windows, check_operable, contains_token, is_masked, name_safe},
};

use super::{Obs, SECRET_PREFIX, ToolInfo, Walk};

impl Walk<'_> {
    /// Reads app://windows and tools/list, and checks both.
    pub(super) async fn observe(&mut self) -> Option<Obs> {
        let n = self.step;
        let read = match self.main.read().await {
            Ok(read) => read,
            Err(e) => {
                self.tally.fail(
                    Check::Resource,
                    n,
                    format!("resources/read of app://windows failed: {e}"),
                );
                self.stopped.get_or_insert_with(|| {
                    format!("step {n}: app://windows could not be read: {e}")
                });
                return None;
            }
        };
        let wrapping = match read.contents.as_array().map(Vec::as_slice) {
            Some([item]) => {
                let uri = item.get("uri").and_then(Value::as_str);
                let mime = item.get("mimeType").and_then(Value::as_str);
                if uri != Some(WINDOWS_URI) {
                    Err(format!("the read's content has uri {uri:?}, not app://windows"))
                } else if mime != Some("application/json") {
                    Err(format!("the read's content has mimeType {mime:?}, not application/json"))
                } else if read.text.is_none() {
                    Err("the read's content is not a text item".into())
                } else {
                    Ok(())
                }
            }
            _ => Err(format!(
                "resources/read returned {} contents; §12.2 wants exactly one",
                read.contents.as_array().map_or(0, Vec::len)
            )),
        };
        self.tally.judge(Check::Resource, n, wrapping);
        let text = read.text.unwrap_or_default();
        self.search_secrets(n, "app://windows", &text);
        let value: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(e) => {
                self.tally.fail(Check::Resource, n, format!("app://windows is not JSON: {e}"));
                self.stopped.get_or_insert_with(|| format!("step {n}: app://windows is not JSON"));
                return None;
            }
        };
        let errors: Vec<String> = self
            .app_windows
            .iter_errors(&value)
            .take(3)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        self.tally.judge(
            Check::Resource,
            n,
            if errors.is_empty() {
                Ok(())
            } else {
                Err(format!("app://windows does not match the §4 schema: {}", errors.join("; ")))
            },
        );
        let windows = Windows::parse(value);
        self.judge_windows(n, &windows);
        let tools = match self.main.tools().await {
            Ok(tools) => tools,
            Err(e) => {
                self.tally.fail(Check::ToolsOnlyOperable, n, format!("tools/list failed: {e}"));
                self.stopped.get_or_insert_with(|| format!("step {n}: tools/list failed: {e}"));
                return None;
            }
        };
        let listed = serde_json::to_string(&tools).unwrap_or_default();
        self.search_secrets(n, "tools/list", &listed);
        let tools = self.judge_tools(n, &windows, &tools);
        let dispatch = self.read_dispatch(&tools).await;
        self.judge_large_data(n, &windows, &tools, &dispatch);
        Some(Obs { windows, tools, dispatch })
    }

    pub(super) fn judge_windows(&mut self, n: usize, windows: &Windows) {
        self.tally.judge(Check::Operability, n, check_operable(windows));
        self.tally.judge(Check::Ids, n, check_ids(windows, &self.closed_ids));
        let unsafe_id = windows.by_id.keys().find(|id| !name_safe(id));
        self.tally.judge(
            Check::ToolNames,
            n,
            match unsafe_id {
                Some(id) => {
                    Err(format!("window id {id:?} is not name-safe ([A-Za-z0-9_-] only, §12.4)"))
                }
                None => Ok(()),
            },
        );
        self.tally.judge(Check::Versions, n, check_versions(&self.obs.windows, windows));
        for (id, w) in &windows.by_id {
            let mut masking = Ok(());
            for block in &w.blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("fields") => {
                        if let Err(e) = check_masked(id, block) {
                            masking = Err(e);
                        }
                    }
                    Some("media") => {
                        let alt = block.get("alt").and_then(Value::as_str);
                        self.tally.judge(
                            Check::MediaAlt,
                            n,
                            if alt.is_some_and(|a| !a.trim().is_empty()) {
                                Ok(())
                            } else {
                                Err(format!("a media block in window {id} has no alt text"))
                            },
                        );
                    }
                    _ => {}
                }
            }
            self.tally.judge(Check::Masking, n, masking);
            self.tally.judge(
                Check::Summaries,
                n,
                if w.summary.as_deref().is_some_and(|s| !s.trim().is_empty()) {
                    Ok(())
                } else {
                    Err(format!("window {id} ({}) has no summary", w.title))
                },
            );
        }
    }

    pub(super) fn judge_tools(
        &mut self,
        n: usize,
        windows: &Windows,
        tools: &[Tool],
    ) -> BTreeMap<String, Arc<ToolInfo>> {
        let mut out = BTreeMap::new();
        let mut names = HashSet::new();
        for tool in tools {
            let name = tool.name.to_string();
            if !names.insert(name.clone()) {
                self.tally.fail(Check::ToolNames, n, format!("tools/list lists {name} twice"));
                continue;
            }
            let resolved = self.resolve(&name, windows);
            let shape = if !name_safe(&name) {
                Err(format!("tool name {name:?} uses characters outside [A-Za-z0-9_-]"))
            } else if !name.contains(naming::SEPARATOR) {
                Err(format!("tool name {name:?} is not {{winId}}__{{action}}"))
            } else {
                Ok(())
            };
            self.tally.judge(Check::ToolNames, n, shape);
            let (window, action) = match resolved {
                Some(found) => found,
                None => {
                    let (prefix, action) =
                        name.split_once(naming::SEPARATOR).unwrap_or((name.as_str(), ""));
                    self.tally.fail(
                        Check::ToolsOnlyOperable,
                        n,
                        format!("tools/list offers {name}, but no window {prefix} is open"),
                    );
                    (Some(prefix.to_owned()), action.to_owned())
                }
            };
            if let Some(w) = &window {
                self.tally.judge(
                    Check::ToolsOnlyOperable,
                    n,
                    if windows.is_operable(w) || !windows.by_id.contains_key(w) {
                        Ok(())
                    } else {
                        Err(format!(
                            "tools/list offers {name} while window {w} is not operable (operableWindowIds is {:?})",
                            windows.operable
                        ))
                    },
                );
            }
            let info = match self.ever_listed.get(&name) {
                Some(known) if known.tool == *tool => known.clone(),
                _ => {
                    // A definition not seen before: judge it once.
                    let info = Arc::new(ToolInfo::new(tool, window.clone(), action.clone()));
                    self.judge_tool(n, tool, &info);
                    info
                }
            };
            self.ever_listed.insert(name.clone(), info.clone());
            if !self.allowed(&info) {
                let key = self.coverage_key(
                    Some(&info),
                    &Obs {
                        windows: windows.clone(),
                        tools: BTreeMap::new(),
                        dispatch: BTreeMap::new(),
                    },
                );
                self.coverage.skipped_destructive.insert(key);
            }
            out.insert(name, info);
        }
        out
    }

    /// §9: each table or list an operable window cuts short (`total` above
    /// the rows it shows) can be fetched in full through a read-only
    /// operation of that window: one of its listed tools, or an action
    /// Purview's `app__read_windows` offers for it (whose annotations that
    /// tool gives with `schemas: true`). Judged only for windows with
    /// operations to look at.
    fn judge_large_data(
        &mut self,
        n: usize,
        windows: &Windows,
        tools: &BTreeMap<String, Arc<ToolInfo>>,
        dispatch: &BTreeMap<String, Arc<ToolInfo>>,
    ) {
        for id in &windows.operable {
            let Some(window) = windows.by_id.get(id) else { continue };
            let mut own = tools
                .values()
                .chain(dispatch.values())
                .filter(|t| t.window.as_deref() == Some(id.as_str()))
                .peekable();
            if own.peek().is_none() {
                continue;
            }
            let has_reader = own.any(|t| t.read_only);
            for block in &window.blocks {
                let shown = match block.get("type").and_then(Value::as_str) {
                    Some("table") => block.get("rows"),
                    Some("list") => block.get("items"),
                    _ => continue,
                };
                let shown = shown.and_then(Value::as_array).map_or(0, Vec::len) as u64;
                let offset = block.get("offset").and_then(Value::as_u64).unwrap_or(0);
                let Some(total) = block.get("total").and_then(Value::as_u64) else { continue };
                if offset + shown >= total && offset == 0 {
                    continue;
                }
                let block_id = block.get("id").and_then(Value::as_str).unwrap_or("?");
                self.tally.judge(
                    Check::LargeData,
                    n,
                    if has_reader {
                        Ok(())
                    } else {
                        Err(format!(
                            "window {id} shows {shown} of the {total} rows of {block_id}, but none of its operations is read-only (readOnlyHint) to fetch the rest"
                        ))
                    },
                );
            }
        }
    }

    /// The per-definition checks of one tool.
    pub(super) fn judge_tool(&mut self, n: usize, tool: &Tool, info: &ToolInfo) {
        let name = &info.name;
        self.tally.judge(
            Check::StructuredResults,
            n,
            match &tool.output_schema {
                None => Err(format!("{name} declares no outputSchema (§12.3)")),
                Some(_) if info.output.is_none() => {
                    Err(format!("the outputSchema of {name} is not a valid JSON Schema"))
                }
                Some(_) => Ok(()),
            },
        );
        let words = tool.title.as_deref().is_some_and(|t| !t.trim().is_empty())
            || tool.description.as_deref().is_some_and(|d| !d.trim().is_empty());
        self.tally.judge(
            Check::ToolWords,
            n,
            if words {
                Ok(())
            } else {
                Err(format!("{name} has neither a title nor a description"))
            },
        );
        self.tally.judge(
            Check::Annotations,
            n,
            match &tool.annotations {
                Some(a) if a.destructive_hint.is_some() || a.read_only_hint == Some(true) => Ok(()),
                Some(_) => Err(format!(
                    "{name} has annotations but says neither readOnlyHint nor destructiveHint"
                )),
                None => Err(format!("{name} has no annotations")),
            },
        );
        if info.window.is_some() && !info.read_only {
            self.tally.judge(
                Check::ExpectedVersionParam,
                n,
                if info.has_version() {
                    Ok(())
                } else {
                    Err(format!("{name} writes (not readOnlyHint) but takes no expectedVersion"))
                },
            );
        }
    }

    /// Remembers the values sent: writeOnly ones must never come back,
    /// whatever their length, unless they had appeared in an answer before
    /// they were first sent.
    pub(super) fn note_sent(&mut self, arguments: &Map<String, Value>, info: Option<&ToolInfo>) {
        let write_only = info.map(|i| i.schema.write_only()).unwrap_or_default();
        for (name, value) in arguments {
            if !write_only.contains(name) {
                if let Value::String(s) = value {
                    self.sent_plain.insert(s.clone());
                }
                continue;
            }
            // Secrets are the walk's own made-up ones and the values it was
            // given (`--hint`, a numeric PIN included), whatever their
            // length; its edge-case probes ("42", "a", a number for a text
            // parameter) are not secrets.
            let hinted = self.cfg.hints.get(name).is_some_and(|h| h.contains(value));
            let text = match value {
                Value::String(s) if hinted || s.starts_with(SECRET_PREFIX) => s.clone(),
                Value::Number(n) if hinted => n.to_string(),
                _ => continue,
            };
            if text.is_empty() || self.sent_secrets.iter().any(|(s, _)| *s == text) {
                continue;
            }
            let ambient = found(&self.history, &text);
            self.sent_secrets.push((text, ambient));
        }
    }

    /// Looks for every secret in `text`, one of the server's answers,
    /// messages or notifications, then remembers it.
    pub(super) fn search_secrets(&mut self, n: usize, place: &str, text: &str) {
        let text = &as_text(text);
        let mut outcome = Ok(());
        for (i, secret) in self.cfg.secrets.iter().enumerate() {
            if self.told_ambient[i] || !found(text, secret) {
                continue;
            }
            if n == 0 {
                // In the app's first reads, before the walk did anything.
                self.told_ambient[i] = true;
            } else {
                outcome = Err(format!("the secret registered as #{} appears in {place}", i + 1));
            }
        }
        for (secret, ambient) in &self.sent_secrets {
            if !ambient && !self.sent_plain.contains(secret) && found(text, secret) {
                outcome =
                    Err(format!("{secret:?}, sent to a writeOnly parameter, came back in {place}"));
            }
        }
        if self.history.len() + text.len() <= HISTORY_LIMIT {
            self.history.push_str(text);
            self.history.push('\n');
        }
        self.tally.judge(Check::Masking, n, outcome);
    }
}

/// The most of the server's answers kept to tell whether a value appeared
/// before it was sent (32 MiB).
pub(super) const HISTORY_LIMIT: usize = 32 << 20;

/// What of an answer a person or a model reads as text: where a line is
/// JSON, its strings and keys (a number cell of a table is data, not text);
/// any other line as it is.
pub(super) fn as_text(answer: &str) -> String {
    fn strings(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(map) => {
                for (key, v) in map {
                    out.push_str(key);
                    out.push('\n');
                    strings(v, out);
                }
            }
            _ => {}
        }
    }
    let mut out = String::with_capacity(answer.len());
    if let Ok(value) = serde_json::from_str::<Value>(answer) {
        strings(&value, &mut out);
        return out;
    }
    for line in answer.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(value @ (Value::Object(_) | Value::Array(_) | Value::String(_))) => {
                strings(&value, &mut out);
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

pub(super) fn found(text: &str, secret: &str) -> bool {
    if contains_token(text, secret) {
        return true;
    }
    let escaped = serde_json::to_string(secret).unwrap_or_default();
    let escaped = escaped.trim_matches('"');
    escaped != secret && contains_token(text, escaped)
}

/// Ids: unique, never reused after a close; block ids unique per window.
fn check_ids(windows: &Windows, closed: &HashSet<String>) -> Result<(), String> {
    let mut seen = HashSet::new();
    let mut ids = Ok(());
    for id in &windows.order {
        if !seen.insert(id) {
            ids = Err(format!("window id {id} appears twice in windows[]"));
        } else if closed.contains(id) {
            ids = Err(format!("window id {id} was closed earlier and is in use again"));
        }
    }
    for (id, w) in &windows.by_id {
        let mut block_ids = HashSet::new();
        for block in &w.blocks {
            if let Some(b) = block.get("id").and_then(Value::as_str)
                && !block_ids.insert(b)
            {
                ids = Err(format!("block id {b} appears twice in window {id}"));
            }
        }
    }
    ids
}

/// Versions against the previous read: never back, and moved exactly when
/// the summary or blocks moved.
fn check_versions(before: &Windows, now: &Windows) -> Result<(), String> {
    let mut versions = Ok(());
    for (id, w) in &now.by_id {
        let Some(v) = w.version else {
            versions = Err(format!("window {id} has no 64-bit integer version"));
            continue;
        };
        let Some(old) = before.by_id.get(id) else { continue };
        let Some(v0) = old.version else { continue };
        if v < v0 {
            versions = Err(format!("window {id} went back from version {v0} to {v}"));
        } else if old.content == w.content && v != v0 {
            versions = Err(format!(
                "window {id} went from version {v0} to {v} although its summary and blocks did not change"
            ));
        } else if old.content != w.content && v == v0 {
            versions =
                Err(format!("window {id} changed its summary or blocks but stayed at version {v}"));
        }
    }
    versions
}

/// Every sensitive item of a `fields` block shows only mask characters.
fn check_masked(id: &str, block: &Value) -> Result<(), String> {
    let mut masking = Ok(());
    for item in block.get("items").and_then(Value::as_array).into_iter().flatten() {
        if item.get("sensitive") == Some(&Value::Bool(true))
            && let Some(value) = item.get("value")
            && !is_masked(value)
        {
            let label = item.get("label").and_then(Value::as_str).unwrap_or("?");
            let plain = value.as_str().map_or(value.to_string().len(), |s| {
                s.chars().filter(|c| !is_masked(&Value::String(c.to_string()))).count()
            });
            masking = Err(format!(
                "field {label:?} in window {id} is marked sensitive but its value is not masked ({plain} characters that are not mask characters)"
            ));
        }
    }
    masking
}

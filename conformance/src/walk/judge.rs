//! Judging one step: each answer's shape and code against what the call
//! meant, what the step changed, and the notifications that came.

use purview::naming;
use serde_json::{Map, Value};

use crate::{
    checks::Check,
    generate::Validity,
    script::{ExpectedVersion, Intent},
    target::{CallOutcome, Event, Note},
    windows::Windows,
};

use super::{
    Obs, PURVIEW_ACT, PURVIEW_READ, Prepared, Role, SPEC_CODES, Walk,
    describe::{clip, describe_change, diff_names, shown},
};

impl Walk<'_> {
    pub(super) fn judge_notifications(
        &mut self,
        n: usize,
        before: &Obs,
        after: &Obs,
        changed: bool,
        tools_changed: bool,
        events: &[Event],
    ) {
        if changed {
            let got = events.iter().any(|e| e.note == Note::WindowsUpdated);
            self.tally.judge(
                Check::NotifyAfterEffect,
                n,
                if got {
                    Ok(())
                } else {
                    Err(format!(
                        "app://windows changed ({}) but no notifications/resources/updated arrived within {} s",
                        describe_change(before, after),
                        self.notify_wait.as_secs_f32()
                    ))
                },
            );
            for event in events.iter().filter(|e| e.note == Note::WindowsUpdated) {
                let Some(read) = &event.read else { continue };
                self.search_secrets(n, "app://windows read on a notification", read);
                let Ok(seen) = serde_json::from_str::<Value>(read) else { continue };
                if seen == before.windows.value {
                    self.tally.fail(
                        Check::NotifyAfterEffect,
                        n,
                        "resources/updated arrived, but reading app://windows right away still showed the state from before the call: the notification went out before the change took effect".into(),
                    );
                }
            }
        }
        if tools_changed {
            let got = events.iter().any(|e| e.note == Note::ToolsChanged);
            let (added, removed) = diff_names(before, after);
            self.tally.judge(
                Check::ToolsListChanged,
                n,
                if got {
                    Ok(())
                } else {
                    Err(format!(
                        "tools/list changed (added {added:?}, removed {removed:?}) but no notifications/tools/list_changed arrived within {} s",
                        self.notify_wait.as_secs_f32()
                    ))
                },
            );
            let old: Vec<String> = before.tools.keys().cloned().collect();
            for event in events.iter().filter(|e| e.note == Note::ToolsChanged) {
                if event.tools.as_ref() == Some(&old) {
                    self.tally.fail(
                        Check::ToolsListChanged,
                        n,
                        "tools/list_changed arrived, but listing tools right away still gave the old list: it went out before the change".into(),
                    );
                }
            }
        }
    }

    /// Checks one call's answer.
    pub(super) fn judge_call(
        &mut self,
        n: usize,
        p: &Prepared,
        outcome: &CallOutcome,
        before: &Obs,
        after: &Obs,
    ) {
        let tool = &p.call.tool;
        self.search_secrets(n, &format!("the answer to {tool}"), &outcome.visible_text());
        // Which of two writes sent together wins is the server's timing:
        // they count for no operation, so coverage does not depend on it.
        if !p.together {
            let key = self.coverage_key(p.info.as_deref(), before);
            self.count_call(key, p, outcome);
            if let Some(target) = &p.target {
                // The action app__act reached counts as that operation covered.
                let key = self.coverage_key(Some(target), before);
                self.count_call(key, p, outcome);
            }
        }
        let (is_error, structured, has_text) = match outcome {
            CallOutcome::Broken(why) => {
                let waiting = p.target.as_deref().or(p.info.as_deref()).filter(|t| t.approval);
                let why = match waiting {
                    Some(t) if why.starts_with("no answer within") => {
                        crate::verdict::unanswered_approval(why, &t.action)
                    }
                    _ => why.clone(),
                };
                self.stopped.get_or_insert_with(|| format!("step {n}: {tool}: {why}"));
                return;
            }
            CallOutcome::Rpc { code, message, .. } => {
                let detail = format!(
                    "{tool} {} came back as JSON-RPC error {code} ({message}) instead of an isError result",
                    shown(&p.arguments, p.info.as_deref())
                );
                match p.role {
                    Role::Listed => self.tally.fail(Check::StructuredResults, n, detail),
                    Role::Withdrawn => self.tally.fail(
                        Check::RuntimeValidation,
                        n,
                        format!("{detail}; a call to an operation tools/list no longer offers must get a §7.4 tool error"),
                    ),
                    Role::Never => self.tally.fail(
                        Check::ErrorCodes,
                        n,
                        format!("{detail}; §7.4 has window_not_found / action_not_available for names that were never offered"),
                    ),
                }
                return;
            }
            CallOutcome::Result { is_error, structured, has_text, .. } => {
                (*is_error, structured, *has_text)
            }
        };
        self.tally.judge(
            Check::ContentMirror,
            n,
            if has_text {
                Ok(())
            } else {
                Err(format!("the answer to {tool} has no text item in content"))
            },
        );
        if is_error {
            self.judge_error(n, p, structured.as_ref(), before);
        } else {
            self.judge_success(n, p, structured.as_ref(), before, after);
        }
    }

    /// Where Purview's app__read_windows sits beside the per-window tools,
    /// the actions it offers are exactly the window tools listed: so an
    /// available action missing from tools/list is caught too, which the
    /// snapshot alone (it names no actions) cannot show.
    fn judge_read_windows_actions(&mut self, n: usize, result: &Value, after: &Obs) {
        let listed: std::collections::BTreeSet<&str> = after
            .tools
            .keys()
            .map(String::as_str)
            .filter(|t| *t != PURVIEW_READ && *t != PURVIEW_ACT)
            .collect();
        let Some(actions) = result.get("actions").and_then(Value::as_object) else { return };
        let window_tools_seen =
            self.ever_listed.keys().any(|t| t != PURVIEW_READ && t != PURVIEW_ACT);
        if listed.is_empty() && !window_tools_seen {
            return; // the dispatcher surface: only the two tools, ever
        }
        let offered: std::collections::BTreeSet<String> = actions
            .iter()
            .flat_map(|(window, list)| {
                list.as_array().into_iter().flatten().filter_map(Value::as_str).map(
                    move |signature| {
                        naming::tool_name(window, super::dispatch::signature_name(signature))
                    },
                )
            })
            .collect();
        let missing: Vec<&String> =
            offered.iter().filter(|o| !listed.contains(o.as_str())).collect();
        let extra: Vec<&&str> = listed.iter().filter(|l| !offered.contains(**l)).collect();
        self.tally.judge(
            Check::ToolsOnlyOperable,
            n,
            if missing.is_empty() && extra.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "{PURVIEW_READ} offers actions tools/list lacks ({}) or tools/list has tools it does not offer ({})",
                    clip(&format!("{missing:?}")),
                    clip(&format!("{extra:?}"))
                ))
            },
        );
    }

    pub(super) fn judge_error(
        &mut self,
        n: usize,
        p: &Prepared,
        structured: Option<&Value>,
        before: &Obs,
    ) {
        let tool = &p.call.tool;
        let object = structured.filter(|s| s.is_object());
        let code =
            object.and_then(|s| s.get("code")).and_then(Value::as_str).filter(|c| !c.is_empty());
        let message = object.and_then(|s| s.get("message")).and_then(Value::as_str);
        let Some(code) = code.filter(|_| message.is_some()) else {
            self.tally.fail(
                Check::StructuredResults,
                n,
                format!(
                    "{tool} failed (isError) without a {{code, message}} object in structuredContent: {}",
                    structured.map_or("nothing".into(), |s| clip(&s.to_string()))
                ),
            );
            return;
        };
        self.tally.ok(Check::StructuredResults);
        let object = object.expect("checked above");
        *self.coverage.codes.entry(code.to_owned()).or_default() += 1;
        let known = SPEC_CODES.contains(&code) || self.cfg.extension_codes.contains(code);
        self.tally.judge(
            Check::ErrorCodes,
            n,
            if known {
                Ok(())
            } else {
                Err(format!("{tool} answered code {code:?}, which is neither a §7.4 code nor a declared extension"))
            },
        );
        match code {
            "stale_state" => {
                self.tally.judge(Check::StaleState, n, stale_state_finding(p, object));
            }
            "validation_failed" => self.judge_fields(n, p, object),
            _ => {}
        }
        match p.role {
            Role::Listed => self.judge_listed_refusal(n, p, code, message, before),
            Role::Withdrawn | Role::Never => self.judge_unoffered_refusal(n, p, code, before),
        }
    }

    /// A refusal of a call to a listed tool: wrong when the tool was
    /// offered, and a handler's failure is the app's own finding.
    fn judge_listed_refusal(
        &mut self,
        n: usize,
        p: &Prepared,
        code: &str,
        message: Option<&str>,
        before: &Obs,
    ) {
        let tool = &p.call.tool;
        let refusal =
            matches!(code, "blocked_by_modal" | "window_not_found" | "action_not_available");
        // Sent together with another call, it may have found its action
        // already withdrawn, its window closed or blocked by that call.
        let wrongly = !p.together
            && match &p.info.as_ref().and_then(|i| i.window.clone()) {
                Some(_) => refusal,
                // app__read_windows offered the action app__act was sent to.
                None if p
                    .target
                    .as_ref()
                    .is_some_and(|t| before.dispatch.contains_key(&t.name)) =>
                {
                    refusal
                }
                None => {
                    code == "blocked_by_modal"
                        && before.windows.app_modal_open()
                        && !mentions_target(&p.arguments, &before.windows)
                }
            };
        if p.validity == Validity::Valid && p.call.expected_version != ExpectedVersion::Stale {
            self.tally.judge(
                Check::ToolsOnlyOperable,
                n,
                if wrongly {
                    Err(format!(
                        "tools/list offered {tool}, but calling it answered {code}: {}",
                        message.unwrap_or("")
                    ))
                } else {
                    Ok(())
                },
            );
            self.tally.judge(
                Check::HandlerFailed,
                n,
                if code == "action_failed" {
                    Err(format!(
                        "{tool} {} failed inside the application: {}",
                        shown(&p.arguments, p.info.as_deref()),
                        message.unwrap_or("")
                    ))
                } else {
                    Ok(())
                },
            );
        }
    }

    /// A refusal of a call to a tool that is no longer offered, or never
    /// was: it must name why.
    fn judge_unoffered_refusal(&mut self, n: usize, p: &Prepared, code: &str, before: &Obs) {
        let tool = &p.call.tool;
        match p.role {
            Role::Withdrawn => {
                self.tally.ok(Check::RuntimeValidation);
                let window = p.info.as_ref().and_then(|i| i.window.clone());
                let expected: &[&str] = match &window {
                    Some(w) if !before.windows.by_id.contains_key(w) => &["window_not_found"],
                    Some(w) if !before.windows.is_operable(w) => {
                        &["blocked_by_modal", "action_not_available"]
                    }
                    Some(_) => &["action_not_available"],
                    None => &["blocked_by_modal", "action_not_available"],
                };
                self.judge_code(n, tool, code, expected, "no longer offered");
            }
            Role::Never => match p.call.intent {
                Intent::UnknownWindow => self.judge_code(
                    n,
                    tool,
                    code,
                    &["window_not_found"],
                    "naming a window that never existed",
                ),
                Intent::UnknownAction => self.judge_code(
                    n,
                    tool,
                    code,
                    &["action_not_available"],
                    "naming an action the window never offered",
                ),
                _ => {}
            },
            Role::Listed => {}
        }
    }

    pub(super) fn judge_code(
        &mut self,
        n: usize,
        tool: &str,
        code: &str,
        expected: &[&str],
        what: &str,
    ) {
        self.tally.judge(
            Check::ErrorCodes,
            n,
            if expected.contains(&code) {
                Ok(())
            } else {
                Err(format!(
                    "a call to {tool}, {what}, answered {code}; §7.4 says {}",
                    expected.join(" or ")
                ))
            },
        );
    }

    /// §7.3: `fields[]` names parameters of the tool, and the one broken.
    pub(super) fn judge_fields(&mut self, n: usize, p: &Prepared, object: &Value) {
        let tool = &p.call.tool;
        let fields = object.get("fields").and_then(Value::as_array);
        let names: Option<Vec<&str>> = fields.filter(|f| !f.is_empty()).and_then(|f| {
            f.iter()
                .map(|item| {
                    item.get("error").and_then(Value::as_str)?;
                    item.get("field").and_then(Value::as_str)
                })
                .collect()
        });
        let Some(names) = names else {
            self.tally.fail(
                Check::FieldErrors,
                n,
                format!(
                    "validation_failed from {tool} has no fields[] of {{field, error}}: {}",
                    clip(&object.to_string())
                ),
            );
            return;
        };
        let mut parameters: Vec<String> =
            p.info.as_ref().map(|i| i.schema.parameters()).unwrap_or_default();
        let mut checkable = p.info.is_some();
        if tool == PURVIEW_ACT {
            // Purview's dispatcher names the dispatched action's own fields.
            let inner = p.arguments.get("arguments").and_then(Value::as_object);
            parameters.extend(inner.into_iter().flatten().map(|(k, _)| k.clone()));
            let target = match (p.arguments.get("window"), p.arguments.get("action")) {
                (Some(Value::String(w)), Some(Value::String(a))) => {
                    self.ever_listed.get(&naming::tool_name(w, a)).or(p.target.as_ref())
                }
                _ => None,
            };
            match target {
                Some(target) => parameters.extend(target.schema.parameters()),
                // Its schema was never listed (the dispatcher surface): the
                // names cannot be told from here.
                None => checkable = false,
            }
        }
        let head = |field: &str| {
            field.split(['.', '[', '/']).find(|s| !s.is_empty()).unwrap_or("").to_owned()
        };
        let mut outcome = Ok(());
        if checkable {
            let sent: Vec<&String> = p.arguments.keys().collect();
            if let Some(stranger) = names.iter().find(|f| {
                let h = head(f);
                !parameters.contains(&h) && !sent.contains(&&h) && h != naming::EXPECTED_VERSION
            }) {
                outcome = Err(format!(
                    "validation_failed from {tool} names field {stranger:?}, which is not one of its parameters {parameters:?}"
                ));
            }
        }
        self.tally.judge(Check::FieldErrors, n, outcome);
        if let Validity::Invalid(broke) = &p.validity
            && p.call.intent != Intent::Valid
        {
            self.tally.judge(
                Check::RejectsInvalid,
                n,
                if broke.iter().any(|b| names.iter().any(|f| head(f) == *b)) {
                    Ok(())
                } else {
                    Err(format!("{tool} was sent a bad {broke:?}, but validation_failed names only {names:?}"))
                },
            );
        }
    }

    pub(super) fn judge_success(
        &mut self,
        n: usize,
        p: &Prepared,
        structured: Option<&Value>,
        before: &Obs,
        after: &Obs,
    ) {
        let tool = &p.call.tool;
        let Some(result) = structured.filter(|s| s.is_object()) else {
            self.tally.fail(
                Check::StructuredResults,
                n,
                format!("{tool} succeeded without a ToolResult object in structuredContent"),
            );
            return;
        };
        self.tally.judge(Check::StructuredResults, n, output_schema_finding(p, result));
        self.judge_page(n, p, result, before);
        // (Unless the call narrowed the read to some windows.)
        if tool == PURVIEW_READ && !p.call.arguments.contains_key("windows") {
            self.judge_read_windows_actions(n, result, after);
        }
        // Purview's app__read_windows answers with the snapshot itself.
        let message_expected = tool != PURVIEW_READ;
        self.tally.judge(
            Check::ResultMessage,
            n,
            if !message_expected || result.get("message").and_then(Value::as_str).is_some() {
                Ok(())
            } else {
                Err(format!("the result of {tool} has no message"))
            },
        );
        if let Some(opened) = result.get("openedWindowIds") {
            self.tally.judge(Check::ToolNames, n, opened_ids_finding(tool, opened, before, after));
        }
        match p.role {
            Role::Listed => {
                if p.call.expected_version == ExpectedVersion::Stale && p.window.is_some() {
                    self.tally.fail(
                        Check::StaleState,
                        n,
                        format!(
                            "{tool} carried expectedVersion {} while its window was at {}, and was accepted",
                            p.version_before.unwrap_or(0) + 1,
                            p.version_before.unwrap_or(0)
                        ),
                    );
                }
                if let Validity::Invalid(broke) = &p.validity {
                    self.tally.fail(
                        Check::RejectsInvalid,
                        n,
                        format!(
                            "{tool} accepted arguments its inputSchema rejects (bad {broke:?})"
                        ),
                    );
                }
                if p.validity == Validity::Valid {
                    self.tally.ok(Check::ToolsOnlyOperable);
                    self.tally.ok(Check::HandlerFailed);
                }
            }
            Role::Withdrawn => self.tally.fail(
                Check::RuntimeValidation,
                n,
                format!("{tool} is no longer offered by tools/list, yet calling it succeeded"),
            ),
            Role::Never => self.tally.fail(
                Check::RuntimeValidation,
                n,
                format!("{tool} names nothing that is open or offered, yet calling it succeeded"),
            ),
        }
    }
}

/// Whether some string argument names an open window (or "app"): then a
/// `blocked_by_modal` from an app-level tool may be about that window.
pub(super) fn mentions_target(arguments: &Map<String, Value>, windows: &Windows) -> bool {
    arguments.values().any(|v| match v {
        Value::String(s) => s == "app" || windows.by_id.contains_key(s),
        _ => false,
    })
}

/// A result that does not match the tool's outputSchema, when it has one.
fn output_schema_finding(p: &Prepared, result: &Value) -> Result<(), String> {
    let Some(validator) = p.info.as_ref().and_then(|i| i.output.as_ref()) else { return Ok(()) };
    match validator.iter_errors(result).next() {
        Some(e) => Err(format!(
            "the result of {} does not match its outputSchema: {e} at {} in {}",
            p.call.tool,
            e.instance_path(),
            clip(&result.to_string())
        )),
        None => Ok(()),
    }
}

/// `openedWindowIds` that are not ids, or name a window app://windows does
/// not show as newly opened.
fn opened_ids_finding(tool: &str, opened: &Value, before: &Obs, after: &Obs) -> Result<(), String> {
    let ids: Option<Vec<&str>> =
        opened.as_array().and_then(|a| a.iter().map(Value::as_str).collect());
    let Some(ids) = ids else {
        return Err(format!("openedWindowIds from {tool} is not an array of ids"));
    };
    let new = |id: &&&str| {
        after.windows.by_id.contains_key(**id) && !before.windows.by_id.contains_key(**id)
    };
    match ids.iter().find(|id| !new(id)) {
        Some(id) => Err(format!(
            "{tool} reports opening {id}, but app://windows does not show {id} as newly opened"
        )),
        None => Ok(()),
    }
}

/// A `stale_state` answer whose `currentVersion` is missing or wrong, or that
/// refused a call carrying the current version.
fn stale_state_finding(p: &Prepared, object: &Value) -> Result<(), String> {
    let tool = &p.call.tool;
    let current = object.get("currentVersion").and_then(Value::as_u64);
    match (current, p.version_before) {
        (None, _) => Err(format!("stale_state from {tool} carries no integer currentVersion")),
        (Some(c), Some(v)) if p.window.is_some() && (c < v || (c != v && !p.together)) => Err(
            format!("stale_state from {tool} says currentVersion {c}, but the window is at {v}"),
        ),
        _ if p.call.expected_version == ExpectedVersion::Current
            && p.role == Role::Listed
            && !p.together =>
        {
            Err(format!(
                "{tool} refused with stale_state although it carried the window's current version {}",
                p.version_before.unwrap_or(0)
            ))
        }
        _ => Ok(()),
    }
}

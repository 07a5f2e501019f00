//! Reading an app://windows snapshot the way the protocol defines it: the
//! three window states (§2), the operable set the modal chains leave
//! (§2, §10.2), and what counts as a window's content for its version.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// One window of a snapshot, read leniently (the schema check reports what
/// is malformed; this keeps going with what is there).
#[derive(Debug, Clone)]
pub(crate) struct Win {
    pub title: String,
    pub modal: bool,
    pub owner: Option<String>,
    /// `None` when `version` is not an integer in 0..=i64::MAX.
    pub version: Option<u64>,
    /// `{summary, blocks}`: what the version must follow (§4.2, §7.1).
    pub content: Value,
    pub summary: Option<String>,
    pub blocks: Vec<Value>,
}

/// A parsed snapshot.
#[derive(Debug, Clone)]
pub(crate) struct Windows {
    pub value: Value,
    /// Window ids in document order (duplicates kept, for the §10.3 check).
    pub order: Vec<String>,
    pub by_id: BTreeMap<String, Win>,
    pub operable: Vec<String>,
}

impl Windows {
    pub fn parse(value: Value) -> Self {
        let mut order = Vec::new();
        let mut by_id = BTreeMap::new();
        for w in value.get("windows").and_then(Value::as_array).into_iter().flatten() {
            let Some(id) = w.get("id").and_then(Value::as_str) else { continue };
            let version =
                w.get("version").and_then(Value::as_u64).filter(|v| i64::try_from(*v).is_ok());
            let blocks: Vec<Value> =
                w.get("blocks").and_then(Value::as_array).cloned().unwrap_or_default();
            let summary = w.get("summary").and_then(Value::as_str).map(str::to_owned);
            order.push(id.to_owned());
            by_id.insert(
                id.to_owned(),
                Win {
                    title: w.get("title").and_then(Value::as_str).unwrap_or(id).to_owned(),
                    modal: w.get("modal").and_then(Value::as_bool).unwrap_or(false),
                    owner: w.get("ownerId").and_then(Value::as_str).map(str::to_owned),
                    version,
                    content: serde_json::json!({
                        "summary": w.get("summary").cloned().unwrap_or(Value::Null),
                        "blocks": w.get("blocks").cloned().unwrap_or(Value::Null),
                    }),
                    summary,
                    blocks,
                },
            );
        }
        let operable = value
            .get("operableWindowIds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        Self { value, order, by_id, operable }
    }

    /// Whether any app-level modal (modal, no owner) is open.
    pub fn app_modal_open(&self) -> bool {
        self.by_id.values().any(|w| w.modal && w.owner.is_none())
    }

    /// Whether `id` is in operableWindowIds.
    pub fn is_operable(&self, id: &str) -> bool {
        self.operable.iter().any(|o| o == id)
    }
}

/// What §2 and §10.2 say operableWindowIds must be, or why it cannot say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Expected {
    /// Exactly this set.
    Exactly(BTreeSet<String>),
    /// Some window has two modal children, or two app-level modals are
    /// open, so the topology alone does not say which is on top: the
    /// operable set must be drawn from these candidates, taking at least
    /// one from each group (exactly one group, exactly one window, when
    /// `one` is set).
    Among { groups: Vec<BTreeSet<String>>, one: bool },
}

/// The operable set the topology defines, or the first thing wrong with
/// the topology itself.
pub(crate) fn expected_operable(windows: &Windows) -> Result<Expected, String> {
    let mut children: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, w) in &windows.by_id {
        match (&w.owner, w.modal) {
            (Some(owner), true) => {
                if !windows.by_id.contains_key(owner) {
                    return Err(format!(
                        "window {id} is a modal owned by {owner}, which is not in windows[]"
                    ));
                }
                children.entry(owner.as_str()).or_default().push(id.as_str());
            }
            (Some(owner), false) => {
                return Err(format!(
                    "window {id} has ownerId {owner} but modal false: §2 knows only top-level windows (false, null), window-level modals (true, owner) and app-level modals (true, null)"
                ));
            }
            (None, _) => {}
        }
    }
    let mut ambiguous = children.values().any(|c| c.len() > 1);
    let leaves = |root: &str| -> Result<BTreeSet<String>, String> {
        let mut out = BTreeSet::new();
        let mut stack = vec![(root, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            if depth > windows.by_id.len() {
                return Err(format!("the ownerId chain through {id} loops"));
            }
            match children.get(id) {
                Some(kids) => stack.extend(kids.iter().map(|k| (*k, depth + 1))),
                None => {
                    out.insert(id.to_owned());
                }
            }
        }
        Ok(out)
    };
    let app_modals: Vec<&str> = windows
        .by_id
        .iter()
        .filter(|(_, w)| w.modal && w.owner.is_none())
        .map(|(id, _)| id.as_str())
        .collect();
    let roots: Vec<&str> = if app_modals.is_empty() {
        windows
            .by_id
            .iter()
            .filter(|(_, w)| !w.modal && w.owner.is_none())
            .map(|(id, _)| id.as_str())
            .collect()
    } else {
        ambiguous |= app_modals.len() > 1;
        app_modals.clone()
    };
    let groups = roots.iter().map(|r| leaves(r)).collect::<Result<Vec<_>, _>>()?;
    if !ambiguous {
        return Ok(Expected::Exactly(groups.into_iter().flatten().collect()));
    }
    Ok(Expected::Among { groups, one: app_modals.len() > 1 })
}

/// Checks an operable set against what the topology defines; `Err` says how
/// it differs.
pub(crate) fn check_operable(windows: &Windows) -> Result<(), String> {
    let mut actual: BTreeSet<String> = BTreeSet::new();
    for id in &windows.operable {
        if !actual.insert(id.clone()) {
            return Err(format!("operableWindowIds lists {id} twice"));
        }
        if !windows.by_id.contains_key(id) {
            return Err(format!("operableWindowIds lists {id}, which is not in windows[]"));
        }
    }
    match expected_operable(windows)? {
        Expected::Exactly(expected) if expected == actual => Ok(()),
        Expected::Exactly(expected) => Err(format!(
            "operableWindowIds is {actual:?}, but the modal chains make it {expected:?}"
        )),
        Expected::Among { groups, one } => {
            let candidates: BTreeSet<&String> = groups.iter().flatten().collect();
            if let Some(extra) = actual.iter().find(|id| !candidates.contains(id)) {
                return Err(format!("{extra} is operable but is not the top of any modal chain"));
            }
            if one {
                return if actual.len() == 1 {
                    Ok(())
                } else {
                    Err(format!(
                        "with several app-level modals open exactly one window is operable, not {actual:?}"
                    ))
                };
            }
            match groups.iter().find(|g| g.iter().all(|id| !actual.contains(id))) {
                Some(group) => {
                    Err(format!("none of {group:?} is operable, though one of them tops its chain"))
                }
                None => Ok(()),
            }
        }
    }
}

/// Characters a masked value may consist of (§4.5 shows `••••••`).
pub(crate) fn is_masked(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.chars().all(|c| "•●*∙·⋅◦■□▪ ".contains(c)),
        _ => false,
    }
}

/// Whether `token` occurs in `haystack` as a whole token: not preceded or
/// followed by a letter or digit (so a PIN `1234` is not found in `#12345`).
pub(crate) fn contains_token(haystack: &str, token: &str) -> bool {
    if token.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(found) = haystack[from..].find(token) {
        let start = from + found;
        let end = start + token.len();
        let before = haystack[..start].chars().next_back();
        let after = haystack[end..].chars().next();
        let alnum = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let joined_before =
            alnum(before) && token.chars().next().is_some_and(char::is_alphanumeric);
        let joined_after =
            alnum(after) && token.chars().next_back().is_some_and(char::is_alphanumeric);
        if !joined_before && !joined_after {
            return true;
        }
        from = start + token.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Whether a name uses only `[A-Za-z0-9_-]` and is not empty.
pub(crate) fn name_safe(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn windows(ws: Value, operable: Value) -> Windows {
        Windows::parse(json!({"operableWindowIds": operable, "windows": ws}))
    }

    fn w(id: &str, modal: bool, owner: Option<&str>) -> Value {
        json!({"id": id, "title": id, "modal": modal, "ownerId": owner, "version": 1, "blocks": []})
    }

    #[test]
    fn s2_operable_set_is_the_top_of_each_chain() {
        let ws = json!([
            w("A", false, None),
            w("B", false, None),
            w("D1", true, Some("B")),
            w("D2", true, Some("D1")),
            w("C", false, None)
        ]);
        assert_eq!(check_operable(&windows(ws.clone(), json!(["A", "D2", "C"]))), Ok(()));
        assert!(check_operable(&windows(ws.clone(), json!(["A", "B", "C"]))).is_err());
        assert!(check_operable(&windows(ws, json!(["A", "D2"]))).is_err());
    }

    #[test]
    fn s10_2_app_modal_collapses_to_its_own_top() {
        let ws = json!([w("A", false, None), w("M", true, None), w("M2", true, Some("M"))]);
        assert_eq!(check_operable(&windows(ws.clone(), json!(["M2"]))), Ok(()));
        assert!(check_operable(&windows(ws.clone(), json!(["A", "M2"]))).is_err());
        assert!(check_operable(&windows(ws, json!(["M"]))).is_err());
        let empty = windows(json!([]), json!([]));
        assert_eq!(check_operable(&empty), Ok(()));
    }

    #[test]
    fn s2_a_window_that_is_owned_but_not_modal_is_no_state_at_all() {
        let ws = json!([w("A", false, None), w("B", false, Some("A"))]);
        assert!(check_operable(&windows(ws, json!(["A"]))).unwrap_err().contains("§2"));
    }

    #[test]
    fn s10_2_nested_app_modals_leave_exactly_one_operable() {
        let ws = json!([w("A", false, None), w("M", true, None), w("N", true, None)]);
        assert_eq!(check_operable(&windows(ws.clone(), json!(["N"]))), Ok(()));
        assert!(check_operable(&windows(ws.clone(), json!(["M", "N"]))).is_err());
        assert!(check_operable(&windows(ws, json!(["A"]))).is_err());
    }

    #[test]
    fn s4_5_masks_are_mask_characters_only() {
        for masked in [json!(""), json!("••••••"), json!(null), json!("****")] {
            assert!(is_masked(&masked), "{masked}");
        }
        for plain in [json!("hunter2"), json!("••a••"), json!(1234)] {
            assert!(!is_masked(&plain), "{plain}");
        }
    }

    #[test]
    fn secrets_are_found_as_whole_tokens() {
        assert!(contains_token("PIN was 1234.", "1234"));
        assert!(contains_token("\"1234\"", "1234"));
        assert!(!contains_token("order #12345", "1234"));
        assert!(!contains_token("a1234", "1234"));
        assert!(contains_token("x pv-secret-9 y", "pv-secret-9"));
        assert!(contains_token("ünï 東京", "東京"));
    }
}

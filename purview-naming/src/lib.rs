//! The naming rules Purview's runtime and macros share.
//!
//! A tool name is `{windowId}__{action}` (or `app__{action}` for app-level
//! actions). MCP hosts accept `[A-Za-z0-9_-]{1,64}` and several spend part of
//! those 64 characters on a prefix of their own (`mcp__{server}__`), so every
//! piece of a name has a budget:
//!
//! | piece | rule |
//! |---|---|
//! | action | letter first, `[A-Za-z0-9_]`, no `__`, no trailing `_`, at most [`MAX_ACTION_NAME_LEN`] |
//! | window id | letter first, `[A-Za-z0-9]`, at most [`MAX_WINDOW_ID_LEN`] |
//! | whole tool name | at most [`MAX_TOOL_NAME_LEN`] |
//! | server name | at most [`HOST_TOOL_NAME_LIMIT`] − [`HOST_PREFIX_OVERHEAD`] − the longest tool name |
//!
//! The macros check names where they are written (a compile error at the
//! token); the runtime checks hand-written [`ActionSpec`]s with the same
//! functions, so both say the same thing. Argument patterns have a crate
//! of their own, `purview-pattern`.
//!
//! [`ActionSpec`]: https://docs.rs/purview/latest/purview/struct.ActionSpec.html
//!
//! ```
//! use purview_naming::{check_action_name, humanize};
//!
//! assert!(check_action_name("edit_field").is_ok());
//! assert!(check_action_name("edit__field").unwrap_err().contains("`__`"));
//! assert_eq!(humanize("edit_field"), "Edit field");
//! assert_eq!(humanize("editField"), "Edit field");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(clippy::too_many_lines)]

/// The longest action name, so that `{windowId}__{action}` stays within
/// [`MAX_TOOL_NAME_LEN`] with the longest window id.
pub const MAX_ACTION_NAME_LEN: usize = 26;

/// The longest window id Purview hands out or accepts from an app.
pub const MAX_WINDOW_ID_LEN: usize = 12;

/// The longest tool name Purview produces: the longest window id, `__`, and
/// the longest action name.
pub const MAX_TOOL_NAME_LEN: usize = MAX_WINDOW_ID_LEN + 2 + MAX_ACTION_NAME_LEN;

/// The tool-name limit MCP hosts enforce (`^[a-zA-Z0-9_-]{1,64}$`), prefix
/// included.
pub const HOST_TOOL_NAME_LIMIT: usize = 64;

/// What the longest common host prefix, `mcp__{server}__`, adds to a tool
/// name besides the server name itself.
pub const HOST_PREFIX_OVERHEAD: usize = "mcp__".len() + "__".len();

/// The tool-name prefix of app-level actions, and the window id that names
/// them in `app__act`.
pub const APP: &str = "app";

/// The always-listed tool that returns the whole `app://windows` snapshot
/// plus every operable window's available actions.
pub const READ_WINDOWS_TOOL: &str = "app__read_windows";

/// The always-listed tool that calls any operable window's action by window
/// id and action name.
pub const ACT_TOOL: &str = "app__act";

/// App-level action names taken by Purview's own always-listed tools
/// ([`READ_WINDOWS_TOOL`], [`ACT_TOOL`]).
pub const RESERVED_APP_ACTIONS: [&str; 2] = ["read_windows", "act"];

/// Whether any of `names` is taken by Purview's own tools as an app-level
/// action name ([`RESERVED_APP_ACTIONS`]). A `const fn`, so the app builder
/// can reject such an action set at compile time.
///
/// ```
/// assert!(purview_naming::any_reserved_app_action(&["lock", "act"]));
/// assert!(!purview_naming::any_reserved_app_action(&["lock", "acting"]));
/// ```
pub const fn any_reserved_app_action(names: &[&str]) -> bool {
    let mut i = 0;
    while i < names.len() {
        let mut r = 0;
        while r < RESERVED_APP_ACTIONS.len() {
            if same(names[i].as_bytes(), RESERVED_APP_ACTIONS[r].as_bytes()) {
                return true;
            }
            r += 1;
        }
        i += 1;
    }
    false
}

/// Whether two names are the same, in a `const` context (where `==` on
/// `str` is not available): how compile-time checks compare names.
///
/// ```
/// const SAME: bool = purview_naming::same_name("id", "id");
/// assert!(SAME && !purview_naming::same_name("id", "pet_id"));
/// ```
pub const fn same_name(a: &str, b: &str) -> bool {
    same(a.as_bytes(), b.as_bytes())
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Checks an action name against the rules every tool name must follow.
/// The error is a sentence naming the problem, for a compile error or an
/// [`InvalidDefinition`](https://docs.rs/purview/latest/purview/enum.Error.html).
///
/// ```
/// assert!(purview_naming::check_action_name("submit").is_ok());
/// assert!(purview_naming::check_action_name("9lives").is_err());
/// ```
pub fn check_action_name(name: &str) -> Result<(), String> {
    let problem = if name.is_empty() {
        "an action name cannot be empty".to_owned()
    } else if name.len() > MAX_ACTION_NAME_LEN {
        format!(
            "action name `{name}` is {} characters long; the limit is {MAX_ACTION_NAME_LEN} so that `{{windowId}}__{name}` fits the {HOST_TOOL_NAME_LIMIT}-character tool-name limit of MCP hosts together with their prefixes",
            name.len()
        )
    } else if !name.is_ascii() {
        format!(
            "action name `{name}` must be ASCII: MCP hosts accept only [A-Za-z0-9_-] in tool names"
        )
    } else if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        format!(
            "action name `{name}` must start with a letter (some MCP hosts reject anything else)"
        )
    } else if name.contains("__") {
        format!(
            "action name `{name}` must not contain `__`: it separates the window id from the action in tool names"
        )
    } else if name.ends_with('_') {
        format!("action name `{name}` must not end with `_`: the tool name would be ambiguous")
    } else if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("action name `{name}` may contain only A-Z, a-z, 0-9 and `_`")
    } else {
        return Ok(());
    };
    Err(problem)
}

/// [`check_action_name`] plus the names app-level actions may not take
/// because Purview's own tools use them ([`RESERVED_APP_ACTIONS`]).
///
/// ```
/// assert!(purview_naming::check_app_action_name("lock").is_ok());
/// assert!(purview_naming::check_app_action_name("act").unwrap_err().contains("app__act"));
/// ```
pub fn check_app_action_name(name: &str) -> Result<(), String> {
    check_action_name(name)?;
    if RESERVED_APP_ACTIONS.contains(&name) {
        return Err(format!(
            "app-level action `{name}` would be the tool `app__{name}`, which Purview lists itself ({READ_WINDOWS_TOOL} and {ACT_TOOL} reach every window from hosts that never refresh their tool list); rename the action"
        ));
    }
    Ok(())
}

/// Whether an app-chosen window name can be used as a window id as it is:
/// short, letter-first ASCII alphanumerics, not `app` (the app-level prefix)
/// and not shaped like a generated id (`w` and digits).
///
/// ```
/// assert!(purview_naming::is_name_safe_id("main"));
/// assert!(!purview_naming::is_name_safe_id("w7"));
/// assert!(!purview_naming::is_name_safe_id("月度报告"));
/// ```
pub fn is_name_safe_id(name: &str) -> bool {
    let generated = name
        .strip_prefix('w')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    !name.is_empty()
        && name.len() <= MAX_WINDOW_ID_LEN
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.bytes().all(|b| b.is_ascii_alphanumeric())
        && name != APP
        && !generated
}

/// Checks that `mcp__{server}__` plus the longest tool name fits the host
/// limit; the error says how long the server name may be.
///
/// ```
/// assert!(purview_naming::check_server_name("order_desk", 40).is_ok());
/// let e = purview_naming::check_server_name("my-very-long-application-name", 40).unwrap_err();
/// assert!(e.contains("17 characters"));
/// ```
pub fn check_server_name(server: &str, longest_tool_name: usize) -> Result<(), String> {
    let room = HOST_TOOL_NAME_LIMIT.saturating_sub(HOST_PREFIX_OVERHEAD + longest_tool_name);
    if server.chars().count() <= room {
        return Ok(());
    }
    Err(format!(
        "the server name `{server}` is {} characters long, but hosts prefix every tool with `mcp__{{server}}__` inside their {HOST_TOOL_NAME_LIMIT}-character limit and this app's tool names reach {longest_tool_name} characters: shorten the server name to {room} characters or fewer",
        server.chars().count()
    ))
}

/// An identifier in words, for titles and labels: `payment_password` →
/// `Payment password`, `OrderEditor` → `Order editor`, `load_URL` → `Load URL`.
///
/// ```
/// assert_eq!(purview_naming::humanize("show_terms"), "Show terms");
/// ```
pub fn humanize(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    let sentence = words
        .iter()
        .enumerate()
        .map(|(i, w)| if i == 0 { w.clone() } else { lower_unless_acronym(w) })
        .collect::<Vec<_>>()
        .join(" ");
    let mut chars = sentence.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => sentence,
    }
}

fn lower_unless_acronym(word: &str) -> String {
    if word.len() > 1 && word.chars().all(|c| c.is_uppercase() || c.is_ascii_digit()) {
        word.to_owned()
    } else {
        word.to_lowercase()
    }
}

/// Separates a window id (or [`APP`]) from an action name in a tool name.
pub const SEPARATOR: &str = "__";

/// The tool name of `action` on window `window` (or on [`APP`]):
/// `{windowId}__{action}`.
///
/// ```
/// assert_eq!(purview_naming::tool_name("w1", "submit"), "w1__submit");
/// assert_eq!(purview_naming::tool_name(purview_naming::APP, "lock"), "app__lock");
/// ```
pub fn tool_name(window: &str, action: &str) -> String {
    let mut name = String::with_capacity(window.len() + SEPARATOR.len() + action.len());
    name.push_str(window);
    name.push_str(SEPARATOR);
    name.push_str(action);
    name
}

/// The window (or [`APP`]) and the action a tool name names, split at the
/// first [`SEPARATOR`]; `None` for a name without one.
///
/// ```
/// assert_eq!(purview_naming::split_tool_name("w1__submit"), Some(("w1", "submit")));
/// assert_eq!(purview_naming::split_tool_name("submit"), None);
/// ```
pub fn split_tool_name(name: &str) -> Option<(&str, &str)> {
    name.split_once(SEPARATOR)
}

/// Separates the parts of a title made of several: an action's title and
/// where it acts (`Edit field · Order Editor (w1)`).
pub const TITLE_SEPARATOR: &str = " · ";

/// A title of `parts`, joined by [`TITLE_SEPARATOR`].
///
/// ```
/// assert_eq!(purview_naming::joined_title(&["Edit field", "Order Editor (w1)"]), "Edit field · Order Editor (w1)");
/// ```
pub fn joined_title(parts: &[&str]) -> String {
    parts.join(TITLE_SEPARATOR)
}

/// The last part of a title [`joined_title`] made.
///
/// ```
/// assert_eq!(purview_naming::last_title_part("Order Editor · submit"), "submit");
/// assert_eq!(purview_naming::last_title_part("submit"), "submit");
/// ```
pub fn last_title_part(title: &str) -> &str {
    title.rsplit(TITLE_SEPARATOR).next().unwrap_or(title)
}

/// An action's one-line signature, as `app__read_windows` lists it:
/// `edit_field(field: 'recipient'|'amount', value: string)`, then its marks
/// in one pair of brackets.
///
/// ```
/// use purview_naming::signature_line;
/// assert_eq!(signature_line("submit", "", &[]), "submit()");
/// assert_eq!(signature_line("wipe", "", &["destructive".into()]), "wipe() [destructive]");
/// assert_eq!(
///     signature_line("load", "offset: int", &["read-only".into(), "pages table rows".into()]),
///     "load(offset: int) [read-only, pages table rows]"
/// );
/// ```
pub fn signature_line(action: &str, params: &str, marks: &[String]) -> String {
    if marks.is_empty() {
        format!("{action}({params})")
    } else {
        format!("{action}({params}) [{}]", marks.join(MARK_SEPARATOR))
    }
}

const MARK_SEPARATOR: &str = ", ";

/// The action a [`signature_line`] names.
///
/// ```
/// assert_eq!(purview_naming::signature_action("edit_field(field: string)"), "edit_field");
/// assert_eq!(purview_naming::signature_action("submit"), "submit");
/// ```
pub fn signature_action(signature: &str) -> &str {
    signature.split('(').next().unwrap_or(signature).trim()
}

/// The marks of a [`signature_line`], in the order written. Brackets inside
/// the parameters (an enum's values, a pattern) are not marks: only a
/// bracket pair that ends the line is.
///
/// ```
/// use purview_naming::signature_marks;
/// assert_eq!(signature_marks("wipe() [destructive, needs approval]"), ["destructive", "needs approval"]);
/// assert_eq!(signature_marks("find(code: /[A-Z]{3}/)"), Vec::<&str>::new());
/// assert_eq!(signature_marks("submit()"), Vec::<&str>::new());
/// ```
pub fn signature_marks(signature: &str) -> Vec<&str> {
    let Some(open) = signature.rfind(") [") else { return Vec::new() };
    let Some(marks) = signature[open + 3..].strip_suffix(']') else { return Vec::new() };
    marks.split(MARK_SEPARATOR).collect()
}

const PAGES_MARK: &str = "pages table ";

/// The mark of the load action a paged table declares: `pages table rows`.
///
/// ```
/// use purview_naming::{pages_mark, paged_table};
/// assert_eq!(pages_mark("rows"), "pages table rows");
/// assert_eq!(paged_table(&pages_mark("rows")), Some("rows"));
/// assert_eq!(paged_table("read-only"), None);
/// ```
pub fn pages_mark(table: &str) -> String {
    format!("{PAGES_MARK}{table}")
}

/// The table a [`pages_mark`] names, if `mark` is one.
pub fn paged_table(mark: &str) -> Option<&str> {
    mark.strip_prefix(PAGES_MARK)
}

/// The argument every window action takes beside its own: the window's
/// version as the agent last read it (GUI Bridge §7.1).
pub const EXPECTED_VERSION: &str = "expectedVersion";

/// The id of the `seq`-th window an application opens: `w{seq}`.
///
/// ```
/// assert_eq!(purview_naming::window_id(3), "w3");
/// ```
pub fn window_id(seq: u64) -> String {
    format!("w{seq}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn humanizes_snake_and_camel_case_alike() {
        assert_eq!(humanize("payment_password"), "Payment password");
        assert_eq!(humanize("OrderEditor"), "Order editor");
        assert_eq!(humanize("editField"), "Edit field");
        assert_eq!(humanize("load_URL"), "Load URL");
    }

    #[test]
    fn s5_2_action_names_stay_name_safe() {
        for bad in ["", "9lives", "edit__field", "edit_", "édit", "has-dash", &"a".repeat(27)] {
            assert!(check_action_name(bad).is_err(), "{bad:?} was accepted");
        }
        for good in ["submit", "edit_field", "load2", &"a".repeat(26)] {
            assert!(check_action_name(good).is_ok(), "{good:?} was rejected");
        }
    }

    #[test]
    fn the_longest_tool_name_fits_the_host_limit_with_a_short_server() {
        assert_eq!(MAX_TOOL_NAME_LEN, 40);
        assert!(check_server_name(&"s".repeat(17), MAX_TOOL_NAME_LEN).is_ok());
        assert!(check_server_name(&"s".repeat(18), MAX_TOOL_NAME_LEN).is_err());
    }
}

//! What `#[actions(..)]` and `#[action(..)]` say.

use darling::{FromMeta, util::SpannedValue};

/// `#[actions(..)]` on the impl block.
#[derive(Debug, Default, FromMeta)]
pub struct ActionsArgs {
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
}

/// `#[action(..)]` on one method.
#[derive(Debug, Default, FromMeta)]
pub struct ActionArgs {
    pub name: Option<SpannedValue<String>>,
    pub title: Option<String>,
    pub description: Option<String>,
    #[darling(default)]
    pub destructive: bool,
    #[darling(default)]
    pub idempotent: bool,
    #[darling(default)]
    pub read_only: bool,
    #[darling(default)]
    pub open_world: bool,
    pub timeout: Option<SpannedValue<String>>,
    pub available: Option<syn::Path>,
}

/// `"250ms"`, `"5s"`, `"2m"` → milliseconds (`Some(0)` for a zero duration).
pub fn parse_timeout(text: &str) -> Option<u64> {
    let text = text.trim();
    let (number, factor) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1_000)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60_000)
    } else {
        return None;
    };
    number.trim().parse::<u64>().ok().and_then(|n| n.checked_mul(factor))
}

//! What the attributes of `#[window]` and its `#[block]` fields say.

use darling::{FromMeta, util::SpannedValue};

/// `#[window(..)]`.
#[derive(Debug, Default, FromMeta)]
pub struct WindowArgs {
    pub title: Option<SpannedValue<String>>,
    pub title_fn: Option<syn::Path>,
    pub summary: Option<SpannedValue<String>>,
    pub summary_fn: Option<syn::Path>,
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
}

/// `#[block(..)]` on one field, as written.
#[derive(Debug, Default, FromMeta)]
pub struct BlockArgs {
    pub text: Option<SpannedValue<()>>,
    pub field: Option<SpannedValue<()>>,
    pub table: Option<SpannedValue<()>>,
    pub list: Option<SpannedValue<()>>,
    pub notice: Option<SpannedValue<String>>,
    pub media: Option<SpannedValue<()>>,
    pub custom: Option<SpannedValue<()>>,
    pub id: Option<String>,
    pub label: Option<SpannedValue<String>>,
    pub group: Option<SpannedValue<String>>,
    pub sensitive: Option<SpannedValue<()>>,
    pub limit: Option<SpannedValue<usize>>,
    pub ordered: Option<SpannedValue<()>>,
    pub columns: Option<SpannedValue<Vec<syn::LitStr>>>,
}

/// The severities a notice may have.
pub const SEVERITIES: [&str; 4] = ["info", "warn", "error", "success"];

//! The typed model of a `#[window]` struct, as parsed and checked.

use proc_macro2::Span;

/// A checked `#[window]` struct.
pub struct Window {
    /// The struct as written, minus the `#[block]` attributes.
    pub item: syn::ItemStruct,
    pub krate: syn::Path,
    pub title: Text,
    pub summary: Option<Text>,
    pub blocks: Vec<BlockField>,
}

/// One field that becomes (part of) a block.
pub struct BlockField {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    /// The block id: the field name, the group, or `id = ".."`.
    pub id: String,
    /// Where the id comes from, for errors about it.
    pub id_span: Span,
    pub kind: Kind,
}

/// Which block a field becomes.
pub enum Kind {
    Text,
    Field {
        label: String,
        group: String,
        sensitive: bool,
    },
    /// `load`: the method of the action that loads the table's pages.
    Table {
        limit: Option<usize>,
        columns: Option<Vec<syn::LitStr>>,
        load: Option<syn::Ident>,
    },
    List {
        ordered: bool,
        limit: Option<usize>,
    },
    Notice {
        severity: Severity,
    },
    Media,
    Custom,
}

impl Kind {
    /// The `fields` group this field belongs to, if it is a field item.
    pub fn group(&self) -> Option<&str> {
        match self {
            Self::Field { group, .. } => Some(group),
            _ => None,
        }
    }
}

/// A notice's severity (§4.4).
#[derive(Clone, Copy)]
pub enum Severity {
    Info,
    Warn,
    Error,
    Success,
}

impl Severity {
    pub const NAMES: [&'static str; 4] = ["info", "warn", "error", "success"];

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "info" => Some(Self::Info),
            "warn" => Some(Self::Warn),
            "error" => Some(Self::Error),
            "success" => Some(Self::Success),
            _ => None,
        }
    }

    pub fn variant(self) -> syn::Ident {
        let name = match self {
            Self::Info => "Info",
            Self::Warn => "Warn",
            Self::Error => "Error",
            Self::Success => "Success",
        };
        syn::Ident::new(name, Span::call_site())
    }
}

/// A title or summary.
pub enum Text {
    /// A format string over the struct's fields.
    Template(Template),
    /// `title_fn = method` / `summary_fn = method`.
    Method(syn::Path),
    /// A fixed text (the type name in words for a default title).
    Fixed(String),
}

/// `"Order #{order}"`, rewritten as a positional format string.
pub struct Template {
    pub literal: syn::LitStr,
    pub fields: Vec<syn::Ident>,
}

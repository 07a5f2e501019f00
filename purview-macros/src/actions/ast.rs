//! The typed model of an `#[actions]` impl block, as parsed and checked.

use proc_macro2::Span;

/// A checked `#[actions]` impl block.
pub struct Impl {
    /// The impl as written, minus the `#[action]` attributes and the
    /// attributes moved off action arguments.
    pub item: syn::ItemImpl,
    pub krate: syn::Path,
    /// `#[actions(app)]`: the app-level actions.
    pub app: bool,
    pub actions: Vec<Action>,
}

/// One `#[action]` method.
pub struct Action {
    pub method: syn::Ident,
    /// The action (tool) name: the method name, or `name = ".."`.
    pub name: String,
    pub name_span: Span,
    pub title: Option<String>,
    pub description: Option<String>,
    pub hints: Hints,
    /// Needs a person's approval when an agent calls it.
    pub approval: bool,
    pub timeout_ms: Option<u64>,
    /// `available = method`: hides the action while it returns `false`.
    pub available: Option<syn::Path>,
    /// `question = method`: what a person is asked before approving an
    /// agent's call, or the refusal that spares asking anyone.
    pub question: Option<syn::Path>,
    pub is_async: bool,
    pub inputs: Vec<Arg>,
    pub returns: Returns,
}

/// The §5.6 annotations an action asks for; `true` where written.
#[derive(Default, Clone, Copy)]
pub struct Hints {
    pub destructive: bool,
    pub idempotent: bool,
    pub read_only: bool,
    pub open_world: bool,
}

/// How a method's return value becomes the call's output.
pub enum Returns {
    Unit,
    Output,
    Value(syn::Type),
    Result { ok: Box<Returns>, err: Option<syn::Type> },
}

impl Returns {
    /// The type that becomes `result` in the outputSchema, if any.
    pub fn result_type(&self) -> Option<&syn::Type> {
        match self {
            Self::Value(ty) => Some(ty),
            Self::Result { ok, .. } => ok.result_type(),
            Self::Unit | Self::Output => None,
        }
    }
}

/// One argument an agent sends.
pub struct Param {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    /// Doc comments and serde/schemars attributes, moved onto the generated
    /// arguments struct.
    pub attrs: Vec<syn::Attribute>,
    /// What `#[arg(..)]` declares.
    pub constraints: Constraints,
}

/// The constraints `#[arg(..)]` declares on one argument, checked.
#[derive(Default)]
pub struct Constraints {
    /// `range(min = .., max = ..)`: the bounds, and where it is written.
    pub range: Option<(Option<f64>, Option<f64>, Span)>,
    /// `length(min = .., max = ..)`.
    pub length: Option<(Option<u64>, Option<u64>, Span)>,
    /// `pattern = ".."`.
    pub pattern: Option<(String, Span)>,
    /// `message = ".."`: how a failed pattern reads.
    pub message: Option<String>,
    /// `example = ..`: a value as a person writes it.
    pub example: Option<syn::Lit>,
    /// `from = table.column`: the table block and the column.
    pub from: Option<(syn::Ident, syn::Member)>,
}

/// A method parameter: an argument, or the call's `Context`.
#[allow(clippy::large_enum_variant)] // one per parameter, at compile time
pub enum Arg {
    Param(Param),
    Context { mutable: bool },
}

impl Action {
    /// The arguments agents send, in order.
    pub fn params(&self) -> impl Iterator<Item = &Param> {
        self.inputs.iter().filter_map(|a| match a {
            Arg::Param(p) => Some(p),
            Arg::Context { .. } => None,
        })
    }
}

//! `#[window]`: a struct's fields become a projection (summary + blocks).
//!
//! parse (attr.rs) → check (here) → expand (expand.rs).

mod attr;
mod expand;

use darling::{FromMeta, ast::NestedMeta, util::SpannedValue};
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;

use self::attr::{BlockArgs, SEVERITIES, WindowArgs};
use crate::names::{did_you_mean, humanize, unraw};

/// One projected block, checked.
pub enum Kind {
    Text,
    Field { label: String, group: String, sensitive: bool },
    Table { limit: Option<usize>, columns: Option<Vec<syn::LitStr>> },
    List { ordered: bool, limit: Option<usize> },
    Notice { severity: String },
    Media,
    Custom,
}

pub struct BlockField {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    pub id: String,
    pub kind: Kind,
}

/// A format string over the struct's fields.
pub struct Template {
    pub literal: syn::LitStr,
    pub fields: Vec<syn::Ident>,
}

pub enum Text {
    Template(Template),
    Method(syn::Path),
    Fixed(String),
}

pub struct Window {
    pub item: syn::ItemStruct,
    pub krate: syn::Path,
    pub title: Text,
    pub summary: Option<Text>,
    pub blocks: Vec<BlockField>,
}

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut item: syn::ItemStruct = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            // Point at the item's name when there is one.
            let span = match syn::parse2::<syn::Item>(item.clone()) {
                Ok(syn::Item::Enum(e)) => e.ident.span(),
                Ok(syn::Item::Union(u)) => u.ident.span(),
                Ok(syn::Item::Fn(f)) => f.sig.ident.span(),
                _ => Span::call_site(),
            };
            let message = "#[window] goes on a struct: a window is one view-model whose fields are projected as blocks";
            let e = syn::Error::new(span, message).into_compile_error();
            return quote::quote!(#e #item);
        }
    };
    let mut errors = darling::Error::accumulator();
    let blocks = collect_blocks(&mut item, &mut errors);
    let args = errors
        .handle(
            NestedMeta::parse_meta_list(args)
                .map_err(darling::Error::from)
                .and_then(|m| WindowArgs::from_list(&m)),
        )
        .unwrap_or_default();
    let field_names: Vec<syn::Ident> = item.fields.iter().filter_map(|f| f.ident.clone()).collect();
    let krate = args.krate.clone().unwrap_or_else(|| syn::parse_quote!(::purview));
    let title = match (args.title, args.title_fn) {
        (Some(_), Some(path)) => {
            errors.push(
                darling::Error::custom("give either `title` or `title_fn`, not both")
                    .with_span(&path),
            );
            Text::Fixed(String::new())
        }
        (Some(t), None) => errors
            .handle(template(&t, &field_names))
            .map(Text::Template)
            .unwrap_or(Text::Fixed(String::new())),
        (None, Some(path)) => Text::Method(path),
        (None, None) => Text::Fixed(humanize(&unraw(&item.ident))),
    };
    let summary = match (args.summary, args.summary_fn) {
        (Some(_), Some(path)) => {
            errors.push(
                darling::Error::custom("give either `summary` or `summary_fn`, not both")
                    .with_span(&path),
            );
            None
        }
        (Some(s), None) => errors.handle(template(&s, &field_names)).map(Text::Template),
        (None, Some(path)) => Some(Text::Method(path)),
        (None, None) => None,
    };
    check_ids(&blocks, &mut errors);
    let window = Window { item, krate, title, summary, blocks };
    match errors.finish() {
        Ok(()) => expand::window(&window),
        Err(e) => expand::fallback(&window, e.write_errors()),
    }
}

/// Reads and removes every `#[block]` attribute.
fn collect_blocks(
    item: &mut syn::ItemStruct,
    errors: &mut darling::error::Accumulator,
) -> Vec<BlockField> {
    let mut blocks = Vec::new();
    match item.fields {
        syn::Fields::Named(_) => {}
        syn::Fields::Unit => return blocks,
        syn::Fields::Unnamed(_) => {
            errors.push(
                darling::Error::custom("#[window] goes on a struct with named fields (or none): blocks are named after fields")
                    .with_span(&item.ident),
            );
            return blocks;
        }
    }
    for field in item.fields.iter_mut() {
        let (block_attrs, other): (Vec<syn::Attribute>, Vec<syn::Attribute>) =
            field.attrs.drain(..).partition(|a| a.path().is_ident("block"));
        field.attrs = other;
        let Some(ident) = field.ident.clone() else { continue };
        if let Some(extra) = block_attrs.get(1) {
            errors.push(
                darling::Error::custom(
                    "a field projects at most one block; remove this second #[block]",
                )
                .with_span(extra),
            );
        }
        let Some(attr) = block_attrs.first() else { continue };
        let args = match &attr.meta {
            syn::Meta::List(list) => errors.handle(
                NestedMeta::parse_meta_list(list.tokens.clone())
                    .map_err(darling::Error::from)
                    .and_then(|m| BlockArgs::from_list(&m)),
            ),
            _ => {
                errors.push(
                    darling::Error::custom(
                        "say which block this field becomes: #[block(text)], #[block(field)], #[block(table)], #[block(list)], #[block(notice = \"error\")], #[block(media)] or #[block(custom)]",
                    )
                    .with_span(attr.path()),
                );
                None
            }
        };
        let Some(args) = args else { continue };
        if let Some(kind) = errors.handle(kind(&ident, attr, &args)) {
            let id = args.id.clone().unwrap_or_else(|| match &kind {
                Kind::Field { group, .. } => group.clone(),
                _ => unraw(&ident),
            });
            blocks.push(BlockField { ident, ty: field.ty.clone(), id, kind });
        }
    }
    blocks
}

fn misplaced<T>(
    option: &Option<SpannedValue<T>>,
    name: &str,
    applies_to: &str,
) -> darling::Result<()> {
    match option {
        Some(v) => Err(darling::Error::custom(format!("`{name}` applies only to {applies_to}"))
            .with_span(&v.span())),
        None => Ok(()),
    }
}

/// Decides a field's block kind and rejects options that do not belong to it.
fn kind(ident: &syn::Ident, attr: &syn::Attribute, args: &BlockArgs) -> darling::Result<Kind> {
    let chosen: Vec<&str> = [
        ("text", args.text.is_some()),
        ("field", args.field.is_some()),
        ("table", args.table.is_some()),
        ("list", args.list.is_some()),
        ("notice", args.notice.is_some()),
        ("media", args.media.is_some()),
        ("custom", args.custom.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    let kind = match chosen.as_slice() {
        [one] => *one,
        [] => {
            return Err(darling::Error::custom(
                "say which block this field becomes: text, field, table, list, notice = \"..\", media or custom",
            )
            .with_span(attr.path()));
        }
        many => {
            return Err(darling::Error::custom(format!(
                "a field becomes one block, not {}",
                many.join(" and ")
            ))
            .with_span(attr.path()));
        }
    };
    let mut errors = darling::Error::accumulator();
    if kind != "field" {
        errors.handle(misplaced(&args.sensitive, "sensitive", "#[block(field)]: masking is per field item (§4.5); hold other secrets in purview::Secret"));
        errors.handle(misplaced(&args.label, "label", "#[block(field)]"));
        errors.handle(misplaced(&args.group, "group", "#[block(field)]"));
    }
    if kind != "table" && kind != "list" {
        errors.handle(misplaced(&args.limit, "limit", "#[block(table)] and #[block(list)]"));
    }
    if kind != "list" {
        errors.handle(misplaced(&args.ordered, "ordered", "#[block(list)]"));
    }
    if kind != "table" {
        errors.handle(misplaced(&args.columns, "columns", "#[block(table)]"));
    }
    let kind = match kind {
        "text" => Kind::Text,
        "field" => Kind::Field {
            label: args
                .label
                .as_ref()
                .map(|l| (**l).clone())
                .unwrap_or_else(|| humanize(&unraw(ident))),
            group: args.group.as_ref().map(|g| (**g).clone()).unwrap_or_else(|| "fields".into()),
            sensitive: args.sensitive.is_some(),
        },
        "table" => Kind::Table {
            limit: args.limit.as_ref().map(|l| **l),
            columns: args.columns.as_ref().map(|c| (**c).clone()),
        },
        "list" => {
            Kind::List { ordered: args.ordered.is_some(), limit: args.limit.as_ref().map(|l| **l) }
        }
        "notice" => {
            let severity = args.notice.as_ref().map(|s| (**s).clone()).unwrap_or_default();
            if !SEVERITIES.contains(&severity.as_str()) {
                let hint = did_you_mean(&severity, SEVERITIES)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                errors.push(
                    darling::Error::custom(format!(
                        "unknown notice severity `{severity}`: use info, warn, error or success{hint}"
                    ))
                    .with_span(&args.notice.as_ref().map(|n| n.span()).unwrap_or_else(|| attr.span())),
                );
            }
            Kind::Notice { severity }
        }
        "media" => Kind::Media,
        _ => Kind::Custom,
    };
    errors.finish_with(kind)
}

fn check_ids(blocks: &[BlockField], errors: &mut darling::error::Accumulator) {
    // Field items of one group share their block id on purpose; anything
    // else sharing an id is a mistake.
    let group_of = |b: &BlockField| match &b.kind {
        Kind::Field { group, .. } => Some(group.clone()),
        _ => None,
    };
    let mut seen: Vec<(&str, Option<String>)> = Vec::new();
    for block in blocks {
        let group = group_of(block);
        match seen.iter().find(|(id, _)| *id == block.id) {
            Some((_, Some(g))) if group.as_ref() == Some(g) => {}
            Some(_) => errors.push(
                darling::Error::custom(format!(
                    "block id `{}` is used twice in this window; block ids must be unique (§10.3): set a different `id`",
                    block.id
                ))
                .with_span(&block.ident),
            ),
            None => seen.push((&block.id, group)),
        }
    }
}

/// Parses `{field}` / `{field:spec}` placeholders, checks each names a
/// field, and rewrites them as positional `{}` / `{:spec}` so any field name
/// (raw identifiers included) works.
fn template(text: &SpannedValue<String>, fields: &[syn::Ident]) -> darling::Result<Template> {
    let span = text.span();
    let mut used: Vec<syn::Ident> = Vec::new();
    let mut rewritten = String::new();
    let mut errors = darling::Error::accumulator();
    let mut rest = text.as_str();
    while let Some(open) = rest.find(['{', '}']) {
        rewritten.push_str(&rest[..open]);
        rest = &rest[open..];
        if rest.starts_with("{{") || rest.starts_with("}}") {
            rewritten.push_str(&rest[..2]);
            rest = &rest[2..];
            continue;
        }
        if rest.starts_with('}') {
            errors.push(
                darling::Error::custom(
                    "unmatched `}` in format string; write `}}` for a literal brace",
                )
                .with_span(&span),
            );
            rest = &rest[1..];
            continue;
        }
        let Some(close) = rest.find('}') else {
            errors.push(
                darling::Error::custom(
                    "unclosed `{` in format string; write `{{` for a literal brace",
                )
                .with_span(&span),
            );
            rest = "";
            break;
        };
        let inside = &rest[1..close];
        let (name, spec) = match inside.split_once(':') {
            Some((name, spec)) => (name.trim(), Some(spec)),
            None => (inside.trim(), None),
        };
        let name = name.strip_prefix("r#").unwrap_or(name);
        if name.is_empty() || name.chars().all(|c| c.is_ascii_digit()) {
            errors.push(
                darling::Error::custom("name the field to show: `{field}`, not `{}`")
                    .with_span(&span),
            );
        } else if let Some(field) = fields.iter().find(|f| unraw(f) == name) {
            used.push(field.clone());
        } else {
            let names: Vec<String> = fields.iter().map(unraw).collect();
            let hint = did_you_mean(name, names.iter().map(String::as_str))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            errors.push(
                darling::Error::custom(format!("no field `{name}` in this struct{hint}"))
                    .with_span(&span),
            );
        }
        rewritten.push_str(&match spec {
            Some(spec) => format!("{{:{spec}}}"),
            None => "{}".to_owned(),
        });
        rest = &rest[close + 1..];
    }
    rewritten.push_str(rest);
    errors.finish_with(Template { literal: syn::LitStr::new(&rewritten, span), fields: used })
}

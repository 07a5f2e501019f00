//! Parsing `#[window(..)]` and the `#[block(..)]` field attributes into the
//! typed model, with the checks that concern one attribute at a time.

use darling::{FromMeta, ast::NestedMeta, error::Accumulator, util::SpannedValue};
use proc_macro2::{Span, TokenStream};

use super::ast::{BlockField, Kind, Severity};
use crate::util::{did_you_mean, krate, unraw};

/// `#[window(..)]`.
#[derive(Debug, Default, FromMeta)]
struct WindowArgs {
    title: Option<SpannedValue<String>>,
    title_fn: Option<syn::Path>,
    summary: Option<SpannedValue<String>>,
    summary_fn: Option<syn::Path>,
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

/// `#[block(..)]` on one field, as written.
#[derive(Debug, Default, FromMeta)]
struct BlockArgs {
    text: Option<SpannedValue<()>>,
    field: Option<SpannedValue<()>>,
    table: Option<SpannedValue<()>>,
    list: Option<SpannedValue<()>>,
    notice: Option<SpannedValue<String>>,
    media: Option<SpannedValue<()>>,
    custom: Option<SpannedValue<()>>,
    id: Option<SpannedValue<String>>,
    label: Option<SpannedValue<String>>,
    group: Option<SpannedValue<String>>,
    sensitive: Option<SpannedValue<()>>,
    limit: Option<SpannedValue<usize>>,
    ordered: Option<SpannedValue<()>>,
    columns: Option<SpannedValue<Vec<syn::LitStr>>>,
    /// `load = method`: the table's load action.
    load: Option<SpannedValue<syn::Ident>>,
}

/// A title or summary as written, before its placeholders are checked.
pub enum TextSpec {
    Template(SpannedValue<String>),
    Method(syn::Path),
    Fixed(String),
}

/// What parsing found, for the cross-item checks.
pub struct Parsed {
    pub item: syn::ItemStruct,
    pub krate: syn::Path,
    pub title: TextSpec,
    pub summary: Option<TextSpec>,
    pub blocks: Vec<BlockField>,
}

/// Parses the arguments and every `#[block]` (removing them from the struct).
pub fn parse(args: TokenStream, mut item: syn::ItemStruct, errors: &mut Accumulator) -> Parsed {
    let blocks = collect_blocks(&mut item, errors);
    let args = errors
        .handle(
            NestedMeta::parse_meta_list(args)
                .map_err(darling::Error::from)
                .and_then(|m| WindowArgs::from_list(&m)),
        )
        .unwrap_or_default();
    let title = match (args.title, args.title_fn) {
        (Some(_), Some(path)) => {
            errors.push(
                darling::Error::custom("give either `title` or `title_fn`, not both")
                    .with_span(&path),
            );
            TextSpec::Fixed(String::new())
        }
        (Some(t), None) => TextSpec::Template(t),
        (None, Some(path)) => TextSpec::Method(path),
        (None, None) => TextSpec::Fixed(purview_naming::humanize(&unraw(&item.ident))),
    };
    let summary = match (args.summary, args.summary_fn) {
        (Some(_), Some(path)) => {
            errors.push(
                darling::Error::custom("give either `summary` or `summary_fn`, not both")
                    .with_span(&path),
            );
            None
        }
        (Some(s), None) => Some(TextSpec::Template(s)),
        (None, Some(path)) => Some(TextSpec::Method(path)),
        (None, None) => None,
    };
    Parsed { item, krate: krate(args.krate), title, summary, blocks }
}

const SAY_WHICH: &str = "say which block this field becomes: #[block(text)], #[block(field)], #[block(table)], #[block(list)], #[block(notice = \"error\")], #[block(media)] or #[block(custom)]";

const BLOCK_KINDS: [&str; 7] = ["text", "field", "table", "list", "notice", "media", "custom"];
const BLOCK_OPTIONS: [&str; 8] =
    ["id", "label", "group", "sensitive", "limit", "ordered", "columns", "load"];

/// Reports a word that is neither a block kind nor an option, and is not a
/// near miss of one (darling suggests the near misses), listing the kinds;
/// the rest goes on to be parsed.
fn unknown_kinds(metas: Vec<NestedMeta>, errors: &mut Accumulator) -> Vec<NestedMeta> {
    let known = BLOCK_KINDS.iter().chain(&BLOCK_OPTIONS);
    let known: Vec<&str> = known.copied().collect();
    metas
        .into_iter()
        .filter(|meta| {
            let NestedMeta::Meta(m) = meta else { return true };
            let Some(word) = m.path().get_ident().map(ToString::to_string) else { return true };
            if known.contains(&word.as_str())
                || did_you_mean(&word, known.iter().copied()).is_some()
            {
                return true;
            }
            errors.push(
                darling::Error::custom(format!(
                    "`{word}` is not a block kind: a field becomes one of {}; its options are {}",
                    BLOCK_KINDS
                        .iter()
                        .map(|k| if *k == "notice" {
                            "`notice = \"error\"`".to_owned()
                        } else {
                            format!("`{k}`")
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    BLOCK_OPTIONS.map(|o| format!("`{o}`")).join(", "),
                ))
                .with_span(m.path()),
            );
            false
        })
        .collect()
}

/// Reads and removes every `#[block]` attribute.
fn collect_blocks(item: &mut syn::ItemStruct, errors: &mut Accumulator) -> Vec<BlockField> {
    match item.fields {
        syn::Fields::Named(_) => {}
        syn::Fields::Unit => return Vec::new(),
        syn::Fields::Unnamed(_) => {
            errors.push(
                darling::Error::custom("#[window] goes on a struct with named fields (or none): blocks are named after fields")
                    .with_span(&item.ident),
            );
            return Vec::new();
        }
    }
    let mut blocks = Vec::new();
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
            syn::Meta::List(list) => {
                let metas = errors.handle(
                    NestedMeta::parse_meta_list(list.tokens.clone()).map_err(darling::Error::from),
                );
                metas.and_then(|m| {
                    let known = unknown_kinds(m, errors);
                    errors.handle(BlockArgs::from_list(&known))
                })
            }
            _ => {
                errors.push(darling::Error::custom(SAY_WHICH).with_span(attr.path()));
                None
            }
        };
        let Some(args) = args else { continue };
        if let Some(kind) = errors.handle(kind(&ident, attr, &args)) {
            let (id, id_span) = match (&args.id, &kind) {
                (Some(id), _) => ((**id).clone(), id.span()),
                (None, Kind::Field { group, .. }) => {
                    let span = args.group.as_ref().map_or(ident.span(), |g| g.span());
                    (group.clone(), span)
                }
                (None, _) => (unraw(&ident), ident.span()),
            };
            blocks.push(BlockField { ident, ty: field.ty.clone(), id, id_span, kind });
        }
    }
    blocks
}

/// An option that belongs to other block kinds, pointed at where it is written.
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

/// The one block kind a `#[block(..)]` names.
enum Chosen {
    Text,
    Field,
    Table,
    List,
    Notice(SpannedValue<String>),
    Media,
    Custom,
}

/// The one block kind `#[block(..)]` names, or why it names none or several.
fn choose(attr: &syn::Attribute, args: &BlockArgs) -> darling::Result<Chosen> {
    let mut chosen: Vec<(&str, Chosen, Span)> = Vec::new();
    let mut flag = |name, written: &Option<SpannedValue<()>>, which| {
        if let Some(written) = written {
            chosen.push((name, which, written.span()));
        }
    };
    flag("text", &args.text, Chosen::Text);
    flag("field", &args.field, Chosen::Field);
    flag("table", &args.table, Chosen::Table);
    flag("list", &args.list, Chosen::List);
    flag("media", &args.media, Chosen::Media);
    flag("custom", &args.custom, Chosen::Custom);
    if let Some(severity) = &args.notice {
        chosen.push(("notice", Chosen::Notice(severity.clone()), severity.span()));
    }
    match chosen.len() {
        1 => Ok(chosen.remove(0).1),
        0 => Err(darling::Error::custom(SAY_WHICH).with_span(attr.path())),
        _ => {
            let names: Vec<&str> = chosen.iter().map(|(n, ..)| *n).collect();
            Err(darling::Error::custom(format!(
                "a field becomes one block, not {}",
                names.join(" and ")
            ))
            .with_span(&chosen[1].2))
        }
    }
}

/// Options written beside a block kind they do not belong to.
fn reject_misplaced(chosen: &Chosen, args: &BlockArgs, errors: &mut darling::error::Accumulator) {
    let (is_field, is_table, is_list) = match chosen {
        Chosen::Field => (true, false, false),
        Chosen::Table => (false, true, false),
        Chosen::List => (false, false, true),
        _ => (false, false, false),
    };
    if !is_field {
        errors.handle(misplaced(&args.sensitive, "sensitive", "#[block(field)]: masking is per field item (§4.5); hold other secrets in purview::Secret"));
        errors.handle(misplaced(&args.label, "label", "#[block(field)]"));
        errors.handle(misplaced(&args.group, "group", "#[block(field)]"));
    }
    if !is_table && !is_list {
        errors.handle(misplaced(&args.limit, "limit", "#[block(table)] and #[block(list)]"));
    }
    if !is_list {
        errors.handle(misplaced(&args.ordered, "ordered", "#[block(list)]"));
    }
    if !is_table {
        errors.handle(misplaced(&args.columns, "columns", "#[block(table)]"));
        errors.handle(misplaced(
            &args.load,
            "load",
            "#[block(table)], to name the action that loads its pages",
        ));
    }
}

/// Decides a field's block kind and rejects options that do not belong to it.
fn kind(ident: &syn::Ident, attr: &syn::Attribute, args: &BlockArgs) -> darling::Result<Kind> {
    let chosen = choose(attr, args)?;
    let mut errors = darling::Error::accumulator();
    reject_misplaced(&chosen, args, &mut errors);
    let limit = args.limit.as_ref().map(|l| **l);
    let kind = match chosen {
        Chosen::Text => Kind::Text,
        Chosen::Field => Kind::Field {
            label: args
                .label
                .as_ref()
                .map(|l| (**l).clone())
                .unwrap_or_else(|| purview_naming::humanize(&unraw(ident))),
            group: args.group.as_ref().map(|g| (**g).clone()).unwrap_or_else(|| "fields".into()),
            sensitive: args.sensitive.is_some(),
        },
        Chosen::Table => Kind::Table {
            limit,
            columns: args.columns.as_ref().map(|c| (**c).clone()),
            load: args.load.as_ref().map(|l| (**l).clone()),
        },
        Chosen::List => Kind::List { ordered: args.ordered.is_some(), limit },
        Chosen::Notice(severity) => match Severity::parse(&severity) {
            Some(severity) => Kind::Notice { severity },
            None => {
                let hint = did_you_mean(&severity, Severity::NAMES)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                errors.push(
                    darling::Error::custom(format!(
                        "unknown notice severity `{}`: use info, warn, error or success{hint}",
                        *severity
                    ))
                    .with_span(&severity.span()),
                );
                Kind::Notice { severity: Severity::Error }
            }
        },
        Chosen::Media => Kind::Media,
        Chosen::Custom => Kind::Custom,
    };
    errors.finish_with(kind)
}

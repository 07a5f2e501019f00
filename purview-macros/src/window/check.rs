//! Rules that span the whole struct: title and summary placeholders name
//! real fields, and block ids are unique (§10.3).

use darling::{error::Accumulator, util::SpannedValue};

use super::{
    ast::{BlockField, Template, Text, Window},
    attr::{Parsed, TextSpec},
};
use crate::util::{did_you_mean, unraw};

/// Turns what parsing found into a checked window, recording every problem.
pub fn window(parsed: Parsed, errors: &mut Accumulator) -> Window {
    let Parsed { item, krate, title, summary, blocks } = parsed;
    let fields: Vec<syn::Ident> = item.fields.iter().filter_map(|f| f.ident.clone()).collect();
    let mut text = |spec: TextSpec| match spec {
        TextSpec::Template(t) => errors
            .handle(template(&t, &fields))
            .map(Text::Template)
            .unwrap_or(Text::Fixed(String::new())),
        TextSpec::Method(path) => Text::Method(path),
        TextSpec::Fixed(s) => Text::Fixed(s),
    };
    let title = text(title);
    let summary = summary.map(text);
    unique_ids(&blocks, errors);
    Window { item, krate, title, summary, blocks }
}

fn unique_ids(blocks: &[BlockField], errors: &mut Accumulator) {
    // Field items of one group share their block id on purpose; anything
    // else sharing an id is a mistake.
    let mut seen: Vec<(&str, Option<&str>)> = Vec::new();
    for block in blocks {
        let group = block.kind.group();
        match seen.iter().find(|(id, _)| *id == block.id) {
            Some((_, Some(g))) if group == Some(*g) => {}
            Some(_) => errors.push(
                darling::Error::custom(format!(
                    "block id `{}` is used twice in this window; block ids must be unique (§10.3): set a different `id`",
                    block.id
                ))
                .with_span(&block.id_span),
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

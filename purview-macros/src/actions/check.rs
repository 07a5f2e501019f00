//! Rules that span the whole impl block: what kind of impl it is, and that
//! no two methods claim the same action name.

use darling::error::Accumulator;

use super::ast::{Action, Impl};

pub fn impl_block(item: &syn::ItemImpl, errors: &mut Accumulator) {
    if !item.generics.params.is_empty() {
        errors.push(
            darling::Error::custom(
                "#[actions] does not take generic impl blocks: each action's arguments become a concrete JSON Schema. Implement purview::Actions by hand for a generic view-model, or add #[actions] to an impl for a concrete type",
            )
            .with_span(&item.generics.params),
        );
    }
    if let Some((_, path, _)) = &item.trait_ {
        errors.push(
            darling::Error::custom("#[actions] goes on an inherent impl block, not a trait impl")
                .with_span(path),
        );
    }
}

/// Keeps the first action of each name; reports the others at their method.
pub fn unique_names(parsed: &mut Impl, errors: &mut Accumulator) {
    let mut kept: Vec<Action> = Vec::new();
    for action in parsed.actions.drain(..) {
        if let Some(first) = kept.iter().find(|a| a.name == action.name) {
            errors.push(
                darling::Error::custom(format!(
                    "action `{}` is already defined by method `{}`; tool names must be unique per window",
                    action.name, first.method
                ))
                .with_span(&action.name_span),
            );
        } else {
            kept.push(action);
        }
    }
    parsed.actions = kept;
}

/// A second `#[actions]` impl for the same type in the same module: the
/// compiler alone would report conflicting implementations of traits the
/// user never wrote. Found by reading the source file the impl is in (when
/// the compiler says which it is); an impl under `#[cfg(..)]` is never
/// counted, as another may stand in for it.
pub fn only_impl(item: &syn::ItemImpl) -> Option<darling::Error> {
    if !proc_macro::is_available() || has_cfg(&item.attrs) {
        return None;
    }
    let file = proc_macro::Span::call_site().local_file()?;
    let source = syn::parse_file(&std::fs::read_to_string(file).ok()?).ok()?;
    let ours = squeeze(item);
    let self_ty = squeeze(&item.self_ty);
    earlier_in_module(&source.items, &ours, &self_ty)?.then(|| {
        let ty = quote::ToTokens::to_token_stream(&item.self_ty).to_string().replace(' ', "");
        darling::Error::custom(format!(
            "`{ty}` already has an #[actions] impl above in this module: move these #[action] methods into that impl block (a window's actions are declared in one #[actions] impl; other methods can live in plain impl blocks)"
        ))
        .with_span(&item.self_ty)
    })
}

/// Tokens without spacing, so the compiler's and syn's renderings agree.
fn squeeze(tokens: &impl quote::ToTokens) -> String {
    tokens.to_token_stream().to_string().split_whitespace().collect()
}

fn has_cfg(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
}

fn is_actions(attr: &syn::Attribute) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == "actions")
}

/// In the module holding our impl: `Some(true)` when an `#[actions]` impl of
/// the same type comes before it; `None` when ours is not in these items.
fn earlier_in_module(items: &[syn::Item], ours: &str, self_ty: &str) -> Option<bool> {
    let mut seen_before = false;
    for item in items {
        match item {
            syn::Item::Impl(other) if other.attrs.iter().any(is_actions) => {
                let mut without = other.clone();
                without.attrs.retain(|a| !is_actions(a));
                if squeeze(&without) == ours {
                    return Some(seen_before);
                }
                if !has_cfg(&other.attrs) && squeeze(&other.self_ty) == self_ty {
                    seen_before = true;
                }
            }
            syn::Item::Mod(module) => {
                if let Some((_, inner)) = &module.content
                    && let Some(found) = earlier_in_module(inner, ours, self_ty)
                {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

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

/// A `question = method` defined in this impl block takes what the
/// dispatch lends it: `&self` and a reference to each argument, in order.
/// The compiler's own message for a wrong count would suggest passing the
/// generated call's names; this one states the shape.
pub fn question_shapes(parsed: &Impl, errors: &mut Accumulator) {
    for action in &parsed.actions {
        let Some(ident) = action.question.as_ref().and_then(syn::Path::get_ident) else {
            continue;
        };
        let Some(method) = parsed.item.items.iter().find_map(|member| match member {
            syn::ImplItem::Fn(f) if f.sig.ident == *ident => Some(f),
            _ => None,
        }) else {
            continue;
        };
        let takes_self = matches!(
            method.sig.inputs.first(),
            Some(syn::FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none()
        );
        let given = method.sig.inputs.len().saturating_sub(usize::from(takes_self));
        let wanted: Vec<String> = action
            .params()
            .map(|p| {
                let ty = &p.ty;
                format!("{}: &{}", crate::util::unraw(&p.ident), quote::quote!(#ty))
                    .replace(" >", ">")
                    .replace("< ", "<")
                    .replace(" <", "<")
            })
            .collect();
        if takes_self && given == wanted.len() {
            continue;
        }
        let shape =
            std::iter::once("&self".to_owned()).chain(wanted).collect::<Vec<_>>().join(", ");
        let arguments = match action.params().count() {
            0 => "no arguments, so it takes only `&self`".to_owned(),
            1 => "one argument, so it takes `&self` and a reference to it".to_owned(),
            n => format!("{n} arguments, so it takes `&self` and a reference to each, in order"),
        };
        errors.push(
            darling::Error::custom(format!(
                "`{ident}` is the question of action `{}`, which has {arguments}: `fn {ident}({shape}) -> String` (or `-> Result<String, E>` to refuse before anyone is asked)",
                action.name
            ))
            .with_span(&method.sig.ident),
        );
    }
}

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

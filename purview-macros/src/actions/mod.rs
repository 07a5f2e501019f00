//! `#[actions]`: the `#[action]` methods of an impl block become
//! `impl Actions`.
//!
//! parse (attr.rs) → check (check.rs) → expand or fall back (expand.rs:
//! the specs, the dispatch and `impl Actions`; arguments.rs: each action's
//! arguments struct; typed.rs: the typed calls), over the typed model in
//! ast.rs.

mod arguments;
mod ast;
mod bounds;
mod attr;
mod check;
mod expand;
mod typed;

use proc_macro2::{Span, TokenStream};

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemImpl = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                "#[actions] goes on an inherent impl block: `#[actions] impl MyWindow { .. }`",
            )
            .into_compile_error();
            return quote::quote!(#e #item);
        }
    };
    if let Some(second) = check::only_impl(&item) {
        // Only the message: generating anything would add the conflicts
        // the message explains.
        let error = second.write_errors();
        let mut item = item;
        for member in item.items.iter_mut() {
            if let syn::ImplItem::Fn(method) = member {
                method.attrs.retain(|a| !a.path().is_ident("action"));
            }
        }
        return quote::quote!(#error #item);
    }
    let mut errors = darling::Error::accumulator();
    check::impl_block(&item, &mut errors);
    let mut parsed = attr::parse(args, item, &mut errors);
    check::unique_names(&mut parsed, &mut errors);
    match errors.finish() {
        Ok(()) => expand::actions(&parsed),
        Err(e) => expand::fallback(&parsed, e.write_errors()),
    }
}

/// `#[action]` on its own: an `#[actions]` impl reads and removes it, so
/// reaching here means the impl lacks `#[actions]`.
pub fn outside_impl(item: TokenStream) -> TokenStream {
    let error = syn::Error::new(
        Span::call_site(),
        "#[action] marks a method inside an #[actions] impl block; add #[purview::actions] to the impl",
    )
    .into_compile_error();
    quote::quote!(#error #item)
}

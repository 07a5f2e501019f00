//! `#[window]`: a struct's fields become a projection (summary + blocks).
//!
//! parse (attr.rs) → check (check.rs) → expand or fall back (expand.rs),
//! over the typed model in ast.rs.

mod ast;
mod attr;
mod check;
mod expand;

use proc_macro2::{Span, TokenStream};

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemStruct = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => return not_a_struct(item),
    };
    let mut errors = darling::Error::accumulator();
    let parsed = attr::parse(args, item, &mut errors);
    let window = check::window(parsed, &mut errors);
    match errors.finish() {
        Ok(()) => expand::window(&window),
        Err(e) => expand::fallback(&window, e.write_errors()),
    }
}

/// `#[window]` on something other than a struct: the item as written, and
/// one error at its name.
fn not_a_struct(item: TokenStream) -> TokenStream {
    let span = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Enum(e)) => e.ident.span(),
        Ok(syn::Item::Union(u)) => u.ident.span(),
        Ok(syn::Item::Fn(f)) => f.sig.ident.span(),
        _ => Span::call_site(),
    };
    let message = "#[window] goes on a struct: a window is one view-model whose fields are projected as blocks";
    let e = syn::Error::new(span, message).into_compile_error();
    quote::quote!(#e #item)
}

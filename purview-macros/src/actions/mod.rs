//! `#[actions]`: the `#[action]` methods of an impl block become
//! `impl Actions`.
//!
//! parse (attr.rs) → check (check.rs) → expand or fall back (expand.rs:
//! the specs, the dispatch and `impl Actions`; arguments.rs: each action's
//! arguments struct; typed.rs: the typed calls), over the typed model in
//! ast.rs.

mod arguments;
mod ast;
mod attr;
mod bounds;
mod check;
mod expand;
mod pattern;
mod typed;

use proc_macro2::{Span, TokenStream};

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemImpl = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => return unparsable(args, item),
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
    check::question_shapes(&parsed, &mut errors);
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

/// An item `syn` cannot read. An impl block with a mistake inside (a
/// missing `;`) is given back as written, without the `#[action]` and
/// `#[arg]` marks, beside an `Actions` impl offering nothing: the compiler
/// then reports the mistake itself, once, and nothing about the marks or
/// the missing impl. Anything else is not an impl block at all.
fn unparsable(args: TokenStream, item: TokenStream) -> TokenStream {
    let Ok(shell) = syn::parse2::<ImplShell>(item.clone()) else {
        let e = syn::Error::new(
            Span::call_site(),
            "#[actions] goes on an inherent impl block: `#[actions] impl MyWindow { .. }`",
        )
        .into_compile_error();
        return quote::quote!(#e #item);
    };
    let ImplShell { generics, self_ty } = shell;
    let where_clause = &generics.where_clause;
    let empty: syn::ItemImpl = syn::parse_quote!(impl #generics #self_ty #where_clause {});
    let mut ignored = darling::Error::accumulator();
    let stub = attr::parse(args, empty, &mut ignored);
    // A mistake in `#[actions(..)]` itself waits for the impl to be fixed.
    let _ = ignored.finish();
    let stub = expand::stub_impls(&stub);
    let item = without_marks(item);
    quote::quote!(#item #stub)
}

/// The parts of `impl<..> Type where .. { .. }` read before the body.
struct ImplShell {
    generics: syn::Generics,
    self_ty: syn::Type,
}

impl syn::parse::Parse for ImplShell {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        input.call(syn::Attribute::parse_outer)?;
        input.parse::<Option<syn::Token![unsafe]>>()?;
        input.parse::<syn::Token![impl]>()?;
        let mut generics: syn::Generics = input.parse()?;
        let self_ty: syn::Type = input.parse()?;
        if input.peek(syn::Token![for]) {
            return Err(input.error("a trait impl"));
        }
        generics.where_clause = input.parse()?;
        let body;
        syn::braced!(body in input);
        body.parse::<TokenStream>()?;
        Ok(Self { generics, self_ty })
    }
}

/// The tokens without `#[action..]` and `#[arg..]` attributes.
fn without_marks(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group, TokenTree};
    let is_mark = |tree: Option<&TokenTree>| match tree {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket => matches!(
            g.stream().into_iter().next(),
            Some(TokenTree::Ident(i)) if i == "action" || i == "arg"
        ),
        _ => false,
    };
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Punct(p) if p.as_char() == '#' && is_mark(trees.get(i + 1)) => i += 2,
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), without_marks(g.stream()));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
                i += 1;
            }
            other => {
                out.push(other.clone());
                i += 1;
            }
        }
    }
    out.into_iter().collect()
}

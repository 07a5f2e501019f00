//! Generates `impl Window` from a checked [`Window`].

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{BlockField, Kind, Text, Window};

fn text_expr(text: &Text) -> TokenStream {
    match text {
        Text::Fixed(s) => quote!(::std::string::String::from(#s)),
        Text::Method(path) => {
            let call = method_call(path);
            quote!(::std::string::ToString::to_string(&#call))
        }
        Text::Template(t) => {
            let literal = &t.literal;
            let args = t.fields.iter().map(|f| quote!(&self.#f));
            quote!(::std::format!(#literal, #(#args),*))
        }
    }
}

/// `name` → `Self::name(self)`; any longer path is called as given.
fn method_call(path: &syn::Path) -> TokenStream {
    match path.get_ident() {
        Some(ident) => quote_spanned!(ident.span()=> Self::#ident(self)),
        None => quote!(#path(self)),
    }
}

fn severity(krate: &syn::Path, severity: &str) -> TokenStream {
    let variant = match severity {
        "info" => quote!(Info),
        "warn" => quote!(Warn),
        "success" => quote!(Success),
        _ => quote!(Error),
    };
    quote!(#krate::model::Severity::#variant)
}

fn limit(limit: Option<usize>) -> TokenStream {
    match limit {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    }
}

fn block(krate: &syn::Path, block: &BlockField, all: &[BlockField]) -> Option<TokenStream> {
    let p = quote!(#krate::__private::project);
    let field = &block.ident;
    let id = &block.id;
    // Spans on the field's type put "cannot project" errors where they belong.
    let span = block.ty.span();
    Some(match &block.kind {
        Kind::Text => quote_spanned!(span=> #p::text(view, #id, &self.#field);),
        Kind::Field { group, .. } => {
            // A group is emitted once, at its first member.
            let first = all
                .iter()
                .find(|b| matches!(&b.kind, Kind::Field { group: g, .. } if g == group))?;
            if first.ident != block.ident {
                return None;
            }
            let items = all.iter().filter_map(|b| match &b.kind {
                Kind::Field { group: g, label, sensitive } if g == group => {
                    let f = &b.ident;
                    let span = b.ty.span();
                    Some(if *sensitive {
                        quote_spanned!(span=> #p::sensitive(#label, &self.#f))
                    } else {
                        quote_spanned!(span=> #p::field(#label, &self.#f))
                    })
                }
                _ => None,
            });
            quote!(view.fields(#id, [#(#items),*]);)
        }
        Kind::Table { limit: n, columns } => {
            let n = limit(*n);
            match columns {
                Some(columns) => {
                    quote_spanned!(span=> #p::table_with_columns(view, #id, &[#(#columns),*], &self.#field, #n);)
                }
                None => quote_spanned!(span=> #p::table(view, #id, &self.#field, #n);),
            }
        }
        Kind::List { ordered, limit: n } => {
            let n = limit(*n);
            quote_spanned!(span=> #p::list(view, #id, &self.#field, #ordered, #n);)
        }
        Kind::Notice { severity: s } => {
            let s = severity(krate, s);
            quote_spanned!(span=> #p::notice(view, #id, #s, &self.#field);)
        }
        Kind::Media => quote_spanned!(span=> #p::media(view, #id, &self.#field);),
        Kind::Custom => quote_spanned!(span=> #p::custom(view, #id, &self.#field);),
    })
}

pub fn window(w: &Window) -> TokenStream {
    let Window { item, krate, .. } = w;
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let title = text_expr(&w.title);
    let summary = w.summary.as_ref().map(|s| {
        let s = text_expr(s);
        quote!(view.summary(#s);)
    });
    let blocks = w.blocks.iter().filter_map(|b| block(krate, b, &w.blocks));
    quote! {
        #item
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::Window for #ident #ty_generics #where_clause {
                fn title(&self) -> ::std::string::String {
                    #title
                }
                fn project(&self, view: &mut #krate::View) {
                    #summary
                    #(#blocks)*
                }
            }
        };
    }
}

/// On error: the struct as written (minus our attributes), the errors, and a
/// `Window` impl with empty bodies so only the real mistakes are reported.
pub fn fallback(w: &Window, errors: TokenStream) -> TokenStream {
    let Window { item, krate, .. } = w;
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    quote! {
        #errors
        #item
        const _: () = {
            impl #impl_generics #krate::Window for #ident #ty_generics #where_clause {
                fn title(&self) -> ::std::string::String {
                    ::std::string::String::new()
                }
                fn project(&self, _: &mut #krate::View) {}
            }
        };
    }
}

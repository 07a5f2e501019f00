//! Generates `impl Window` from a checked [`Window`]. Generated code reaches
//! the runtime only through `#krate::__private`, and calls the public
//! projection traits on each field's own type, so a field type that cannot
//! be a block is reported at the field with the trait's own message.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{BlockField, Kind, Text, Window};

fn text_expr(text: &Text) -> TokenStream {
    match text {
        Text::Fixed(s) => quote!(::std::string::String::from(#s)),
        Text::Method(path) => {
            let call = method_call(path);
            quote!(::std::string::ToString::to_string(&#call))
        }
        Text::Template(t) => {
            let literal = &t.literal;
            // Spanned at the field, so a field that cannot be shown (no
            // `Display`) is reported at its declaration, not the attribute.
            let args = t.fields.iter().map(|f| quote_spanned!(f.span()=> &self.#f));
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

fn limit(limit: Option<usize>) -> TokenStream {
    match limit {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    }
}

/// The statement that projects one block (a `fields` group at its first
/// member only).
fn block(p: &TokenStream, block: &BlockField, all: &[BlockField]) -> Option<TokenStream> {
    let field = &block.ident;
    let ty = &block.ty;
    let id = &block.id;
    // Spans on the field's type put "cannot be shown as" errors where they belong.
    let span = ty.span();
    Some(match &block.kind {
        Kind::Text => {
            quote_spanned!(span=> view.text(#id, ::std::string::ToString::to_string(&self.#field));)
        }
        Kind::Field { .. } => {
            let group = block.kind.group();
            let first = all.iter().find(|b| b.kind.group() == group)?;
            if first.ident != block.ident {
                return None;
            }
            let items = all.iter().filter(|b| b.kind.group() == group).map(|b| field_item(p, b));
            quote!(view.fields(#id, [#(#items),*]);)
        }
        Kind::Table { limit: n, columns, .. } => {
            let n = limit(*n);
            match columns {
                Some(columns) => quote_spanned!(span=>
                    view.push(<#ty as #p::TableSource>::table_block_with_columns(&self.#field, #id, &[#(#columns),*], #n));
                ),
                None => quote_spanned!(span=>
                    view.push(<#ty as #p::TableSource>::table_block(&self.#field, #id, #n));
                ),
            }
        }
        Kind::List { ordered, limit: n } => {
            let n = limit(*n);
            quote_spanned!(span=> view.push(<#ty as #p::ListSource>::list_block(&self.#field, #id, #ordered, #n));)
        }
        Kind::Notice { severity } => {
            let variant = severity.variant();
            quote_spanned!(span=>
                if let ::core::option::Option::Some(text) = <#ty as #p::NoticeSource>::notice_text(&self.#field) {
                    view.notice(#id, #p::Severity::#variant, text);
                }
            )
        }
        Kind::Media => quote_spanned!(span=>
            if let ::core::option::Option::Some(media) = <#ty as #p::MediaSource>::media(&self.#field) {
                view.push(media.block(#id));
            }
        ),
        Kind::Custom => quote_spanned!(span=> view.custom(#id, &self.#field);),
    })
}

fn field_item(p: &TokenStream, b: &BlockField) -> TokenStream {
    let f = &b.ident;
    let ty = &b.ty;
    let span = ty.span();
    match &b.kind {
        Kind::Field { label, sensitive: true, .. } => quote_spanned!(span=>
            #p::FieldItem::sensitive(#label, <#ty as #p::Sensitive>::is_filled(&self.#f))
        ),
        Kind::Field { label, .. } => quote_spanned!(span=> #p::FieldItem::new(#label, &self.#f)),
        _ => quote!(),
    }
}

pub fn window(w: &Window) -> TokenStream {
    let Window { item, krate, .. } = w;
    let p = quote!(#krate::__private);
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let title = text_expr(&w.title);
    let summary = w.summary.as_ref().map(|s| {
        let s = text_expr(s);
        quote!(view.summary(#s);)
    });
    let blocks = w.blocks.iter().filter_map(|b| block(&p, b, &w.blocks));
    let (paged_by, loader_checks) = loaders(&p, item, &w.blocks);
    let tables = table_keys(&p, item, &w.blocks);
    quote! {
        #item
        const _: () = {
            #tables
            #(#loader_checks)*
            #[automatically_derived]
            impl #impl_generics #p::Window for #ident #ty_generics #where_clause {
                const PAGED_BY: &'static [(&'static str, &'static str)] = &[#(#paged_by),*];
                fn title(&self) -> ::std::string::String {
                    #title
                }
                fn project(&self, view: &mut #p::View) {
                    #summary
                    #(#blocks)*
                }
            }
        };
    }
}

/// `impl TableBlocks`: each table block by its field's name, what
/// `#[arg(from = field.column)]` checks and finds at run time.
fn table_keys(p: &TokenStream, item: &syn::ItemStruct, blocks: &[BlockField]) -> TokenStream {
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let tables = blocks.iter().filter_map(|block| {
        let Kind::Table { columns, .. } = &block.kind else { return None };
        let (id, ty) = (&block.id, &block.ty);
        let name = crate::util::unraw(&block.ident);
        let (fields, kinds, width) = match columns {
            Some(columns) => (quote!(&[]), tuple_kinds(p, ty), columns.len()),
            // At the field's type, where a row type without columns is
            // reported anyway.
            None => (
                quote_spanned!(ty.span()=> <<#ty as #p::TableSource>::Row as #p::Row>::FIELDS),
                quote_spanned!(ty.span()=> <<#ty as #p::TableSource>::Row as #p::Row>::KINDS),
                0,
            ),
        };
        Some(quote! {
            #p::TableKeys { name: #name, block: #id, fields: #fields, kinds: #kinds, width: #width }
        })
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::TableBlocks for #ident #ty_generics #where_clause {
            const TABLES: ::core::option::Option<&'static [#p::TableKeys]> =
                ::core::option::Option::Some(&[#(#tables),*]);
        }
    }
}

/// The value kinds of a tuple table's columns, read from the field's
/// type when it is spelled `Vec<(A, B, ..)>` (or any one-parameter
/// container of a tuple); none otherwise, and then none are checked.
fn tuple_kinds(p: &TokenStream, ty: &syn::Type) -> TokenStream {
    let elems = match ty {
        syn::Type::Path(path) if path.qself.is_none() => {
            match path.path.segments.last().map(|s| &s.arguments) {
                Some(syn::PathArguments::AngleBracketed(args)) if args.args.len() == 1 => {
                    match args.args.first() {
                        Some(syn::GenericArgument::Type(syn::Type::Tuple(t))) => Some(&t.elems),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    };
    let Some(elems) = elems else { return quote!(&[]) };
    let kinds = elems.iter().map(|ty| {
        quote!({
            use #p::AnyKind as _;
            #p::KindOf::<#ty>::KIND
        })
    });
    quote!(&[#(#kinds),*])
}

/// For each table with `load = method`: its `(block id, action)` entry and
/// the compile-time check of the method's shape.
fn loaders(
    p: &TokenStream,
    item: &syn::ItemStruct,
    blocks: &[BlockField],
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let mut entries = Vec::new();
    let mut checks = Vec::new();
    for block in blocks {
        let Kind::Table { load: Some(load), .. } = &block.kind else { continue };
        let (id, ty) = (&block.id, &block.ty);
        let action = crate::util::unraw(load);
        entries.push(quote!((#id, #action)));
        checks.push(quote_spanned!(load.span()=>
            #p::loads_pages::<Self, <#ty as #p::TableSource>::Row, _, _>(&Self::#load);
        ));
    }
    let checks = if checks.is_empty() {
        Vec::new()
    } else {
        vec![quote! {
            impl #impl_generics #ident #ty_generics #where_clause {
                #[allow(dead_code)]
                #[doc(hidden)]
                fn __purview_load_actions() {
                    #(#checks)*
                }
            }
        }]
    };
    (entries, checks)
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
            impl #impl_generics #krate::__private::Window for #ident #ty_generics #where_clause {
                fn title(&self) -> ::std::string::String {
                    ::std::string::String::new()
                }
                fn project(&self, _: &mut #krate::__private::View) {}
            }
            // Unknown tables: a `from = table.column` of this window's
            // actions is then not checked, so it adds no second error.
            impl #impl_generics #krate::__private::TableBlocks for #ident #ty_generics #where_clause {
                const TABLES: ::core::option::Option<&'static [#krate::__private::TableKeys]> =
                    ::core::option::Option::None;
            }
        };
    }
}

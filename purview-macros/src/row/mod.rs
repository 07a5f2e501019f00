//! `#[derive(Row)]`: a struct as a table row.
//!
//! parse (darling) → expand, or on any mistake fall back to `Cells` and
//! `Row` impls with empty bodies beside the errors, so the user sees only
//! the real mistake and not "add the derive" for the derive they wrote.

use darling::{
    FromDeriveInput, FromField,
    ast::Data,
    util::{Ignored, SpannedValue},
};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::util::{krate, unraw};

#[derive(FromField)]
#[darling(attributes(row))]
struct RowField {
    ident: Option<syn::Ident>,
    ty: syn::Type,
    name: Option<SpannedValue<String>>,
    #[darling(default)]
    skip: bool,
}

#[derive(FromDeriveInput)]
#[darling(attributes(row), supports(struct_named))]
struct RowInput {
    ident: syn::Ident,
    generics: syn::Generics,
    data: Data<Ignored, RowField>,
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

pub fn expand(item: TokenStream) -> TokenStream {
    let input = match syn::parse2::<syn::DeriveInput>(item) {
        Ok(input) => input,
        Err(e) => return e.into_compile_error(),
    };
    if let Err(e) = check_shape(&input) {
        return fallback(&input, e.into_compile_error());
    }
    match RowInput::from_derive_input(&input) {
        Ok(row) => row_impls(&row),
        Err(e) => fallback(&input, e.write_errors()),
    }
}

/// A row is a struct with named fields: each field is a column titled
/// with its name.
fn check_shape(input: &syn::DeriveInput) -> syn::Result<()> {
    let problem = match &input.data {
        syn::Data::Struct(s) if matches!(s.fields, syn::Fields::Named(_)) => return Ok(()),
        syn::Data::Struct(_) => {
            "#[derive(Row)] needs named fields: each field becomes a column titled with its name; for positional cells use a tuple and #[block(table, columns = [..])]"
        }
        syn::Data::Enum(_) | syn::Data::Union(_) => {
            "#[derive(Row)] goes on a struct with named fields: each field becomes a column"
        }
    };
    Err(syn::Error::new(input.ident.span(), problem))
}

fn row_impls(input: &RowInput) -> TokenStream {
    let krate = krate(input.krate.clone());
    let p = quote!(#krate::__private);
    let ident = &input.ident;
    // Every type parameter ends up in a cell, so it must serialize.
    let mut generics = input.generics.clone();
    let params: Vec<syn::Ident> = generics.type_params().map(|t| t.ident.clone()).collect();
    let where_clause = generics.make_where_clause();
    for param in params {
        where_clause.predicates.push(syn::parse_quote!(#param: #krate::serde::Serialize));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let fields: Vec<&RowField> = match &input.data {
        Data::Struct(fields) => fields.iter().filter(|f| !f.skip).collect(),
        Data::Enum(_) => Vec::new(),
    };
    let columns = fields.iter().map(|f| {
        let name = match &f.name {
            Some(name) => (**name).clone(),
            None => {
                f.ident.as_ref().map(|i| purview_naming::humanize(&unraw(i))).unwrap_or_default()
            }
        };
        quote!(::std::string::String::from(#name))
    });
    let field_names = fields.iter().filter_map(|f| f.ident.as_ref().map(unraw));
    // Inherent constants of `KindOf<T>` for the types that have a kind,
    // the trait's `Other` for the rest.
    let kinds = fields.iter().map(|f| {
        let ty = &f.ty;
        quote!({
            use #p::AnyKind as _;
            #p::KindOf::<#ty>::KIND
        })
    });
    let cells = fields.iter().map(|f| {
        let field = &f.ident;
        // Pointed at the field's type, so a missing Serialize is reported there.
        quote_spanned!(f.ty.span()=> #p::cell(&self.#field))
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #p::Cells for #ident #ty_generics #where_clause {
                fn cells(&self) -> ::std::vec::Vec<#krate::serde_json::Value> {
                    ::std::vec![#(#cells),*]
                }
            }
            #[automatically_derived]
            impl #impl_generics #p::Row for #ident #ty_generics #where_clause {
                fn columns() -> ::std::vec::Vec<::std::string::String> {
                    ::std::vec![#(#columns),*]
                }
                const FIELDS: &'static [&'static str] = &[#(#field_names),*];
                const KINDS: &'static [#p::ValueKind] = &[#(#kinds),*];
            }
        };
    }
}

/// Just the `crate = path` of `#[row(..)]`, read leniently for the fallback.
#[derive(Default, darling::FromMeta)]
#[darling(allow_unknown_fields)]
struct CrateOnly {
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

/// The errors, plus `Cells` and `Row` impls that show nothing.
fn fallback(input: &syn::DeriveInput, errors: TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let given = input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("row"))
        .filter_map(|a| a.meta.require_list().ok())
        .filter_map(|list| darling::ast::NestedMeta::parse_meta_list(list.tokens.clone()).ok())
        .filter_map(|items| <CrateOnly as darling::FromMeta>::from_list(&items).ok())
        .find_map(|c| c.krate);
    let krate = krate(given);
    let p = quote!(#krate::__private);
    quote! {
        #errors
        const _: () = {
            impl #impl_generics #p::Cells for #ident #ty_generics #where_clause {
                fn cells(&self) -> ::std::vec::Vec<#krate::serde_json::Value> {
                    ::std::vec::Vec::new()
                }
            }
            impl #impl_generics #p::Row for #ident #ty_generics #where_clause {
                fn columns() -> ::std::vec::Vec<::std::string::String> {
                    ::std::vec::Vec::new()
                }
            }
        };
    }
}

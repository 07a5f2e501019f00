//! `#[derive(Row)]`: a struct as a table row.

use darling::{FromDeriveInput, FromField, ast::Data, util::Ignored};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::names::{humanize, unraw};

#[derive(FromField)]
#[darling(attributes(row))]
struct RowField {
    ident: Option<syn::Ident>,
    ty: syn::Type,
    name: Option<String>,
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
    let parsed = syn::parse2::<syn::DeriveInput>(item)
        .map_err(darling::Error::from)
        .and_then(|input| RowInput::from_derive_input(&input));
    let input = match parsed {
        Ok(input) => input,
        Err(e) => return e.write_errors(),
    };
    let krate = input.krate.clone().unwrap_or_else(|| syn::parse_quote!(::purview));
    let ident = &input.ident;
    // Every type parameter ends up in a cell, so it must serialize.
    let mut generics = input.generics.clone();
    let params: Vec<syn::Ident> = generics.type_params().map(|t| t.ident.clone()).collect();
    let where_clause = generics.make_where_clause();
    for param in params {
        where_clause
            .predicates
            .push(syn::parse_quote!(#param: #krate::__private::serde::Serialize));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let fields: Vec<&RowField> = match &input.data {
        Data::Struct(fields) => fields.iter().filter(|f| !f.skip).collect(),
        Data::Enum(_) => Vec::new(),
    };
    let columns = fields.iter().map(|f| {
        let name = f
            .name
            .clone()
            .unwrap_or_else(|| f.ident.as_ref().map(|i| humanize(&unraw(i))).unwrap_or_default());
        quote!(::std::string::String::from(#name))
    });
    let cells = fields.iter().map(|f| {
        let field = &f.ident;
        // Point a missing Serialize at the field's type.
        quote_spanned!(f.ty.span()=> #krate::__private::project::to_cell(&self.#field))
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::Cells for #ident #ty_generics #where_clause {
                fn cells(&self) -> ::std::vec::Vec<#krate::__private::serde_json::Value> {
                    ::std::vec![#(#cells),*]
                }
            }
            #[automatically_derived]
            impl #impl_generics #krate::Row for #ident #ty_generics #where_clause {
                fn columns() -> ::std::vec::Vec<::std::string::String> {
                    ::std::vec![#(#columns),*]
                }
            }
        };
    }
}

//! `#[derive(WindowKind)]`: an enum of window handles, one variant per
//! window type, so GUI code can `match` on what an open window is.
//!
//! parse (darling) → check the shape → expand; on a mistake, an impl that
//! finds nothing beside the errors, so only the real mistake is reported.

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::util::krate;

#[derive(FromDeriveInput)]
#[darling(attributes(window_kind))]
struct KindInput {
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

const SHAPE: &str = "each variant of a `WindowKind` enum holds one window handle, as in `Editor(WindowHandle<Editor>)`";

pub fn expand(item: TokenStream) -> TokenStream {
    let input = match syn::parse2::<syn::DeriveInput>(item) {
        Ok(input) => input,
        Err(e) => return e.into_compile_error(),
    };
    let given = match KindInput::from_derive_input(&input) {
        Ok(kind) => kind.krate,
        Err(e) => return impls(&input, &krate(None), &[], e.write_errors()),
    };
    let krate = krate(given);
    match variants(&input) {
        Ok(variants) => impls(&input, &krate, &variants, TokenStream::new()),
        Err(e) => impls(&input, &krate, &[], e.into_compile_error()),
    }
}

/// Each variant's name and the handle type it holds.
fn variants(input: &syn::DeriveInput) -> syn::Result<Vec<(&syn::Ident, &syn::Type)>> {
    let syn::Data::Enum(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "#[derive(WindowKind)] goes on an enum with one variant per window type, as in `enum Open { Editor(WindowHandle<Editor>) }`",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "a `WindowKind` enum names concrete window types: remove the generic parameters",
        ));
    }
    let mut errors: Option<syn::Error> = None;
    let mut found = Vec::new();
    for variant in &data.variants {
        match &variant.fields {
            syn::Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                found.push((&variant.ident, &fields.unnamed[0].ty));
            }
            _ => {
                let e = syn::Error::new(variant.span(), SHAPE);
                match &mut errors {
                    Some(all) => all.combine(e),
                    None => errors = Some(e),
                }
            }
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

fn impls(
    input: &syn::DeriveInput,
    krate: &syn::Path,
    variants: &[(&syn::Ident, &syn::Type)],
    errors: TokenStream,
) -> TokenStream {
    let p = quote!(#krate::__private);
    let ident = &input.ident;
    let tries = variants.iter().map(|(variant, ty)| {
        // Pointed at the variant's type, so a type that is not a handle is
        // reported there.
        let lookup = quote_spanned!(ty.span()=> <#ty as #p::VariantHandle>::lookup(app, id));
        quote! {
            if let ::core::option::Option::Some(handle) = #lookup {
                return ::core::option::Option::Some(Self::#variant(handle));
            }
        }
    });
    quote! {
        #errors
        const _: () = {
            #[automatically_derived]
            impl #p::WindowKind for #ident {
                fn from_window(app: &#p::App, id: &str) -> ::core::option::Option<Self> {
                    let _ = (app, id);
                    #(#tries)*
                    ::core::option::Option::None
                }
            }
        };
    }
}

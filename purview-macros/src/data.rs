//! `#[data]`: an argument or result type's derives, through Purview's
//! re-exports of serde and schemars, so an app needs neither as a
//! dependency and no second copy of either can be picked.

use darling::{FromMeta, ast::NestedMeta};
use proc_macro2::TokenStream;
use quote::quote;

use crate::util::krate;

/// `#[data(..)]`, as written.
#[derive(Debug, Default, FromMeta)]
struct DataArgs {
    /// Only what an argument needs: `Deserialize` and `JsonSchema`.
    argument: darling::util::Flag,
    /// Only what a result needs: `Serialize` and `JsonSchema`.
    result: darling::util::Flag,
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = NestedMeta::parse_meta_list(args)
        .map_err(darling::Error::from)
        .and_then(|m| DataArgs::from_list(&m));
    let args = match parsed {
        Ok(args) => args,
        Err(e) => {
            let e = e.write_errors();
            return quote!(#e #item);
        }
    };
    if args.argument.is_present() && args.result.is_present() {
        let e = syn::Error::new(
            args.result.span(),
            "`argument` and `result` together are plain `#[purview::data]`: leave both out",
        )
        .into_compile_error();
        return quote!(#e #item);
    }
    let krate = krate(args.krate);
    let serde_path = format!("{}::serde", path_text(&krate));
    let schemars_path = format!("{}::schemars", path_text(&krate));
    let serialize = (!args.argument.is_present()).then(|| quote!(#krate::serde::Serialize,));
    let deserialize = (!args.result.is_present()).then(|| quote!(#krate::serde::Deserialize,));
    quote! {
        #[derive(#serialize #deserialize #krate::schemars::JsonSchema)]
        #[serde(crate = #serde_path)]
        #[schemars(crate = #schemars_path)]
        #item
    }
}

fn path_text(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}

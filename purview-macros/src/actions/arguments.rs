//! The arguments struct `#[actions]` writes for each action with
//! arguments: its fields, serde and schemars attributes, the `#[arg]`
//! constraints in its schema, and their checks before the handler runs.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{spanned::Spanned, visit_mut::VisitMut};

use super::ast::{Action, Constraints};

pub(super) fn args_struct_ident(action: &Action) -> syn::Ident {
    format_ident!("__PurviewArgs_{}", action.method)
}

/// Replaces `Self` in an argument type with the impl's type: the arguments
/// struct lives outside the impl, where `Self` means something else.
pub(super) struct ReplaceSelf<'a>(pub(super) &'a syn::Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty
            && p.qself.is_none()
            && p.path.segments.first().is_some_and(|s| s.ident == "Self")
        {
            let self_ty = self.0;
            let rest: Vec<&syn::PathSegment> = p.path.segments.iter().skip(1).collect();
            *ty = if rest.is_empty() {
                self_ty.clone()
            } else {
                syn::parse_quote!(<#self_ty>::#(#rest)::*)
            };
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

fn has_serde_default(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("serde")
            && a.meta.to_token_stream().into_iter().any(|t| t.to_string().contains("default"))
    })
}

/// The struct an action's arguments decode into, and whose schema is the
/// tool's inputSchema. `None` for actions without arguments.
pub(super) fn args_struct(
    krate: &syn::Path,
    self_ty: &syn::Type,
    action: &Action,
) -> Option<TokenStream> {
    let params: Vec<_> = action.params().collect();
    if params.is_empty() {
        return None;
    }
    let ident = args_struct_ident(action);
    // serde and schemars are public re-exports of purview (its API uses
    // their traits), so their derives' messages name public paths.
    let serde_crate = quote!(#krate::serde).to_string().replace(' ', "");
    let schemars_crate = quote!(#krate::schemars).to_string().replace(' ', "");
    let schema_name = format!("{}Arguments", camel(&action.name));
    let fields = params.iter().map(|p| {
        let (ident, attrs) = (&p.ident, &p.attrs);
        let mut ty = p.ty.clone();
        ReplaceSelf(self_ty).visit_type_mut(&mut ty);
        // Optional arguments may be left out, not only sent as null.
        let default =
            (is_option(&ty) && !has_serde_default(attrs)).then(|| quote!(#[serde(default)]));
        let constraints = schema_constraints(&p.constraints);
        quote!(#(#attrs)* #default #constraints #ident: #ty)
    });
    let check_fn = format_ident!("__purview_argument_types_{}", action.method);
    // Each argument's type checked first, with a message that says what to
    // derive, at the argument.
    let checks = params.iter().map(|p| {
        let mut ty = p.ty.clone();
        ReplaceSelf(self_ty).visit_type_mut(&mut ty);
        quote_spanned!(p.ty.span()=> #krate::__private::argument::<#ty>();)
    });
    Some(quote! {
        #[allow(dead_code, non_snake_case)]
        fn #check_fn() { #(#checks)* }
        #[derive(#krate::serde::Deserialize, #krate::schemars::JsonSchema)]
        #[serde(crate = #serde_crate)]
        #[schemars(crate = #schemars_crate, rename = #schema_name)]
        #[allow(non_camel_case_types, dead_code)]
        struct #ident {
            #(#fields,)*
        }
    })
}

/// The schemars attributes that put `#[arg(..)]` into the input schema.
fn schema_constraints(c: &Constraints) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some((min, max, _)) = &c.range {
        let bounds = bound_list(min.map(json_number), max.map(json_number));
        out.extend(quote!(#[schemars(range(#bounds))]));
    }
    if let Some((min, max, _)) = &c.length {
        let bounds = bound_list(min.map(|n| quote!(#n)), max.map(|n| quote!(#n)));
        out.extend(quote!(#[schemars(length(#bounds))]));
    }
    if let Some((pattern, _)) = &c.pattern {
        out.extend(quote!(#[schemars(regex(pattern = #pattern))]));
    }
    if let Some(message) = &c.message {
        out.extend(quote!(#[schemars(extend("x-purview-message" = #message))]));
    }
    if let Some(example) = &c.example {
        out.extend(quote!(#[schemars(extend("examples" = [#example]))]));
    }
    out
}

fn bound_list(min: Option<TokenStream>, max: Option<TokenStream>) -> TokenStream {
    let min = min.map(|m| quote!(min = #m));
    let max = max.map(|m| quote!(max = #m));
    match (min, max) {
        (Some(min), Some(max)) => quote!(#min, #max),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => TokenStream::new(),
    }
}

/// `5` for 5.0 (so the schema says `"minimum": 5`), `0.5` otherwise.
fn json_number(n: f64) -> TokenStream {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        proc_macro2::Literal::i64_unsuffixed(n as i64).into_token_stream()
    } else {
        proc_macro2::Literal::f64_unsuffixed(n).into_token_stream()
    }
}

/// The checks of `#[arg(..)]` on decoded arguments, for the typed calls that
/// never pass through the input schema; each spanned at the argument's type,
/// so a constraint the type cannot carry is reported there.
pub(super) fn constraint_checks(krate: &syn::Path, action: &Action) -> TokenStream {
    let p = quote!(#krate::__private);
    let checks: Vec<TokenStream> = action
        .params()
        .filter_map(|param| {
            let c = &param.constraints;
            if c.range.is_none() && c.length.is_none() && c.pattern.is_none() {
                return None;
            }
            let (ident, span) = (&param.ident, param.ty.span());
            let field = crate::util::unraw(ident);
            let option = |v: Option<TokenStream>| match v {
                Some(v) => quote!(::core::option::Option::Some(#v)),
                None => quote!(::core::option::Option::None),
            };
            let mut each = TokenStream::new();
            if let Some((min, max, _)) = &c.range {
                let (min, max) = (option(min.map(|m| quote!(#m))), option(max.map(|m| quote!(#m))));
                each.extend(quote_spanned!(span=> __purview_check.range(&#ident, #min, #max);));
            }
            if let Some((min, max, _)) = &c.length {
                let as_usize = |n: u64| {
                    let n = n as usize;
                    quote!(#n)
                };
                let (min, max) = (option(min.map(as_usize)), option(max.map(as_usize)));
                each.extend(quote_spanned!(span=> __purview_check.length(&#ident, #min, #max);));
            }
            if let Some((pattern, _)) = &c.pattern {
                let message = option(c.message.as_ref().map(|m| quote!(#m)));
                let example = option(match &c.example {
                    Some(syn::Lit::Str(text)) => Some(quote!(#text)),
                    _ => None,
                });
                each.extend(quote_spanned!(span=>
                    __purview_check.pattern_in_words(&#ident, #pattern, #message, #example);
                ));
            }
            Some(quote!({
                let mut __purview_check = #p::Check::new(&mut __purview_bad, #field);
                #each
            }))
        })
        .collect();
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote! {
        let mut __purview_bad = ::std::vec::Vec::new();
        #(#checks)*
        if !__purview_bad.is_empty() {
            return ::core::result::Result::Err(#p::ToolError::validation(__purview_bad));
        }
    }
}

/// `edit_field` → `EditField`.
pub(super) fn camel(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

pub(super) fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

//! Generates `impl Actions` from a checked [`Impl`]. Generated code reaches
//! the runtime only through `#krate::__private`.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{spanned::Spanned, visit_mut::VisitMut};

use super::ast::{Action, Arg, Constraints, Impl, Returns};

fn args_struct_ident(action: &Action) -> syn::Ident {
    format_ident!("__PurviewArgs_{}", action.method)
}

/// Replaces `Self` in an argument type with the impl's type: the arguments
/// struct lives outside the impl, where `Self` means something else.
struct ReplaceSelf<'a>(&'a syn::Type);

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
fn args_struct(krate: &syn::Path, self_ty: &syn::Type, action: &Action) -> Option<TokenStream> {
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
fn constraint_checks(krate: &syn::Path, action: &Action) -> TokenStream {
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
                each.extend(quote_spanned!(span=> __purview_check.pattern(&#ident, #pattern);));
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
fn camel(name: &str) -> String {
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

fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// The `ActionSpec` builder chain for one action.
fn spec(krate: &syn::Path, action: &Action) -> TokenStream {
    let name = &action.name;
    let mut chain = quote!(#krate::__private::ActionSpec::new(#name));
    if let Some(title) = &action.title {
        chain = quote!(#chain.title(#title));
    }
    if let Some(description) = &action.description {
        chain = quote!(#chain.description(#description));
    }
    if action.inputs.iter().any(|a| matches!(a, Arg::Param(_))) {
        let ident = args_struct_ident(action);
        chain = quote!(#chain.input::<#ident>());
    }
    if let Some(ty) = action.returns.result_type() {
        chain = quote_spanned!(ty.span()=> #chain.result::<#ty>());
    }
    let hints = action.hints;
    for (on, method) in [
        (hints.read_only, quote!(read_only)),
        (hints.destructive, quote!(destructive)),
        (hints.idempotent, quote!(idempotent)),
        (hints.open_world, quote!(open_world)),
    ] {
        if on {
            chain = quote!(#chain.#method());
        }
    }
    if action.approval {
        chain = quote!(#chain.approval());
    }
    if let Some(ms) = action.timeout_ms {
        chain = quote!(#chain.timeout(::core::time::Duration::from_millis(#ms)));
    }
    chain
}

/// Turns the value in `value` into `Result<ActionOutput, ToolError>`.
fn convert(krate: &syn::Path, returns: &Returns, value: TokenStream) -> TokenStream {
    match returns {
        Returns::Unit => {
            quote!({ let () = #value; ::core::result::Result::Ok(#krate::__private::ActionOutput::default()) })
        }
        Returns::Output => quote!(::core::result::Result::Ok(#value)),
        Returns::Value(ty) => {
            // Spanned at the user's return type, so a missing Serialize is
            // reported there.
            let wrap = quote_spanned!(ty.span()=> #krate::__private::ActionOutput::typed::<#ty>);
            quote!(::core::result::Result::Ok(#wrap(#value)))
        }
        Returns::Result { ok, err } => {
            let inner = convert(krate, ok, quote!(__purview_ok));
            let error = match err {
                Some(ty) => {
                    quote_spanned!(ty.span()=> ::core::convert::Into::<#krate::__private::ToolError>::into(__purview_err))
                }
                None => {
                    quote!(#krate::__private::ToolError::from(::std::string::ToString::to_string(&__purview_err)))
                }
            };
            quote! {
                match #value {
                    ::core::result::Result::Ok(__purview_ok) => #inner,
                    ::core::result::Result::Err(__purview_err) => ::core::result::Result::Err(#error),
                }
            }
        }
    }
}

fn dispatch_arm(krate: &syn::Path, self_ty: &syn::Type, action: &Action) -> TokenStream {
    let name = &action.name;
    let method = &action.method;
    let params: Vec<&syn::Ident> = action.params().map(|p| &p.ident).collect();
    let decode = if params.is_empty() {
        quote!(args.finish()?;)
    } else {
        let ident = args_struct_ident(action);
        let checks = constraint_checks(krate, action);
        quote!(let #ident { #(#params),* } = args.__parse_or_take::<#ident>()?; #checks)
    };
    let call_args = action.inputs.iter().map(|a| match a {
        Arg::Param(p) => {
            let ident = &p.ident;
            quote!(#ident)
        }
        Arg::Context { mutable: true } => quote!(&mut *cx),
        Arg::Context { mutable: false } => quote!(&*cx),
    });
    let mut call = quote!(<#self_ty>::#method(self, #(#call_args),*));
    if action.is_async {
        call = quote!(#call.await);
    }
    let output = convert(krate, &action.returns, quote!(__purview_ret));
    quote! {
        #name => {
            #decode
            let __purview_ret = #call;
            #output
        }
    }
}

fn availability_arm(action: &Action) -> Option<TokenStream> {
    let path = action.available.as_ref()?;
    let name = &action.name;
    let call = match path.get_ident() {
        Some(ident) => quote_spanned!(ident.span()=> Self::#ident(self)),
        None => quote!(#path(self)),
    };
    Some(quote!(#name => #call,))
}

pub fn actions(parsed: &Impl) -> TokenStream {
    let Impl { item, krate, actions, .. } = parsed;
    let self_ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let structs = actions.iter().filter_map(|a| args_struct(krate, self_ty, a));
    let specs = actions.iter().map(|a| spec(krate, a));
    let names = actions.iter().map(|a| &a.name);
    let arms = actions.iter().map(|a| dispatch_arm(krate, self_ty, a));
    let available = actions.iter().filter_map(availability_arm);
    let p = quote!(#krate::__private);
    let (calls_struct, calls_impl) = match typed_calls_ident(item) {
        Some(calls) => {
            (calls_struct(krate, self_ty, &calls), typed_calls(krate, self_ty, &calls, actions))
        }
        None => (TokenStream::new(), TokenStream::new()),
    };
    let app_level = app_level(parsed);
    quote! {
        #item
        #calls_struct
        const _: () = {
            #(#structs)*
            #calls_impl
            #app_level
            #[automatically_derived]
            impl #impl_generics #p::Actions for #self_ty #where_clause {
                const ACTION_NAMES: &'static [&'static str] = &[#(#names),*];
                fn actions() -> ::std::vec::Vec<#p::ActionSpec> {
                    ::std::vec![#(#specs),*]
                }
                fn is_available(&self, action: &str) -> bool {
                    match action {
                        #(#available)*
                        _ => true,
                    }
                }
                fn call<'a>(
                    &'a mut self,
                    action: &'a str,
                    args: #p::Args,
                    cx: &'a mut #p::Context,
                ) -> #p::BoxFuture<'a> {
                    let _ = &cx;
                    ::std::boxed::Box::pin(async move {
                        match action {
                            #(#arms)*
                            _ => ::core::result::Result::Err(#p::unknown_action(action)),
                        }
                    })
                }
            }
        };
    }
}

/// On error: the impl as written (minus our attributes), the errors, and an
/// `Actions` impl offering nothing, so only the real mistakes are reported.
pub fn fallback(parsed: &Impl, errors: TokenStream) -> TokenStream {
    let Impl { item, krate, .. } = parsed;
    let self_ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let p = quote!(#krate::__private);
    // The calls struct, with a method for every action that parsed, so GUI
    // code calling them reports only the real mistake (without them,
    // `act().borrow()` met rustc's advice to import `std::borrow::Borrow`).
    let (calls_struct, calls_impl) = match typed_calls_ident(item) {
        Some(calls) => (
            calls_struct(krate, self_ty, &calls),
            typed_calls(krate, self_ty, &calls, &parsed.actions),
        ),
        None => (TokenStream::new(), TokenStream::new()),
    };
    let app_level = app_level(parsed);
    quote! {
        #errors
        #item
        #calls_struct
        const _: () = {
            #calls_impl
            #app_level
            impl #impl_generics #p::Actions for #self_ty #where_clause {
                fn actions() -> ::std::vec::Vec<#p::ActionSpec> {
                    ::std::vec::Vec::new()
                }
                fn call<'a>(
                    &'a mut self,
                    action: &'a str,
                    _: #p::Args,
                    _: &'a mut #p::Context,
                ) -> #p::BoxFuture<'a> {
                    ::std::boxed::Box::pin(async move { ::core::result::Result::Err(#p::unknown_action(action)) })
                }
            }
        };
    }
}

/// `impl AppActions` for `#[actions(app)]`.
fn app_level(parsed: &Impl) -> TokenStream {
    if !parsed.app {
        return TokenStream::new();
    }
    let Impl { item, krate, .. } = parsed;
    let self_ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::AppActions for #self_ty #where_clause {}
    }
}

/// `OrderEditorCalls` for `impl OrderEditor`; `None` for a generic impl or
/// self type, which gets no typed calls.
fn typed_calls_ident(item: &syn::ItemImpl) -> Option<syn::Ident> {
    if !item.generics.params.is_empty() {
        return None;
    }
    let syn::Type::Path(path) = &*item.self_ty else { return None };
    let last = path.path.segments.last()?;
    if path.qself.is_some() || !last.arguments.is_none() {
        return None;
    }
    let name = crate::util::unraw(&last.ident);
    Some(format_ident!("{}Calls", name))
}

/// The generated calls struct, at the impl's own level so GUI code and
/// rustdoc can name it.
fn calls_struct(krate: &syn::Path, self_ty: &syn::Type, calls: &syn::Ident) -> TokenStream {
    let ty = self_ty.to_token_stream().to_string().replace(' ', "");
    let doc = format!(
        "The typed calls of `{ty}`'s actions, one method per `#[action]` (generated by `#[actions]`).\n\n\
         Get one with `WindowHandle::act` (or `App::act` for app-level actions); each method \
         returns a `Call` that runs the action on the person's path when awaited."
    );
    quote! {
        #[doc = #doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug)]
        pub struct #calls {
            __target: #krate::__private::CallTarget,
        }
    }
}

/// `impl TypedCalls` and the calls struct's methods.
fn typed_calls(
    krate: &syn::Path,
    self_ty: &syn::Type,
    calls: &syn::Ident,
    actions: &[Action],
) -> TokenStream {
    let p = quote!(#krate::__private);
    let methods = actions.iter().map(|a| typed_call(krate, self_ty, a));
    quote! {
        #[automatically_derived]
        impl #p::TypedCalls for #self_ty {
            type Calls = #calls;
            fn __calls(target: #p::CallTarget) -> #calls {
                #calls { __target: target }
            }
        }
        #[allow(private_interfaces, clippy::too_many_arguments)]
        impl #calls {
            #(#methods)*
        }
    }
}

/// One typed call: the action's arguments as Rust parameters, its result
/// as the call's value.
fn typed_call(krate: &syn::Path, self_ty: &syn::Type, action: &Action) -> TokenStream {
    let (method, name) = (&action.method, &action.name);
    let params: Vec<_> = action.params().collect();
    let idents: Vec<&syn::Ident> = params.iter().map(|p| &p.ident).collect();
    let types = params.iter().map(|p| {
        let mut ty = p.ty.clone();
        ReplaceSelf(self_ty).visit_type_mut(&mut ty);
        ty
    });
    let result = match action.returns.result_type() {
        Some(ty) => {
            let mut ty = ty.clone();
            ReplaceSelf(self_ty).visit_type_mut(&mut ty);
            quote!(#ty)
        }
        None => quote!(()),
    };
    let mut doc = action.description.clone().unwrap_or_else(|| format!("Calls `{name}`."));
    doc.push_str(&format!("\n\nThe typed call of the `{name}` action (tool `{{windowId}}__{name}`); await it to run it."));
    let body = if params.is_empty() {
        quote!(self.__target.call::<#result>(#name))
    } else {
        let args = args_struct_ident(action);
        quote!(self.__target.call_with::<#result, #args>(#name, #args { #(#idents),* }))
    };
    quote! {
        #[doc = #doc]
        pub fn #method(&self, #(#idents: #types),*) -> #krate::__private::Call<#result> {
            #body
        }
    }
}

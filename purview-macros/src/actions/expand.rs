//! Generates `impl Actions` from a checked [`Impl`]: each action's spec,
//! the dispatch to its method and the availability checks, with the
//! arguments structs (arguments.rs) and typed calls (typed.rs) beside them.
//! Generated code reaches the runtime only through `#krate::__private`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{
    arguments::{args_struct, args_struct_ident, constraint_checks},
    ast::{Action, Arg, Impl, Returns},
    typed::{calls_struct, typed_calls, typed_calls_ident},
};

/// The `ActionSpec` builder chain for one action.
fn spec(krate: &syn::Path, self_ty: &syn::Type, action: &Action) -> TokenStream {
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
    for param in action.params() {
        let Some((table, column)) = &param.constraints.from else { continue };
        let argument = crate::util::unraw(&param.ident);
        let p = quote!(#krate::__private);
        let (table, column, column_name) = source_names(krate, table, column);
        let source = quote!(#p::source_of(<#self_ty as #p::TableBlocks>::TABLES, #table, #column));
        chain = quote!(#chain.argument_from(#argument, #source.0, #source.1, #column_name));
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

/// The table's name, the `Column` and the column's name of
/// `from = table.column`.
fn source_names(
    krate: &syn::Path,
    table: &syn::Ident,
    column: &syn::Member,
) -> (String, TokenStream, String) {
    let p = quote!(#krate::__private);
    let table = crate::util::unraw(table);
    match column {
        syn::Member::Named(field) => {
            let field = crate::util::unraw(field);
            (table, quote!(#p::Column::Named(#field)), field)
        }
        syn::Member::Unnamed(index) => {
            let i = index.index as usize;
            (table, quote!(#p::Column::At(#i)), i.to_string())
        }
    }
}

/// The compile-time check of every `#[arg(from = table.column)]`: the
/// window has that table block, its rows that column, and the column's
/// values can fill the argument. A lookup by name in a constant, so each
/// mistake is one error in words naming the user's items, at the token
/// that is wrong.
fn source_checks(krate: &syn::Path, self_ty: &syn::Type, action: &Action) -> Vec<TokenStream> {
    let p = quote!(#krate::__private);
    action
        .params()
        .filter_map(|param| {
            let (table_ident, column_member) = param.constraints.from.as_ref()?;
            let (table, column, column_name) = source_names(krate, table_ident, column_member);
            let from = format!("from = {table}.{column_name}");
            let window = quote!(#self_ty).to_string().replace(' ', "");
            let argument = crate::util::unraw(&param.ident);
            let mut ty = param.ty.clone();
            syn::visit_mut::VisitMut::visit_type_mut(
                &mut super::arguments::ReplaceSelf(self_ty),
                &mut ty,
            );
            let ty_text = quote!(#ty).to_string().replace(' ', "").replace(',', ", ");
            let column_span = match column_member {
                syn::Member::Named(field) => field.span(),
                syn::Member::Unnamed(index) => index.span,
            };
            let no_table = format!(
                "`{from}`: `{window}` has no table block `{table}`; name a field of `{window}` marked #[block(table)]"
            );
            let missing = match column_member {
                syn::Member::Named(_) => format!(
                    "`{from}`: the rows of table `{table}` have no field `{column_name}` (a table over tuples names its columns by place: `{table}.0`)"
                ),
                syn::Member::Unnamed(_) => format!(
                    "`{from}`: table `{table}` has no column {column_name} (columns count from 0)"
                ),
            };
            let column_said = match column_member {
                syn::Member::Named(_) => format!("column `{column_name}`"),
                syn::Member::Unnamed(_) => format!("column {column_name}"),
            };
            let holds = |what: &str, instead: &str| {
                format!(
                    "`{from}`: {column_said} holds {what}, which cannot fill `{argument}: {ty_text}`; take the argument as {instead}, or name a column whose values `{ty_text}` takes"
                )
            };
            let (text, whole, number, boolean) = (
                holds("text", "`String`"),
                holds("whole numbers", "an integer type"),
                holds("numbers with fractions", "`f64`"),
                holds("true or false", "`bool`"),
            );
            // The message is panic!'s format string: a brace in a type or
            // a name is written twice.
            let fail = |message: &str, span: proc_macro2::Span| {
                let message = message.replace('{', "{{").replace('}', "}}");
                quote_spanned!(span=> ::core::panic!(#message))
            };
            let (no_table, missing) =
                (fail(&no_table, table_ident.span()), fail(&missing, column_span));
            let holds_arms = [
                (quote!(Text), &text),
                (quote!(Whole), &whole),
                (quote!(Number), &number),
                (quote!(Bool), &boolean),
            ]
            .map(|(kind, message)| {
                let fail = fail(message, column_span);
                quote!(#p::SourceCheck::Holds(#p::ValueKind::#kind) => #fail,)
            });
            Some(quote! {
                const _: () = {
                    use #p::AnyKind as _;
                    match #p::check_source(
                        <#self_ty as #p::TableBlocks>::TABLES,
                        #table,
                        #column,
                        #p::KindOf::<#ty>::KIND,
                    ) {
                        #p::SourceCheck::NoTable => #no_table,
                        #p::SourceCheck::NoField | #p::SourceCheck::NoColumn => #missing,
                        #(#holds_arms)*
                        _ => {}
                    }
                };
            })
        })
        .collect()
}

/// Turns the value in `value` into `Result<ActionOutput, ToolError>`.
fn convert(krate: &syn::Path, returns: &Returns, value: TokenStream) -> TokenStream {
    match returns {
        Returns::Unit => quote!({
            let () = #value;
            ::core::result::Result::Ok(#krate::__private::typed_output(
                #krate::__private::ActionOutput::default(),
                (),
                &__purview_slot,
            ))
        }),
        Returns::Output => quote!(::core::result::Result::Ok(
            #krate::__private::typed_output(#value, (), &__purview_slot)
        )),
        Returns::Value(ty) => {
            // Spanned at the user's return type, so a missing Serialize is
            // reported there, as `ActionOutput::result`'s bound.
            let json = quote_spanned!(ty.span()=>
                #krate::__private::ActionOutput::result::<&#ty>(&__purview_value)
            );
            quote!({
                let __purview_value: #ty = #value;
                let __purview_output = #json;
                ::core::result::Result::Ok(#krate::__private::typed_output(
                    __purview_output,
                    __purview_value,
                    &__purview_slot,
                ))
            })
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

/// The arm of `__call_at` for the action at `key`.
fn dispatch_arm(
    krate: &syn::Path,
    self_ty: &syn::Type,
    key: usize,
    action: &Action,
) -> TokenStream {
    let method = &action.method;
    let params: Vec<&syn::Ident> = action.params().map(|p| &p.ident).collect();
    // The type a typed call of it gives back, and so of its result's slot.
    let result = match action.returns.result_type() {
        Some(ty) => quote!(#ty),
        None => quote!(()),
    };
    let decode = if params.is_empty() {
        quote!(let __purview_slot = args.__finish_or_take::<#result>()?;)
    } else {
        let ident = args_struct_ident(action);
        let checks = constraint_checks(krate, action);
        quote! {
            let (#ident { #(#params),* }, __purview_slot) =
                args.__parse_or_take::<#ident, #result>()?;
            #checks
        }
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
        #key => {
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

/// The arm of `__question_at` for an action with `question = method`: the
/// checked arguments decoded again (from the JSON the agent sent, which
/// passed the schema) and lent to the method, on the window as it is.
fn question_arm(krate: &syn::Path, key: usize, action: &Action) -> Option<TokenStream> {
    let path = action.question.as_ref()?;
    let p = quote!(#krate::__private);
    let callee = match path.get_ident() {
        Some(ident) => quote_spanned!(ident.span()=> Self::#ident),
        None => quote!(#path),
    };
    let params: Vec<&syn::Ident> = action.params().map(|p| &p.ident).collect();
    let decode = if params.is_empty() {
        TokenStream::new()
    } else {
        let ident = args_struct_ident(action);
        quote! {
            let #ident { #(#params),* } = match #p::question_arguments::<#ident>(args) {
                ::core::result::Result::Ok(decoded) => decoded,
                ::core::result::Result::Err(error) => {
                    return ::core::option::Option::Some(::core::result::Result::Err(error));
                }
            };
        }
    };
    let call = quote_spanned!(path.span()=> #callee(self, #(&#params),*));
    Some(quote! {
        #key => {
            #decode
            ::core::option::Option::Some(#p::IntoQuestion::into_question(#call))
        }
    })
}

/// `Actions::__question_at`, when any action has `question = method`.
fn question_at(krate: &syn::Path, actions: &[Action]) -> Option<TokenStream> {
    let p = quote!(#krate::__private);
    let questions: Vec<TokenStream> =
        actions.iter().enumerate().filter_map(|(key, a)| question_arm(krate, key, a)).collect();
    (!questions.is_empty()).then(|| {
        quote! {
            fn __question_at(
                &self,
                key: usize,
                args: &#p::JsonObject,
            ) -> ::core::option::Option<::core::result::Result<::std::string::String, #p::ToolError>> {
                let _ = args;
                match key {
                    #(#questions)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    })
}

pub fn actions(parsed: &Impl) -> TokenStream {
    let Impl { item, krate, actions, .. } = parsed;
    let self_ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let structs = actions.iter().filter_map(|a| args_struct(krate, self_ty, a));
    let specs = actions.iter().map(|a| spec(krate, self_ty, a));
    let source_checks = actions.iter().flat_map(|a| source_checks(krate, self_ty, a));
    let names = actions.iter().map(|a| &a.name);
    let arms = actions.iter().enumerate().map(|(key, a)| dispatch_arm(krate, self_ty, key, a));
    let keys = actions.iter().enumerate().map(|(key, a)| {
        let name = &a.name;
        quote!(#name => #key,)
    });
    let available = actions.iter().filter_map(availability_arm);
    let p = quote!(#krate::__private);
    let question_at = question_at(krate, actions);
    let (calls_struct, calls_impl) = match typed_calls_ident(item) {
        Some(calls) => (
            calls_struct(krate, self_ty, &calls, actions),
            typed_calls(krate, self_ty, &calls, actions),
        ),
        None => (TokenStream::new(), TokenStream::new()),
    };
    let app_level = app_level(parsed);
    quote! {
        #item
        #calls_struct
        const _: () = {
            #(#source_checks)*
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
                #question_at
                fn call<'a>(
                    &'a mut self,
                    action: &'a str,
                    args: #p::Args,
                    cx: &'a mut #p::Context,
                ) -> #p::BoxFuture<'a> {
                    let key = match action {
                        #(#keys)*
                        _ => usize::MAX,
                    };
                    #p::Actions::__call_at(self, key, action, args, cx)
                }
                fn __call_at<'a>(
                    &'a mut self,
                    key: usize,
                    action: &'a str,
                    args: #p::Args,
                    cx: &'a mut #p::Context,
                ) -> #p::BoxFuture<'a> {
                    let _ = (&cx, &args);
                    ::std::boxed::Box::pin(async move {
                        match key {
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
    // The calls struct, with a method for every action that parsed, so GUI
    // code calling them reports only the real mistake (without them,
    // `act().borrow()` met rustc's advice to import `std::borrow::Borrow`).
    let (calls_struct, calls_impl) = match typed_calls_ident(item) {
        Some(calls) => (
            calls_struct(krate, self_ty, &calls, &parsed.actions),
            typed_calls(krate, self_ty, &calls, &parsed.actions),
        ),
        None => (TokenStream::new(), TokenStream::new()),
    };
    let stub = stub_impls(parsed);
    quote! {
        #errors
        #item
        #calls_struct
        const _: () = {
            #calls_impl
        };
        #stub
    }
}

/// An `Actions` impl offering nothing (and `AppActions` for
/// `#[actions(app)]`), for an impl block that could not be read.
pub fn stub_impls(parsed: &Impl) -> TokenStream {
    let Impl { item, krate, .. } = parsed;
    let self_ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let p = quote!(#krate::__private);
    let app_level = app_level(parsed);
    quote! {
        const _: () = {
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
    // Recorded at link time, so an app that never installs it hears so
    // (a generic type has no one type to record).
    let declared = item.generics.params.is_empty().then(|| {
        let name = quote!(#self_ty).to_string().replace(' ', "");
        quote! {
            #krate::__private::inventory::submit! {
                #krate::__private::DeclaredAppActions::of::<#self_ty>(
                    ::core::concat!(::core::module_path!(), "::", #name)
                )
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::AppActions for #self_ty #where_clause {}
        #declared
    }
}

//! `#[actions]`: the `#[action]` methods of an impl block become
//! `impl Actions`.
//!
//! parse (attr.rs) → check (here) → expand (expand.rs).

mod attr;
mod expand;

use darling::{FromMeta, ast::NestedMeta};
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;

use self::attr::{ActionArgs, ActionsArgs, parse_timeout};
use crate::names::{check_action_name, doc_text, unraw};

/// How a method's return value becomes the call's output.
pub enum Returns {
    Unit,
    Output,
    Value(syn::Type),
    Result { ok: Box<Returns>, err: Option<syn::Type> },
}

pub struct Param {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    /// Doc comments and serde/schemars attributes, moved onto the generated
    /// arguments struct.
    pub attrs: Vec<syn::Attribute>,
}

#[allow(clippy::large_enum_variant)] // one per argument, at compile time
pub enum Arg {
    Param(Param),
    Context { mutable: bool },
}

pub struct Action {
    pub method: syn::Ident,
    pub name: String,
    pub args: ActionArgs,
    pub description: Option<String>,
    pub timeout_ms: Option<u64>,
    pub is_async: bool,
    pub inputs: Vec<Arg>,
    pub returns: Returns,
}

pub struct Impl {
    pub item: syn::ItemImpl,
    pub krate: syn::Path,
    pub actions: Vec<Action>,
}

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut item: syn::ItemImpl = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                "#[actions] goes on an inherent impl block: `#[actions] impl MyWindow { .. }`",
            )
            .into_compile_error();
            return quote::quote!(#e #item);
        }
    };
    let mut errors = darling::Error::accumulator();
    let args = errors
        .handle(
            NestedMeta::parse_meta_list(args)
                .map_err(darling::Error::from)
                .and_then(|m| ActionsArgs::from_list(&m)),
        )
        .unwrap_or_default();
    let krate = args.krate.unwrap_or_else(|| syn::parse_quote!(::purview));
    if !item.generics.params.is_empty() {
        errors.push(
            darling::Error::custom(
                "#[actions] does not take generic impl blocks: each action's arguments become a concrete JSON Schema. Implement purview::Actions by hand for a generic view-model, or add #[actions] to an impl for a concrete type",
            )
            .with_span(&item.generics.params),
        );
    }
    if let Some((_, path, _)) = &item.trait_ {
        errors.push(
            darling::Error::custom("#[actions] goes on an inherent impl block, not a trait impl")
                .with_span(path),
        );
    }
    let mut actions: Vec<Action> = Vec::new();
    for member in item.items.iter_mut() {
        let syn::ImplItem::Fn(method) = member else { continue };
        let (marks, other): (Vec<syn::Attribute>, Vec<syn::Attribute>) =
            method.attrs.drain(..).partition(|a| a.path().is_ident("action"));
        method.attrs = other;
        let Some(mark) = marks.first() else { continue };
        if let Some(extra) = marks.get(1) {
            errors.push(darling::Error::custom("one #[action] per method").with_span(extra));
        }
        if let Some(action) = errors.handle(action(method, mark)) {
            if let Some(first) = actions.iter().find(|a| a.name == action.name) {
                errors.push(
                    darling::Error::custom(format!(
                        "action `{}` is already defined by method `{}`; tool names must be unique per window",
                        action.name, first.method
                    ))
                    .with_span(&action.method),
                );
            } else {
                actions.push(action);
            }
        }
    }
    let parsed = Impl { item, krate, actions };
    match errors.finish() {
        Ok(()) => expand::actions(&parsed),
        Err(e) => expand::fallback(&parsed, e.write_errors()),
    }
}

fn action(method: &mut syn::ImplItemFn, mark: &syn::Attribute) -> darling::Result<Action> {
    let mut errors = darling::Error::accumulator();
    let args = match &mark.meta {
        syn::Meta::Path(_) => ActionArgs::default(),
        syn::Meta::List(list) => errors
            .handle(
                NestedMeta::parse_meta_list(list.tokens.clone())
                    .map_err(darling::Error::from)
                    .and_then(|m| ActionArgs::from_list(&m)),
            )
            .unwrap_or_default(),
        syn::Meta::NameValue(nv) => {
            errors.push(darling::Error::custom("write #[action] or #[action(..)]").with_span(nv));
            ActionArgs::default()
        }
    };
    let sig = &mut method.sig;
    let name = args
        .name
        .as_ref()
        .map(|n| (n.as_str().to_owned(), n.span()))
        .unwrap_or_else(|| (unraw(&sig.ident), sig.ident.span()));
    errors.handle(check_action_name(&name.0, name.1));
    if !sig.generics.params.is_empty() {
        errors.push(darling::Error::custom("action methods cannot be generic: their arguments are decoded from JSON into concrete types").with_span(&sig.generics));
    }
    if args.read_only && args.destructive {
        errors.push(
            darling::Error::custom("an action cannot be both `read_only` and `destructive`")
                .with_span(mark),
        );
    }
    let timeout_ms = args.timeout.as_ref().and_then(|t| {
        let problem = match parse_timeout(t) {
            Some(0) => "a timeout of zero would fail every call; give a positive duration",
            Some(ms) => return Some(ms),
            None => "write the timeout as \"250ms\", \"5s\" or \"2m\"",
        };
        errors.push(darling::Error::custom(problem).with_span(&t.span()));
        None
    });
    let mut receiver_ok = false;
    let mut inputs = Vec::new();
    for input in sig.inputs.iter_mut() {
        match input {
            syn::FnArg::Receiver(r) => {
                if r.reference.is_none() || r.colon_token.is_some() {
                    errors.push(
                        darling::Error::custom(
                            "an action takes `&mut self` (or `&self`): it runs on a working copy of the view-model that replaces the original only if the call succeeds",
                        )
                        .with_span(r),
                    );
                }
                receiver_ok = true;
            }
            syn::FnArg::Typed(pat) => {
                if let Some(arg) = errors.handle(argument(pat)) {
                    inputs.push(arg);
                }
            }
        }
    }
    if !receiver_ok {
        errors.push(
            darling::Error::custom(
                "an action is a method: add `&mut self` (or `&self`) as its first parameter",
            )
            .with_span(&sig.ident),
        );
    }
    if inputs.iter().filter(|a| matches!(a, Arg::Context { .. })).count() > 1 {
        errors.push(darling::Error::custom("take the Context once").with_span(&sig.ident));
    }
    let returns = match &sig.output {
        syn::ReturnType::Default => Returns::Unit,
        syn::ReturnType::Type(_, ty) => returns(ty),
    };
    let description = args.description.clone().or_else(|| doc_text(&method.attrs));
    errors.finish_with(Action {
        method: sig.ident.clone(),
        name: name.0,
        args,
        description,
        timeout_ms,
        is_async: sig.asyncness.is_some(),
        inputs,
        returns,
    })
}

fn is_context(ty: &syn::Type) -> Option<bool> {
    let syn::Type::Reference(r) = ty else { return None };
    let syn::Type::Path(p) = &*r.elem else { return None };
    (p.path.segments.last()?.ident == "Context").then_some(r.mutability.is_some())
}

/// Checks one typed parameter and strips its attributes from the method.
fn argument(pat: &mut syn::PatType) -> darling::Result<Arg> {
    let attrs = std::mem::take(&mut pat.attrs);
    if let Some(mutable) = is_context(&pat.ty) {
        return Ok(Arg::Context { mutable });
    }
    let syn::Pat::Ident(ident) = &*pat.pat else {
        return Err(darling::Error::custom(
            "action arguments must be plain names: they are the argument names agents send",
        )
        .with_span(&pat.pat));
    };
    let name = unraw(&ident.ident);
    if name == "expectedVersion" || name == "expected_version" {
        return Err(darling::Error::custom(
            "`expectedVersion` is reserved: Purview checks it before the action runs (§7.1)",
        )
        .with_span(&ident.ident));
    }
    if let syn::Type::Reference(r) = &*pat.ty {
        return Err(darling::Error::custom(
            "action arguments are decoded from JSON and must be owned: use `String` instead of `&str`, `Vec<T>` instead of `&[T]`",
        )
        .with_span(r));
    }
    let mut errors = darling::Error::accumulator();
    let mut kept = Vec::new();
    for attr in attrs {
        let path = attr.path();
        if path.is_ident("doc") || path.is_ident("serde") || path.is_ident("schemars") {
            kept.push(attr);
        } else {
            errors.push(
                darling::Error::custom("only doc comments, #[serde(..)] and #[schemars(..)] are allowed on action arguments").with_span(&attr),
            );
        }
    }
    errors.finish_with(Arg::Param(Param {
        ident: ident.ident.clone(),
        ty: (*pat.ty).clone(),
        attrs: kept,
    }))
}

fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn generic_types(segment: &syn::PathSegment) -> Vec<syn::Type> {
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Classifies a return type by its spelling (type aliases of `Result` with
/// one parameter are treated like `io::Result`: the error must be `Display`).
fn returns(ty: &syn::Type) -> Returns {
    if let syn::Type::Tuple(t) = ty
        && t.elems.is_empty()
    {
        return Returns::Unit;
    }
    let Some(segment) = last_segment(ty) else { return Returns::Value(ty.clone()) };
    if segment.ident == "ActionOutput" {
        return Returns::Output;
    }
    if segment.ident == "Result" {
        let types = generic_types(segment);
        if let Some(ok) = types.first() {
            return Returns::Result { ok: Box::new(returns(ok)), err: types.get(1).cloned() };
        }
    }
    let _ = ty.span();
    Returns::Value(ty.clone())
}

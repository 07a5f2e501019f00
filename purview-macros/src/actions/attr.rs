//! Parsing `#[actions(..)]` and each `#[action(..)]` method into the typed
//! model, with the checks that concern one method at a time.

use darling::{FromMeta, ast::NestedMeta, error::Accumulator, util::SpannedValue};
use proc_macro2::{Span, TokenStream};

use super::ast::{Action, Arg, Hints, Impl, Param, Returns};
use crate::util::{doc_text, krate, name_rule, unraw};

/// `#[actions(..)]` on the impl block.
#[derive(Debug, Default, FromMeta)]
struct ActionsArgs {
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

/// `#[action(..)]` on one method, as written.
#[derive(Debug, Default, FromMeta)]
struct ActionArgs {
    name: Option<SpannedValue<String>>,
    title: Option<String>,
    description: Option<String>,
    destructive: Option<SpannedValue<bool>>,
    idempotent: Option<SpannedValue<bool>>,
    read_only: Option<SpannedValue<bool>>,
    open_world: Option<SpannedValue<bool>>,
    approval: Option<SpannedValue<bool>>,
    timeout: Option<SpannedValue<String>>,
    available: Option<syn::Path>,
}

fn on(flag: &Option<SpannedValue<bool>>) -> bool {
    flag.as_ref().is_some_and(|f| **f)
}

/// Parses the arguments and every `#[action]` method (removing the marks).
pub fn parse(args: TokenStream, mut item: syn::ItemImpl, errors: &mut Accumulator) -> Impl {
    let args = errors
        .handle(
            NestedMeta::parse_meta_list(args)
                .map_err(darling::Error::from)
                .and_then(|m| ActionsArgs::from_list(&m)),
        )
        .unwrap_or_default();
    let mut actions = Vec::new();
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
            actions.push(action);
        }
    }
    Impl { item, krate: krate(args.krate), actions }
}

fn action_args(mark: &syn::Attribute, errors: &mut Accumulator) -> ActionArgs {
    match &mark.meta {
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
    }
}

fn action(method: &mut syn::ImplItemFn, mark: &syn::Attribute) -> darling::Result<Action> {
    let mut errors = darling::Error::accumulator();
    let args = action_args(mark, &mut errors);
    let sig = &mut method.sig;
    let (name, name_span) = match &args.name {
        Some(n) => (n.as_str().to_owned(), n.span()),
        None => (unraw(&sig.ident), sig.ident.span()),
    };
    errors.handle(name_rule(purview_naming::check_action_name(&name), name_span));
    if !sig.generics.params.is_empty() {
        errors.push(darling::Error::custom("action methods cannot be generic: their arguments are decoded from JSON into concrete types").with_span(&sig.generics));
    }
    if let (Some(read_only), Some(destructive)) = (&args.read_only, &args.destructive)
        && **read_only
        && **destructive
    {
        errors.push(
            darling::Error::custom("an action cannot be both `read_only` and `destructive`")
                .with_span(&destructive.span()),
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
    let inputs = inputs(sig, &mut errors);
    let returns = match &sig.output {
        syn::ReturnType::Default => Returns::Unit,
        syn::ReturnType::Type(_, ty) => returns(ty),
    };
    let description = args.description.clone().or_else(|| doc_text(&method.attrs));
    let hints = Hints {
        destructive: on(&args.destructive),
        idempotent: on(&args.idempotent),
        read_only: on(&args.read_only),
        open_world: on(&args.open_world),
    };
    errors.finish_with(Action {
        method: method.sig.ident.clone(),
        name,
        name_span,
        title: args.title,
        description,
        hints,
        approval: on(&args.approval),
        timeout_ms,
        available: args.available,
        is_async: method.sig.asyncness.is_some(),
        inputs,
        returns,
    })
}

/// The receiver check and every typed parameter.
fn inputs(sig: &mut syn::Signature, errors: &mut Accumulator) -> Vec<Arg> {
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
    let contexts: Vec<Span> = sig
        .inputs
        .iter()
        .filter_map(|i| match i {
            syn::FnArg::Typed(p) if is_context(&p.ty).is_some() => {
                Some(syn::spanned::Spanned::span(&*p.ty))
            }
            _ => None,
        })
        .collect();
    if let Some(second) = contexts.get(1) {
        errors.push(darling::Error::custom("take the Context once").with_span(second));
    }
    inputs
}

/// `&mut Context` / `&Context`: `Some(mutable)`.
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
    Returns::Value(ty.clone())
}

/// `"250ms"`, `"5s"`, `"2m"` → milliseconds (`Some(0)` for a zero duration).
pub fn parse_timeout(text: &str) -> Option<u64> {
    let text = text.trim();
    let (number, factor) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1_000)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60_000)
    } else {
        return None;
    };
    number.trim().parse::<u64>().ok().and_then(|n| n.checked_mul(factor))
}

//! Parsing `#[actions(..)]` and each `#[action(..)]` method into the typed
//! model, with the checks that concern one method at a time.

use darling::{FromMeta, ast::NestedMeta, error::Accumulator, util::SpannedValue};
use proc_macro2::{Span, TokenStream};

use super::ast::{Action, Arg, Constraints, Hints, Impl, Param, Returns};
use crate::util::{doc_text, krate, name_rule, unraw};

/// `#[actions(..)]` on the impl block.
#[derive(Debug, Default, FromMeta)]
struct ActionsArgs {
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
    /// `#[actions(app)]`: the app-level actions (`app__{action}` tools).
    app: darling::util::Flag,
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
    question: Option<syn::Path>,
}

/// `#[arg(..)]` on one action parameter, as written.
#[derive(Debug, Default, FromMeta)]
struct ArgArgs {
    range: Option<SpannedValue<Bounds<Bound>>>,
    length: Option<SpannedValue<Bounds<u64>>>,
    pattern: Option<SpannedValue<String>>,
    /// How a failed pattern reads: "must be {message}".
    message: Option<SpannedValue<String>>,
    /// A value as the person would write it: the schema's `examples`, the
    /// form's placeholder, and how a failed pattern reads without a message.
    example: Option<syn::Lit>,
    /// `from = table.column`: the value is a cell of that column.
    from: Option<syn::Expr>,
}

/// `(min = .., max = ..)`.
#[derive(Debug, Default, FromMeta)]
struct Bounds<T> {
    min: Option<T>,
    max: Option<T>,
}

/// A range bound as written: darling would read `min = "0.01"` as the
/// number inside the quotes, and a bound written as text is refused.
#[derive(Debug)]
struct Bound(syn::Expr);

impl FromMeta for Bound {
    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        Ok(Self(expr.clone()))
    }
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
        let parsed = action(method, mark, errors);
        if let Some(action) = errors.handle(parsed) {
            actions.push(action);
        }
    }
    let app = args.app.is_present();
    if app {
        // The runtime refuses these names too (`AppBuilder::app_actions`),
        // but only once the call is compiled to code: said here, the error
        // points at the action and shows in `cargo check`.
        for action in &actions {
            if let Err(why) = purview_naming::check_app_action_name(&action.name) {
                errors.push(darling::Error::custom(why).with_span(&action.name_span));
            }
        }
    }
    Impl { item, krate: krate(args.krate), app, actions }
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

/// One action, or its errors. A bad name goes to `reported` instead and the
/// action is kept, so its typed call still exists and code calling it
/// hears only of the name.
fn action(
    method: &mut syn::ImplItemFn,
    mark: &syn::Attribute,
    reported: &mut darling::error::Accumulator,
) -> darling::Result<Action> {
    let mut errors = darling::Error::accumulator();
    let args = action_args(mark, &mut errors);
    let sig = &mut method.sig;
    let (name, name_span) = match &args.name {
        Some(n) => (n.as_str().to_owned(), n.span()),
        None => (unraw(&sig.ident), sig.ident.span()),
    };
    reported.handle(name_rule(purview_naming::check_action_name(&name), name_span));
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
    if let Some(approval) = &args.approval
        && **approval
        && args.destructive.is_none()
    {
        errors.push(
            darling::Error::custom(
                "an action that asks a person's approval says whether it can be undone: add `destructive` if it cannot (agents are told, and the person confirms it as such), or `destructive = false` if it only adds or changes what can be changed back",
            )
            .with_span(&approval.span()),
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
    if matches!(method.sig.output, syn::ReturnType::Default)
        && let Some(question) = first_question_mark(&method.block)
    {
        errors.push(
            darling::Error::custom(
                "`?` needs this action to return a `Result`: write `-> Result<(), purview::ToolError>` and end with `Ok(())` (a failed `cx.open`, `cx.update` or any error with `Display` converts into it, and the caller is told nothing was changed)",
            )
            .with_span(&question),
        );
        // The body is left out of the expansion, so the compiler does not
        // add its own advice (a `Box<dyn Error>` return an action cannot have).
        method.block = syn::parse_quote!({ ::core::unreachable!() });
        method.attrs.push(syn::parse_quote!(#[allow(unused_variables)]));
    }
    let sig = &method.sig;
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
        question: args.question,
        is_async: method.sig.asyncness.is_some(),
        inputs,
        returns,
    })
}

/// The first `?` of a method body, outside closures, async blocks and
/// nested items (whose `?` belongs to them).
fn first_question_mark(body: &syn::Block) -> Option<syn::token::Question> {
    use syn::visit::Visit;
    #[derive(Default)]
    struct Find(Option<syn::token::Question>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_try(&mut self, e: &'ast syn::ExprTry) {
            if self.0.is_none() {
                syn::visit::visit_expr(self, &e.expr);
                self.0.get_or_insert(e.question_token);
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut find = Find::default();
    find.visit_block(body);
    find.0
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
    if name == purview_naming::EXPECTED_VERSION || name == "expected_version" {
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
    let mut constraints = Constraints::default();
    for attr in attrs {
        let path = attr.path();
        if path.is_ident("doc") || path.is_ident("serde") || path.is_ident("schemars") {
            kept.push(attr);
        } else if path.is_ident("arg") {
            constraints = arg_constraints(&attr, &pat.ty, &mut errors);
        } else {
            errors.push(
                darling::Error::custom("only doc comments, #[arg(..)], #[serde(..)] and #[schemars(..)] are allowed on action arguments").with_span(&attr),
            );
        }
    }
    errors.finish_with(Arg::Param(Param {
        ident: ident.ident.clone(),
        ty: (*pat.ty).clone(),
        attrs: kept,
        constraints,
    }))
}

/// Parses and checks `#[arg(range(..), length(..), pattern = "..")]`.
fn arg_constraints(attr: &syn::Attribute, ty: &syn::Type, errors: &mut Accumulator) -> Constraints {
    // Where each constraint is written: darling has no span for an empty
    // list such as `length()`.
    let mut spans = std::collections::HashMap::new();
    let parsed = match &attr.meta {
        syn::Meta::List(list) => errors.handle(
            NestedMeta::parse_meta_list(list.tokens.clone())
                .map_err(darling::Error::from)
                .and_then(|metas| {
                    for meta in &metas {
                        if let NestedMeta::Meta(m) = meta
                            && let Some(ident) = m.path().get_ident()
                        {
                            spans.insert(ident.to_string(), syn::spanned::Spanned::span(m));
                        }
                    }
                    ArgArgs::from_list(&metas)
                }),
        ),
        _ => {
            errors.push(
                darling::Error::custom(
                    "write #[arg(range(min = .., max = ..))], #[arg(length(min = .., max = ..))] or #[arg(pattern = \"..\")]",
                )
                .with_span(attr),
            );
            None
        }
    };
    let Some(args) = parsed else { return Constraints::default() };
    let mut constraints = Constraints::default();
    let span = |name: &str| spans.get(name).copied().unwrap_or_else(|| attr_span(attr));
    if let Some(range) = &args.range {
        let min = range.min.as_ref().and_then(|b| errors.handle(number(&b.0)));
        let max = range.max.as_ref().and_then(|b| errors.handle(number(&b.0)));
        for (which, bound, value) in [("min", &range.min, min), ("max", &range.max, max)] {
            if let (Some(bound), Some(value)) = (bound, value) {
                errors.handle(super::bounds::fits(ty, which, &bound.0, value));
            }
        }
        bounds_rule(
            range.min.is_some() || range.max.is_some(),
            min.zip(max).is_some_and(|(a, b)| a > b),
            "range",
            span("range"),
            errors,
        );
        constraints.range = Some((min, max, span("range")));
    }
    if let Some(length) = &args.length {
        bounds_rule(
            length.min.is_some() || length.max.is_some(),
            length.min.zip(length.max).is_some_and(|(a, b)| a > b),
            "length",
            span("length"),
            errors,
        );
        constraints.length = Some((length.min, length.max, span("length")));
    }
    if let Some(pattern) = &args.pattern {
        // Whether the runtime can run it, then whether it is ECMA-262: the
        // pattern goes into the input schema, where hosts that check
        // arguments in JavaScript compile it. The parser's reasons come
        // first, as they name what no form of the pattern could fix (an
        // unknown property, a look-around).
        let pattern_text = pattern.as_str();
        let checked = super::pattern::check_pattern(pattern_text)
            .and_then(|()| purview_pattern::check_ecma_pattern(pattern_text));
        if let Err(e) = checked {
            errors.push(darling::Error::custom(e).with_span(&pattern.span()));
        }
        constraints.pattern = Some((pattern.as_str().to_owned(), pattern.span()));
    }
    words_and_source(&args, &mut constraints, errors);
    constraints
}

/// `message`, `example` and `from` of `#[arg(..)]`: how the argument
/// reads to a person, and where its value comes from.
fn words_and_source(args: &ArgArgs, constraints: &mut Constraints, errors: &mut Accumulator) {
    if let Some(message) = &args.message {
        if args.pattern.is_none() {
            errors.push(
                darling::Error::custom(
                    "`message` says how a failed `pattern` reads (\"must be {message}\"); add `pattern = \"..\"`, or use a doc comment to describe the argument",
                )
                .with_span(&message.span()),
            );
        }
        constraints.message = Some(message.as_str().to_owned());
    }
    if let Some(example) = &args.example {
        if !matches!(
            example,
            syn::Lit::Str(_) | syn::Lit::Int(_) | syn::Lit::Float(_) | syn::Lit::Bool(_)
        ) {
            errors.push(
                darling::Error::custom("an example is a string, a number or a boolean")
                    .with_span(example),
            );
        }
        constraints.example = Some(example.clone());
    }
    if let Some(from) = &args.from {
        match from {
            syn::Expr::Field(field) => match &*field.base {
                syn::Expr::Path(path) if path.path.get_ident().is_some() => {
                    let table = path.path.get_ident().cloned();
                    constraints.from = table.map(|t| (t, field.member.clone()));
                }
                other => errors.push(
                    darling::Error::custom("name a table block of this window: `from = table.column`")
                        .with_span(other),
                ),
            },
            other => errors.push(
                darling::Error::custom(
                    "write `from = table.column`: a table block of this window and a field of its rows (or a column's place, `table.0`)",
                )
                .with_span(other),
            ),
        }
    }
}

fn attr_span(attr: &syn::Attribute) -> Span {
    syn::spanned::Spanned::span(attr)
}

/// A bound must be there, and the lower one not above the upper one.
fn bounds_rule(any: bool, inverted: bool, what: &str, span: Span, errors: &mut Accumulator) {
    if !any {
        errors.push(
            darling::Error::custom(format!(
                "give `{what}` a bound: `{what}(min = ..)`, `{what}(max = ..)` or both"
            ))
            .with_span(&span),
        );
    } else if inverted {
        errors.push(
            darling::Error::custom(format!(
                "this `{what}` admits nothing: its `min` is above its `max`"
            ))
            .with_span(&span),
        );
    }
}

/// A range bound: a number literal, possibly negative.
fn number(expr: &syn::Expr) -> darling::Result<f64> {
    let (negative, lit) = match expr {
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => (true, &**expr),
        other => (false, other),
    };
    if let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) = lit {
        let text = text.value();
        let text = text.trim();
        let message = if text.parse::<f64>().is_ok_and(f64::is_finite) {
            format!("a range bound is a number, not text: write it without quotes, `{text}`")
        } else {
            "a range bound is a number, not text: write `min = 1` or `max = 9.5`".to_owned()
        };
        return Err(darling::Error::custom(message).with_span(expr));
    }
    let value = match lit {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<f64>().ok(),
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. }) => {
            f.base10_parse::<f64>().ok()
        }
        _ => None,
    };
    match value {
        Some(v) => Ok(if negative { -v } else { v }),
        None => {
            Err(darling::Error::custom("a range bound is a number: write `min = 1` or `max = 9.5`")
                .with_span(expr))
        }
    }
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

//! The traits a view-model implements, and what its handlers get.
//! `#[window]` and `#[action]` generate these implementations; they can
//! also be written by hand. The registry stores each view-model behind its
//! object-safe face ([`DynActions`]), and a handler gets a [`Context`]
//! (context.rs).

pub(crate) mod context;

use std::{any::Any, future::Future, pin::Pin};

pub use context::{CalledBy, Context};

use crate::{ActionOutput, ActionSpec, Args, View, model::ToolError};

/// A boxed, `Send` future, the return type of [`Actions::call`]: by
/// default, of what an action handler returns — its output, or a
/// structured error.
pub type BoxFuture<'a, T = Result<ActionOutput, ToolError>> =
    Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A set of actions an agent can call: a window's, or the app's own
/// (`app__{action}` tools).
///
/// Calls run on a *working copy* of the value (hence `Clone`): if the handler
/// fails, panics or times out, the copy is dropped and nothing it did is
/// applied. On success the copy replaces the original in one step.
///
/// ```
/// use purview::{Actions, ActionSpec, ActionOutput, Args, by_hand::BoxFuture, Context};
///
/// #[derive(Clone, Default)]
/// struct Counter { n: u32 }
///
/// impl Actions for Counter {
///     fn actions() -> Vec<ActionSpec> {
///         vec![ActionSpec::new("increment").description("Add one to the counter")]
///     }
///     fn call<'a>(&'a mut self, action: &'a str, args: Args, _cx: &'a mut Context) -> BoxFuture<'a> {
///         Box::pin(async move {
///             args.finish()?;
///             match action {
///                 "increment" => { self.n += 1; Ok(ActionOutput::message(format!("now {}", self.n))) }
///                 other => Err(purview::by_hand::unknown_action(other)),
///             }
///         })
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no actions",
    label = "needs an `impl Actions`",
    note = "add `#[purview::actions] impl {Self} {{ .. }}` with its #[action] methods (an empty impl is fine)"
)]
pub trait Actions: Clone + Send + Sync + 'static {
    /// The actions of this type, in the order they are listed. Called once per
    /// type; the runtime caches the compiled schemas.
    fn actions() -> Vec<ActionSpec>;

    /// The action names, when known at compile time (`#[actions]` fills it
    /// in), so [`AppBuilder::app_actions`](crate::AppBuilder::app_actions)
    /// can reject a name Purview's own tools take before the program runs.
    /// Hand-written implementations may leave it empty; the same check then
    /// runs when the app is built.
    const ACTION_NAMES: &'static [&'static str] = &[];

    /// Whether `action` can be called in the current state. Hidden actions
    /// vanish from tools/list and are rejected with `action_not_available`.
    fn is_available(&self, action: &str) -> bool {
        let _ = action;
        true
    }

    /// Runs `action` with decoded-on-demand `args`. Effects on other windows
    /// (opening, closing) go through `cx` and are applied only if the call
    /// succeeds.
    fn call<'a>(&'a mut self, action: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a>;

    /// Runs the action at `key`, its place in [`Actions::actions`], which
    /// is named `action`: how the runtime calls an action it has already
    /// found, so neither a typed call nor an agent's is matched by name a
    /// second time. `#[actions]` implements it with a `match` on the key;
    /// by default it is [`Actions::call`]. Not public API.
    #[doc(hidden)]
    fn __call_at<'a>(
        &'a mut self,
        key: usize,
        action: &'a str,
        args: Args,
        cx: &'a mut Context,
    ) -> BoxFuture<'a> {
        let _ = key;
        self.call(action, args, cx)
    }

    /// The question a person is asked before approving an agent's call of
    /// the action at `key`, written by the action's `question = method`
    /// from the view-model as it is and the call's checked arguments; an
    /// error refuses the call and no one is asked. `None` when the action
    /// declares no question (the question then describes the call).
    /// `#[actions]` implements it. Not public API.
    #[doc(hidden)]
    fn __question_at(
        &self,
        key: usize,
        args: &crate::model::JsonObject,
    ) -> Option<Result<String, ToolError>> {
        let _ = (key, args);
        None
    }
}

/// A view-model shown as one window.
///
/// ```
/// use purview::{Actions, ActionSpec, Args, by_hand::BoxFuture, Context, View, Window};
///
/// #[derive(Clone)]
/// struct Notes { text: String }
///
/// impl Window for Notes {
///     fn title(&self) -> String { "Notes".into() }
///     fn project(&self, view: &mut View) {
///         view.summary(format!("A note of {} characters", self.text.len()))
///             .text("body", self.text.clone());
///     }
/// }
/// # impl Actions for Notes {
/// #     fn actions() -> Vec<ActionSpec> { vec![] }
/// #     fn call<'a>(&'a mut self, action: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> {
/// #         Box::pin(async move { Err(purview::by_hand::unknown_action(action)) })
/// #     }
/// # }
/// ```
pub trait Window: Actions {
    /// The human-readable title (§4.3).
    fn title(&self) -> String;

    /// Describes the current content: a summary and semantic blocks.
    fn project(&self, view: &mut View);

    /// The load actions of the window's paged tables, as `(block id, action
    /// name)`: `#[block(table, load = ..)]` fills it in, and the runtime
    /// checks each names an action taking `offset` and `limit`
    /// ([`projection::Page`](crate::projection::Page)).
    const PAGED_BY: &'static [(&'static str, &'static str)] = &[];
}

/// The object-safe face of a window or an app action set, as the registry
/// stores it.
pub(crate) trait DynActions: Send + Sync {
    fn clone_box(&self) -> Box<dyn DynActions>;
    fn title(&self) -> String;
    fn project(&self, view: &mut View);
    fn is_available(&self, action: &str) -> bool;
    /// Runs the action at `key` of its type's compiled actions.
    fn call_at<'a>(
        &'a mut self,
        key: usize,
        action: &'a str,
        args: Args,
        cx: &'a mut Context,
    ) -> BoxFuture<'a>;
    /// The question for an agent's call of the action at `key`
    /// ([`Actions::__question_at`]).
    fn question_at(
        &self,
        key: usize,
        args: &crate::model::JsonObject,
    ) -> Option<Result<String, crate::model::ToolError>>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The view-model's Rust type, for a developer's log line.
    fn type_name(&self) -> &'static str;
    /// The load actions of its paged tables ([`Window::PAGED_BY`]).
    fn paged_by(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
}

/// A [`Window`] as the registry stores it.
pub(crate) struct AsWindow<W>(pub W);
/// An app-level [`Actions`] set as the registry stores it: no title, no blocks.
pub(crate) struct AsAppActions<A>(pub A);

macro_rules! forward_actions {
    ($wrapper:ident) => {
        fn clone_box(&self) -> Box<dyn DynActions> {
            Box::new($wrapper(self.0.clone()))
        }
        fn is_available(&self, action: &str) -> bool {
            self.0.is_available(action)
        }
        fn call_at<'a>(
            &'a mut self,
            key: usize,
            action: &'a str,
            args: Args,
            cx: &'a mut Context,
        ) -> BoxFuture<'a> {
            self.0.__call_at(key, action, args, cx)
        }
        fn question_at(
            &self,
            key: usize,
            args: &crate::model::JsonObject,
        ) -> Option<Result<String, crate::model::ToolError>> {
            self.0.__question_at(key, args)
        }
        fn as_any(&self) -> &dyn Any {
            &self.0
        }
        fn as_any_mut(&mut self) -> &mut dyn Any {
            &mut self.0
        }
        fn type_name(&self) -> &'static str {
            std::any::type_name_of_val(&self.0)
        }
    };
}

impl<W: Window> DynActions for AsWindow<W> {
    forward_actions!(AsWindow);
    fn title(&self) -> String {
        self.0.title()
    }
    fn project(&self, view: &mut View) {
        self.0.project(view)
    }
    fn paged_by(&self) -> &'static [(&'static str, &'static str)] {
        W::PAGED_BY
    }
}

impl<A: Actions> DynActions for AsAppActions<A> {
    forward_actions!(AsAppActions);
    fn title(&self) -> String {
        String::from("Application")
    }
    fn project(&self, _view: &mut View) {}
}

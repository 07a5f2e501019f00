//! The traits a view-model implements. `#[window]` and `#[action]` generate
//! these implementations; they can also be written by hand.

use std::{future::Future, pin::Pin};

use crate::{ActionOutput, ActionSpec, Args, Context, View, model::ToolError};

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

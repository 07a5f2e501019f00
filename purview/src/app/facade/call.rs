//! The one way to run an action: a [`Call`], from whichever side it comes.
//!
//! - **typed**: a generated `…Calls` method (`editor.act().submit()`,
//!   `app.act::<Desk>().lock()`), arguments and result checked by the
//!   compiler;
//! - **by tool name**: [`App::call`] with a tool name and JSON arguments,
//!   as an agent sends them (for tests, dispatchers and in-process agents);
//! - **as a scene listed it**: [`ActionInfo::call`](crate::activity::ActionInfo::call)
//!   with JSON arguments, for a GUI's default buttons and forms.
//!
//! Who calls, and whether a client may cancel, are options on the call:
//! [`Call::by_person`] / [`Call::by_agent`] and [`Call::cancel_on`].
//! Awaiting a call runs the phases of phases.rs and gives a [`Performed`];
//! [`Call::outcome`] gives the wire form instead.

use std::{
    any::{Any, TypeId},
    fmt,
    future::{Future, IntoFuture},
    pin::Pin,
    sync::Arc,
};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::app::{
    App,
    phases::{self, Answer, Caller, Settled},
    route::{ActionCall, Request, route},
};
use crate::{
    Actions,
    action::JsonObject,
    args::{ResultSlot, TypedArgs},
    model::{ApprovedBy, Next, ToolError, ToolOutcome, ToolResult},
    naming, refusals,
};

/// One call of an action, run by awaiting it. Nothing happens until it is
/// awaited (or handed to something that runs it, such as a GUI's executor).
///
/// Made in one of three ways: a typed call (`handle.act().submit()`,
/// `app.act::<Desk>().lock()`), whose result is the handler's own type `R`;
/// [`App::call`] with a tool name and JSON arguments, or
/// [`ActionInfo::call`](crate::activity::ActionInfo::call) with an action
/// as [`App::scene`] listed it, whose result is the JSON result
/// (`Call<Option<Value>>`).
///
/// Every gate applies (the window is open and operable, the action
/// available), the handler runs on a working copy, and its effects commit
/// in one step, or none of them do. Who calls is an option:
///
/// - [`by_person`](Call::by_person), the default for typed calls: the
///   person's own click. It is not recorded as agent activity and no
///   approval is asked;
/// - [`by_agent`](Call::by_agent), the default for [`App::call`]: recorded
///   as agent activity, and an action that needs approval is put to whom
///   the app accepts a yes from ([`WhoApproves`](crate::approval::WhoApproves))
///   first. A typed call made as an agent is refused such an action, since
///   its arguments could not be shown to the person asked.
///
/// A typed call's arguments were checked by the compiler, so the JSON Schema
/// check an agent's arguments get is skipped; the handler's own checks
/// (`cx.invalid`) apply as for any call.
///
/// ```
/// use purview::prelude::*;
///
/// #[window(summary = "A note")]
/// #[derive(Clone, Default)]
/// struct Note {
///     #[block(field)]
///     text: String,
/// }
///
/// #[actions]
/// impl Note {
///     /// Replace the note's text.
///     #[action]
///     fn set_text(&mut self, text: String, cx: &mut Context) {
///         if text.is_empty() {
///             cx.invalid("text", "cannot be empty");
///         }
///         self.text = text;
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let app = App::builder().build();
/// let note = app.open(Note::default()).unwrap();
///
/// // Typed, as the person:
/// let call = note.act().set_text("Buy milk".into());
/// assert_eq!(call.tool_name(), format!("{}__set_text", note.id()));
/// call.await.unwrap();
/// assert_eq!(note.read(|n| n.text.clone()).unwrap(), "Buy milk");
///
/// let refused = note.act().set_text(String::new()).await.unwrap_err();
/// assert_eq!(refused.fields.unwrap()[0].field, "text");
///
/// // By tool name, as an agent:
/// let arguments = serde_json::json!({"text": "Buy bread"});
/// let tool = format!("{}__set_text", note.id());
/// app.call(&tool, arguments.as_object().cloned()).await.unwrap();
/// assert_eq!(note.read(|n| n.text.clone()).unwrap(), "Buy bread");
/// # });
/// ```
#[must_use = "a call does nothing until it is awaited"]
pub struct Call<R = Option<Value>> {
    app: App,
    aim: Aim,
    caller: Caller,
    cancel: CancellationToken,
    take: Take<R>,
}

/// Where the call's value comes from once it is applied.
enum Take<R> {
    /// The JSON result (a call made with JSON arguments is a
    /// `Call<Option<Value>>`).
    Json(fn(Option<Value>) -> R),
    /// The slot the generated dispatch fills with the handler's own value.
    Typed(Arc<ResultSlot<R>>),
}

/// What a call names.
enum Aim {
    /// A tool name and its JSON arguments, as an agent sends them.
    Tool { name: String, arguments: JsonObject },
    /// An action a scene listed ([`ActionInfo::call`](crate::activity::ActionInfo::call)):
    /// its window (`None` for the app's), key and name, with JSON
    /// arguments.
    Listed { window: String, key: usize, action: String, arguments: JsonObject },
    /// A typed call: the action by its key (its place in the type's
    /// actions) and name, the arguments as the handler's own value (with
    /// the slot its result goes to).
    Typed { target: CallTarget, key: usize, action: &'static str, arguments: Box<dyn Any + Send> },
}

impl<R> fmt::Debug for Call<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Arguments may be secrets: only the names are shown.
        f.debug_struct("Call")
            .field("tool", &self.tool_name())
            .field("by_person", &matches!(self.caller, Caller::Person))
            .finish_non_exhaustive()
    }
}

impl Call {
    /// A call of a tool by name, as an agent sends it ([`App::call`]).
    pub(in crate::app) fn tool(app: &App, tool: &str, arguments: JsonObject) -> Self {
        Self {
            app: app.clone(),
            aim: Aim::Tool { name: tool.to_owned(), arguments },
            caller: Caller::ANONYMOUS,
            cancel: CancellationToken::new(),
            take: Take::Json(std::convert::identity),
        }
    }

    /// A call of an action a scene listed, as the person.
    pub(in crate::app) fn listed(
        app: &App,
        window: Option<Arc<str>>,
        key: usize,
        action: &str,
        arguments: JsonObject,
    ) -> Self {
        Self {
            app: app.clone(),
            aim: Aim::Listed {
                window: window.as_deref().unwrap_or(naming::APP).to_owned(),
                key,
                action: action.to_owned(),
                arguments,
            },
            caller: Caller::Person,
            cancel: CancellationToken::new(),
            take: Take::Json(std::convert::identity),
        }
    }
}

impl<R: Send + 'static> Call<R> {
    /// A typed call, made by a generated `…Calls` method: its arguments
    /// travel with the slot its result comes back in.
    pub(in crate::app) fn typed<A: Send + 'static>(
        target: CallTarget,
        key: usize,
        action: &'static str,
        arguments: A,
    ) -> Self {
        let slot = ResultSlot::new();
        let arguments = Box::new(TypedArgs { args: arguments, slot: slot.clone() });
        Self {
            app: target.app.clone(),
            aim: Aim::Typed { target, key, action, arguments },
            caller: Caller::Person,
            cancel: CancellationToken::new(),
            take: Take::Typed(slot),
        }
    }
}

impl<R> Call<R> {
    /// Runs the call as the person at the keyboard: not recorded as agent
    /// activity, and no approval asked (the default for typed calls).
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = purview::App::builder().build();
    /// let err = app.call("w9__submit", None).by_person().await.unwrap_err();
    /// assert_eq!(err.code, purview::model::ErrorCode::WindowNotFound);
    /// # });
    /// ```
    pub fn by_person(mut self) -> Self {
        self.caller = Caller::Person;
        self
    }

    /// Runs the call as an in-process agent: recorded as agent activity, and
    /// an action that needs approval is put to whom the app accepts a yes
    /// from (the default for [`App::call`]). A typed call of such an action
    /// is refused as an agent's (`approval_denied`): its arguments are Rust
    /// values the person asked could not be shown; call it by tool name.
    ///
    /// ```
    /// # use purview::prelude::*;
    /// # #[window(summary = "W")] #[derive(Clone, Default)] struct W;
    /// # #[actions] impl W {
    /// #     /// Delete everything.
    /// #     #[action(approval, destructive)] fn wipe(&mut self) {}
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = App::builder().build();
    /// let w = app.open(W).unwrap();
    /// // An agent's typed call of it is refused; the person's is not asked.
    /// let refused = w.act().wipe().by_agent().await.unwrap_err();
    /// assert_eq!(refused.code, purview::model::ErrorCode::ApprovalDenied);
    /// w.act().wipe().await.unwrap();
    /// // By tool name, an agent is asked for approval (here no one can say yes).
    /// let tool = format!("{}__wipe", w.id());
    /// let refused = app.call(&tool, None).await.unwrap_err();
    /// assert_eq!(refused.code, purview::model::ErrorCode::ApprovalDenied);
    /// # });
    /// ```
    pub fn by_agent(mut self) -> Self {
        self.caller = Caller::ANONYMOUS;
        self
    }

    /// Gives up, changing nothing, when `cancel` fires before the call
    /// commits (a client cancelled its request, say).
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = purview::App::builder().build();
    /// let cancel = tokio_util::sync::CancellationToken::new();
    /// let result = app.call("w1__anything", None).cancel_on(cancel).await;
    /// assert!(result.is_err());
    /// # });
    /// ```
    pub fn cancel_on(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The action's name, as the call names it (for `app__act`, the tool's).
    pub fn action(&self) -> &str {
        match &self.aim {
            Aim::Typed { action, .. } => action,
            Aim::Listed { action, .. } => action,
            Aim::Tool { name, .. } => naming::split_tool_name(name).map_or(name, |(_, a)| a),
        }
    }

    /// The window the call acts on; `None` for an app-level action (and for
    /// a tool name that names no window).
    pub fn window_id(&self) -> Option<&str> {
        match &self.aim {
            Aim::Typed { target, .. } => target.window.as_deref(),
            Aim::Listed { window, .. } => Some(window.as_str()).filter(|w| *w != naming::APP),
            Aim::Tool { name, .. } => {
                naming::split_tool_name(name).map(|(w, _)| w).filter(|w| *w != naming::APP)
            }
        }
    }

    /// The tool name an agent would call for the same action
    /// (`{windowId}__{action}` or `app__{action}`).
    pub fn tool_name(&self) -> String {
        match &self.aim {
            Aim::Typed { target, action, .. } => {
                naming::tool_name(target.window.as_deref().unwrap_or(naming::APP), action)
            }
            Aim::Listed { window, action, .. } => naming::tool_name(window, action),
            Aim::Tool { name, .. } => name.clone(),
        }
    }

    /// Runs the call and gives exactly what the MCP layer would send as
    /// `structuredContent` and `isError`; unlike awaiting the call, it also
    /// answers `app__read_windows`. For in-process agents and conformance
    /// checks.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = purview::App::builder().build();
    /// let outcome = app.call("app__read_windows", None).outcome().await;
    /// assert!(!outcome.is_error);
    /// assert_eq!(outcome.structured["operableWindowIds"], serde_json::json!([]));
    /// # });
    /// ```
    pub async fn outcome(self) -> ToolOutcome {
        let (action, timeout) = (self.tool_name(), self.app.shared.config.approval_timeout);
        self.answer().await.unasked(&action, timeout).wire()
    }

    /// Who calls, as the transport knows them (an MCP session, its
    /// progress reports and a retry's approval answer).
    pub(crate) fn made_by(mut self, caller: Caller) -> Self {
        self.caller = caller;
        self
    }

    /// Runs the call to its answer, through the phases: the one way every
    /// call ends.
    pub(crate) async fn answer(self) -> Answer {
        let Self { app, aim, caller, cancel, .. } = self;
        answer(&app, aim, caller, cancel).await
    }

    async fn run(self) -> Result<Performed<R>, ToolError>
    where
        R: 'static,
    {
        let (action, timeout) = (self.action().to_owned(), self.app.shared.config.approval_timeout);
        let Self { app, aim, caller, cancel, take } = self;
        let result = match answer(&app, aim, caller, cancel).await.unasked(&action, timeout) {
            Settled::Applied { result } => result,
            Settled::Read(_) => return Err(refusals::read_windows_is_no_action()),
            Settled::Refused(error) => return Err(error),
        };
        let ToolResult { message, opened_window_ids, result, next, approved_by } = result;
        let value = match take {
            Take::Json(value_of) => value_of(result),
            Take::Typed(slot) => slot.take().ok_or_else(|| {
                tracing::error!(action, "a typed call's result was not handed back");
                refusals::wrong_result_type(&action)
            })?,
        };
        Ok(Performed { value, message, opened_window_ids, next, approved_by })
    }
}

/// Runs a call to its answer, through the phases: the one way every call
/// ends.
async fn answer(app: &App, aim: Aim, caller: Caller, cancel: CancellationToken) -> Answer {
    let shared = &app.shared;
    let request = match aim {
        Aim::Tool { name, arguments } => {
            let limits = &shared.config.limits;
            // An action's arguments meet the same check in its gates.
            let over = (name == naming::READ_WINDOWS_TOOL)
                .then(|| crate::validate::over_limits(&arguments, limits))
                .flatten();
            match over {
                Some(problem) => Err(ToolError::validation(vec![problem])),
                None => route(shared.config.surface, &name, arguments),
            }
        }
        Aim::Listed { window, key, action, arguments } => {
            Ok(Request::Action(ActionCall::with_json(window, action, Some(key), arguments)))
        }
        Aim::Typed { target, key, action, arguments } => {
            typed_request(&target, key, action, arguments)
        }
    };
    phases::perform(shared, request, caller, cancel).await
}

/// A typed call's request: app-level actions must be the app's own.
fn typed_request(
    target: &CallTarget,
    key: usize,
    action: &'static str,
    arguments: Box<dyn Any + Send>,
) -> Result<Request, ToolError> {
    let window = match &target.window {
        Some(id) => id.to_string(),
        None => {
            target.check_app_actions()?;
            naming::APP.to_owned()
        }
    };
    Ok(Request::Action(ActionCall {
        window,
        action: action.to_owned(),
        key: Some(key),
        arguments: JsonObject::new(),
        expected_version: None,
        typed: Some(arguments),
        dispatched: false,
    }))
}

impl<R: Send + 'static> IntoFuture for Call<R> {
    type Output = Result<Performed<R>, ToolError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// What a caller gets back from a [`Call`] that was applied (what a handler
/// returns is an [`ActionOutput`](crate::ActionOutput)).
///
/// ```
/// # use purview::prelude::*;
/// # #[window(summary = "Counter")] #[derive(Clone, Default)] struct Counter { #[block(field)] n: u32 }
/// # #[actions] impl Counter {
/// #     /// Add one.
/// #     #[action] fn bump(&mut self) -> u32 { self.n += 1; self.n }
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let app = App::builder().build();
/// # let counter = app.open(Counter::default()).unwrap();
/// let done = counter.act().bump().await.unwrap();
/// assert_eq!(done.value, 1);
/// assert!(done.opened_window_ids.is_empty());
///
/// // By tool name: the JSON result, a number carried as `{"value": ..}` (§5.4).
/// let tool = format!("{}__bump", counter.id());
/// let done = app.call(&tool, None).await.unwrap();
/// assert_eq!(done.value, Some(serde_json::json!({"value": 2})));
/// # });
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Performed<R> {
    /// What the handler returned: its own type for a typed call (`()` for an
    /// action without a result), the JSON result for [`App::call`] (`None`
    /// for an action without one).
    pub value: R,
    /// The message the agent is shown.
    pub message: Option<String>,
    /// Windows the call opened (and that are still open), in opening order.
    pub opened_window_ids: Vec<String>,
    /// When the call changed what can be operated, what can be operated now.
    pub next: Option<Next>,
    /// Who said yes, for an agent's call of an action that needs approval.
    pub approved_by: Option<ApprovedBy>,
}

/// Where a generated `…Calls` struct sends its calls. Not public API.
#[doc(hidden)]
#[derive(Clone)]
pub struct CallTarget {
    pub(in crate::app) app: App,
    /// `None` for the app-level actions.
    pub(in crate::app) window: Option<Arc<str>>,
    actions: TypeId,
    actions_name: &'static str,
}

impl fmt::Debug for CallTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallTarget").field("window", &self.window).finish_non_exhaustive()
    }
}

impl CallTarget {
    pub(crate) fn new<A: Actions>(app: App, window: Option<Arc<str>>) -> Self {
        Self { app, window, actions: TypeId::of::<A>(), actions_name: std::any::type_name::<A>() }
    }

    /// A typed call of app-level actions must be of the app's own actions
    /// type: a window type's action of the same name is something else.
    /// A call of the action at `key` (its place in the type's actions),
    /// named `action`, without arguments.
    pub fn call<R: Send + 'static>(&self, key: usize, action: &'static str) -> Call<R> {
        Call::typed(self.clone(), key, action, ())
    }

    /// A call of the action at `key`, named `action`, with its decoded
    /// arguments.
    pub fn call_with<R: Send + 'static, T: Send + 'static>(
        &self,
        key: usize,
        action: &'static str,
        arguments: T,
    ) -> Call<R> {
        Call::typed(self.clone(), key, action, arguments)
    }

    pub(in crate::app) fn check_app_actions(&self) -> Result<(), ToolError> {
        let registered = self
            .app
            .shared
            .read(|state| state.app.as_ref().map(|actor| Any::type_id(actor.vm.as_any())))
            .map_err(ToolError::from)?;
        if registered == Some(self.actions) {
            return Ok(());
        }
        Err(crate::refusals::not_the_apps_actions(self.actions_name))
    }
}

//! Configuring an application: [`AppBuilder`], over the settings of
//! `crate::settings` ([`ToolSurface`], [`Limits`]).

use crate::lock::lock_unpoisoned;
use std::{any::TypeId, sync::Arc, time::Duration};

use crate::app::{
    App, AppActions, Approval, Approver, Error, WhoApproves,
    actor::Actor,
    config::Config,
    registry::State,
    registry::Touched,
    shared::Shared,
    spec::{Level, TypeKey},
};
use crate::settings::{Limits, ToolSurface};
use crate::{ActionSpec, Actions, naming};

/// The shortest key [`AppBuilder::approval_key`] accepts (what the HMAC
/// codec sealing approval questions requires).
const MIN_APPROVAL_KEY: usize = 32;

/// Installs the app-level action set into a fresh state.
type InstallAppActions = Box<dyn FnOnce(&mut State) -> Result<(), String> + Send>;

/// Configures an [`App`].
///
/// ```
/// use std::time::Duration;
/// let app = purview::App::builder()
///     .name("order_desk")
///     .version("1.0.0")
///     .instructions("Orders over $10,000 need a second confirmation.")
///     .default_timeout(Duration::from_secs(10))
///     .build();
/// # let _ = app;
/// ```
#[must_use]
pub struct AppBuilder {
    config: Config,
    app_actions: Option<InstallAppActions>,
    approver: Option<Arc<dyn Approver>>,
    required_approvals: Vec<(TypeId, String)>,
    /// For each required approval: the window type's name and its action
    /// list, checked by `try_build` so a misspelled name cannot leave an
    /// action unguarded.
    approval_checks: Vec<ApprovalCheck>,
}

impl AppBuilder {
    pub(in crate::app) fn new() -> Self {
        Self {
            config: Config {
                name: "purview-app".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                instructions: None,
                default_timeout: Duration::from_secs(30),
                coalesce: Duration::from_millis(20),
                surface: ToolSurface::default(),
                limits: Limits::default(),
                approval_timeout: Duration::from_secs(120),
                no_approver: Approval::Decline,
                who_approves: WhoApproves::InAppOrClient,
                approval_key: None,
            },
            app_actions: None,
            approver: None,
            required_approvals: Vec::new(),
            approval_checks: Vec::new(),
        }
    }

    /// The server name agents see (`serverInfo.name`). Hosts prefix tool
    /// names with the name they give the server (`mcp__{server}__`) inside a
    /// 64-character limit: [`AppBuilder::try_build`] rejects a name that
    /// would push the longest tool name past it (17 characters leave room
    /// for every per-window tool).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.name = name.into();
        self
    }

    /// The server version agents see.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.config.version = version.into();
        self
    }

    /// App-specific notes appended to the protocol instructions sent in
    /// `initialize`. Some hosts keep only the first 2 KB of the whole text
    /// and Purview's own part takes most of it (the server's `get_info()`
    /// shows the whole text), so keep the notes to a sentence or two;
    /// a longer total is logged as a warning when the app is built.
    pub fn instructions(mut self, notes: impl Into<String>) -> Self {
        self.config.instructions = Some(notes.into());
        self
    }

    /// How long an action may run unless its spec says otherwise (30 s).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.config.default_timeout = timeout;
        self
    }

    /// The shortest gap between two notifications to one session (20 ms).
    /// Changes inside the gap are merged; the first change is sent at once.
    pub fn coalesce(mut self, gap: Duration) -> Self {
        self.config.coalesce = gap;
        self
    }

    /// Who decides when an agent calls an action that needs approval: the
    /// app's GUI, typically an [`ApprovalQueue`](crate::approval::ApprovalQueue).
    /// Without one, the calling client's user is asked when the client
    /// supports it and [`AppBuilder::who_approves`] allows it, and
    /// otherwise the call is refused.
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Requires a person's approval for `action` of type `W` when an agent
    /// calls it, whatever `W`'s own action specs say (for a command-line
    /// switch, say).
    ///
    /// `W` must have an action named `action`: [`AppBuilder::try_build`]
    /// refuses a name it does not know, so a misspelling cannot leave a
    /// destructive action unguarded.
    ///
    /// ```
    /// # use purview::{by_hand::*, *};
    /// # #[derive(Clone)] struct Confirm;
    /// # impl Window for Confirm { fn title(&self) -> String { "Confirm".into() } fn project(&self, _: &mut View) {} }
    /// # impl Actions for Confirm { fn actions() -> Vec<ActionSpec> { vec![ActionSpec::new("confirm")] }
    /// #   fn call<'a>(&'a mut self, a: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> { Box::pin(async move { Err(unknown_action(a)) }) } }
    /// let app = App::builder().require_approval::<Confirm>("confirm").build();
    /// app.open(Confirm).unwrap();
    /// assert!(app.tools().unwrap().iter().any(|t| t.description.contains("approval")));
    /// ```
    pub fn require_approval<W: Actions>(mut self, action: impl Into<String>) -> Self {
        let action = action.into();
        self.approval_checks.push(ApprovalCheck {
            type_name: std::any::type_name::<W>(),
            action: action.clone(),
            actions: W::actions,
        });
        self.required_approvals.push((TypeId::of::<W>(), action));
        self
    }

    /// How long an approval may take before it counts as refused (2 minutes).
    pub fn approval_timeout(mut self, timeout: Duration) -> Self {
        self.config.approval_timeout = timeout;
        self
    }

    /// The app's policy when an action needs approval and no one can be
    /// asked (no [`approver`](AppBuilder::approver), and a client that
    /// cannot ask its user): [`Approval::Decline`] by default, answered
    /// with `approval_denied` (`no_approver`). [`Approval::Approve`] lets
    /// such calls go ahead, with a warning in the log, for an app whose
    /// agents run where no person could answer anyway. Whoever can be
    /// asked is still asked first.
    ///
    /// ```
    /// use purview::{App, approval::Approval};
    /// let app = App::builder().when_no_one_can_approve(Approval::Approve).build();
    /// # drop(app);
    /// ```
    pub fn when_no_one_can_approve(mut self, policy: Approval) -> Self {
        self.config.no_approver = policy;
        self
    }

    /// Whose yes the app accepts for actions that need approval
    /// ([`WhoApproves`]): only the person at the app, the person at the app
    /// or else the calling client's user (the default), or the app's own
    /// policy. Results say whose yes let a call run (`approvedBy`), and so
    /// does the log.
    ///
    /// ```
    /// use purview::{App, approval::WhoApproves};
    /// // A client with no person behind it cannot approve its own calls here.
    /// let app = App::builder().who_approves(WhoApproves::InApp).build();
    /// # drop(app);
    /// ```
    pub fn who_approves(mut self, who: WhoApproves) -> Self {
        self.config.who_approves = who;
        self
    }

    /// The key that signs the state of 2026-07-28 approval questions (which
    /// the client sends back with its answer), at least 32 bytes. Without
    /// one, each process makes its own, so an answer holds only in the
    /// process that asked; give every replica of an app served behind one
    /// address the same key. A shorter key is refused by
    /// [`AppBuilder::try_build`].
    ///
    /// ```
    /// let key = [7u8; 32]; // from your secret store, not a literal
    /// let app = purview::App::builder().approval_key(key).build();
    /// # drop(app);
    /// ```
    pub fn approval_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.config.approval_key = Some(Arc::from(key.as_ref()));
        self
    }

    /// What agents and clients may ask of the app ([`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// Which tools agents are offered ([`ToolSurface::Both`] by default).
    pub fn tool_surface(mut self, surface: ToolSurface) -> Self {
        self.config.surface = surface;
        self
    }

    /// App-level actions, offered as `app__{action}` tools while no app-level
    /// modal is open: a type declared with `#[actions(app)]`
    /// ([`AppActions`]). `read_windows` and `act` are taken by Purview's own
    /// tools: an `#[actions]` set that uses either fails to compile here
    /// (a hand-written one fails [`AppBuilder::try_build`]).
    pub fn app_actions<A: AppActions>(mut self, actions: A) -> Self {
        const {
            assert!(
                !naming::any_reserved_app_action(A::ACTION_NAMES),
                "an app-level action is named `read_windows` or `act`: those tool names (app__read_windows, app__act) are Purview's own; rename the action"
            )
        };
        self.app_actions = Some(Box::new(move |state: &mut State| {
            let spec = state.type_spec(TypeKey::of::<A>(Level::App, A::actions, &[]))?;
            state.app = Some(Actor::new(Box::new(crate::window::AsAppActions(actions)), spec));
            Ok(())
        }));
        self
    }

    /// Builds the application, with no window open yet.
    ///
    /// # Panics
    ///
    /// If the configuration is invalid (see [`AppBuilder::try_build`]): an
    /// app-level action list that does not follow the naming rules, an
    /// approval required for an action the window type does not have, or a
    /// server name too long for hosts' tool-name limit.
    #[track_caller]
    pub fn build(self) -> App {
        match self.try_build() {
            Ok(app) => app,
            Err(e) => panic!("{e}"),
        }
    }

    /// Builds the application, reporting an invalid configuration as
    /// [`Error::InvalidDefinition`].
    ///
    /// ```
    /// let long = "an-application-with-a-very-long-name";
    /// let err = purview::App::builder().name(long).try_build().unwrap_err();
    /// assert!(err.to_string().contains("shorten the server name"));
    /// ```
    pub fn try_build(self) -> Result<App, Error> {
        let mut state = State::default();
        for check in &self.approval_checks {
            check.run().map_err(Error::InvalidDefinition)?;
        }
        if let Some(key) = &self.config.approval_key
            && key.len() < MIN_APPROVAL_KEY
        {
            return Err(Error::InvalidDefinition(format!(
                "AppBuilder::approval_key: the key has {} bytes; give at least {MIN_APPROVAL_KEY} random bytes",
                key.len()
            )));
        }
        state.required_approvals = self.required_approvals;
        if let Some(install) = self.app_actions {
            install(&mut state).map_err(Error::InvalidDefinition)?;
        }
        let text = crate::instructions::with_notes(
            self.config.surface,
            self.config.instructions.as_deref(),
        );
        if text.len() > crate::instructions::HOST_BUDGET {
            tracing::warn!(
                app = %self.config.name,
                bytes = text.len(),
                budget = crate::instructions::HOST_BUDGET,
                "the instructions are longer than some hosts keep (they cut the rest); shorten AppBuilder::instructions"
            );
        }
        let longest = longest_tool_name(&state, self.config.surface);
        naming::check_server_name(&self.config.name, longest).map_err(Error::InvalidDefinition)?;
        state.settle(Touched { windows: vec![], app: true, topology: true });
        state.tools_before = None;
        let shared = Shared::new(state, self.config);
        *lock_unpoisoned(&shared.approver) = self.approver;
        crate::app::consent::warn_if_no_one_can_approve(&shared);
        Ok(App { shared: Arc::new(shared) })
    }
}

/// A `require_approval::<W>(action)` to check when the app is built.
struct ApprovalCheck {
    type_name: &'static str,
    action: String,
    actions: fn() -> Vec<ActionSpec>,
}

impl ApprovalCheck {
    /// Whether `action` is one of `W`'s actions.
    fn run(&self) -> Result<(), String> {
        let Self { type_name, action, actions } = self;
        let specs = std::panic::catch_unwind(actions)
            .map_err(|_| format!("`{type_name}::actions()` panicked"))?;
        if specs.iter().any(|s| s.name() == action) {
            return Ok(());
        }
        let known: Vec<String> = specs.iter().map(|s| format!("`{}`", s.name())).collect();
        Err(format!(
            "require_approval::<{type_name}>({action:?}): `{type_name}` has no action named {action:?} (its actions: {}); fix the name so the action is guarded",
            if known.is_empty() { "none".to_owned() } else { known.join(", ") }
        ))
    }
}

/// The longest tool name this app can list: its app-level tools, Purview's
/// own, and (when listed) the longest per-window tool the naming rules allow.
fn longest_tool_name(state: &State, surface: ToolSurface) -> usize {
    let mut longest = 0;
    if surface.lists_dispatcher() {
        longest = naming::READ_WINDOWS_TOOL.len().max(naming::ACT_TOOL.len());
    }
    if surface.lists_window_tools() {
        longest = longest.max(naming::MAX_TOOL_NAME_LEN);
        if let Some(app) = &state.app {
            longest = longest.max(naming::APP.len() + 2 + app.spec.longest_name());
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Args, Context,
        by_hand::{BoxFuture, unknown_action},
    };

    /// A hand-written action set: no `ACTION_NAMES`, so only `try_build`
    /// can see its names.
    #[derive(Clone)]
    struct HandWritten;

    /// App-level actions: `app__{action}` tools.
    impl crate::AppActions for HandWritten {}

    impl Actions for HandWritten {
        fn actions() -> Vec<ActionSpec> {
            vec![ActionSpec::new("act"), ActionSpec::new("delete_all")]
        }
        fn call<'a>(&'a mut self, action: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> {
            Box::pin(async move { Err(unknown_action(action)) })
        }
    }

    #[test]
    fn s5_2_a_hand_written_app_action_named_act_fails_the_build() {
        let err = App::builder().app_actions(HandWritten).try_build().unwrap_err();
        let Error::InvalidDefinition(reason) = &err else { panic!("{err}") };
        assert!(reason.contains("`act`") && reason.contains("app__act"), "{reason}");
    }

    #[test]
    fn s5_6_an_approval_for_an_action_the_type_lacks_fails_the_build() {
        let err =
            App::builder().require_approval::<HandWritten>("delete_al").try_build().unwrap_err();
        let Error::InvalidDefinition(reason) = &err else { panic!("{err}") };
        assert!(reason.contains("\"delete_al\""), "{reason}");
        assert!(reason.contains("`act`, `delete_all`"), "names the actions it has: {reason}");
        App::builder().require_approval::<HandWritten>("delete_all").try_build().unwrap();
    }
}

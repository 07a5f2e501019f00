//! # purview-egui
//!
//! Draw any [Purview](purview) application with [egui], with no GUI code:
//! each open window with its blocks (text, fields, tables with paging,
//! lists, notices, media, custom), its actions as buttons and forms
//! generated from their input schemas, modals above their owners, blocked
//! windows disabled and naming their blocker, where the agent is working,
//! approval prompts for the agent's requests, and the last error. The
//! person's clicks take the person's path ([`purview::Call::by_person`]): the
//! same gates, versions and notifications as an agent's call, no approval
//! asked and not recorded as agent activity.
//!
//! A whole desktop app, served to agents over MCP at the same time:
//!
//! ```no_run
//! use purview::prelude::*;
//!
//! #[window(summary = "Counts to {count}")]
//! #[derive(Clone, Default)]
//! struct Counter {
//!     #[block(field)]
//!     count: u32,
//! }
//!
//! #[actions]
//! impl Counter {
//!     /// Count one more.
//!     #[action]
//!     fn increment(&mut self) { self.count += 1; }
//! }
//!
//! fn main() -> eframe::Result {
//!     let runtime = tokio::runtime::Runtime::new().expect("a runtime");
//!     let _in_runtime = runtime.enter();
//!     let app = App::builder().name("counter").build();
//!     app.open(Counter::default()).expect("open the counter");
//!     let _server = runtime.block_on(app.serve_http(purview::http::HttpOptions::default()));
//!     let mut desk = purview_egui::Desk::new(app).embedded(true).heading("Counter");
//!     eframe::run_ui_native("Counter", Default::default(), move |ui, _| desk.show(ui))
//! }
//! ```
//!
//! A window type the app wants to draw itself gets a closure
//! ([`Desk::draw`]); every other window keeps the default drawing, and the
//! closure can use the defaults for parts of its own ([`WindowUi::blocks`],
//! [`WindowUi::action_bar`]).
//!
//! Calls run on the tokio runtime the [`Desk`] is made in, or on a small one
//! of its own when there is none: tokio does not appear in this crate's API.
//! Nothing is global: two desks on two apps draw side by side.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod bar;
mod blocks;
mod calls;
mod chrome;
mod executor;
mod schema;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use egui::Ui;
use purview::{App, Window, WindowHandle, approval::ApprovalQueue};

pub use calls::WindowUi;

use crate::{
    calls::{Core, Scope, lock},
    chrome::{Scene, asking},
    executor::Executor,
    schema::ActionDef,
};

/// A window type's own drawing: tries `id` as its type, draws it if it is.
type Override = Box<dyn FnMut(&mut Ui, &App, &str, &mut WindowUi<'_>) -> bool>;

/// The desktop front end of a Purview [`App`]: call [`Desk::show`] every
/// frame.
///
/// ```
/// # use purview::prelude::*;
/// # #[window(summary = "Counts to {count}")]
/// # #[derive(Clone, Default)]
/// # struct Counter { #[block(field)] count: u32 }
/// # #[actions] impl Counter { /// Count one more.
/// #   #[action] fn increment(&mut self) { self.count += 1; } }
/// let app = App::builder().name("counter").build();
/// app.open(Counter::default()).unwrap();
/// let mut desk = purview_egui::Desk::new(app).embedded(true).heading("Counter");
/// // In the host's frame: desk.show(ui);
/// # egui::__run_test_ui(|ui| desk.show(ui));
/// ```
pub struct Desk {
    core: Core,
    approvals: Option<ApprovalQueue>,
    embedded: bool,
    heading: Option<String>,
    note: Option<String>,
    list_windows: bool,
    overrides: Vec<Override>,
    /// Whether `App::on_change` already wakes this desk's egui context.
    woken: bool,
    /// Where each window first appeared; kept, so closing one window does
    /// not move the others.
    positions: HashMap<String, [f32; 2]>,
    /// How many windows were ever placed: the next one's slot.
    placed: usize,
    /// The last agent focus request already turned into a raise.
    focused_serial: u64,
    /// Each scope's actions when it was last operable, drawn disabled while
    /// it is blocked.
    last_actions: HashMap<Scope, Vec<ActionDef>>,
    /// Why the windows could not be read, if they could not.
    read_error: Option<String>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk")
            .field("app", &self.core.app)
            .field("embedded", &self.embedded)
            .finish_non_exhaustive()
    }
}

impl Desk {
    /// A front end for `app` where the person at this screen answers the
    /// agents' approval requests: an [`ApprovalQueue`] becomes the app's
    /// approver ([`App::set_approver`]).
    ///
    /// Calls run on the current tokio runtime if this is called inside one,
    /// else on a small runtime the desk starts.
    ///
    /// ```
    /// let desk = purview_egui::Desk::new(purview::App::builder().build());
    /// assert!(desk.approvals().is_some());
    /// ```
    pub fn new(app: App) -> Self {
        Self::answering(app, ApprovalQueue::new())
    }

    /// [`Desk::new`] with the queue the app was built with
    /// ([`AppBuilder::approver`](purview::AppBuilder::approver)), so the
    /// app has its approver from the start (and says nothing about lacking
    /// one when it is built or starts serving).
    ///
    /// ```
    /// use purview::{App, approval::ApprovalQueue, approval::WhoApproves};
    /// let approvals = ApprovalQueue::new();
    /// let app = App::builder()
    ///     .approver(approvals.clone())
    ///     .who_approves(WhoApproves::InApp)
    ///     .build();
    /// let desk = purview_egui::Desk::answering(app, approvals);
    /// assert!(desk.approvals().is_some());
    /// ```
    pub fn answering(app: App, approvals: ApprovalQueue) -> Self {
        app.set_approver(approvals.clone());
        Self::with_approvals(app, Some(approvals))
    }

    /// A front end for `app` that leaves approvals to whoever the app has
    /// (the builder's approver, or the agent's own client).
    ///
    /// ```
    /// let desk = purview_egui::Desk::without_approvals(purview::App::builder().build());
    /// assert!(desk.approvals().is_none());
    /// ```
    pub fn without_approvals(app: App) -> Self {
        Self::with_approvals(app, None)
    }

    fn with_approvals(app: App, approvals: Option<ApprovalQueue>) -> Self {
        Self {
            core: Core {
                app,
                executor: Executor::current_or_own(),
                outcomes: Arc::default(),
                forms: HashMap::new(),
                confirming: None,
                pages: Arc::new(Mutex::default()),
            },
            approvals,
            embedded: false,
            heading: None,
            note: None,
            list_windows: true,
            overrides: Vec::new(),
            woken: false,
            positions: HashMap::new(),
            placed: 0,
            focused_serial: 0,
            last_actions: HashMap::new(),
            read_error: None,
        }
    }

    /// Draws every Purview window as an [`egui::Window`] inside the host's
    /// window (`true`: tests, single-window hosts, inspectors that see one
    /// viewport) or as an OS window of its own (`false`, the default).
    ///
    /// ```
    /// let desk = purview_egui::Desk::new(purview::App::builder().build()).embedded(true);
    /// # drop(desk);
    /// ```
    pub fn embedded(mut self, embedded: bool) -> Self {
        self.embedded = embedded;
        self
    }

    /// The heading of the main panel.
    ///
    /// ```
    /// let desk = purview_egui::Desk::new(purview::App::builder().build()).heading("Order Desk");
    /// # drop(desk);
    /// ```
    pub fn heading(mut self, heading: impl Into<String>) -> Self {
        self.heading = Some(heading.into());
        self
    }

    /// A line of text under the heading, such as where agents connect.
    ///
    /// ```
    /// let desk = purview_egui::Desk::new(purview::App::builder().build())
    ///     .note("Agents connect over MCP at http://127.0.0.1:8765/mcp");
    /// # drop(desk);
    /// ```
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// Whether the main panel lists the open windows (on by default).
    ///
    /// ```
    /// let desk = purview_egui::Desk::new(purview::App::builder().build()).list_windows(false);
    /// # drop(desk);
    /// ```
    pub fn list_windows(mut self, list: bool) -> Self {
        self.list_windows = list;
        self
    }

    /// Draws every window of type `W` with `draw` instead of the default;
    /// the chrome (frame, agent cue, approvals, blocker, last error) stays.
    /// The closure gets the window's typed handle and a [`WindowUi`] to
    /// start calls and draw default parts.
    ///
    /// ```
    /// # use purview::prelude::*;
    /// # #[window(summary = "Counts to {count}")]
    /// # #[derive(Clone, Default)]
    /// # struct Counter { #[block(field)] count: u32 }
    /// # #[actions] impl Counter { /// Count one more.
    /// #   #[action] fn increment(&mut self) { self.count += 1; } }
    /// let desk = purview_egui::Desk::new(App::builder().build()).draw::<Counter>(|ui, counter, cx| {
    ///     ui.heading(format!("Counted to {}", counter.read(|c| c.count).unwrap_or_default()));
    ///     cx.action_bar(ui);
    /// });
    /// # drop(desk);
    /// ```
    pub fn draw<W: Window>(
        mut self,
        mut draw: impl FnMut(&mut Ui, &WindowHandle<W>, &mut WindowUi<'_>) + 'static,
    ) -> Self {
        self.overrides.push(Box::new(move |ui, app, id, cx| match app.window::<W>(id) {
            Ok(handle) => {
                draw(ui, &handle, cx);
                true
            }
            Err(_) => false,
        }));
        self
    }

    /// Draws windows by their kind: `draw` gets each open window as a
    /// value of `K` (a `#[derive(purview::WindowKind)]` enum of window
    /// handles) and matches on it, using [`WindowUi::default_contents`] for
    /// the kinds it does not draw itself. Windows of no kind of `K` are
    /// drawn the default way.
    ///
    /// ```
    /// # use purview::prelude::*;
    /// # #[window(summary = "Counts to {count}")]
    /// # #[derive(Clone, Default)]
    /// # struct Counter { #[block(field)] count: u32 }
    /// # #[actions] impl Counter { /// Count one more.
    /// #   #[action] fn increment(&mut self) { self.count += 1; } }
    /// # #[window(summary = "Notes")] #[derive(Clone, Default)] struct Notes { #[block(text)] text: String }
    /// # #[actions] impl Notes {}
    /// #[derive(purview::WindowKind)]
    /// enum Kind {
    ///     Counter(WindowHandle<Counter>),
    ///     Notes(WindowHandle<Notes>),
    /// }
    ///
    /// let desk = purview_egui::Desk::new(App::builder().build()).draw_kind(|ui, kind: Kind, cx| match kind {
    ///     Kind::Counter(counter) => {
    ///         if ui.button("One more").clicked() {
    ///             cx.run(counter.act().increment());
    ///         }
    ///     }
    ///     Kind::Notes(_) => cx.default_contents(ui),
    /// });
    /// # drop(desk);
    /// ```
    pub fn draw_kind<K: purview::WindowKind>(
        mut self,
        mut draw: impl FnMut(&mut Ui, K, &mut WindowUi<'_>) + 'static,
    ) -> Self {
        self.overrides.push(Box::new(move |ui, app, id, cx| match app.window_kind::<K>(id) {
            Some(kind) => {
                draw(ui, kind, cx);
                true
            }
            None => false,
        }));
        self
    }

    /// The application drawn.
    ///
    /// ```
    /// let desk = purview_egui::Desk::new(purview::App::builder().name("notes").build());
    /// assert_eq!(desk.app().name(), "notes");
    /// ```
    pub fn app(&self) -> &App {
        &self.core.app
    }

    /// The queue of agents' requests waiting for this person's approval,
    /// when the desk answers them ([`Desk::new`]).
    ///
    /// ```
    /// let desk = purview_egui::Desk::new(purview::App::builder().build());
    /// assert!(desk.approvals().unwrap().pending().is_empty());
    /// ```
    pub fn approvals(&self) -> Option<&ApprovalQueue> {
        self.approvals.as_ref()
    }

    /// Draws the main panel into `ui`, and every open Purview window.
    ///
    /// ```
    /// let mut desk = purview_egui::Desk::new(purview::App::builder().build()).embedded(true);
    /// egui::__run_test_ui(|ui| desk.show(ui));
    /// ```
    pub fn show(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        self.wake(&ctx);
        self.close_finished_forms();
        let scene = match Scene::read(&self.core.app) {
            Ok(scene) => {
                self.read_error = None;
                scene
            }
            Err(e) => {
                // Purview is busy or gone; keep what the person can still see.
                self.read_error = Some(e);
                Scene { windows: Vec::new(), app_actions: None }
            }
        };
        let mut scene = scene;
        self.remember_actions(&mut scene);
        let activity = self.core.app.agent_activity();
        let pending = self.approvals.as_ref().map(ApprovalQueue::pending).unwrap_or_default();
        self.main_panel(ui, &scene, activity.as_ref(), &pending);
        if let Some(error) = &self.read_error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        for view in &scene.windows {
            let asking = asking(&pending, &view.state.id);
            self.window(&ctx, &scene, view, activity.as_ref(), &asking);
        }
        self.follow_focus(&ctx, activity.as_ref());
    }

    /// Agent calls, other sessions' edits and approval requests repaint at
    /// once.
    fn wake(&mut self, ctx: &egui::Context) {
        if self.woken {
            return;
        }
        self.woken = true;
        let repaint = ctx.clone();
        self.core.app.on_change(move |_| repaint.request_repaint());
        if let Some(approvals) = &self.approvals {
            let repaint = ctx.clone();
            approvals.on_change(move || repaint.request_repaint());
        }
    }

    /// Forms whose call succeeded close.
    fn close_finished_forms(&mut self) {
        let succeeded = std::mem::take(&mut lock(&self.core.outcomes).succeeded);
        for key in succeeded {
            self.core.forms.remove(&key);
        }
    }

    /// A blocked window keeps showing the actions it had (disabled); closed
    /// windows are forgotten.
    fn remember_actions(&mut self, scene: &mut Scene) {
        let open: Vec<&str> = scene.windows.iter().map(|w| w.state.id.as_str()).collect();
        self.last_actions.retain(|scope, _| scope.as_deref().is_none_or(|id| open.contains(&id)));
        self.positions.retain(|id, _| open.contains(&id.as_str()));
        lock(&self.core.pages).retain(|(id, _), _| open.contains(&id.as_str()));
        for view in &mut scene.windows {
            let scope = Some(view.state.id.clone());
            if view.operable {
                self.last_actions.insert(scope, view.actions.clone());
            } else if let Some(actions) = self.last_actions.get(&scope) {
                view.actions = actions.clone();
            }
        }
    }
}

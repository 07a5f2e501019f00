//! The desk: what it draws and how, set up once by the host.

use std::{collections::HashMap, sync::Arc};

use egui::Ui;
use purview::{App, Window, WindowHandle, approval::ApprovalQueue};
use purview_person::Seat;

use crate::{WindowUi, calls::Core, executor::Executor, layout::Layout};

/// A window type's own drawing: tries `id` as its type, draws it if it is.
pub(crate) type Override = Box<dyn FnMut(&mut Ui, &App, &str, &mut WindowUi<'_>) -> bool>;

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
    pub(crate) core: Core,
    pub(crate) approvals: Option<ApprovalQueue>,
    pub(crate) embedded: bool,
    pub(crate) heading: Option<String>,
    pub(crate) note: Option<String>,
    pub(crate) list_windows: bool,
    pub(crate) overrides: Vec<Override>,
    /// Once `App::on_change` wakes this desk's egui context: set while a
    /// repaint is asked for and its frame has not begun, so a flood of
    /// changes asks egui once per frame, not once per change.
    pub(crate) woken: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Where each window goes and how large it may grow.
    pub(crate) layout: Layout,
    /// The last agent focus request already turned into a raise.
    pub(crate) focused_serial: u64,
    /// What the last frames read (read.rs): a frame with nothing changed
    /// reads nothing again.
    pub(crate) reader: crate::read::Reader,
    /// Windows the person raised from the main panel's list, the latest
    /// last: drawn first when more are open than the desk draws at once.
    pub(crate) raised: Vec<String>,
    /// Why the windows could not be read, if they could not.
    pub(crate) read_error: Option<String>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk")
            .field("app", &self.core.app)
            .field("embedded", &self.embedded)
            .finish_non_exhaustive()
    }
}

impl From<Seat> for Desk {
    /// The desk of the person at `seat`: answering approval questions
    /// there if the seat does.
    ///
    /// ```
    /// let seat = purview_person::Seat::watching(purview::App::builder().build());
    /// let desk = purview_egui::Desk::from(seat);
    /// assert!(desk.approvals().is_none());
    /// ```
    fn from(seat: Seat) -> Self {
        let (app, approvals) = seat.into_parts();
        Self::with_approvals(app, approvals)
    }
}

impl Desk {
    /// A desk for `app` that draws no approval prompt ([`Seat::watching`]).
    ///
    /// Calls run on the current tokio runtime if this is called inside one,
    /// else on a small runtime the desk starts.
    ///
    /// ```
    /// let desk = purview_egui::Desk::new(purview::App::builder().build());
    /// assert!(desk.approvals().is_none());
    /// ```
    pub fn new(app: App) -> Self {
        Seat::watching(app).into()
    }

    /// A desk for `app` whose person answers the agents' approval
    /// questions from `approvals`, the app's approver from now on
    /// ([`Seat::answering`], which says which queue to pass).
    ///
    /// ```
    /// use purview::{App, approval::{ApprovalQueue, WhoApproves}};
    /// let approvals = ApprovalQueue::new();
    /// let app = App::builder().approver(approvals.clone()).who_approves(WhoApproves::InApp).build();
    /// assert!(purview_egui::Desk::answering(app, approvals).approvals().is_some());
    /// ```
    pub fn answering(app: App, approvals: ApprovalQueue) -> Self {
        Seat::answering(app, approvals).into()
    }

    fn with_approvals(app: App, approvals: Option<ApprovalQueue>) -> Self {
        Self {
            core: Core {
                app,
                executor: Executor::current_or_own(),
                approvals: approvals.clone(),
                person: Arc::default(),
                model: Arc::default(),
                go_to: HashMap::new(),
            },
            approvals,
            embedded: false,
            heading: None,
            note: None,
            list_windows: true,
            overrides: Vec::new(),
            woken: None,
            layout: Layout::default(),
            focused_serial: 0,
            reader: crate::read::Reader::default(),
            raised: Vec::new(),
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
    /// when the desk answers them ([`Desk::answering`]).
    ///
    /// ```
    /// let app = purview::App::builder().build();
    /// let desk = purview_egui::Desk::answering(app, purview::approval::ApprovalQueue::new());
    /// assert!(desk.approvals().unwrap().pending().is_empty());
    /// ```
    pub fn approvals(&self) -> Option<&ApprovalQueue> {
        self.approvals.as_ref()
    }
}

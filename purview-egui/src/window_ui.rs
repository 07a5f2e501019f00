//! [`WindowUi`]: what a window's drawing code gets besides the
//! [`egui::Ui`], its one way to start calls and to ask what they left.

use purview::{App, Call, ToolError, model::WindowState};

use crate::{calls::Core, lock::lock, read::WindowView};

/// What a window's drawing code gets besides the [`egui::Ui`]: the window's
/// projection, and a way to start calls whose failures the window shows.
///
/// Handed to the closures given to [`Desk::draw`](crate::Desk::draw). Calls
/// started here run in the background; the window shows the last failure
/// (and, for `validation_failed`, each field's error) until a later call in
/// the same window succeeds.
///
/// ```
/// # use purview::prelude::*;
/// # #[window(summary = "Counts to {count}")]
/// # #[derive(Clone, Default)]
/// # struct Counter { #[block(field)] count: u32 }
/// # #[actions] impl Counter { /// Count one more.
/// #   #[action] fn increment(&mut self) { self.count += 1; } }
/// let desk = purview_egui::Desk::new(App::builder().build()).draw::<Counter>(|ui, counter, cx| {
///     let count = counter.read(|c| c.count).unwrap_or_default();
///     ui.heading(format!("{count} so far"));
///     if ui.button("One more").clicked() {
///         cx.run(counter.act().increment());
///     }
///     cx.action_bar(ui); // the default buttons for everything else
/// });
/// # drop(desk);
/// ```
pub struct WindowUi<'a> {
    pub(crate) core: &'a mut Core,
    pub(crate) view: &'a WindowView,
    pub(crate) ctx: egui::Context,
}

impl WindowUi<'_> {
    /// The window's id, as agents know it.
    pub fn id(&self) -> &str {
        &self.view.state.id
    }

    /// The application.
    pub fn app(&self) -> &App {
        &self.core.app
    }

    /// The window as agents read it now: title, summary, version and blocks.
    pub fn state(&self) -> &WindowState {
        &self.view.state
    }

    /// Whether the window may be operated now (no modal blocks it).
    pub fn is_operable(&self) -> bool {
        self.view.view.operable
    }

    /// Runs a [`purview::Call`] in the background — a typed call from
    /// `handle.act()` or `app.act::<A>()`, or `app.call(tool, arguments)` —
    /// always as the person at this screen
    /// ([`by_person`](purview::Call::by_person)): a click is never taken for
    /// an agent's call. A failure is shown in
    /// the call's window (the main panel for an app-level action), its
    /// per-field errors on that action's form, until a later call there
    /// succeeds. The only way a window's drawing code starts a call.
    ///
    /// ```
    /// # use purview::prelude::*;
    /// # #[window(summary = "Counts to {count}")]
    /// # #[derive(Clone, Default)]
    /// # struct Counter { #[block(field)] count: u32 }
    /// # #[actions] impl Counter { /// Count one more.
    /// #   #[action] fn increment(&mut self) { self.count += 1; } }
    /// let desk = purview_egui::Desk::new(App::builder().build()).draw::<Counter>(|ui, counter, cx| {
    ///     if ui.button("One more").clicked() {
    ///         cx.run(counter.act().increment());
    ///     }
    /// });
    /// # drop(desk);
    /// ```
    pub fn run<R: Send + 'static>(&mut self, call: Call<R>) {
        self.core.run(&self.ctx, call);
    }

    /// Draws the window the default way: its blocks, then its action bar.
    /// For the windows a [`Desk::draw_kind`](crate::Desk::draw_kind)
    /// closure leaves alone.
    pub fn default_contents(&mut self, ui: &mut egui::Ui) {
        self.blocks(ui);
        ui.add_space(4.0);
        self.action_bar(ui);
    }

    /// The last failure of a call in this window, if the latest did not
    /// succeed.
    pub fn last_error(&self) -> Option<ToolError> {
        let scope = Some(self.view.state.id.clone());
        lock(&self.core.person).failure(&scope).map(|f| f.error.clone())
    }

    /// What the last failure said about the argument `field`, if anything
    /// (`validation_failed`, §7.3).
    pub fn field_error(&self, field: &str) -> Option<String> {
        let error = self.last_error()?;
        error.fields?.into_iter().find(|f| f.field == field).map(|f| f.error)
    }
}

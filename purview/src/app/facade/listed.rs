//! A call of an action as a GUI's scene listed it: by its window and its
//! place in its type's actions, so no tool name is written and parsed
//! again.

use crate::{
    action::JsonObject,
    app::{ActionInfo, App, Call},
};

impl ActionInfo {
    /// A call of this action with JSON arguments, as a GUI's default button
    /// or form makes it, run as the person at the keyboard (make it
    /// [`by_agent`](Call::by_agent) for an in-process agent). It names the
    /// action as the scene listed it, by its window and its place in the
    /// type's actions, so no tool name is written and parsed again. Every
    /// gate still applies when it runs: a window closed or blocked since
    /// the scene was read is refused as for any call.
    ///
    /// ```
    /// use purview::prelude::*;
    ///
    /// #[window(summary = "Counts to {count}")]
    /// #[derive(Clone, Default)]
    /// struct Counter {
    ///     #[block(field)]
    ///     count: u32,
    /// }
    ///
    /// #[actions]
    /// impl Counter {
    ///     /// Add `by`.
    ///     #[action]
    ///     fn add(&mut self, by: u32) { self.count += by; }
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = App::builder().build();
    /// let counter = app.open(Counter::default()).unwrap();
    /// let scene = app.scene().unwrap();
    /// let add = &scene.windows[0].actions[0];
    /// let arguments = serde_json::json!({"by": 3}).as_object().cloned().unwrap();
    /// let call = add.call(&app, arguments);
    /// assert_eq!(call.tool_name(), format!("{}__add", counter.id()));
    /// call.await.unwrap();
    /// assert_eq!(counter.read(|c| c.count).unwrap(), 3);
    /// # });
    /// ```
    pub fn call(&self, app: &App, arguments: JsonObject) -> Call {
        Call::listed(app, self.window.clone(), self.key, &self.name, arguments)
    }
}

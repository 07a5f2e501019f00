//! # purview-egui
//!
//! Draw any [Purview](purview) application with [egui], with no GUI code:
//! each open window with its blocks (text, fields, tables with paging,
//! lists, notices, media, custom), its actions as buttons and forms
//! generated from their input schemas, windows tiled without overlap in
//! any viewport (layout.rs), modals over their owners, blocked
//! windows disabled and naming their blocker, where the agent is working,
//! approval prompts for the agent's requests (a desk made with
//! [`Desk::answering`]), and the last error. The
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
//!     // Room for the main panel and a few windows tiled beside it.
//!     let viewport = egui::ViewportBuilder::default().with_inner_size([1280.0, 800.0]);
//!     let options = eframe::NativeOptions { viewport, ..Default::default() };
//!     eframe::run_ui_native("Counter", options, move |ui, _| desk.show(ui))
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
//! An app that serves agents beside its desk serves them on an
//! [`AgentsRuntime`]: `cores − 1` workers by default ([`workers_for`]), so
//! the person's thread keeps a core where the machine has more than one;
//! [`AgentsRuntime::with_workers`] sets the count.
//! Nothing is global: two desks on two apps draw side by side.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::too_many_lines)]

mod bar;
mod blocks;
mod calls;
mod chrome;
mod confirm;
mod desk;
mod executor;
mod form;
mod frame;
mod layout;
mod lock;
mod pages;
mod read;
mod serving;
mod window_ui;

pub use desk::Desk;
pub use serving::{AgentsRuntime, workers_for};
pub use window_ui::WindowUi;

/// The README's code blocks, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

//! The guide: how to build an app with Purview, chapter by chapter, with
//! examples that are compiled and run as tests. The README in the
//! repository is the front page (what Purview is, a first app, the
//! commands); everything past the first window is here.
//!
//! - [`windows`]: windows and actions — blocks, action options, argument
//!   rules and their words, values picked from a table, paged tables,
//!   app-level actions, the windows of a type, and what a handler can do.
//! - [`persons_side`]: the GUI's calls — typed buttons, `act()` or
//!   `update()`, which window is which, and the scene a frame draws.
//! - [`serving`]: stdio and HTTP — choosing the address, keeping a
//!   headless app serving, a token for each client, the ready-made command
//!   line, limits and logging.
//! - [`hosts`]: connecting each agent host, the tool surfaces,
//!   `app__read_windows` and `app__act`, and what each host does.
//! - [`approvals`]: actions that wait for a person's yes, the question in
//!   the app's words, whose yes counts, and answering in the app's own face.
//! - [`what_an_agent_sees`]: the errors a call can end in, and a real
//!   session JSON line by JSON line.
//! - [`patterns`]: windows kept in sync, "open it or go to the open one",
//!   buttons versus typing, state that survives a failed call, and a
//!   destructive action behind a dialog and a person's approval.
//! - [`hand_written`]: the advanced route, implementing [`Window`] and
//!   [`Actions`] without the macros.
//!
//! A face for the person comes from `purview-egui` (the desktop) and
//! `purview-web` (a browser), and the conformance kit from
//! `purview-conformance`; each crate's own documentation is its guide.
//!
//! [`Window`]: crate::Window
//! [`Actions`]: crate::Actions

#[doc = include_str!("../guide/windows.md")]
pub mod windows {}

#[doc = include_str!("../guide/persons-side.md")]
pub mod persons_side {}

#[doc = include_str!("../guide/serving.md")]
pub mod serving {}

#[doc = include_str!("../guide/hosts.md")]
pub mod hosts {}

#[doc = include_str!("../guide/approvals.md")]
pub mod approvals {}

#[doc = include_str!("../guide/what-an-agent-sees.md")]
pub mod what_an_agent_sees {}

#[doc = include_str!("../guide/patterns.md")]
pub mod patterns {}

#[doc = include_str!("../guide/hand-written.md")]
pub mod hand_written {}

//! Guides: how to put Purview's pieces together, with examples that are
//! compiled and run as tests.
//!
//! - [`patterns`]: windows kept in sync, "open it or go to the open one",
//!   buttons versus typing, state that survives a failed call, and a
//!   destructive action behind a dialog and a person's approval.
//! - [`hand_written`]: the advanced route, implementing [`Window`] and
//!   [`Actions`] without the macros.
//!
//! [`Window`]: crate::Window
//! [`Actions`]: crate::Actions

#[doc = include_str!("../guide/patterns.md")]
pub mod patterns {}

#[doc = include_str!("../guide/hand-written.md")]
pub mod hand_written {}

//! Shared fixtures for Purview's integration tests: a small set of windows
//! that exercise every protocol path, and an MCP client harness that records
//! notifications.

pub mod agent;
pub mod rooms;
pub mod windows;

pub use agent::{Agent, Elicit, Elicitation, Note};
pub use windows::{
    AppMenu, Confirm, Editor, Locked, PASSWORD, PIN, demo_app, demo_app_on, demo_builder,
};

/// The README's code blocks, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The kit's manual (conformance/README.md), compiled the same way.
#[cfg(doctest)]
#[doc = include_str!("../../conformance/README.md")]
pub struct ConformanceReadmeDoctests;

/// purview-web's README, compiled the same way.
#[cfg(doctest)]
#[doc = include_str!("../../purview-web/README.md")]
pub struct WebReadmeDoctests;

//! Shared fixtures for Purview's integration tests: a small set of windows
//! that exercise every protocol path, and an MCP client harness that records
//! notifications.

pub mod agent;
pub mod windows;

pub use agent::{Agent, Note};
pub use windows::{AppMenu, Confirm, Editor, Locked, demo_app};

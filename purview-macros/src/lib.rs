//! Procedural macros for Purview.
//!
//! The `#[window]`, `#[action]` and `#[block]` attributes will implement the
//! traits defined in the `purview` crate (`purview::Window`,
//! `purview::Actions`). Until they land, implement those traits by hand: see
//! the `hello_windows` example.

//! Procedural macros for [Purview](https://docs.rs/purview): view-model
//! structs become MCP GUI Bridge windows, checked at compile time.
//!
//! Use them through `purview` (`#[purview::window]`, `#[purview::actions]`,
//! `#[derive(purview::Row)]`); generated code reaches the runtime only
//! through `::purview::__private`.

#![forbid(unsafe_code)]
#![warn(clippy::too_many_lines)]

mod actions;
mod data;
mod kind;
mod row;
mod util;
mod window;

use proc_macro::TokenStream;

#[doc = include_str!("../doc/window.md")]
#[proc_macro_attribute]
pub fn window(args: TokenStream, item: TokenStream) -> TokenStream {
    window::expand(args.into(), item.into()).into()
}

#[doc = include_str!("../doc/actions.md")]
#[proc_macro_attribute]
pub fn actions(args: TokenStream, item: TokenStream) -> TokenStream {
    actions::expand(args.into(), item.into()).into()
}

#[doc = include_str!("../doc/data.md")]
#[proc_macro_attribute]
pub fn data(args: TokenStream, item: TokenStream) -> TokenStream {
    data::expand(args.into(), item.into()).into()
}

#[doc = include_str!("../doc/action.md")]
#[proc_macro_attribute]
pub fn action(_args: TokenStream, item: TokenStream) -> TokenStream {
    actions::outside_impl(item.into()).into()
}

#[doc = include_str!("../doc/derive_row.md")]
#[proc_macro_derive(Row, attributes(row))]
pub fn derive_row(item: TokenStream) -> TokenStream {
    row::expand(item.into()).into()
}

#[doc = include_str!("../doc/derive_window_kind.md")]
#[proc_macro_derive(WindowKind, attributes(window_kind))]
pub fn derive_window_kind(item: TokenStream) -> TokenStream {
    kind::expand(item.into()).into()
}

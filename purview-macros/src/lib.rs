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

/// Turns a struct into a window: implements `purview::Window` from
/// `#[block(..)]` attributes on its fields.
///
/// Arguments (all optional):
/// - `title = "Order #{order}"` — the title, a format string over fields
///   (default: the type name in words), or `title_fn = method`;
/// - `summary = "…{field}…"`, or `summary_fn = method` returning `String`;
/// - `crate = "path"` — where the `purview` crate is, if renamed.
///
/// Field attributes, one block each (fields grouped by `group`):
///
/// | attribute | field type | block |
/// |---|---|---|
/// | `#[block(text)]` | `Display` | `text` |
/// | `#[block(field)]`, `label = ".."`, `group = ".."` | `Serialize` | one item of a `fields` block |
/// | `#[block(field, sensitive)]` | `Secret<String>`, `Option<Secret<T>>` | a masked item |
/// | `#[block(table)]`, `limit = N`, `columns = ["A", "B"]` | `Vec<R>` of `#[derive(Row)]` or tuples | `table` (truncated with `offset`/`total` past `limit`) |
/// | `#[block(list)]`, `ordered`, `limit = N` | `Vec<T: Serialize>` | `list` |
/// | `#[block(notice = "error")]` (`info`, `warn`, `success`) | `String` (when not empty), `Option<String>` (when `Some`) | `notice` |
/// | `#[block(media)]` | `purview::projection::Media`, `Option<Media>` | `media` |
/// | `#[block(custom)]` | `Serialize` | `custom` |
///
/// Every block's id is its field name (or `id = ".."`), stable across
/// projections; labels default to the field name in words.
///
/// ```
/// use purview::{Secret, window, actions};
///
/// #[window(title = "Order #{order}", summary = "Editing order #{order} for {recipient}")]
/// #[derive(Clone, Default)]
/// struct OrderEditor {
///     order: u32,
///     #[block(field)]
///     recipient: String,
///     #[block(field, label = "Payment password", sensitive)]
///     password: Secret<String>,
///     #[block(notice = "error")]
///     problem: Option<String>,
/// }
///
/// #[actions]
/// impl OrderEditor {}
///
/// use purview::Window;
/// let mut view = purview::View::default();
/// OrderEditor { order: 7, ..Default::default() }.project(&mut view);
/// assert_eq!(view.summary_text(), Some("Editing order #7 for "));
/// ```
#[proc_macro_attribute]
pub fn window(args: TokenStream, item: TokenStream) -> TokenStream {
    window::expand(args.into(), item.into()).into()
}

/// Turns the `#[action]` methods of an impl block into the type's
/// `purview::Actions`: tools an agent can call. Works for windows and for
/// app-level action sets alike.
///
/// On each `#[action(..)]` method:
/// - the method name is the action name (`name = ".."` overrides it);
///   names are checked here: ASCII letters, digits and `_`, no `__`, at most
///   26 characters;
/// - its arguments become the tool's inputSchema (doc comments on them
///   become descriptions); an argument `&mut purview::Context` is not one of
///   them but receives the call context;
/// - `#[arg(range(min = .., max = ..))]`, `#[arg(length(min = .., max = ..))]`
///   and `#[arg(pattern = "..")]` on an argument constrain it: the bounds go
///   into the inputSchema and a call outside them is refused with
///   `validation_failed` before the method runs (`purview::constraint`);
/// - its return type becomes `result` in the outputSchema: `()` for none,
///   `T: Serialize + JsonSchema`, `Result<T, E>` with `E: Into<ToolError>`,
///   or `ActionOutput` for full control;
/// - `destructive`, `idempotent`, `read_only`, `open_world` set the tool
///   annotations; `approval` makes an agent's call wait for a person's yes
///   (see `purview::approval::Approver`); `title = ".."`, `description = ".."`
///   (default: the doc comment); `timeout = "5s"` (or `"250ms"`); `available = method` names a
///   `fn(&self) -> bool` that hides the action while it returns `false`.
///
/// Methods may be `async` (the future must be `Send`). They take
/// `&mut self` (or `&self`): calls run on a working copy and apply only if
/// they succeed.
///
/// `#[actions(app)]` declares the app-level actions (`app__{action}`
/// tools), the only kind `AppBuilder::app_actions` installs and `App::act`
/// calls.
///
/// **Typed calls for the person's side.** Beside `impl Actions`, a
/// non-generic `impl Clicker` gets a `ClickerCalls` struct with one method
/// per action, named after the method and taking its arguments as Rust
/// values. `handle.act()` (`purview::WindowHandle::act`; `App::act` for
/// app-level actions) gives one; each method returns a `purview::Call` that
/// runs the action on the person's path when awaited — a renamed action or
/// a wrong argument is then a compile error in the GUI code, not a failed
/// call at run time.
///
/// ```
/// use purview::{Context, ToolError, actions, window};
///
/// #[window(summary = "{count} clicks so far")]
/// #[derive(Clone, Default)]
/// struct Clicker {
///     #[block(field)]
///     count: u32,
/// }
///
/// #[actions]
/// impl Clicker {
///     /// Add to the count.
///     #[action(idempotent = false)]
///     fn click(&mut self, /// How many clicks, 1 to 10.
///                  times: u32, cx: &mut Context) -> Result<u32, ToolError> {
///         if !(1..=10).contains(&times) {
///             cx.invalid("times", "must be between 1 and 10");
///         }
///         self.count += times;
///         Ok(self.count)
///     }
///
///     #[action(destructive, available = has_clicks)]
///     fn reset(&mut self) {
///         self.count = 0;
///     }
///
///     fn has_clicks(&self) -> bool {
///         self.count > 0
///     }
/// }
///
/// use purview::Actions;
/// let names: Vec<String> = Clicker::actions().iter().map(|a| a.name().to_owned()).collect();
/// assert_eq!(names, ["click", "reset"]);
/// assert!(!Clicker::default().is_available("reset"));
///
/// // The person clicks three times, through the same path as an agent's call.
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let app = purview::App::builder().build();
/// let clicker = app.open(Clicker::default()).unwrap();
/// let done = clicker.act().click(3).await.unwrap();
/// assert_eq!(done.value, 3);
/// # });
/// ```
#[proc_macro_attribute]
pub fn actions(args: TokenStream, item: TokenStream) -> TokenStream {
    actions::expand(args.into(), item.into()).into()
}

/// Makes a type of your own an action's argument or result, through
/// Purview's re-exports of serde and schemars (so neither is a dependency
/// of the app, and no second copy of either can be picked): it derives
/// `Serialize`, `Deserialize` and `JsonSchema`.
///
/// `#[purview::data(argument)]` derives only what an argument needs
/// (`Deserialize`, `JsonSchema`), `#[purview::data(result)]` only what a
/// result needs (`Serialize`, `JsonSchema`). serde's and schemars'
/// attributes (`#[serde(rename_all = "..")]`, doc comments as
/// descriptions) work as with the derives written out.
///
/// ```
/// use purview::prelude::*;
///
/// /// Where an order goes.
/// #[purview::data]
/// #[serde(rename_all = "camelCase")]
/// struct Address {
///     /// Street and number.
///     street: String,
///     post_code: String,
/// }
///
/// #[window(summary = "An order")]
/// #[derive(Clone, Default)]
/// struct Order {
///     #[block(field)]
///     street: String,
/// }
///
/// #[actions]
/// impl Order {
///     /// Send the order to `address`; returns where it went.
///     #[action]
///     fn ship(&mut self, address: Address) -> Address {
///         self.street = address.street.clone();
///         address
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let app = App::builder().build();
/// let order = app.open(Order::default()).unwrap();
/// let address = Address { street: "1 Main St".into(), post_code: "12345".into() };
/// let shipped = order.act().ship(address).await.unwrap().value;
/// assert_eq!(shipped.post_code, "12345");
/// let tools = serde_json::to_value(app.tools().unwrap()).unwrap();
/// let ship = tools.as_array().unwrap().iter().find(|t| t["name"] == "w1__ship").unwrap();
/// assert!(ship["inputSchema"].to_string().contains("postCode"), "{ship}");
/// # });
/// ```
#[proc_macro_attribute]
pub fn data(args: TokenStream, item: TokenStream) -> TokenStream {
    data::expand(args.into(), item.into()).into()
}

/// Marks an action method. Only meaningful inside an `#[actions]` impl block,
/// which reads and removes it; anywhere else it is an error that says so.
///
/// ```compile_fail
/// struct Alone;
/// impl Alone {
///     #[purview::action]
///     fn go(&mut self) {}
/// }
/// ```
#[proc_macro_attribute]
pub fn action(_args: TokenStream, item: TokenStream) -> TokenStream {
    actions::outside_impl(item.into()).into()
}

/// Derives `purview::Row` (and `Cells`) for a struct, so a `Vec` of it can be
/// a `#[block(table)]`: one column per field, titled with the field name in
/// words or `#[row(name = "..")]`; `#[row(skip)]` leaves a field out.
///
/// ```
/// #[derive(purview::Row)]
/// struct Line {
///     product: String,
///     #[row(name = "Qty")]
///     quantity: u32,
///     #[row(skip)]
///     internal_code: u64,
/// }
/// use purview::{projection::Cells, Row};
/// assert_eq!(Line::columns(), ["Product", "Qty"]);
/// let line = Line { product: "A".into(), quantity: 2, internal_code: 9 };
/// assert_eq!(line.cells(), vec![serde_json::json!("A"), serde_json::json!(2)]);
/// ```
#[proc_macro_derive(Row, attributes(row))]
pub fn derive_row(item: TokenStream) -> TokenStream {
    row::expand(item.into()).into()
}

/// Derives `purview::WindowKind` for an enum with one variant per window
/// type, each holding a `purview::WindowHandle` of that type, so GUI code
/// can `match` on what an open window is (`App::window_kind`) instead of
/// trying each type in turn. `#[window_kind(crate = path)]` names the
/// runtime crate when it is not `::purview`.
///
/// ```
/// use purview::prelude::*;
///
/// #[window(summary = "Editing")]
/// #[derive(Clone, Default)]
/// struct Editor;
/// #[actions] impl Editor {}
///
/// #[window(summary = "Confirm?")]
/// #[derive(Clone, Default)]
/// struct Confirm;
/// #[actions] impl Confirm {}
///
/// #[derive(purview::WindowKind)]
/// enum Open {
///     Editor(WindowHandle<Editor>),
///     Confirm(WindowHandle<Confirm>),
/// }
///
/// let app = App::builder().build();
/// let editor = app.open(Editor).unwrap();
/// let confirm = editor.open_modal(Confirm).unwrap();
/// for info in app.window_list().unwrap() {
///     let title = match app.window_kind::<Open>(&info.id) {
///         Some(Open::Editor(_)) => "the editor",
///         Some(Open::Confirm(_)) => "its dialog",
///         None => "something else",
///     };
///     assert!(info.id != confirm.id() || title == "its dialog");
/// }
/// ```
#[proc_macro_derive(WindowKind, attributes(window_kind))]
pub fn derive_window_kind(item: TokenStream) -> TokenStream {
    kind::expand(item.into()).into()
}

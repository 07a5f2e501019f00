//! The paging contract of a table too large to show whole (§9): the block
//! shows the first rows, and the window's *load action*, declared on the
//! block with `#[block(table, limit = N, load = load_rows)]`, fetches any
//! range. The compiler checks the load action's shape: it takes `offset`
//! and `limit` (in that order, as `usize`, `u32` or `u64`, then optionally
//! a `&mut Context`) and returns a [`Page`] of the table's own row type
//! (or a `Result` of one); the runtime checks, when the window type is
//! first opened, that an action of that name takes exactly those two
//! arguments, as integers. A load action is a plain (not `async`) method:
//! it pages through what the view-model holds, which an `async` action such
//! as a refresh fills in.
//!
//! ```
//! use purview::{prelude::*, projection::Page};
//!
//! #[window(summary = "{count} log lines")]
//! #[derive(Clone)]
//! struct Log {
//!     count: usize,
//!     #[block(table, limit = 2, load = load_lines, columns = ["Line", "Text"])]
//!     lines: Vec<(u32, String)>,
//! }
//!
//! #[actions]
//! impl Log {
//!     /// Fetch a range of log lines.
//!     #[action(read_only, idempotent)]
//!     fn load_lines(&self, offset: usize, limit: usize) -> Page<(u32, String)> {
//!         Page::slice(&self.lines, offset, limit)
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let lines: Vec<(u32, String)> = (1..=5).map(|i| (i, format!("line {i}"))).collect();
//! let app = App::builder().build();
//! let log = app.open(Log { count: lines.len(), lines }).unwrap();
//! let page = log.act().load_lines(3, 10).await.unwrap().value;
//! assert_eq!((page.offset, page.total, page.rows.len()), (3, 5, 2));
//! # });
//! ```

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::{Context, model::JsonObject};

/// One page of a table's rows, as its load action returns it: `offset` is
/// the index of the first row returned (from 0), `total` the number of rows
/// in the whole table. On the wire the rows are arrays of cells in column
/// order, as in the table block.
///
/// ```
/// use purview::projection::Page;
/// let page = Page::slice(&[("a", 1), ("b", 2), ("c", 3)], 1, 5);
/// assert_eq!((page.offset, page.total), (1, 3));
/// assert_eq!(
///     serde_json::to_value(&page).unwrap(),
///     serde_json::json!({"offset": 1, "total": 3, "rows": [["b", 2], ["c", 3]]}),
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Page<R> {
    /// Index of the first row returned, from 0.
    pub offset: usize,
    /// Rows in the whole table.
    pub total: usize,
    /// The rows, at most the `limit` asked for.
    pub rows: Vec<R>,
}

impl<R> Page<R> {
    /// A page of `rows` starting at `offset`, out of `total`.
    pub fn new(offset: usize, total: usize, rows: Vec<R>) -> Self {
        Self { offset, total, rows }
    }

    /// At most `limit` rows of `all`, from `offset` (none when `offset` is
    /// past the end).
    pub fn slice(all: &[R], offset: usize, limit: usize) -> Self
    where
        R: Clone,
    {
        let rows = all.iter().skip(offset).take(limit).cloned().collect();
        Self { offset, total: all.len(), rows }
    }
}

/// A page read back from a load action's JSON result (what a GUI or an
/// in-process agent gets from a call by name): each row from its cells in
/// column order, so `R` may be the table's own row type (a tuple, or a
/// struct read from an array) or `Vec<serde_json::Value>` when the row type
/// is not known.
///
/// ```
/// use purview::projection::Page;
/// let result = serde_json::json!({"offset": 4, "total": 9, "rows": [["e", 5]]});
/// let page: Page<(String, u32)> = serde_json::from_value(result).unwrap();
/// assert_eq!(page, Page::new(4, 9, vec![("e".to_owned(), 5)]));
/// ```
impl<'de, R: Deserialize<'de>> Deserialize<'de> for Page<R> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(bound = "R: Deserialize<'de>")]
        struct Wire<R> {
            offset: usize,
            total: usize,
            rows: Vec<R>,
        }
        let Wire { offset, total, rows } = Wire::deserialize(deserializer)?;
        Ok(Self { offset, total, rows })
    }
}

/// Which rows to ask a table's load action for: its two arguments, typed.
/// A GUI that pages a table it knows only from the scene
/// ([`SceneWindow::paged_by`](crate::activity::SceneWindow::paged_by))
/// calls the load action with [`PageRequest::arguments`] and reads the
/// result back as a [`Page`].
///
/// ```
/// use purview::{prelude::*, projection::{Page, PageRequest}};
///
/// #[window(summary = "{count} log lines")]
/// #[derive(Clone)]
/// struct Log {
///     count: usize,
///     #[block(table, limit = 2, load = load_lines, columns = ["Line", "Text"])]
///     lines: Vec<(u32, String)>,
/// }
///
/// #[actions]
/// impl Log {
///     /// Fetch a range of log lines.
///     #[action(read_only, idempotent)]
///     fn load_lines(&self, offset: usize, limit: usize) -> Page<(u32, String)> {
///         Page::slice(&self.lines, offset, limit)
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let lines: Vec<(u32, String)> = (1..=5).map(|i| (i, format!("line {i}"))).collect();
/// let app = App::builder().build();
/// app.open(Log { count: lines.len(), lines }).unwrap();
/// let scene = app.scene().unwrap();
/// let (_block, loader) = &scene.windows[0].paged_by[0];
/// let load = scene.windows[0].actions.iter().find(|a| &a.name == loader).unwrap();
/// let done = load.call(&app, PageRequest::new(4, 2).arguments()).await.unwrap();
/// let page: Page<serde_json::Value> = serde_json::from_value(done.value.unwrap()).unwrap();
/// assert_eq!((page.offset, page.total, page.rows.len()), (4, 5, 1));
/// # });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PageRequest {
    /// Index of the first row wanted, from 0.
    pub offset: usize,
    /// How many rows, at most.
    pub limit: usize,
}

impl PageRequest {
    /// At most `limit` rows from `offset`.
    ///
    /// ```
    /// let request = purview::projection::PageRequest::new(10, 5);
    /// assert_eq!((request.offset, request.limit), (10, 5));
    /// ```
    pub fn new(offset: usize, limit: usize) -> Self {
        Self { offset, limit }
    }

    /// The load action's arguments, as a call by name takes them.
    ///
    /// ```
    /// let arguments = purview::projection::PageRequest::new(10, 5).arguments();
    /// assert_eq!(serde_json::Value::Object(arguments), serde_json::json!({"offset": 10, "limit": 5}));
    /// ```
    pub fn arguments(&self) -> JsonObject {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(arguments)) => arguments,
            // Two integers always serialize as an object.
            _ => JsonObject::new(),
        }
    }
}

impl<R> schemars::JsonSchema for Page<R> {
    fn schema_name() -> Cow<'static, str> {
        "Page".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "A page of a table's rows.",
            "properties": {
                "offset": {"type": "integer", "minimum": 0, "description": "Index of the first row returned, from 0."},
                "total": {"type": "integer", "minimum": 0, "description": "Rows in the whole table."},
                "rows": {"type": "array", "items": {"type": "array"}, "description": "The rows, each its cells in column order."}
            },
            "required": ["offset", "total", "rows"]
        })
    }
}

/// An index a load action takes for `offset` or `limit`.
pub trait PageIndex {}
impl PageIndex for usize {}
impl PageIndex for u32 {}
impl PageIndex for u64 {}

/// How a load action's method is written; `#[block(table, load = ..)]`
/// checks the method against it. Not public API.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "this method cannot be the table's load action: `{Self}`",
    label = "a table's load action takes `offset` and `limit` and returns a `Page` of the table's rows",
    note = "write it as `fn load_rows(&self, offset: usize, limit: usize) -> purview::projection::Page<{R}>`, where `{R}` is the table's row type",
    note = "also allowed: `u32` or `u64` indexes, a `&mut Context` after `limit`, `&mut self`, and a `Result<Page<{R}>, E>`"
)]
pub trait PageLoader<W, R, M> {}

/// Markers telling the load action's shapes apart.
#[doc(hidden)]
pub struct Shape<Receiver, Cx, Out, O, L>(std::marker::PhantomData<(Receiver, Cx, Out, O, L)>);
#[doc(hidden)]
pub struct ByRef;
#[doc(hidden)]
pub struct ByMut;
#[doc(hidden)]
pub struct NoCx;
#[doc(hidden)]
pub struct WithCx;
#[doc(hidden)]
pub struct Plain;
#[doc(hidden)]
pub struct Fallible<E>(std::marker::PhantomData<E>);

macro_rules! loader {
    ($recv:ident, $self_ty:ty, $cx:ident, [$($cx_ty:ty)?], $out:ty, $shape:ty $(, $e:ident)?) => {
        impl<W, R, F, O: PageIndex, L: PageIndex $(, $e)?> PageLoader<W, R, Shape<$recv, $cx, $shape, O, L>> for F
        where
            F: Fn($self_ty, O, L $(, $cx_ty)?) -> $out,
        {
        }
    };
}
loader!(ByRef, &W, NoCx, [], Page<R>, Plain);
loader!(ByRef, &W, WithCx, [&mut Context], Page<R>, Plain);
loader!(ByMut, &mut W, NoCx, [], Page<R>, Plain);
loader!(ByMut, &mut W, WithCx, [&mut Context], Page<R>, Plain);
loader!(ByRef, &W, NoCx, [], Result<Page<R>, E>, Fallible<E>, E);
loader!(ByRef, &W, WithCx, [&mut Context], Result<Page<R>, E>, Fallible<E>, E);
loader!(ByMut, &mut W, NoCx, [], Result<Page<R>, E>, Fallible<E>, E);
loader!(ByMut, &mut W, WithCx, [&mut Context], Result<Page<R>, E>, Fallible<E>, E);

/// Checks, at compile time only, that `loader` has a load action's shape
/// for window `W` and row type `R`. Generated code only.
#[doc(hidden)]
pub const fn loads_pages<W, R, M, F: PageLoader<W, R, M>>(_: &F) {}

//! What field types can become blocks: the traits `#[window]` projections
//! call, so an unsuitable field type is a compile error that says which
//! block it cannot be. Implement them for your own types to project them.

/// A page of a table's rows, as a table's load action returns it, and
/// the rows to ask it for.
pub use crate::paging::{Page, PageIndex, PageRequest};
// What `#[arg(from = table.column)]` checks its source with.
#[doc(hidden)]
pub use crate::arg_source::{
    AnyKind, Column, KindOf, SourceCheck, TableBlocks, TableKeys, ValueKind, check_source,
    source_of,
};
// What `#[block(table, load = ..)]` checks a load action with.
#[doc(hidden)]
pub use crate::paging::{PageLoader, loads_pages};

use std::collections::VecDeque;

use serde::{Serialize, ser::SerializeStruct};
use serde_json::Value;

use crate::{Secret, model::Block};

/// On the wire a page's rows are arrays of cells, as in the table block.
impl<R: Cells> Serialize for Page<R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut page = serializer.serialize_struct("Page", 3)?;
        page.serialize_field("offset", &self.offset)?;
        page.serialize_field("total", &self.total)?;
        let rows: Vec<_> = self.rows.iter().map(Cells::cells).collect();
        page.serialize_field("rows", &rows)?;
        page.end()
    }
}

fn json(value: &(impl Serialize + ?Sized)) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// One table cell: any serializable value as JSON (`null` for a value that
/// cannot be JSON, such as a map with non-string keys).
///
/// ```
/// assert_eq!(purview::projection::cell(&2.5), serde_json::json!(2.5));
/// ```
pub fn cell<T: Serialize + ?Sized>(value: &T) -> Value {
    json(value)
}

/// The cells of one table row, in column order.
///
/// Implemented for tuples of up to eight serializable values, for
/// `Vec<serde_json::Value>`, and by `#[derive(purview::Row)]`.
///
/// ```
/// use purview::projection::Cells;
/// assert_eq!(("A", 2).cells(), vec![serde_json::json!("A"), serde_json::json!(2)]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a table row",
    label = "not a table row",
    note = "derive it with #[derive(purview::Row)] (each field a column), or make the rows tuples and name the columns: #[block(table, columns = [\"Product\", \"Qty\"])]"
)]
pub trait Cells {
    /// The row's values, one per column.
    fn cells(&self) -> Vec<Value>;
}

/// A table row type that also knows its column titles.
///
/// ```
/// #[derive(purview::Row)]
/// struct Item {
///     product: String,
///     #[row(name = "Qty")]
///     quantity: u32,
/// }
/// use purview::Row;
/// assert_eq!(Item::columns(), ["Product", "Qty"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not name its table columns",
    label = "columns unknown",
    note = "derive it with #[derive(purview::Row)], or name the columns on the block: #[block(table, columns = [\"Product\", \"Qty\"])]"
)]
pub trait Row: Cells {
    /// Column titles, left to right.
    fn columns() -> Vec<String>;

    /// The Rust field behind each column, left to right, as
    /// `#[arg(from = table.field)]` names it (`#[derive(Row)]` fills it
    /// in; empty for rows written by hand).
    const FIELDS: &'static [&'static str] = &[];

    /// The kind of value in each column, left to right, for
    /// `#[arg(from = table.field)]` to check against its argument
    /// (`#[derive(Row)]` fills it in; empty for rows written by hand).
    #[doc(hidden)]
    const KINDS: &'static [ValueKind] = &[];
}

impl Cells for Vec<Value> {
    fn cells(&self) -> Vec<Value> {
        self.clone()
    }
}

macro_rules! tuple_cells {
    ($($name:ident)+) => {
        impl<$($name: Serialize),+> Cells for ($($name,)+) {
            #[allow(non_snake_case)]
            fn cells(&self) -> Vec<Value> {
                let ($($name,)+) = self;
                vec![$(json($name)),+]
            }
        }
    };
}
tuple_cells!(A);
tuple_cells!(A B);
tuple_cells!(A B C);
tuple_cells!(A B C D);
tuple_cells!(A B C D E);
tuple_cells!(A B C D E F);
tuple_cells!(A B C D E F G);
tuple_cells!(A B C D E F G H);

/// A collection shown as a `table` block.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shown as a table",
    label = "#[block(table)] needs a list of rows here",
    note = "use a Vec, VecDeque or slice (or an Arc of one) of #[derive(purview::Row)] rows or of tuples"
)]
pub trait TableSource {
    /// The row type.
    type Row: Cells;

    /// The first rows, at most `limit` of them, and the total count.
    fn rows(&self, limit: Option<usize>) -> (Vec<&Self::Row>, usize);

    /// The `table` block: columns from the row type, the first `limit` rows,
    /// marked truncated (`offset`/`total`) when there are more.
    ///
    /// ```
    /// use purview::projection::TableSource;
    /// #[derive(purview::Row)]
    /// struct Line { product: String }
    /// let lines = vec![Line { product: "A".into() }, Line { product: "B".into() }];
    /// let block = lines.table_block("items", Some(1));
    /// assert_eq!(serde_json::to_value(&block).unwrap()["total"], 2);
    /// ```
    fn table_block(&self, id: &str, limit: Option<usize>) -> Block
    where
        Self::Row: Row,
    {
        self.table_block_with_columns(id, &Self::Row::columns(), limit)
    }

    /// The `table` block under explicit column titles.
    ///
    /// ```
    /// use purview::projection::TableSource;
    /// let rows = vec![("A", 2), ("B", 1)];
    /// let block = rows.table_block_with_columns("items", &["Product", "Quantity"], None);
    /// assert_eq!(serde_json::to_value(&block).unwrap()["rows"], serde_json::json!([["A", 2], ["B", 1]]));
    /// ```
    fn table_block_with_columns<C: AsRef<str>>(
        &self,
        id: &str,
        columns: &[C],
        limit: Option<usize>,
    ) -> Block {
        let (rows, total) = self.rows(limit);
        let shown = rows.len();
        let rows = rows.into_iter().map(Cells::cells).collect();
        let block = Block::table(id, columns.iter().map(|c| c.as_ref().to_owned()), rows);
        truncate(block, shown, total)
    }
}

fn truncate(block: Block, shown: usize, total: usize) -> Block {
    if shown < total { block.truncated(0, total as u64) } else { block }
}

/// A collection shown as a `list` block.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shown as a list",
    label = "#[block(list)] needs a collection here",
    note = "use a Vec, VecDeque or slice (or an Arc of one) of serializable items"
)]
pub trait ListSource {
    /// The items (at most `limit`) as JSON, and the total count.
    fn items(&self, limit: Option<usize>) -> (Vec<Value>, usize);

    /// The `list` block of the first `limit` items, marked truncated when
    /// there are more.
    ///
    /// ```
    /// use purview::projection::ListSource;
    /// let block = vec!["a", "b", "c"].list_block("tags", false, Some(2));
    /// assert_eq!(serde_json::to_value(&block).unwrap()["total"], 3);
    /// ```
    fn list_block(&self, id: &str, ordered: bool, limit: Option<usize>) -> Block {
        let (items, total) = self.items(limit);
        let shown = items.len();
        truncate(Block::list(id, items, ordered), shown, total)
    }
}

macro_rules! sequences {
    ($($ty:ty),*) => {$(
        impl<R: Cells> TableSource for $ty {
            type Row = R;
            fn rows(&self, limit: Option<usize>) -> (Vec<&R>, usize) {
                (self.iter().take(limit.unwrap_or(usize::MAX)).collect(), self.len())
            }
        }
        impl<R: Serialize> ListSource for $ty {
            fn items(&self, limit: Option<usize>) -> (Vec<Value>, usize) {
                (self.iter().take(limit.unwrap_or(usize::MAX)).map(json).collect(), self.len())
            }
        }
    )*};
}
sequences!(Vec<R>, VecDeque<R>, [R]);

// Shared data: an `Arc` keeps cloning a view-model for each call cheap.
impl<T: TableSource + ?Sized> TableSource for std::sync::Arc<T> {
    type Row = T::Row;
    fn rows(&self, limit: Option<usize>) -> (Vec<&T::Row>, usize) {
        (**self).rows(limit)
    }
}

impl<T: ListSource + ?Sized> ListSource for std::sync::Arc<T> {
    fn items(&self, limit: Option<usize>) -> (Vec<Value>, usize) {
        (**self).items(limit)
    }
}

/// A value shown as a masked field (§4.5): only whether it is filled in is
/// ever looked at.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shown as a sensitive field",
    label = "hold this value in a purview::Secret",
    note = "sensitive fields must be Secret<String>, Option<Secret<T>> or Secret<Option<String>>, so the plaintext cannot leak"
)]
pub trait Sensitive {
    /// Whether a value is present (shown as `••••••`) or not (shown as `""`).
    fn is_filled(&self) -> bool;
}

impl Sensitive for Secret<String> {
    fn is_filled(&self) -> bool {
        !self.expose().is_empty()
    }
}

impl Sensitive for Secret<Option<String>> {
    fn is_filled(&self) -> bool {
        self.expose().as_deref().is_some_and(|s| !s.is_empty())
    }
}

impl<T> Sensitive for Option<Secret<T>> {
    fn is_filled(&self) -> bool {
        self.is_some()
    }
}

/// A value shown as a `notice` block, when there is something to say.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shown as a notice",
    label = "#[block(notice = ..)] needs text here",
    note = "a notice field is a String (shown when not empty) or an Option<String> (shown when Some)"
)]
pub trait NoticeSource {
    /// The text to show, or `None` for no notice.
    fn notice_text(&self) -> Option<&str>;
}

impl NoticeSource for String {
    fn notice_text(&self) -> Option<&str> {
        (!self.is_empty()).then_some(self.as_str())
    }
}

impl NoticeSource for &str {
    fn notice_text(&self) -> Option<&str> {
        (!self.is_empty()).then_some(*self)
    }
}

impl<T: NoticeSource> NoticeSource for Option<T> {
    fn notice_text(&self) -> Option<&str> {
        self.as_ref().and_then(NoticeSource::notice_text)
    }
}

/// An image, screenshot or chart shown as a `media` block.
///
/// ```
/// let chart = purview::projection::Media::new("image/png", "file:///tmp/chart.png").alt("Revenue by region, 2026");
/// # let _ = chart;
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Media {
    /// MIME type, such as `image/png`.
    pub mime_type: String,
    /// `https://`, `file://` or `data:` URL.
    pub url: String,
    /// What the media shows, for agents that cannot see it.
    pub alt: Option<String>,
}

impl Media {
    /// Media at a URL.
    pub fn new(mime_type: impl Into<String>, url: impl Into<String>) -> Self {
        Self { mime_type: mime_type.into(), url: url.into(), alt: None }
    }

    /// Adds the text description.
    pub fn alt(mut self, alt: impl Into<String>) -> Self {
        self.alt = Some(alt.into());
        self
    }

    /// The `media` block showing it.
    ///
    /// ```
    /// let block = purview::projection::Media::new("image/png", "file:///c.png").block("chart");
    /// assert_eq!(serde_json::to_value(&block).unwrap()["type"], "media");
    /// ```
    pub fn block(&self, id: &str) -> Block {
        Block::media(id, &self.mime_type, &self.url, self.alt.clone())
    }
}

/// A value shown as a `media` block.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shown as media",
    label = "#[block(media)] needs a purview::projection::Media here",
    note = "use purview::projection::Media or Option<purview::projection::Media>"
)]
pub trait MediaSource {
    /// The media, if any.
    fn media(&self) -> Option<&Media>;
}

impl MediaSource for Media {
    fn media(&self) -> Option<&Media> {
        Some(self)
    }
}

impl MediaSource for Option<Media> {
    fn media(&self) -> Option<&Media> {
        self.as_ref()
    }
}

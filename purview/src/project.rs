//! What field types can become blocks: the traits `#[window]` projections
//! rely on, so an unsuitable field type is a compile error that says which
//! block it cannot be.

use std::{collections::VecDeque, fmt::Display};

use serde::Serialize;
use serde_json::Value;

use crate::{
    Secret, View,
    model::{Block, FieldItem, Severity},
};

fn json(value: &(impl Serialize + ?Sized)) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The cells of one table row, in column order.
///
/// Implemented for tuples of up to eight serializable values, for
/// `Vec<serde_json::Value>`, and by `#[derive(purview::Row)]`.
///
/// ```
/// use purview::Cells;
/// assert_eq!(("A", 2).cells(), vec![serde_json::json!("A"), serde_json::json!(2)]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a table row",
    label = "not a table row",
    note = "derive it with #[derive(purview::Row)], or use tuples with explicit columns(...)"
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
    note = "derive it with #[derive(purview::Row)], or give the block explicit columns(\"A\", \"B\")"
)]
pub trait Row: Cells {
    /// Column titles, left to right.
    fn columns() -> Vec<String>;
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
    /// The rows from `offset`, at most `limit` of them, and the total count.
    fn rows(&self, limit: Option<usize>) -> (Vec<&Self::Row>, usize);
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
pub trait NoticeText {
    /// The text to show, or `None` for no notice.
    fn notice_text(&self) -> Option<&str>;
}

impl NoticeText for String {
    fn notice_text(&self) -> Option<&str> {
        (!self.is_empty()).then_some(self.as_str())
    }
}

impl NoticeText for &str {
    fn notice_text(&self) -> Option<&str> {
        (!self.is_empty()).then_some(*self)
    }
}

impl<T: NoticeText> NoticeText for Option<T> {
    fn notice_text(&self) -> Option<&str> {
        self.as_ref().and_then(NoticeText::notice_text)
    }
}

/// An image, screenshot or chart shown as a `media` block.
///
/// ```
/// let chart = purview::Media::new("image/png", "file:///tmp/chart.png").alt("Revenue by region, 2026");
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
}

/// A value shown as a `media` block.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shown as media",
    label = "#[block(media)] needs a purview::Media here",
    note = "use purview::Media or Option<purview::Media>"
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

/// Projection helpers called by `#[window]`-generated code.
#[doc(hidden)]
pub mod helpers {
    use super::*;

    pub fn text<T: Display + ?Sized>(view: &mut View, id: &str, value: &T) {
        view.text(id, value.to_string());
    }

    pub fn field<T: Serialize + ?Sized>(label: &str, value: &T) -> FieldItem {
        FieldItem::new(label, json(value))
    }

    pub fn sensitive<T: Sensitive + ?Sized>(label: &str, value: &T) -> FieldItem {
        FieldItem::sensitive(label, value.is_filled())
    }

    fn truncate(block: Block, shown: usize, total: usize) -> Block {
        if shown < total { block.truncated(0, total as u64) } else { block }
    }

    pub fn table<T: TableSource + ?Sized>(
        view: &mut View,
        id: &str,
        source: &T,
        limit: Option<usize>,
    ) where
        T::Row: Row,
    {
        table_with_columns(view, id, &T::Row::columns(), source, limit);
    }

    pub fn table_with_columns<T: TableSource + ?Sized, C: AsRef<str>>(
        view: &mut View,
        id: &str,
        columns: &[C],
        source: &T,
        limit: Option<usize>,
    ) {
        let (rows, total) = source.rows(limit);
        let shown = rows.len();
        let rows = rows.into_iter().map(Cells::cells).collect();
        let block = Block::table(id, columns.iter().map(|c| c.as_ref().to_owned()), rows);
        view.push(truncate(block, shown, total));
    }

    pub fn list<T: ListSource + ?Sized>(
        view: &mut View,
        id: &str,
        source: &T,
        ordered: bool,
        limit: Option<usize>,
    ) {
        let (items, total) = source.items(limit);
        let shown = items.len();
        view.push(truncate(Block::list(id, items, ordered), shown, total));
    }

    pub fn notice<T: NoticeText + ?Sized>(
        view: &mut View,
        id: &str,
        severity: Severity,
        value: &T,
    ) {
        if let Some(text) = value.notice_text() {
            view.notice(id, severity, text);
        }
    }

    pub fn media<T: MediaSource + ?Sized>(view: &mut View, id: &str, value: &T) {
        if let Some(m) = value.media() {
            view.push(Block::media(id, &m.mime_type, &m.url, m.alt.clone()));
        }
    }

    pub fn custom<T: Serialize + ?Sized>(view: &mut View, id: &str, value: &T) {
        view.push(Block::custom(id, json(value)));
    }

    pub fn to_cell<T: Serialize + ?Sized>(value: &T) -> Value {
        json(value)
    }
}

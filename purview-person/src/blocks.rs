//! A window's blocks (§4.4) in the person's words: cells as text, a masked
//! field only as its mask (the plain value never reaches the scene), list
//! marks, a notice's severity as a word. Every face draws these and words
//! none of them itself.

use purview::{
    model::{Block, BlockKind, FieldItem, MASK, Severity},
    naming::humanize,
    serde::Serialize,
    serde_json::{self, Value},
};

use crate::{paging::Paging, words};

/// One block as the person reads it.
///
/// ```
/// # use purview::prelude::*;
/// # use purview_person::*;
/// # #[window(summary = "Counts to {count}")]
/// # #[derive(Clone, Default)]
/// # struct Counter { #[block(field)] count: u32 }
/// # #[actions]
/// # impl Counter {
/// #     /// Count one more.
/// #     #[action]
/// #     fn increment(&mut self) { self.count += 1; }
/// #     /// Count from here.
/// #     #[action]
/// #     fn set(&mut self, count: u32) { self.count = count; }
/// #     /// Start again.
/// #     #[action(destructive)]
/// #     fn reset(&mut self) { self.count = 0; }
/// # }
/// # let app = App::builder().build();
/// # let id = app.open(Counter::default()).unwrap().id().to_owned();
/// # let model = Reader::default().read(&app.scene().unwrap(), Around::default());
/// # let scope: Scope = Some(id.clone());
/// let Shown::Fields { items, .. } = &model.windows[0].blocks[0] else { panic!("a field") };
/// assert_eq!(items[0], ("Count".to_owned(), "0".to_owned()));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(crate = "purview::serde", tag = "type", rename_all = "camelCase")]
pub enum Shown {
    /// A paragraph.
    Text {
        /// As the app wrote it.
        text: String,
    },
    /// Labelled values.
    Fields {
        /// The group's name, when it is a named group of several.
        title: Option<String>,
        /// Label and value, in order; a sensitive value is its mask.
        items: Vec<(String, String)>,
    },
    /// A table: the scene's rows; a face shows the person's loaded page
    /// instead where there is one ([`crate::Person::rows`]).
    Table(Box<Table>),
    /// A list, each item with its mark ("•", "3.").
    List {
        /// Mark and text.
        items: Vec<(String, String)>,
        /// "12 of 40 items shown", when cut.
        more: Option<String>,
    },
    /// A notice.
    Notice {
        /// How serious.
        severity: Severity,
        /// Its severity as a word, for those who do not see colour.
        word: &'static str,
        /// As the app wrote it.
        text: String,
    },
    /// An image or other media.
    Media {
        /// Its MIME type.
        mime_type: String,
        /// Where it is.
        url: String,
        /// Its description, or a note that it has none.
        caption: String,
        /// Whether the app described it.
        described: bool,
    },
    /// Anything else, as indented JSON under [`words::DETAILS`].
    Details {
        /// The JSON.
        json: String,
    },
}

/// A table block.
///
/// ```
/// # use purview::{prelude::*, projection::Page};
/// # use purview_person::*;
/// # #[window(title = "Returns", summary = "Returns")]
/// # #[derive(Clone)]
/// # struct Returns {
/// #     #[block(table, limit = 10, load = load_rows, columns = ["Return", "Status"])]
/// #     rows: Vec<(u32, String)>,
/// # }
/// # #[actions]
/// # impl Returns {
/// #     /// Fetch a range of returns.
/// #     #[action(read_only, idempotent)]
/// #     fn load_rows(&self, offset: usize, limit: usize) -> Page<(u32, String)> {
/// #         Page::slice(&self.rows, offset, limit)
/// #     }
/// #     /// Refund a return.
/// #     #[action]
/// #     fn refund(&mut self, #[arg(from = rows.0)] id: u32) {}
/// # }
/// # let app = App::builder().build();
/// # let rows = (1..=30).map(|i| (i, "open".to_owned())).collect();
/// # let id = app.open(Returns { rows }).unwrap().id().to_owned();
/// # let model = Reader::default().read(&app.scene().unwrap(), Around::default());
/// # let window = model.window(&id).unwrap();
/// # let table = window.tables().next().unwrap();
/// assert_eq!(table.columns, ["Return", "Status"]);
/// assert_eq!(table.rows[0], ["1", "open"]);
/// assert_eq!(table.loader.as_deref(), Some("load_rows"));
/// assert_eq!(table.paging.as_ref().unwrap().label, "Rows 1–10 of 30");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(crate = "purview::serde", rename_all = "camelCase")]
pub struct Table {
    /// The block's id (or `#index`): how intents name it.
    pub key: String,
    /// Column titles.
    pub columns: Vec<String>,
    /// The rows the window projects, as text.
    pub rows: Vec<Vec<String>>,
    /// The offset of its first row.
    pub offset: usize,
    /// How many rows there are, when the table is cut.
    pub total: Option<usize>,
    /// The action that loads its other pages, while available.
    pub loader: Option<String>,
    /// Where the rows it projects stand, for a cut table with a loader.
    pub paging: Option<Paging>,
    /// The arguments its rows may fill: every argument of the window's
    /// actions taken `from` one of its columns, offered while that
    /// action's form is open.
    pub fills: Vec<Fill>,
}

/// An argument a table's rows may fill (`#[arg(from = table.column)]`):
/// while its action's form is open, each row offers its cell.
///
/// ```
/// # use purview::{prelude::*, projection::Page};
/// # use purview_person::*;
/// # #[window(title = "Returns", summary = "Returns")]
/// # #[derive(Clone)]
/// # struct Returns {
/// #     #[block(table, columns = ["Return", "Status"])]
/// #     rows: Vec<(u32, String)>,
/// # }
/// # #[actions]
/// # impl Returns {
/// #     /// Refund a return.
/// #     #[action]
/// #     fn refund(&mut self, #[arg(from = rows.0)] id: u32) {}
/// # }
/// # let app = App::builder().build();
/// # let id = app.open(Returns { rows: vec![(7, "open".into())] }).unwrap().id().to_owned();
/// # let model = Reader::default().read(&app.scene().unwrap(), Around::default());
/// let fill = &model.window(&id).unwrap().tables().next().unwrap().fills[0];
/// assert_eq!((fill.action.as_str(), fill.field.as_str(), fill.column), ("refund", "id", 0));
/// assert_eq!(fill.note, "Choose a row to fill “Id” of “Refund”.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(crate = "purview::serde", rename_all = "camelCase")]
pub struct Fill {
    /// The action.
    pub action: String,
    /// The argument.
    pub field: String,
    /// The column whose cell is the value.
    pub column: usize,
    /// "Choose a row to fill “Order” of “Pay”.", said above the rows.
    pub note: String,
    /// The argument's label, for each row's button's name.
    pub label: String,
    /// The action's title, for each row's button's name.
    pub action_title: String,
}

impl Fill {
    /// Every argument of `actions` taken from a column of table `key`.
    pub(crate) fn of(actions: &[crate::Action], key: &str) -> Vec<Self> {
        let fills = actions.iter().flat_map(|action| {
            action.fields.iter().filter_map(move |field| {
                let from = field.from.as_ref().filter(|from| from.table == key)?;
                Some(Self {
                    action: action.name.clone(),
                    field: field.name.clone(),
                    column: from.column,
                    note: words::choose_row_for(&field.label, &action.title),
                    label: field.label.clone(),
                    action_title: action.title.clone(),
                })
            })
        });
        fills.collect()
    }
}

impl Shown {
    /// `block`, the `index`th of its window, as the person reads it, for a
    /// face drawing a block the app hands it (a table's pager, which needs
    /// its window, is not drawn).
    ///
    /// ```
    /// let block = purview::model::Block::text("greeting", "Hello");
    /// assert_eq!(purview_person::Shown::of(&block, 0), purview_person::Shown::Text { text: "Hello".into() });
    /// ```
    pub fn of(block: &Block, index: usize) -> Self {
        shown(block, index, |_| None)
    }
}

/// A value as a person reads it: strings without quotes, nothing for null.
///
/// ```
/// use purview::serde_json::{Value, json};
/// use purview_person::cell;
///
/// assert_eq!(cell(&json!("A-17")), "A-17");
/// assert_eq!(cell(&json!(25)), "25");
/// assert_eq!(cell(&Value::Null), "");
/// ```
pub fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `block` (the `index`th of its window) as the person reads it; `loader`
/// gives the action that pages a table by key.
pub(crate) fn shown(block: &Block, index: usize, loader: impl Fn(&str) -> Option<String>) -> Shown {
    let key = block.id.clone().unwrap_or_else(|| format!("#{index}"));
    match &block.kind {
        BlockKind::Text { text } => Shown::Text { text: text.clone() },
        BlockKind::Fields { items } => {
            // A group of fields is named by its block id; fields in no
            // group share the id `fields`: no name.
            let named = block.id.as_deref().filter(|id| *id != "fields" && items.len() > 1);
            Shown::Fields {
                title: named.map(humanize),
                items: items.iter().map(|item| (item.label().to_owned(), value_of(item))).collect(),
            }
        }
        BlockKind::Table { columns, rows, offset, total } => {
            let offset = usize::try_from(offset.unwrap_or(0)).unwrap_or(usize::MAX);
            let total = total.map(|t| usize::try_from(t).unwrap_or(usize::MAX));
            let loader = total.and(loader(&key));
            let paging = total
                .filter(|_| loader.is_some())
                .map(|total| Paging::new(offset, rows.len(), total, rows.len()));
            Shown::Table(Box::new(Table {
                loader,
                key,
                columns: columns.clone(),
                rows: rows.iter().map(|row| row.iter().map(cell).collect()).collect(),
                offset,
                total,
                paging,
                fills: Vec::new(),
            }))
        }
        BlockKind::List { items, ordered, offset, total } => {
            let first = offset.unwrap_or(0);
            let mark = |i: usize| match ordered {
                Some(true) => format!("{}.", first + i as u64 + 1),
                _ => "•".to_owned(),
            };
            Shown::List {
                items: items.iter().enumerate().map(|(i, v)| (mark(i), cell(v))).collect(),
                more: total
                    .filter(|t| *t > items.len() as u64)
                    .map(|t| words::items_shown(items.len(), t)),
            }
        }
        BlockKind::Notice { severity, text } => Shown::Notice {
            severity: *severity,
            word: words::severity(*severity),
            text: text.clone(),
        },
        BlockKind::Media { mime_type, url, alt } => {
            let described = alt.as_deref().filter(|a| !a.is_empty());
            Shown::Media {
                mime_type: mime_type.clone(),
                url: url.clone(),
                caption: described.map_or_else(|| words::undescribed(mime_type), str::to_owned),
                described: described.is_some(),
            }
        }
        BlockKind::Custom { payload } => {
            Shown::Details { json: serde_json::to_string_pretty(payload).unwrap_or_default() }
        }
        // A block kind newer than this crate: at least say what it holds.
        _ => Shown::Details { json: serde_json::to_string_pretty(block).unwrap_or_default() },
    }
}

/// A field's value: a sensitive one only as whether it is filled in.
fn value_of(item: &FieldItem) -> String {
    if item.is_sensitive() {
        let filled = !matches!(item.value(), Value::Null)
            && item.value().as_str().is_none_or(|v| !v.is_empty());
        if filled { MASK.to_owned() } else { String::new() }
    } else {
        cell(item.value())
    }
}

use serde::{Deserialize, Serialize, Serializer, ser::SerializeStruct};
use serde_json::Value;

use crate::redact::MASK;

/// One semantic block of a window's content (§4.4).
///
/// Blocks describe what is shown, never how to operate it. Build them with
/// the constructors and push them onto a [`View`](crate::View):
///
/// ```
/// use purview::model::{Block, FieldItem, Severity};
///
/// let blocks = vec![
///     Block::text("intro", "Editing order #12345"),
///     Block::fields("form", [FieldItem::new("Recipient", ""), FieldItem::new("Amount", "$100.00")]),
///     Block::table("items", ["Product", "Quantity"], vec![vec!["A".into(), 2.into()]]),
///     Block::notice("err", Severity::Error, "Recipient cannot be empty"),
/// ];
/// let json = serde_json::to_value(&blocks[3]).unwrap();
/// assert_eq!(json, serde_json::json!({"type": "notice", "severity": "error", "text": "Recipient cannot be empty", "id": "err"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Block {
    /// What the block is, with its type-specific fields.
    #[serde(flatten)]
    pub kind: BlockKind,
    /// Stable id, unique within the window (§10.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// The seven core primitives of §4.4, tagged by `type` on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum BlockKind {
    /// Paragraph text.
    Text {
        /// The plain text.
        text: String,
    },
    /// A key-value field group (forms, property panels).
    Fields {
        /// The items, in display order.
        items: Vec<FieldItem>,
    },
    /// A table; `rows[i][j]` is the value under `columns[j]`.
    Table {
        /// Column titles, left to right.
        columns: Vec<String>,
        /// Row data, positionally matching `columns`.
        rows: Vec<Vec<Value>>,
        /// Index of the first row shown when truncated (defaults to 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<u64>,
        /// Total number of rows when truncated (required then).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<u64>,
    },
    /// A list of values.
    List {
        /// The items, one value each.
        items: Vec<Value>,
        /// `true` for an ordered list.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ordered: Option<bool>,
        /// Index of the first item shown when truncated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<u64>,
        /// Total number of items when truncated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<u64>,
    },
    /// A status notice.
    Notice {
        /// How serious it is.
        severity: Severity,
        /// What it says.
        text: String,
    },
    /// An image, screenshot or chart.
    Media {
        /// MIME type such as `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// `https://`, `file://` or `data:` URL.
        url: String,
        /// Text description for non-visual agents.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        alt: Option<String>,
    },
    /// Fallback for structures the primitives cannot express.
    Custom {
        /// Any JSON value.
        payload: Value,
    },
}

/// The tone of a [`BlockKind::Notice`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Neutral information.
    Info,
    /// Something to look at.
    Warn,
    /// Something is wrong.
    Error,
    /// Something went well.
    Success,
}

/// One item of a [`BlockKind::Fields`] group.
///
/// A sensitive item never holds its plaintext: [`FieldItem::sensitive`]
/// takes only whether the value is filled in, so there is nothing to leak.
///
/// ```
/// use purview::model::FieldItem;
///
/// let item = FieldItem::sensitive("Payment password", true);
/// let json = serde_json::to_string(&item).unwrap();
/// assert_eq!(json, r#"{"label":"Payment password","value":"••••••","sensitive":true}"#);
///
/// // Read from elsewhere with a plaintext value, it holds only the mask.
/// let read: FieldItem =
///     serde_json::from_str(r#"{"label":"PIN","value":"1234","sensitive":true}"#).unwrap();
/// assert_eq!(read.value(), "••••••");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "FieldItemParts")]
pub struct FieldItem {
    label: String,
    value: Value,
    sensitive: Option<bool>,
}

/// A field item as it arrives, before a sensitive value is masked.
#[derive(Deserialize)]
struct FieldItemParts {
    label: String,
    value: Value,
    #[serde(default)]
    sensitive: Option<bool>,
}

/// Deserializing masks too: an item read from elsewhere with a sensitive
/// plaintext value holds only the mask, wherever it goes next.
impl From<FieldItemParts> for FieldItem {
    fn from(FieldItemParts { label, value, sensitive }: FieldItemParts) -> Self {
        if sensitive == Some(true) {
            let filled = !(value.is_null() || value.as_str() == Some(""));
            Self::sensitive(label, filled)
        } else {
            Self { label, value, sensitive }
        }
    }
}

impl FieldItem {
    /// A plain field. `""` or `null` means "not filled in" (§4.4).
    pub fn new(label: impl Into<String>, value: impl Serialize) -> Self {
        Self {
            label: label.into(),
            value: serde_json::to_value(value).unwrap_or(Value::Null),
            sensitive: None,
        }
    }

    /// A masked field (§4.5): shows `••••••` when `filled`, `""` otherwise.
    pub fn sensitive(label: impl Into<String>, filled: bool) -> Self {
        Self {
            label: label.into(),
            value: Value::String(if filled { MASK.to_owned() } else { String::new() }),
            sensitive: Some(true),
        }
    }

    /// The label.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The value as exposed (masked when sensitive).
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Whether the value is masked.
    pub fn is_sensitive(&self) -> bool {
        self.sensitive == Some(true)
    }
}

impl Serialize for FieldItem {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("FieldItem", 3)?;
        s.serialize_field("label", &self.label)?;
        if self.is_sensitive() {
            // Defence in depth: even an item deserialized from elsewhere with a
            // plaintext value leaves only as the mask.
            let blank = matches!(&self.value, Value::Null)
                || matches!(&self.value, Value::String(v) if v.is_empty());
            s.serialize_field("value", if blank { "" } else { MASK })?;
            s.serialize_field("sensitive", &true)?;
        } else {
            s.serialize_field("value", &self.value)?;
        }
        s.end()
    }
}

impl Block {
    fn of(id: impl Into<String>, kind: BlockKind) -> Self {
        Self { kind, id: Some(id.into()) }
    }

    /// A `text` block.
    pub fn text(id: impl Into<String>, text: impl Into<String>) -> Self {
        Self::of(id, BlockKind::Text { text: text.into() })
    }

    /// A `fields` block.
    pub fn fields(id: impl Into<String>, items: impl IntoIterator<Item = FieldItem>) -> Self {
        Self::of(id, BlockKind::Fields { items: items.into_iter().collect() })
    }

    /// A complete `table` block. Use [`Block::truncated`] when `rows` is a window
    /// onto a larger set.
    pub fn table<C: Into<String>>(
        id: impl Into<String>,
        columns: impl IntoIterator<Item = C>,
        rows: Vec<Vec<Value>>,
    ) -> Self {
        let columns = columns.into_iter().map(Into::into).collect();
        Self::of(id, BlockKind::Table { columns, rows, offset: None, total: None })
    }

    /// A complete `list` block.
    pub fn list(id: impl Into<String>, items: Vec<Value>, ordered: bool) -> Self {
        let ordered = ordered.then_some(true);
        Self::of(id, BlockKind::List { items, ordered, offset: None, total: None })
    }

    /// A `notice` block.
    pub fn notice(id: impl Into<String>, severity: Severity, text: impl Into<String>) -> Self {
        Self::of(id, BlockKind::Notice { severity, text: text.into() })
    }

    /// A `media` block. Give `alt` text whenever you can.
    pub fn media(
        id: impl Into<String>,
        mime_type: impl Into<String>,
        url: impl Into<String>,
        alt: Option<String>,
    ) -> Self {
        Self::of(id, BlockKind::Media { mime_type: mime_type.into(), url: url.into(), alt })
    }

    /// A `custom` block: the fallback of last resort (§4.3).
    pub fn custom(id: impl Into<String>, payload: Value) -> Self {
        Self::of(id, BlockKind::Custom { payload })
    }

    /// Marks a table or list as a truncated view: `offset` is the index of its
    /// first row or item, `total` the size of the whole set (Appendix B).
    /// Other kinds are returned unchanged.
    ///
    /// ```
    /// use purview::model::Block;
    /// let block = Block::table("rows", ["Row"], vec![vec![1.into()]]).truncated(0, 10_000);
    /// let json = serde_json::to_value(&block).unwrap();
    /// assert_eq!(json["total"], 10_000);
    /// assert_eq!(json["offset"], 0);
    /// ```
    pub fn truncated(mut self, at: u64, of_total: u64) -> Self {
        if let BlockKind::Table { offset, total, .. } | BlockKind::List { offset, total, .. } =
            &mut self.kind
        {
            *offset = Some(at);
            *total = Some(of_total);
        }
        self
    }
}

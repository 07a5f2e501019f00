//! The projection a window hands the runtime: a summary and semantic blocks.

use serde::Serialize;

use crate::model::{Block, FieldItem, Severity};

/// What a window shows right now, filled in by [`Window::project`](crate::Window::project).
///
/// The runtime compares each projection with the previous one: the window's
/// version moves only when the summary or the blocks actually change (§7.1).
///
/// ```
/// use purview::{View, model::{FieldItem, Severity}};
///
/// let mut view = View::default();
/// view.summary("Editing order #12345, 1 field still to fill in")
///     .text("order", "Order #12345")
///     .fields("form", [FieldItem::new("Recipient", ""), FieldItem::sensitive("Password", true)])
///     .notice("recipient_error", Severity::Error, "Recipient cannot be empty");
/// assert_eq!(view.blocks().len(), 3);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    summary: Option<String>,
    blocks: Vec<Block>,
}

impl View {
    /// Sets the one-sentence summary (§4.3: truthful, human-readable).
    pub fn summary(&mut self, summary: impl Into<String>) -> &mut Self {
        self.summary = Some(summary.into());
        self
    }

    /// Appends any block.
    pub fn push(&mut self, block: Block) -> &mut Self {
        self.blocks.push(block);
        self
    }

    /// Appends a `text` block.
    pub fn text(&mut self, id: impl Into<String>, text: impl Into<String>) -> &mut Self {
        self.push(Block::text(id, text))
    }

    /// Appends a `fields` block.
    pub fn fields(
        &mut self,
        id: impl Into<String>,
        items: impl IntoIterator<Item = FieldItem>,
    ) -> &mut Self {
        self.push(Block::fields(id, items))
    }

    /// Appends a `notice` block.
    pub fn notice(
        &mut self,
        id: impl Into<String>,
        severity: Severity,
        text: impl Into<String>,
    ) -> &mut Self {
        self.push(Block::notice(id, severity, text))
    }

    /// Appends a `custom` block holding any serializable value (§4.3: the
    /// fallback of last resort). A value that cannot be JSON becomes `null`.
    ///
    /// ```
    /// let mut view = purview::View::default();
    /// view.custom("extra", &serde_json::json!({"shape": "free"}));
    /// assert_eq!(view.blocks().len(), 1);
    /// ```
    pub fn custom(
        &mut self,
        id: impl Into<String>,
        value: &(impl Serialize + ?Sized),
    ) -> &mut Self {
        self.push(Block::custom(id, serde_json::to_value(value).unwrap_or(serde_json::Value::Null)))
    }

    /// The summary set so far.
    pub fn summary_text(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    /// The blocks pushed so far.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    pub(crate) fn into_parts(self) -> (Option<String>, Vec<Block>) {
        (self.summary, self.blocks)
    }
}

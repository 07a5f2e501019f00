//! Generated code compiles cleanly in the strictest user crates: this test
//! target denies every warning and any undocumented public item.
#![deny(warnings, missing_docs, unsafe_code, unused_qualifications, rust_2018_idioms)]

use purview::{Context, Row, Secret, actions, window};

/// A line of an order.
#[derive(Clone, Row)]
pub struct Line {
    /// The product.
    pub product: String,
    /// How many.
    pub quantity: u32,
}

/// A strictly documented window.
#[window(title = "Strict #{number}", summary = "Strict window {number}")]
#[derive(Clone, Default)]
pub struct Strict {
    /// Its number.
    pub number: u32,
    /// A field.
    #[block(field)]
    pub name: String,
    /// A secret.
    #[block(field, sensitive)]
    pub secret: Secret<String>,
    /// Lines.
    #[block(table, limit = 2)]
    pub lines: Vec<Line>,
    /// A notice.
    #[block(notice = "warn")]
    pub warning: Option<String>,
}

#[actions]
impl Strict {
    /// Rename.
    #[action(idempotent)]
    pub fn rename(
        &mut self,
        /// The new name.
        name: String,
    ) -> Result<String, purview::ToolError> {
        self.name = name;
        Ok(self.name.clone())
    }

    /// Async, with a context and an optional argument.
    #[action(timeout = "1s", available = can_wait)]
    pub async fn wait(
        &mut self,
        cx: &mut Context,
        /// A note.
        note: Option<String>,
    ) {
        cx.message(note.unwrap_or_default());
    }

    /// Whether `wait` is offered.
    pub fn can_wait(&self) -> bool {
        true
    }
}

#[test]
fn s11_generated_code_is_warning_free_under_deny_warnings_and_missing_docs() {
    use purview::{Actions, Window};
    let names: Vec<String> = Strict::actions().iter().map(|a| a.name().to_owned()).collect();
    assert_eq!(names, ["rename", "wait"]);
    assert_eq!(Strict { number: 3, ..Strict::default() }.title(), "Strict #3");
}

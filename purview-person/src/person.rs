//! What the person holds between changes, and what each of their intents
//! does. One conductor, [`Person::intend`], takes an [`Intent`] (type,
//! choose a row, page, submit, confirm, approve, decline, cancel) and
//! returns its [`Effect`]: the person's own state changed, a call to make,
//! or an answer to give. A face makes the call and hands its outcome back
//! ([`Person::finished`]); it decides nothing itself.
//!
//! The rules, each once:
//! - a form's text becomes arguments or per-field errors (form.rs);
//! - a destructive action asks "yes or no" first, except in a modal
//!   ([`crate::asks_first`]);
//! - a secret goes to the call, then is forgotten;
//! - a failure is kept per scope (a window, or the app) until the next
//!   call there succeeds or its form is cancelled;
//! - a page of rows the person chose stays chosen through a change, and
//!   is loaded again at the same rows ([`Person::settle`]).

use std::collections::{BTreeMap, HashMap};

use purview::model::{JsonObject, ToolError};

use crate::{form::Typed, paging::Paging, words};

/// Where a call belongs: a window's id, or `None` for the app's own actions.
pub type Scope = Option<String>;

/// What the person means to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// Press an action's button: open or close its form, or run it (asking
    /// first when it must).
    Press {
        /// Its window, or `None` for the app's own.
        scope: Scope,
        /// The action.
        action: String,
    },
    /// Type into (or choose, or tick) a form's field.
    Type {
        /// Its window, or `None` for the app's own.
        scope: Scope,
        /// The action.
        action: String,
        /// The field's name.
        field: String,
        /// What it holds now (`"true"`/`"false"` for a checkbox).
        text: String,
    },
    /// Choose the `row`th row shown of `table` for the `picker`th of its
    /// pickers ([`Rows::pickers`]).
    ChooseRow {
        /// The table's window.
        window: String,
        /// The table's key.
        table: String,
        /// The row, among those shown.
        row: usize,
        /// Which picker.
        picker: usize,
    },
    /// Show the rows of `table` from `offset` (a pager button's target).
    Page {
        /// The table's window.
        window: String,
        /// The table's key.
        table: String,
        /// Where to start.
        offset: usize,
    },
    /// Show the page holding the row number typed.
    GoToRow {
        /// The table's window.
        window: String,
        /// The table's key.
        table: String,
        /// What was typed.
        typed: String,
    },
    /// Run a form.
    Submit {
        /// Its window, or `None` for the app's own.
        scope: Scope,
        /// The action.
        action: String,
    },
    /// Say yes to the question a destructive action asked.
    Confirm,
    /// Say no to it.
    Refuse,
    /// Close a form without running it.
    Cancel {
        /// Its window, or `None` for the app's own.
        scope: Scope,
        /// The action.
        action: String,
    },
    /// Approve an agent's request.
    Approve(u64),
    /// Decline an agent's request.
    Decline(u64),
}

/// What an intent does.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// The person's own state changed (or nothing did): draw again.
    Redraw,
    /// Make this call as the person, and hand its outcome to
    /// [`Person::finished`].
    Call(PersonCall),
    /// Answer approval question `id`.
    Answer {
        /// The question.
        id: u64,
        /// Yes or no.
        approve: bool,
    },
}

/// A call the person makes.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonCall {
    /// Its window, or `None` for the app's own.
    pub scope: Scope,
    /// The action.
    pub action: String,
    /// Its arguments (no `expectedVersion`: the person acts on what shows).
    pub arguments: JsonObject,
    /// For a table's load action: the table and the window's version.
    pub load: Option<(String, u64)>,
}

/// A failed call, kept until the next call in its scope succeeds or its
/// form is cancelled.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The action whose form the per-field errors belong to.
    pub action: Option<String>,
    /// What the app said.
    pub error: ToolError,
}

/// A destructive action waiting for the person's "yes".
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Confirming {
    pub(crate) scope: Scope,
    pub(crate) action: String,
    /// The action's title and description, as the question says them.
    pub(crate) said: (String, String),
    pub(crate) arguments: JsonObject,
}

/// The question a destructive action asks, in the person's words.
#[derive(Debug, Clone, PartialEq, Eq, purview::serde::Serialize)]
#[serde(crate = "purview::serde")]
pub struct Confirmation {
    /// "Delete order? This cannot be undone."
    pub question: String,
    /// The action's own description.
    pub description: String,
    /// "Yes, delete order".
    pub yes: String,
    /// "Do not delete order".
    pub no: String,
}

impl Confirmation {
    /// The question of the action titled `title`, which does `description`.
    pub fn of(title: &str, description: &str) -> Self {
        Self {
            question: words::confirm_question(title),
            description: description.to_owned(),
            yes: words::confirm_yes(title),
            no: words::confirm_no(title),
        }
    }
}

/// A page of rows the person asked for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Loaded {
    pub(crate) offset: usize,
    pub(crate) total: usize,
    pub(crate) rows: Vec<Vec<String>>,
    /// The window's version it was loaded at.
    pub(crate) version: u64,
}

/// An open form's argument that a row of a table fills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picker {
    /// The action.
    pub action: String,
    /// The argument.
    pub field: String,
    /// The column whose cell is the value.
    pub column: usize,
    /// What the form holds now: the row holding it shows as chosen.
    pub current: String,
    /// "Choose a row to fill “Order” of “Pay”".
    pub note: String,
    /// The argument's label and the action's title, for each row's name.
    pub(crate) label: (String, String),
}

impl Picker {
    /// The button of a row whose cell is `value`: its words, whether it is
    /// the chosen one, and its accessible name.
    pub fn button(&self, value: &str) -> (&'static str, bool, String) {
        let chosen = !value.is_empty() && self.current == value;
        let text = if chosen { words::CHOSEN } else { words::CHOOSE };
        (text, chosen, words::choose_value(value, &self.label.0, &self.label.1))
    }
}

/// The rows a table shows now, where they stand, and who picks from them.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows<'a> {
    /// The rows.
    pub rows: &'a [Vec<String>],
    /// Paging, for a cut table whose loader is available.
    pub paging: Option<Paging>,
    /// "Rows 1–20 of 300" or "12 rows".
    pub count: String,
    /// The open forms this table fills an argument of.
    pub pickers: Vec<Picker>,
    /// Why the last row number typed was refused.
    pub refused: Option<String>,
}

/// What the person holds between changes: open forms and their text, the
/// question a destructive action asks, pages loaded, failures kept.
#[derive(Debug, Clone, Default)]
pub struct Person {
    pub(crate) forms: BTreeMap<(Scope, String), Typed>,
    pub(crate) confirming: Option<Confirming>,
    pub(crate) pages: HashMap<(String, String), Loaded>,
    pub(crate) refused_rows: HashMap<(String, String), String>,
    pub(crate) failures: HashMap<Scope, Failure>,
}

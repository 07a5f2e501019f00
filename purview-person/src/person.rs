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

use crate::{form::Typed, paging::Paging, view::Action, words};

/// Where a call belongs: a window's id, or `None` for the app's own actions.
///
/// ```
/// use purview_person::{Intent, Scope};
///
/// let app_own: Scope = None;
/// let in_window: Scope = Some("w1".to_owned());
/// let _ = Intent::Press { scope: in_window, action: "submit".into() };
/// let _ = Intent::Press { scope: app_own, action: "open_order".into() };
/// ```
pub type Scope = Option<String>;

/// What the person means to do.
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
/// let mut person = Person::default();
/// person.intend(&model, Intent::Press { scope: scope.clone(), action: "set".into() });
/// let text = "3".to_owned();
/// let typed = Intent::Type { scope: scope.clone(), action: "set".into(), field: "count".into(), text };
/// assert_eq!(person.intend(&model, typed), Effect::Redraw);
/// let Effect::Call(call) = person.intend(&model, Intent::Submit { scope, action: "set".into() })
/// else { panic!("a call") };
/// assert_eq!(call.arguments["count"], 3);
/// ```
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
    /// Type into (or choose, or tick) a form's field: kept only for a
    /// field of an open form, and only up to [`crate::MAX_TYPED`] bytes.
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
///
/// ```
/// use purview_person::{Effect, Intent, Model, Person};
///
/// let answer = Person::default().intend(&Model::default(), Intent::Approve(7));
/// assert_eq!(answer, Effect::Answer { id: 7, approve: true });
/// ```
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
/// let mut person = Person::default();
/// let press = Intent::Press { scope: scope.clone(), action: "increment".into() };
/// let Effect::Call(call) = person.intend(&model, press) else { panic!("a call") };
/// assert_eq!((call.scope, call.action.as_str(), call.load), (scope, "increment", None));
/// assert!(call.arguments.is_empty());
/// ```
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
/// let mut person = Person::default();
/// let press = Intent::Press { scope: scope.clone(), action: "increment".into() };
/// let Effect::Call(call) = person.intend(&model, press) else { panic!("a call") };
/// person.finished(&call, Err(purview::ToolError::from("the counter is full")));
/// assert_eq!(person.failure(&scope).unwrap().error.message, "the counter is full");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The action whose form the per-field errors belong to.
    pub action: Option<String>,
    /// What the app said.
    pub error: ToolError,
}

impl Failure {
    /// The one sentence the person reads of this failure beneath its
    /// window's forms, if any: see [`failure_said`]. `form` is the open
    /// form it belongs to.
    ///
    /// ```
    /// use purview::model::{FieldError, ToolError};
    /// use purview_person::Failure;
    ///
    /// let error = ToolError::validation(vec![FieldError::new("amount", "must be at most 500")]);
    /// let failure = Failure { action: Some("refund".into()), error };
    /// assert_eq!(failure.said(None).as_deref(), Some("Amount: must be at most 500"));
    /// ```
    pub fn said(&self, form: Option<&Action>) -> Option<String> {
        failure_said(&self.error, form)
    }
}

/// The one sentence the person reads of a failed call beneath its
/// window's forms, in the person's words, or `None` when each of its
/// problems is already said under the field of `form` (the open form the
/// call came from) it belongs to. The runtime's own sentence of a
/// rejected call ("Rejected: … correct it and call again") is written for
/// agents and never shown; a problem with no field on the form is said as
/// "Label: problem"; any other failure says what the app said.
///
/// ```
/// use purview::model::{ErrorCode, FieldError, ToolError};
/// use purview_person::failure_said;
///
/// let refused = ToolError::validation(vec![
///     FieldError::new("reference", "must look like RMA-123"),
///     FieldError::new("note_id", "is no note"),
/// ]);
/// assert_eq!(
///     failure_said(&refused, None).as_deref(),
///     Some("Reference: must look like RMA-123; Note id: is no note"),
/// );
/// let failed = ToolError::new(ErrorCode::ActionFailed, "there is no return 999");
/// assert_eq!(failure_said(&failed, None).as_deref(), Some("there is no return 999"));
/// ```
pub fn failure_said(error: &ToolError, form: Option<&Action>) -> Option<String> {
    let Some(problems) = error.fields.as_ref().filter(|p| !p.is_empty()) else {
        return Some(error.message.clone());
    };
    let on_form = |name: &str| form.is_some_and(|a| a.fields.iter().any(|f| f.name == name));
    let elsewhere: Vec<String> = problems
        .iter()
        .filter(|p| !on_form(&p.field))
        .map(|p| words::field_problem(&purview::naming::humanize(&p.field), &p.error))
        .collect();
    (!elsewhere.is_empty()).then(|| elsewhere.join("; "))
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
/// let mut person = Person::default();
/// person.intend(&model, Intent::Press { scope: Some(id.clone()), action: "refund".into() });
/// let picker = &person.rows(window, table).pickers[0];
/// assert_eq!((picker.action.as_str(), picker.field.as_str(), picker.column), ("refund", "id", 0));
/// ```
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
    /// let mut person = Person::default();
    /// person.intend(&model, Intent::Press { scope: Some(id.clone()), action: "refund".into() });
    /// let choose = |row| Intent::ChooseRow { window: id.clone(), table: table.key.clone(), row, picker: 0 };
    /// person.intend(&model, choose(2));
    /// let rows = person.rows(window, table);
    /// assert_eq!(rows.pickers[0].button("3").0, "Chosen");
    /// assert_eq!(rows.pickers[0].button("4").0, "Choose");
    /// ```
    pub fn button(&self, value: &str) -> (&'static str, bool, String) {
        let chosen = !value.is_empty() && self.current == value;
        let text = if chosen { words::CHOSEN } else { words::CHOOSE };
        (text, chosen, words::choose_value(value, &self.label.0, &self.label.1))
    }
}

/// The rows a table shows now, where they stand, and who picks from them.
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
/// let person = Person::default();
/// let rows = person.rows(window, table);
/// assert_eq!(rows.count, "Rows 1–10 of 30");
/// assert_eq!(rows.paging.unwrap().last, Some(20));
/// assert!(rows.pickers.is_empty(), "no form is open");
/// ```
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
/// let mut person = Person::default();
/// person.intend(&model, Intent::Press { scope: scope.clone(), action: "set".into() });
/// assert!(person.form(&scope, "set").is_some(), "its form is open");
/// person.intend(&model, Intent::Cancel { scope: scope.clone(), action: "set".into() });
/// assert!(person.form(&scope, "set").is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Person {
    pub(crate) forms: BTreeMap<(Scope, String), Typed>,
    pub(crate) confirming: Option<Confirming>,
    pub(crate) pages: HashMap<(String, String), Loaded>,
    pub(crate) refused_rows: HashMap<(String, String), String>,
    pub(crate) failures: HashMap<Scope, Failure>,
}

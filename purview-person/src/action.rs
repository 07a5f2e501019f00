//! An action as the person meets it: a button and, with arguments, a
//! form; and the rule of when it asks "yes or no" first.

use std::sync::Arc;

use purview::{activity::ActionInfo, serde::Serialize};

use crate::{form::Field, words};

/// An action as a button and, with arguments, a form.
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
/// let set = model.action(Some(&id), "set").unwrap();
/// assert_eq!((set.button.as_str(), set.fields.len()), ("Set…", 1));
/// let reset = model.action(Some(&id), "reset").unwrap();
/// assert!(reset.destructive && reset.asks_first);
/// assert_eq!(reset.confirm.as_ref().unwrap().yes, "Yes, reset");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(crate = "purview::serde", rename_all = "camelCase")]
pub struct Action {
    /// Its name.
    pub name: String,
    /// Its title, as the app wrote it.
    pub title: String,
    /// The button's words: the title, and "…" when it opens a form.
    pub button: String,
    /// What it does, as the app wrote it (empty when nothing).
    pub description: String,
    /// Whether it destroys something (drawn as a warning).
    pub destructive: bool,
    /// Whether the person is asked "yes or no" before it runs: a
    /// destructive action outside a modal (a modal is itself the question).
    pub asks_first: bool,
    /// The question it asks first, when it does.
    pub confirm: Option<Confirmation>,
    /// Its form's fields, made once per action type.
    pub fields: Arc<[Field]>,
    /// The action as the scene listed it: what a face calls
    /// ([`ActionInfo::call`]) with the arguments an intent made.
    #[serde(skip)]
    pub info: ActionInfo,
}

impl Action {
    /// Whether a field takes typing, where Enter submits.
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
    /// assert!(model.action(Some(&id), "set").unwrap().is_typed());
    /// assert!(!model.action(Some(&id), "increment").unwrap().is_typed());
    /// ```
    pub fn is_typed(&self) -> bool {
        self.fields.iter().any(|f| f.kind.is_typed())
    }
}

/// The rule of confirmation: a destructive action asks first, except in a
/// modal dialog, which is itself that question.
///
/// ```
/// use purview_person::asks_first;
///
/// assert!(asks_first(true, false));
/// assert!(!asks_first(true, true), "a modal is itself the question");
/// assert!(!asks_first(false, false));
/// ```
pub fn asks_first(destructive: bool, in_modal: bool) -> bool {
    destructive && !in_modal
}

/// The question a destructive action asks, in the person's words.
///
/// ```
/// use purview_person::Confirmation;
///
/// let asked = Confirmation::of("Delete Order", "Deletes the order.");
/// assert_eq!(asked.question, "Delete Order? This cannot be undone.");
/// assert_eq!((asked.yes.as_str(), asked.no.as_str()), ("Yes, delete order", "Do not delete order"));
/// ```
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
    ///
    /// ```
    /// let asked = purview_person::Confirmation::of("Purge", "Forgets every return.");
    /// assert_eq!(asked.description, "Forgets every return.");
    /// ```
    pub fn of(title: &str, description: &str) -> Self {
        Self {
            question: words::confirm_question(title),
            description: description.to_owned(),
            yes: words::confirm_yes(title),
            no: words::confirm_no(title),
        }
    }
}

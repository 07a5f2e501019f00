//! What the person holds, as a face reads it to draw: a form's text, a
//! scope's failure and its sentence, the question waiting, a table's rows
//! with their paging and pickers. Filled by the rules of intend.rs.

use crate::{
    blocks::Table,
    form::Typed,
    paging::Paging,
    person::{Failure, Person, Picker, Rows, Scope},
    view::{Action, Confirmation, Model, Window},
    words,
};

impl Person {
    /// Whether the person holds anything in `scope` (a window's id, or
    /// `None` for the app's own actions): an open form, a failure, a
    /// question asked, a page of rows chosen or a row number refused. A
    /// face draws a scope the person holds nothing in as every person
    /// sees it.
    ///
    /// ```
    /// # use purview::prelude::*;
    /// # use purview_person::*;
    /// # #[window(summary = "Counts to {count}")]
    /// # #[derive(Clone, Default)]
    /// # struct Counter { #[block(field)] count: u32 }
    /// # #[actions]
    /// # impl Counter {
    /// #     /// Count from here.
    /// #     #[action]
    /// #     fn set(&mut self, count: u32) { self.count = count; }
    /// # }
    /// # let app = App::builder().build();
    /// # let id = app.open(Counter::default()).unwrap().id().to_owned();
    /// # let model = Reader::default().read(&app.scene().unwrap(), Around::default());
    /// let scope: Scope = Some(id);
    /// let mut person = Person::default();
    /// assert!(!person.holds(&scope));
    /// person.intend(&model, Intent::Press { scope: scope.clone(), action: "set".into() });
    /// assert!(person.holds(&scope) && !person.holds(&None));
    /// ```
    pub fn holds(&self, scope: &Scope) -> bool {
        let of_window = |(window, _): &(String, String)| scope.as_deref() == Some(window);
        self.forms.keys().any(|(s, _)| s == scope)
            || self.failures.contains_key(scope)
            || self.confirming.as_ref().is_some_and(|c| &c.scope == scope)
            || self.pages.keys().any(of_window)
            || self.refused_rows.keys().any(of_window)
    }

    /// What is typed in the open form of `action` in `scope`, if it is open.
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
    /// let text = "9".to_owned();
    /// person.intend(&model, Intent::Type { scope: scope.clone(), action: "set".into(), field: "count".into(), text });
    /// assert_eq!(person.form(&scope, "set").unwrap()["count"], "9");
    /// ```
    pub fn form(&self, scope: &Scope, action: &str) -> Option<&Typed> {
        self.forms.get(&(scope.clone(), action.to_owned()))
    }

    /// The open forms of `scope`, in the order of its actions.
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
    /// let open = person.open_forms(&scope, &model.windows[0].actions);
    /// assert_eq!(open.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["set"]);
    /// ```
    pub fn open_forms<'a>(&self, scope: &Scope, actions: &'a [Action]) -> Vec<&'a Action> {
        actions.iter().filter(|a| self.form(scope, &a.name).is_some()).collect()
    }

    /// The last failure in `scope`, if the latest call there did not succeed.
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
    /// person.intend(&model, Intent::Submit { scope: scope.clone(), action: "set".into() });
    /// assert!(person.failure(&scope).is_some(), "an empty count is refused before any call");
    /// person.intend(&model, Intent::Cancel { scope: scope.clone(), action: "set".into() });
    /// assert!(person.failure(&scope).is_none(), "a cancelled form's failure goes with it");
    /// ```
    pub fn failure(&self, scope: &Scope) -> Option<&Failure> {
        self.failures.get(scope)
    }

    /// The one sentence `scope`'s failure shows beneath its forms, if any
    /// ([`crate::failure_said`]): nothing when the problems are said under
    /// the fields of the open form the call came from.
    ///
    /// ```
    /// use purview_person::{Intent, Person};
    /// # use purview::prelude::*;
    /// # use purview_person::*;
    /// # #[window(summary = "Counts to {count}")]
    /// # #[derive(Clone, Default)]
    /// # struct Counter { #[block(field)] count: u32 }
    /// # #[actions]
    /// # impl Counter {
    /// #     /// Count from here.
    /// #     #[action]
    /// #     fn set(&mut self, count: u32) { self.count = count; }
    /// # }
    /// # let app = App::builder().build();
    /// # let id = app.open(Counter::default()).unwrap().id().to_owned();
    /// # let model = Reader::default().read(&app.scene().unwrap(), Around::default());
    /// # let scope: Scope = Some(id.clone());
    /// let mut person = Person::default();
    /// person.intend(&model, Intent::Press { scope: scope.clone(), action: "set".into() });
    /// person.intend(&model, Intent::Submit { scope: scope.clone(), action: "set".into() });
    /// assert!(person.failure(&scope).is_some());
    /// assert_eq!(person.failure_said(&scope, &model), None, "the field says it");
    /// ```
    pub fn failure_said(&self, scope: &Scope, model: &Model) -> Option<String> {
        let failure = self.failure(scope)?;
        let form = failure
            .action
            .as_deref()
            .filter(|action| self.form(scope, action).is_some())
            .and_then(|action| model.action(scope.as_deref(), action));
        failure.said(form)
    }

    /// What `scope`'s failure says about `field` of `action`'s form, in
    /// the person's words ("Amount: must be a number").
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
    /// let text = "ten".to_owned();
    /// person.intend(&model, Intent::Type { scope: scope.clone(), action: "set".into(), field: "count".into(), text });
    /// person.intend(&model, Intent::Submit { scope: scope.clone(), action: "set".into() });
    /// let set = model.action(Some(&id), "set").unwrap();
    /// let problem = person.field_problem(&scope, set, "count");
    /// assert_eq!(problem.as_deref(), Some("Count: must be a whole number"));
    /// ```
    pub fn field_problem(&self, scope: &Scope, action: &Action, field: &str) -> Option<String> {
        let failure = self.failure(scope)?;
        if failure.action.as_deref() != Some(&action.name) {
            return None;
        }
        let problem = failure.error.fields.as_ref()?.iter().find(|f| f.field == field)?;
        let label = action.fields.iter().find(|f| f.name == field).map_or(field, |f| &f.label);
        Some(words::field_problem(label, &problem.error))
    }

    /// The question waiting in `scope`, if a destructive action asks one.
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
    /// person.intend(&model, Intent::Press { scope: scope.clone(), action: "reset".into() });
    /// let asked = person.confirmation(&scope).unwrap();
    /// assert_eq!(asked.question, "Reset? This cannot be undone.");
    /// person.intend(&model, Intent::Refuse);
    /// assert!(person.confirmation(&scope).is_none());
    /// ```
    pub fn confirmation(&self, scope: &Scope) -> Option<Confirmation> {
        let asked = self.confirming.as_ref().filter(|c| &c.scope == scope)?;
        let (title, description) = &asked.said;
        Some(Confirmation::of(title, description))
    }

    /// The rows table `key` of `window` shows now, where they stand, and
    /// the open forms that take a value from them.
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
    /// assert_eq!((rows.rows.len(), rows.count.as_str()), (10, "Rows 1–10 of 30"));
    /// ```
    pub fn rows<'a>(&'a self, window: &'a Window, table: &'a Table) -> Rows<'a> {
        let scope = Some(window.id.clone());
        let loaded = self.pages.get(&(window.id.clone(), table.key.clone()));
        let (offset, rows, total) = match loaded {
            Some(page) => (page.offset, page.rows.as_slice(), Some(page.total)),
            None => (table.offset, table.rows.as_slice(), table.total),
        };
        // A table the app's own drawing hands over (`Shown::of`) has no
        // fills: the window's table of the same key says them.
        let model = window.tables().find(|t| t.key == table.key).unwrap_or(table);
        let pickers = model.fills.iter().filter_map(|fill| {
            let typed = self.form(&scope, &fill.action)?;
            Some(Picker {
                action: fill.action.clone(),
                field: fill.field.clone(),
                column: fill.column,
                current: typed.get(&fill.field).cloned().unwrap_or_default(),
                note: fill.note.clone(),
                label: (fill.label.clone(), fill.action_title.clone()),
            })
        });
        let pickers = pickers.collect();
        let paging = total.map(|total| Paging::new(offset, rows.len(), total, table.rows.len()));
        Rows {
            rows,
            count: paging
                .as_ref()
                .map_or_else(|| words::rows_count(rows.len()), |p| p.label.clone()),
            paging: paging.filter(|_| table.loader.is_some()),
            pickers,
            refused: self.refused_rows.get(&(window.id.clone(), table.key.clone())).cloned(),
        }
    }

    pub(crate) fn table_rows<'a>(&'a self, window: &'a Window, key: &str) -> Option<Rows<'a>> {
        let table = window.tables().find(|t| t.key == key)?;
        Some(self.rows(window, table))
    }
}

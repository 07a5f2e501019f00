//! The conductor of the person's side: [`Person::intend`] turns an intent
//! into its effect, [`Person::finished`] takes a call's outcome back, and
//! [`Person::settle`] carries what the person holds through a change.
//! The reads a face draws from (a form's text, a scope's failure, the
//! question waiting, a table's rows) are here too, beside the rules that
//! fill them.

use purview::{
    model::{JsonObject, ToolError},
    projection::PageRequest,
    serde_json::Value,
};

use crate::{
    blocks::{Table, cell},
    form::{Typed, arguments, forget_secrets},
    paging::Paging,
    person::{
        Confirmation, Confirming, Effect, Failure, Intent, Loaded, Person, PersonCall, Picker,
        Rows, Scope,
    },
    view::{Action, Model, Window},
    words,
};

impl Person {
    /// What `intent` does, given what the person sees (`model`).
    ///
    /// ```
    /// use purview::prelude::*;
    /// use purview_person::{Effect, Intent, Person, Reader, Around};
    ///
    /// #[window(summary = "Orders")]
    /// #[derive(Clone, Default)]
    /// struct Orders;
    ///
    /// #[actions]
    /// impl Orders {
    ///     /// Delete every order.
    ///     #[action(destructive)]
    ///     fn clear(&mut self) {}
    /// }
    ///
    /// let app = App::builder().build();
    /// let id = app.open(Orders).unwrap().id().to_owned();
    /// let model = Reader::default().read(&app.scene().unwrap(), Around::default());
    /// let mut person = Person::default();
    /// let press = Intent::Press { scope: Some(id.clone()), action: "clear".into() };
    /// assert_eq!(person.intend(&model, press), Effect::Redraw);
    /// assert!(person.confirmation(&Some(id)).is_some(), "a destructive action asks first");
    /// assert!(matches!(person.intend(&model, Intent::Confirm), Effect::Call(_)));
    /// ```
    pub fn intend(&mut self, model: &Model, intent: Intent) -> Effect {
        match intent {
            Intent::Press { scope, action } => self.press(model, scope, &action),
            Intent::Type { scope, action, field, text } => {
                if let Some(typed) = self.forms.get_mut(&(scope, action)) {
                    typed.insert(field, text);
                }
                Effect::Redraw
            }
            Intent::ChooseRow { window, table, row, picker } => {
                self.choose_row(model, &window, &table, row, picker)
            }
            Intent::Page { window, table, offset } => self.load(model, &window, &table, offset),
            Intent::GoToRow { window, table, typed } => {
                let Some(rows) = model.window(&window).and_then(|w| self.table_rows(w, &table))
                else {
                    return Effect::Redraw;
                };
                let Some(paging) = rows.paging else { return Effect::Redraw };
                match paging.go_to(&typed) {
                    Ok(offset) => {
                        self.refused_rows.remove(&(window.clone(), table.clone()));
                        self.load(model, &window, &table, offset)
                    }
                    Err(why) => {
                        self.refused_rows.insert((window, table), why);
                        Effect::Redraw
                    }
                }
            }
            Intent::Submit { scope, action } => self.submit(model, scope, &action),
            Intent::Confirm => match self.confirming.take() {
                Some(Confirming { scope, action, arguments, .. }) => {
                    Effect::Call(PersonCall { scope, action, arguments, load: None })
                }
                None => Effect::Redraw,
            },
            Intent::Refuse => {
                self.confirming = None;
                Effect::Redraw
            }
            Intent::Cancel { scope, action } => {
                self.forms.remove(&(scope.clone(), action.clone()));
                if self.confirming.as_ref().is_some_and(|c| c.scope == scope && c.action == action)
                {
                    self.confirming = None;
                }
                // The failure of a form the person gave up is no longer news.
                if self.failures.get(&scope).is_some_and(|f| f.action.as_deref() == Some(&action)) {
                    self.failures.remove(&scope);
                }
                Effect::Redraw
            }
            Intent::Approve(id) => Effect::Answer { id, approve: true },
            Intent::Decline(id) => Effect::Answer { id, approve: false },
        }
    }

    fn press(&mut self, model: &Model, scope: Scope, name: &str) -> Effect {
        let Some(action) = model.action(scope.as_deref(), name) else { return Effect::Redraw };
        if !action.fields.is_empty() {
            let key = (scope, name.to_owned());
            if self.forms.remove(&key).is_none() {
                self.forms.insert(key, Typed::new());
            }
            return Effect::Redraw;
        }
        self.run(action, scope, JsonObject::new())
    }

    fn submit(&mut self, model: &Model, scope: Scope, name: &str) -> Effect {
        let Some(action) = model.action(scope.as_deref(), name) else { return Effect::Redraw };
        let Some(typed) = self.forms.get_mut(&(scope.clone(), name.to_owned())) else {
            return Effect::Redraw;
        };
        let made = arguments(&action.fields, typed);
        // A secret typed here goes to the call and nowhere else.
        forget_secrets(&action.fields, typed);
        match made {
            Ok(arguments) => self.run(action, scope, arguments),
            Err(problems) => {
                let failure = Failure {
                    action: Some(name.to_owned()),
                    error: ToolError::validation(problems),
                };
                self.failures.insert(scope, failure);
                Effect::Redraw
            }
        }
    }

    /// Runs `action`, or asks first when it must.
    fn run(&mut self, action: &Action, scope: Scope, arguments: JsonObject) -> Effect {
        if action.asks_first {
            let said = (action.title.clone(), action.description.clone());
            let action = action.name.clone();
            self.confirming = Some(Confirming { scope, action, said, arguments });
            return Effect::Redraw;
        }
        Effect::Call(PersonCall { scope, action: action.name.clone(), arguments, load: None })
    }

    fn choose_row(
        &mut self,
        model: &Model,
        window: &str,
        table: &str,
        row: usize,
        picker: usize,
    ) -> Effect {
        let Some(rows) = model.window(window).and_then(|w| self.table_rows(w, table)) else {
            return Effect::Redraw;
        };
        let (Some(cells), Some(picker)) = (rows.rows.get(row), rows.pickers.get(picker)) else {
            return Effect::Redraw;
        };
        let value = cells.get(picker.column).cloned().unwrap_or_default();
        let (action, field) = (picker.action.clone(), picker.field.clone());
        if let Some(typed) = self.forms.get_mut(&(Some(window.to_owned()), action)) {
            typed.insert(field, value);
        }
        Effect::Redraw
    }

    fn load(&mut self, model: &Model, window: &str, table: &str, offset: usize) -> Effect {
        let Some(view) = model.window(window) else { return Effect::Redraw };
        let Some(block) = view.tables().find(|t| t.key == table) else { return Effect::Redraw };
        let Some(loader) = block.loader.clone() else { return Effect::Redraw };
        let limit = block.rows.len().max(1);
        Effect::Call(PersonCall {
            scope: Some(window.to_owned()),
            action: loader,
            arguments: PageRequest::new(offset, limit).arguments(),
            load: Some((table.to_owned(), view.version)),
        })
    }

    /// Takes back the outcome of a call [`Person::intend`] asked for: a
    /// success clears its scope's failure and closes its form (a page of
    /// rows is kept for its table); a failure is kept for its scope.
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
    /// use purview::serde_json::json;
    ///
    /// let mut person = Person::default();
    /// let page = Intent::Page { window: id.clone(), table: table.key.clone(), offset: 20 };
    /// let Effect::Call(call) = person.intend(&model, page) else { panic!("a load") };
    /// assert_eq!(call.arguments["offset"], 20);
    /// let rows: Vec<_> = (21..=30).map(|i| json!([i, "open"])).collect();
    /// person.finished(&call, Ok(Some(json!({ "offset": 20, "total": 30, "rows": rows }))));
    /// assert_eq!(person.rows(window, table).count, "Rows 21–30 of 30");
    /// ```
    pub fn finished(&mut self, call: &PersonCall, outcome: Result<Option<Value>, ToolError>) {
        match outcome {
            Ok(value) => {
                self.failures.remove(&call.scope);
                self.forms.remove(&(call.scope.clone(), call.action.clone()));
                let (Some(window), Some((table, version))) = (&call.scope, &call.load) else {
                    return;
                };
                match page_of(value.as_ref()) {
                    Some((offset, total, rows)) => {
                        let key = (window.clone(), table.clone());
                        let loaded = Loaded { offset, total, rows, version: *version };
                        self.pages.insert(key, loaded);
                    }
                    None => {
                        let why = words::no_page(&call.action);
                        let error = ToolError::new(purview::model::ErrorCode::ActionFailed, why);
                        self.failures.insert(call.scope.clone(), Failure { action: None, error });
                    }
                }
            }
            Err(error) => {
                let action = Some(call.action.clone()).filter(|_| call.load.is_none());
                self.failures.insert(call.scope.clone(), Failure { action, error });
            }
        }
    }

    /// Carries what the person holds through a change: what belongs to a
    /// closed window or a withdrawn action goes, and a page of rows loaded
    /// before its window changed is loaded again at the same rows (the
    /// calls returned), kept on screen until the fresh page arrives.
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
    /// use purview::serde_json::json;
    ///
    /// let mut person = Person::default();
    /// let page = Intent::Page { window: id.clone(), table: table.key.clone(), offset: 10 };
    /// let Effect::Call(call) = person.intend(&model, page) else { panic!("a load") };
    /// let rows: Vec<_> = (11..=20).map(|i| json!([i, "open"])).collect();
    /// person.finished(&call, Ok(Some(json!({ "offset": 10, "total": 30, "rows": rows }))));
    /// assert!(person.settle(&model).is_empty(), "nothing changed");
    /// app.open(Returns { rows: vec![] }).unwrap(); // another window: this one is unchanged
    /// let model = Reader::default().read(&app.scene().unwrap(), Around::default());
    /// assert!(person.settle(&model).is_empty());
    /// ```
    pub fn settle(&mut self, model: &Model) -> Vec<PersonCall> {
        let open = |scope: &Scope| scope.as_deref().is_none_or(|id| model.window(id).is_some());
        self.forms.retain(|(scope, action), _| {
            open(scope) && model.action(scope.as_deref(), action).is_some()
        });
        self.failures.retain(|scope, _| open(scope));
        if self
            .confirming
            .as_ref()
            .is_some_and(|c| model.action(c.scope.as_deref(), &c.action).is_none())
        {
            self.confirming = None;
        }
        self.pages.retain(|(window, _), _| model.window(window).is_some());
        self.refused_rows.retain(|(window, _), _| model.window(window).is_some());
        let mut again = Vec::new();
        for ((window, table), loaded) in &mut self.pages {
            let Some(view) = model.window(window) else { continue };
            if loaded.version == view.version {
                continue;
            }
            // Asked once per version, whatever the answer.
            loaded.version = view.version;
            let Some(block) = view.tables().find(|t| &t.key == table) else { continue };
            let Some(loader) = block.loader.clone() else { continue };
            let limit = block.rows.len().max(1);
            again.push(PersonCall {
                scope: Some(window.clone()),
                action: loader,
                arguments: PageRequest::new(loaded.offset, limit).arguments(),
                load: Some((table.clone(), view.version)),
            });
        }
        again
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
        let mut pickers = Vec::new();
        for action in &window.actions {
            let Some(typed) = self.form(&scope, &action.name) else { continue };
            for field in action.fields.iter() {
                let Some(from) = field.from.as_ref().filter(|f| f.table == table.key) else {
                    continue;
                };
                pickers.push(Picker {
                    action: action.name.clone(),
                    field: field.name.clone(),
                    column: from.column,
                    current: typed.get(&field.name).cloned().unwrap_or_default(),
                    note: words::choose_row_for(&field.label, &action.title),
                    label: (field.label.clone(), action.title.clone()),
                });
            }
        }
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

    fn table_rows<'a>(&'a self, window: &'a Window, key: &str) -> Option<Rows<'a>> {
        let table = window.tables().find(|t| t.key == key)?;
        Some(self.rows(window, table))
    }
}

/// A load action's page of rows, each row's cells as text.
fn page_of(value: Option<&Value>) -> Option<(usize, usize, Vec<Vec<String>>)> {
    let value = value?;
    let offset = usize::try_from(value.get("offset")?.as_u64()?).ok()?;
    let total = usize::try_from(value.get("total")?.as_u64()?).ok()?;
    let rows = value.get("rows")?.as_array()?;
    let rows = rows
        .iter()
        .map(|row| match row {
            Value::Array(cells) => Some(cells.iter().map(cell).collect()),
            _ => None,
        })
        .collect::<Option<Vec<Vec<String>>>>()?;
    Some((offset, total, rows))
}

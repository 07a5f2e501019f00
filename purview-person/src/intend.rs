//! The conductor of the person's side: [`Person::intend`] turns an intent
//! into its effect, [`Person::finished`] takes a call's outcome back, and
//! [`Person::settle`] carries what the person holds through a change.
//! The reads a face draws from are in held.rs.

use purview::{
    model::{JsonObject, ToolError},
    projection::PageRequest,
    serde_json::Value,
};

use crate::{
    blocks::cell,
    form::{Typed, arguments, forget_secrets},
    person::{Confirming, Effect, Failure, Intent, Loaded, Person, PersonCall, Scope},
    view::{Action, Model},
    words,
};

/// The most text, in bytes, one field keeps of what the person types
/// ([`Intent::Type`]); more is not taken.
///
/// ```
/// assert_eq!(purview_person::MAX_TYPED, 65_536);
/// ```
pub const MAX_TYPED: usize = 65_536;

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
                // Only a field the form has, and no more text than a field
                // holds: what a face reports is kept, nothing beside it.
                let has = model
                    .action(scope.as_deref(), &action)
                    .is_some_and(|a| a.fields.iter().any(|f| f.name == field));
                if has
                    && text.len() <= MAX_TYPED
                    && let Some(typed) = self.forms.get_mut(&(scope, action))
                {
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

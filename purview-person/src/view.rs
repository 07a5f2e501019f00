//! The model of what the person sees, made once per change from the app's
//! scene: every window with its name, summary, cues, blocker, approval
//! questions, blocks in the person's words and actions with their forms;
//! the app's own actions and questions; which window is the app-level
//! modal; and what the agent did last, naming the window by its title.
//!
//! [`Reader`] keeps what the last change made, so a window the app shares
//! unchanged, and an action type's form, are not made again.

use std::{collections::HashMap, sync::Arc};

use purview::{
    activity::{ActionInfo, AgentActivity, Scene, SceneWindow},
    approval::PendingApproval,
    serde::Serialize,
};

pub use crate::{
    action::{Action, Confirmation, asks_first},
    question::Question,
};
use crate::{
    blocks::{Shown, Table, shown},
    form::{Field, fields},
    question::{question, questions},
    words,
};

/// One window as the person sees it.
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
/// let window = model.window(&id).unwrap();
/// assert_eq!((window.name.as_str(), window.summary.as_deref()), ("Counter", Some("Counts to 0")));
/// assert!(window.operable && window.blocker.is_none() && window.cue.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(crate = "purview::serde", rename_all = "camelCase")]
pub struct Window {
    /// Its id, as agents know it (never shown as its name).
    pub id: String,
    /// Its title, as the app wrote it.
    pub title: String,
    /// How the person reads it elsewhere: its title, numbered when two
    /// open windows share it.
    pub name: String,
    /// Its version: a face keys what it keeps per window on it.
    pub version: u64,
    /// Its summary, as the app wrote it.
    pub summary: Option<String>,
    /// Whether it is a modal dialog.
    pub modal: bool,
    /// "Dialog of Order Editor", for a modal with an owner.
    pub owner: Option<String>,
    /// Whether it may be operated now.
    pub operable: bool,
    /// "Blocked by …", while it may not.
    pub blocker: Option<String>,
    /// "Agent is working here" or "Agent is waiting for your approval".
    pub cue: Option<String>,
    /// Whether the agent is here (the cue's colour).
    pub agent_here: bool,
    /// The questions asked about this window.
    pub questions: Vec<Question>,
    /// Its blocks in the person's words.
    pub blocks: Vec<Shown>,
    /// Its actions for the bar: the available ones, or while it is
    /// blocked, those it had when last operable (drawn disabled, so the
    /// window does not jump). A table's load action is left to its pager.
    pub actions: Vec<Action>,
    /// The actions its tables page with (their pagers' buttons).
    #[serde(skip)]
    pub loaders: Vec<Action>,
    /// Its line in the list of open windows.
    pub line: String,
}

impl Window {
    /// Its tables.
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
    /// assert_eq!(window.tables().count(), 1);
    /// ```
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.blocks.iter().filter_map(|b| match b {
            Shown::Table(table) => Some(&**table),
            _ => None,
        })
    }
}

/// Everything the person sees, made once per change.
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
/// assert_eq!(model.windows.len(), 1);
/// assert!(model.app_modal.is_none() && model.agent_last.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(crate = "purview::serde", rename_all = "camelCase")]
pub struct Model {
    /// Every open window.
    pub windows: Vec<Arc<Window>>,
    /// The app's own actions.
    pub app_actions: Vec<Action>,
    /// Whether they may be used now (no app-level modal withholds them).
    pub app_actions_enabled: bool,
    /// The app-level modal: a modal without an owner that may be operated,
    /// while everything else waits for it.
    pub app_modal: Option<String>,
    /// Questions about no open window.
    pub questions: Vec<Question>,
    /// "Agent last: submit in Order Editor".
    pub agent_last: Option<String>,
    /// The window an agent's focus request last named, and its serial.
    pub focus: Option<(String, u64)>,
}

impl Model {
    /// The window with id `id`.
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
    /// assert_eq!(model.window(&id).unwrap().title, "Counter");
    /// assert!(model.window("no such window").is_none());
    /// ```
    pub fn window(&self, id: &str) -> Option<&Window> {
        self.windows.iter().find(|w| w.id == id).map(|w| &**w)
    }

    /// The action `name` of `scope` (a window, or `None` for the app's
    /// own), a table's loader included.
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
    /// assert_eq!(model.action(Some(&id), "increment").unwrap().title, "Increment");
    /// assert!(model.action(None, "increment").is_none(), "not an action of the app's own");
    /// ```
    pub fn action(&self, scope: Option<&str>, name: &str) -> Option<&Action> {
        match scope {
            Some(id) => {
                let window = self.window(id)?;
                window.actions.iter().chain(&window.loaders).find(|a| a.name == name)
            }
            None => self.app_actions.iter().find(|a| a.name == name),
        }
    }
}

/// What the last change made, kept so the next makes only what changed.
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
/// let mut reader = Reader::default();
/// let scene = app.scene().unwrap();
/// let first = reader.read(&scene, Around::default());
/// let again = reader.read(&scene, Around::default());
/// assert!(std::sync::Arc::ptr_eq(&first.windows[0], &again.windows[0]), "not made again");
/// ```
#[derive(Default)]
pub struct Reader {
    /// Each action type's form, by its schema (shared by every window of
    /// the type) and sources.
    forms: HashMap<usize, Form>,
    /// Each window's actions when it was last operable.
    last_operable: HashMap<Option<String>, Vec<Action>>,
    /// Each window's table loaders when it was last operable: a blocked
    /// window's pager is drawn disabled, not taken away.
    last_loaders: HashMap<String, Vec<Action>>,
    /// Each window as the scene last shared it, what else its model
    /// depended on, and the model made: a window shared unchanged is not
    /// made again.
    windows: HashMap<String, (Arc<SceneWindow>, Depends, Arc<Window>)>,
}

/// An action type's form: its schema (kept, so its address stays its
/// own), its sources, and the fields made of them.
type Form = (Arc<purview::model::JsonObject>, Vec<purview::activity::ArgumentSource>, Arc<[Field]>);

/// What a window's model depends on besides its scene window.
#[derive(PartialEq)]
struct Depends {
    name: String,
    blocker: Option<String>,
    owner: Option<String>,
    questions: Vec<Question>,
    agent_here: bool,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader").field("forms", &self.forms.len()).finish_non_exhaustive()
    }
}

/// What besides the scene the model shows.
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
/// let pending = Vec::new();
/// let around = Around { pending: &pending, activity: None };
/// assert!(Reader::default().read(&app.scene().unwrap(), around).questions.is_empty());
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Around<'a> {
    /// The approval questions waiting for this person.
    pub pending: &'a [PendingApproval],
    /// What the agent did last.
    pub activity: Option<&'a AgentActivity>,
}

impl Reader {
    /// The model of `scene`.
    ///
    /// ```
    /// use purview::prelude::*;
    ///
    /// #[window(summary = "Counts to {count}")]
    /// #[derive(Clone, Default)]
    /// struct Counter { #[block(field)] count: u32 }
    ///
    /// #[actions]
    /// impl Counter {
    ///     /// Count one more.
    ///     #[action]
    ///     fn increment(&mut self) { self.count += 1; }
    /// }
    ///
    /// let app = App::builder().build();
    /// app.open(Counter::default()).unwrap();
    /// let mut reader = purview_person::Reader::default();
    /// let model = reader.read(&app.scene().unwrap(), purview_person::Around::default());
    /// assert_eq!(model.windows[0].name, "Counter");
    /// assert_eq!(model.windows[0].actions[0].button, "Increment");
    /// ```
    pub fn read(&mut self, scene: &Scene, around: Around<'_>) -> Model {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let names: Vec<String> = scene
            .windows
            .iter()
            .map(|w| {
                let count = seen.entry(w.state.title.as_str()).or_default();
                *count += 1;
                if *count == 1 {
                    w.state.title.clone()
                } else {
                    format!("{} ({count})", w.state.title)
                }
            })
            .collect();
        let name_of = |id: &str| {
            scene.windows.iter().position(|w| w.state.id == id).map(|i| names[i].clone())
        };
        let windows = self.windows(scene, &names, &name_of, around);
        let open = |id: &str| scene.windows.iter().any(|w| w.state.id == id);
        let app_modal = scene
            .windows
            .iter()
            .find(|w| w.state.modal && w.state.owner_id.is_none() && w.operable)
            .map(|w| w.state.id.clone());
        let app_actions = match &scene.app_actions {
            Some(listed) => {
                let made = self.actions(listed, false);
                self.last_operable.insert(None, made.clone());
                made
            }
            None => self.last_operable.get(&None).cloned().unwrap_or_default(),
        };
        Model {
            windows,
            app_actions,
            app_actions_enabled: scene.app_actions.is_some(),
            app_modal,
            questions: around
                .pending
                .iter()
                .filter(|p| p.request.window_id.as_deref().is_none_or(|w| !open(w)))
                .map(question)
                .collect(),
            agent_last: around.activity.map(|a| {
                let window =
                    a.window.as_deref().map(|id| name_of(id).unwrap_or_else(|| id.to_owned()));
                words::agent_last(&a.action, window.as_deref())
            }),
            focus: around.activity.and_then(|a| a.focus_request.clone()),
        }
    }

    /// Every window's model: the last one where nothing it depends on changed.
    fn windows(
        &mut self,
        scene: &Scene,
        names: &[String],
        name_of: &dyn Fn(&str) -> Option<String>,
        around: Around<'_>,
    ) -> Vec<Arc<Window>> {
        let agent_window = around.activity.and_then(|a| a.window.as_deref());
        let windows: Vec<Arc<Window>> = scene
            .windows
            .iter()
            .zip(names)
            .map(|(window, name)| {
                let depends = Depends {
                    name: name.clone(),
                    blocker: window.blocked_by.as_deref().and_then(name_of),
                    owner: window.state.owner_id.as_deref().and_then(name_of),
                    questions: questions(around.pending, Some(&window.state.id)),
                    agent_here: agent_window == Some(window.state.id.as_str()),
                };
                if let Some((seen, was, made)) = self.windows.get(&window.state.id)
                    && Arc::ptr_eq(seen, window)
                    && *was == depends
                {
                    return made.clone();
                }
                let made = Arc::new(self.window(window, &depends));
                self.windows
                    .insert(window.state.id.clone(), (window.clone(), depends, made.clone()));
                made
            })
            .collect();
        if self.windows.len() > windows.len() {
            // Some window closed: forget what was kept for it.
            let open: std::collections::HashSet<&str> =
                windows.iter().map(|w| w.id.as_str()).collect();
            self.windows.retain(|id, _| open.contains(id.as_str()));
            self.last_loaders.retain(|id, _| open.contains(id.as_str()));
            self.last_operable
                .retain(|scope, _| scope.as_deref().is_none_or(|id| open.contains(id)));
        }
        windows
    }

    fn window(&mut self, window: &SceneWindow, depends: &Depends) -> Window {
        let Depends { name, blocker, owner, questions, agent_here } = depends;
        let (name, questions, agent_here) = (name.clone(), questions.clone(), *agent_here);
        let state = &window.state;
        let scope = Some(state.id.clone());
        let listed = self.actions(&window.actions, state.modal);
        let loads = |a: &Action| window.paged_by.iter().any(|(_, loader)| *loader == a.name);
        let (loaders, bar): (Vec<Action>, Vec<Action>) = listed.into_iter().partition(loads);
        let (actions, loaders) = if window.operable {
            self.last_operable.insert(scope, bar.clone());
            self.last_loaders.insert(state.id.clone(), loaders.clone());
            (bar, loaders)
        } else {
            let kept = self.last_loaders.get(&state.id).cloned().unwrap_or(loaders);
            (self.last_operable.get(&scope).cloned().unwrap_or(bar), kept)
        };
        let loader = |table: &str| {
            let name = window.paged_by.iter().find(|(block, _)| block == table)?.1.clone();
            loaders.iter().any(|a| a.name == name).then_some(name)
        };
        let mut blocks: Vec<Shown> =
            state.blocks.iter().enumerate().map(|(i, b)| shown(b, i, loader)).collect();
        for block in &mut blocks {
            if let Shown::Table(table) = block {
                table.fills = crate::blocks::Fill::of(&actions, &table.key);
            }
        }
        let blocker = (!window.operable).then(|| words::blocked_by(blocker.as_deref()));
        let cue = if !questions.is_empty() {
            Some(words::WAITING_FOR_YOU.to_owned())
        } else {
            agent_here.then(|| words::AGENT_HERE.to_owned())
        };
        let agent_here = agent_here || !questions.is_empty();
        let mut line = name.clone();
        if !window.operable {
            line = format!("{line}  {}", words::BLOCKED_SHORT);
        }
        if agent_here {
            line = format!("{line}  {}", words::AGENT_HERE_SHORT);
        }
        Window {
            id: state.id.clone(),
            title: state.title.clone(),
            name,
            version: state.version,
            summary: state.summary.clone().filter(|s| !s.trim().is_empty()),
            modal: state.modal,
            owner: owner.as_deref().map(words::dialog_of),
            operable: window.operable,
            blocker,
            cue,
            agent_here,
            questions,
            blocks,
            actions,
            loaders,
            line,
        }
    }

    /// `listed` as buttons and forms; each action type's form read once.
    fn actions(&mut self, listed: &[ActionInfo], in_modal: bool) -> Vec<Action> {
        listed
            .iter()
            .map(|info| {
                let key = Arc::as_ptr(&info.input_schema) as usize;
                let fields = match self.forms.get(&key) {
                    Some((_, sources, made)) if *sources == info.sources => made.clone(),
                    _ => {
                        let made: Arc<[Field]> = fields(info).into();
                        let kept = (info.input_schema.clone(), info.sources.clone(), made.clone());
                        self.forms.insert(key, kept);
                        made
                    }
                };
                let button = if fields.is_empty() {
                    info.title.clone()
                } else {
                    format!("{}{}", info.title, words::OPENS_FORM)
                };
                Action {
                    name: info.name.clone(),
                    title: info.title.clone(),
                    button,
                    description: info.description.clone(),
                    destructive: info.destructive,
                    asks_first: asks_first(info.destructive, in_modal),
                    confirm: asks_first(info.destructive, in_modal)
                        .then(|| Confirmation::of(&info.title, &info.description)),
                    fields,
                    info: info.clone(),
                }
            })
            .collect()
    }
}

//! The registry: open windows, their projections and versions, and the
//! published tool set. Everything here runs under the state lock.

use std::{
    any::TypeId,
    collections::{BTreeMap, HashMap, HashSet},
    num::NonZeroU64,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::Arc,
};

use serde::Serialize;
use serde_json::value::RawValue;

use super::{
    Change,
    actor::Actor,
    spec::{Level, TypeKey, TypeSpec},
    topology::{self, Node, Placement, Topology},
};
use crate::{
    View,
    model::{Block, Next, Snapshot, WindowState},
    naming,
};

/// One open window.
pub(crate) struct Entry {
    pub id: Arc<str>,
    pub seq: u64,
    pub modal: bool,
    pub owner: Option<Arc<str>>,
    pub name: Option<String>,
    pub actor: Actor,
    pub title: Box<str>,
    pub summary: Option<Box<str>>,
    /// The blocks as `app://windows` publishes them: their JSON, which
    /// takes a fraction of the memory of the block values it was made
    /// from, and goes into a read as it is.
    pub blocks: Box<RawValue>,
    pub version: u64,
    /// The content as the GUI's scene shows it, read back from `blocks`
    /// on the first scene after the content changed.
    pub shown: std::sync::OnceLock<Arc<WindowState>>,
}

impl Entry {
    /// Re-projects; bumps the version only if summary or blocks changed.
    /// Returns whether anything in the resource changed (title included).
    pub fn reproject(&mut self) -> bool {
        let vm = &self.actor.vm;
        let projected = catch_unwind(AssertUnwindSafe(|| {
            let mut view = View::default();
            vm.project(&mut view);
            (vm.title(), view.into_parts())
        }));
        let Ok((title, (summary, blocks))) = projected else {
            tracing::error!(window = %self.id, "projection panicked; keeping the previous content");
            return false;
        };
        // Compare what would be published, so duplicate ids do not make
        // every projection look new.
        let blocks = match serde_json::value::to_raw_value(&dedupe_block_ids(&self.id, blocks)) {
            Ok(blocks) => blocks,
            Err(e) => {
                // Blocks hold only JSON values and strings; this cannot fail.
                tracing::error!(window = %self.id, error = %e, "blocks are not JSON; keeping the previous content");
                return false;
            }
        };
        let content_changed =
            summary.as_deref() != self.summary.as_deref() || blocks.get() != self.blocks.get();
        let title_changed = *title != *self.title;
        if content_changed {
            self.version += 1;
            self.summary = summary.map(String::into_boxed_str);
            self.blocks = blocks;
        }
        if title_changed {
            self.title = title.into_boxed_str();
        }
        if content_changed || title_changed {
            self.shown = std::sync::OnceLock::new();
        }
        content_changed || title_changed
    }

    /// The window as the GUI's scene shows it: the settled projection.
    pub fn shown(&self) -> Arc<WindowState> {
        self.shown.get_or_init(|| Arc::new(self.state())).clone()
    }

    /// The window as `app://windows` shows it, as a value.
    pub fn state(&self) -> WindowState {
        WindowState {
            id: self.id.to_string(),
            title: self.title.to_string(),
            modal: self.modal,
            owner_id: self.owner.as_deref().map(str::to_owned),
            version: self.version,
            summary: self.summary.as_deref().map(str::to_owned),
            blocks: self.blocks(),
        }
    }

    /// The blocks as values (for the typed snapshot).
    pub fn blocks(&self) -> Vec<Block> {
        serde_json::from_str(self.blocks.get()).unwrap_or_else(|e| {
            // They were written from blocks; this cannot fail.
            tracing::error!(window = %self.id, error = %e, "stored blocks do not read back");
            Vec::new()
        })
    }
}

/// The JSON of no blocks.
fn no_blocks() -> Box<RawValue> {
    // A literal empty array is JSON.
    RawValue::from_string("[]".to_owned()).unwrap_or_else(|_| unreachable!("`[]` is JSON"))
}

pub(super) fn dedupe_block_ids(window: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    if !has_duplicate_ids(&blocks) {
        return blocks;
    }
    let mut seen = HashSet::new();
    for block in &mut blocks {
        if let Some(id) = &mut block.id
            && !seen.insert(id.clone())
        {
            tracing::warn!(window, block = %id, "duplicate block id in one projection; suffixing it");
            let mut n = 2;
            while !seen.insert(format!("{id}_{n}")) {
                n += 1;
            }
            *id = format!("{id}_{n}");
        }
    }
    blocks
}

/// Whether two blocks share an id: the rare case, found without copying
/// any id.
fn has_duplicate_ids(blocks: &[Block]) -> bool {
    fn id(block: &Block) -> Option<&str> {
        block.id.as_deref()
    }
    if blocks.len() <= 16 {
        blocks.iter().enumerate().any(|(i, block)| {
            id(block).is_some_and(|own| blocks[..i].iter().any(|b| id(b) == Some(own)))
        })
    } else {
        let mut seen = HashSet::new();
        !blocks.iter().filter_map(id).all(|own| seen.insert(own))
    }
}

/// A published tool: an action of an operable window or of the app. Its
/// name is made when it is listed (`name`): window ids are never reused, so
/// two lists of tools are the same exactly when their names are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ToolRef {
    /// The window's `seq`; `None` for an app-level action.
    pub window: Option<std::num::NonZeroU64>,
    pub action: u32,
}

/// The whole state behind the lock.
#[derive(Default)]
pub(crate) struct State {
    /// Boxed: a B-tree node holds eleven values and is often half full,
    /// and an entry is a few hundred bytes.
    pub windows: BTreeMap<u64, Box<Entry>>,
    pub by_id: HashMap<Arc<str>, u64>,
    pub by_name: HashMap<String, u64>,
    pub ids_used: HashSet<Arc<str>>,
    pub app: Option<Actor>,
    pub types: HashMap<(TypeId, Level), Result<Arc<TypeSpec>, String>>,
    pub operable: Vec<Arc<str>>,
    pub tools: Vec<ToolRef>,
    /// The tools as they were before the last `settle`, when it changed
    /// them: what [`State::changed_next`] compares with. Cleared once the
    /// mutation that settled is answered (`Shared::mutate_and`).
    pub tools_before: Option<Vec<ToolRef>>,
    /// Actions the app requires approval for beyond their own specs.
    pub required_approvals: Vec<(TypeId, String)>,
    /// The answers kept until the next change (`reads.rs`).
    pub reads: super::kept::Reads,
    /// How many times the windows were serialized for agents (a read of
    /// `app://windows` or `app__read_windows`): what a GUI that redraws
    /// often must not add to ([`App::windows_serialized`](crate::App)).
    pub windows_serialized: std::sync::atomic::AtomicU64,
}

/// What a mutation touched, so `settle` re-derives only that.
#[derive(Debug, Default)]
pub(crate) struct Touched {
    pub windows: Vec<u64>,
    pub app: bool,
    pub topology: bool,
}

impl State {
    pub fn entry_by_id(&self, id: &str) -> Option<&Entry> {
        self.by_id.get(id).and_then(|seq| self.windows.get(seq)).map(|e| &**e)
    }

    pub fn entry_by_id_mut(&mut self, id: &str) -> Option<&mut Entry> {
        let seq = *self.by_id.get(id)?;
        self.windows.get_mut(&seq).map(|e| &mut **e)
    }

    pub fn topology(&self) -> Topology<'_> {
        Topology::new(self.nodes())
    }

    fn nodes(&self) -> impl Iterator<Item = Node<'_>> {
        self.windows.values().map(|e| Node {
            id: &e.id,
            seq: e.seq,
            modal: e.modal,
            owner: e.owner.as_deref(),
        })
    }

    pub fn is_operable(&self, id: &str) -> bool {
        self.operable.iter().any(|o| &**o == id)
    }

    /// Whether the app's own actions are offered now (§10.2, decided in
    /// `topology.rs`).
    pub fn app_actions_operable(&self) -> bool {
        topology::app_actions_operable(self.nodes())
    }

    /// The compiled actions of the type `key` names, compiled on first use.
    pub fn type_spec(&mut self, key: TypeKey) -> Result<Arc<TypeSpec>, String> {
        self.types
            .entry((key.id, key.level))
            .or_insert_with(|| {
                let required: Vec<&str> = self
                    .required_approvals
                    .iter()
                    .filter(|(t, _)| *t == key.id)
                    .map(|(_, action)| action.as_str())
                    .collect();
                catch_unwind(AssertUnwindSafe(key.actions))
                    .map_err(|_| format!("`{}::actions()` panicked", key.name))
                    .map(|specs| {
                        specs
                            .into_iter()
                            .map(|s| if required.contains(&s.name()) { s.approval() } else { s })
                            .collect()
                    })
                    .and_then(|specs| TypeSpec::compile(key.name, specs, key.level, key.paged_by))
                    .map(Arc::new)
            })
            .clone()
    }

    /// Chooses the external id: the app's own name when it is name-safe and
    /// fresh, a generated handle otherwise (§10.4, §12.4).
    pub fn choose_id(&self, seq: u64, name: Option<&str>) -> Arc<str> {
        if let Some(name) = name
            && naming::is_name_safe_id(name)
            && !self.ids_used.contains(name)
        {
            return Arc::from(name);
        }
        Arc::from(naming::window_id(seq))
    }

    /// Inserts a window. The caller has checked the owner exists.
    pub fn insert(
        &mut self,
        seq: u64,
        id: Arc<str>,
        name: Option<String>,
        actor: Actor,
        placement: Placement,
    ) {
        let (modal, owner) = match placement {
            Placement::TopLevel => (false, None),
            // Stack on the owner's chain so a chain stays a chain.
            Placement::Modal { owner } => {
                let top: Arc<str> = Arc::from(self.topology().top_of(&owner));
                (true, Some(top))
            }
            Placement::AppModal => (true, None),
        };
        let mut entry = Entry {
            id: id.clone(),
            seq,
            modal,
            owner,
            name: name.clone(),
            actor,
            title: Box::from(""),
            summary: None,
            blocks: no_blocks(),
            version: 0,
            shown: std::sync::OnceLock::new(),
        };
        self.reads.projected();
        entry.reproject();
        entry.version = entry.version.max(1);
        self.ids_used.insert(id.clone());
        self.by_id.insert(id, seq);
        if let Some(name) = name {
            self.by_name.insert(name, seq);
        }
        self.windows.insert(seq, Box::new(entry));
    }

    /// Closes a window and every modal that depends on it; returns the
    /// closed ids, the window itself first.
    pub fn close_cascade(&mut self, id: &str) -> Vec<Arc<str>> {
        let windows = self.windows.values().map(|e| (&*e.id, e.owner.as_deref()));
        let seqs: Vec<u64> = topology::closed_with(id, windows)
            .into_iter()
            .filter_map(|id| self.by_id.get(id).copied())
            .collect();
        let mut closed = Vec::with_capacity(seqs.len());
        for seq in seqs {
            let Some(entry) = self.windows.remove(&seq) else { continue };
            self.by_id.remove(&entry.id);
            if let Some(name) = &entry.name {
                self.by_name.remove(name);
            }
            closed.push(entry.id);
        }
        closed
    }

    /// Re-derives everything downstream of a mutation: projections, versions,
    /// availability, operability and the tool set. Returns what changed.
    pub fn settle(&mut self, touched: Touched) -> Change {
        let mut change = Change { resource: touched.topology, ..Change::default() };
        let mut availability_changed = touched.topology;
        for seq in &touched.windows {
            if let Some(entry) = self.windows.get_mut(seq) {
                self.reads.projected();
                change.resource |= entry.reproject();
                availability_changed |= entry.actor.refresh_availability();
            }
        }
        if touched.app
            && let Some(app) = &mut self.app
        {
            availability_changed |= app.refresh_availability();
        }
        if touched.topology {
            let operable: Vec<Arc<str>> =
                self.topology().operable().into_iter().map(Arc::from).collect();
            // §6: a change of the operable set is a tools/list_changed even
            // when the windows involved have no actions.
            change.tools |= operable != self.operable;
            self.operable = operable;
        }
        self.tools_before = None;
        if availability_changed {
            let tools = self.compute_tools();
            if tools != self.tools {
                change.tools = true;
                self.tools_before = Some(std::mem::replace(&mut self.tools, tools));
            }
        }
        if change.resource || change.tools {
            self.reads.forget(&touched.windows, touched.topology);
            change.scene = true;
        } else if availability_changed {
            self.reads.forget_scene(&touched.windows, touched.topology);
            change.scene = true;
        }
        change
    }

    fn compute_tools(&self) -> Vec<ToolRef> {
        let mut tools = Vec::new();
        for id in &self.operable {
            let Some(entry) = self.entry_by_id(id) else {
                continue;
            };
            let window = std::num::NonZeroU64::new(entry.seq);
            for (i, on) in entry.actor.available.iter().enumerate() {
                if *on {
                    tools.push(ToolRef { window, action: i as u32 });
                }
            }
        }
        if let Some(app) = &self.app
            && self.app_actions_operable()
        {
            for (i, on) in app.available.iter().enumerate() {
                if *on {
                    tools.push(ToolRef { window: None, action: i as u32 });
                }
            }
        }
        tools.shrink_to_fit();
        tools
    }

    /// A published tool's name: `{windowId}__{action}` or `app__{action}`.
    pub fn tool_name(&self, tool: &ToolRef) -> Option<String> {
        let index = tool.action as usize;
        match tool.window {
            Some(seq) => {
                let entry = self.windows.get(&seq.get())?;
                Some(naming::tool_name(&entry.id, &entry.actor.spec.actions.get(index)?.spec.name))
            }
            None => {
                let action = self.app.as_ref()?.spec.actions.get(index)?;
                Some(naming::tool_name(naming::APP, &action.spec.name))
            }
        }
    }

    /// Serializes `app://windows` from the registry, bypassing the cache.
    pub fn render_snapshot_json(&self) -> String {
        self.windows_serialized.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let snapshot = SnapshotRef {
            operable_window_ids: &self.operable,
            windows: WindowsRef(self.windows.values().map(|e| &**e).collect()),
        };
        serde_json::to_string(&snapshot).unwrap_or_else(|e| {
            // Blocks hold only serde_json::Value and strings; this cannot fail.
            tracing::error!(error = %e, "snapshot serialization failed");
            r#"{"operableWindowIds":[],"windows":[]}"#.to_owned()
        })
    }
}

impl State {
    /// `app://windows` as a value, built from the registry.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            operable_window_ids: self.operable.iter().map(|id| id.to_string()).collect(),
            windows: self.windows.values().map(|e| e.state()).collect(),
        }
    }

    /// What can be operated now: each operable window's available action
    /// names, and the app's while no app-level modal is open.
    pub fn next(&self) -> Next {
        self.next_for(|_| true, false)
    }

    /// What a successful call changed of what can be operated (§5.4: a
    /// result carries its direct effects): the whole `operableWindowIds`,
    /// and the available action names of each operable window (and of the
    /// app) whose actions the last `settle` changed, an empty list for one
    /// that has none left. A window opened or unblocked by the call is
    /// among them whenever it has actions; every other operable window
    /// offers what it did before the call.
    pub fn changed_next(&self) -> Next {
        let Some(before) = &self.tools_before else {
            return self.next_for(|_| false, true);
        };
        let (before, now) = (by_window(before), by_window(&self.tools));
        self.next_for(|window| before.get(&window) != now.get(&window), true)
    }

    /// The whole `operableWindowIds`, and the action names of the operable
    /// windows (`None`: the app) `wanted` picks; with `keep_empty`, a
    /// picked window with none available is listed with an empty list.
    fn next_for(&self, wanted: impl Fn(Option<NonZeroU64>) -> bool, keep_empty: bool) -> Next {
        let mut next = Next::default();
        let mut add = |id: &str, names: Vec<String>| {
            if keep_empty || !names.is_empty() {
                next.actions.insert(id.to_owned(), names);
            }
        };
        for id in &self.operable {
            if let Some(entry) = self.entry_by_id(id)
                && wanted(NonZeroU64::new(entry.seq))
            {
                add(id, entry.actor.available_names().map(str::to_owned).collect());
            }
        }
        if let Some(app) = &self.app
            && self.app_actions_operable()
            && wanted(None)
        {
            add(naming::APP, app.available_names().map(str::to_owned).collect());
        }
        next.operable_window_ids = self.operable.iter().map(|id| id.to_string()).collect();
        next
    }
}

/// `tools` by window: each window's (and the app's, under `None`) run of
/// actions, which `compute_tools` lists one after another.
fn by_window(tools: &[ToolRef]) -> HashMap<Option<NonZeroU64>, &[ToolRef]> {
    let mut runs = HashMap::new();
    for run in tools.chunk_by(|a, b| a.window == b.window) {
        if let Some(first) = run.first() {
            runs.insert(first.window, run);
        }
    }
    runs
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SnapshotRef<'a> {
    operable_window_ids: &'a [Arc<str>],
    windows: WindowsRef<'a>,
}

/// Windows serialized as `app://windows` shows them, without copying.
pub(super) struct WindowsRef<'a>(Vec<&'a Entry>);

impl<'a> From<Vec<&'a Entry>> for WindowsRef<'a> {
    fn from(entries: Vec<&'a Entry>) -> Self {
        Self(entries)
    }
}

impl From<WindowsRef<'_>> for serde_json::Value {
    fn from(windows: WindowsRef<'_>) -> Self {
        // Blocks hold only JSON values and strings; this cannot fail.
        serde_json::to_value(windows).unwrap_or_default()
    }
}

impl Serialize for WindowsRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|e| WindowRef {
            id: &e.id,
            title: &e.title,
            modal: e.modal,
            owner_id: e.owner.as_deref(),
            version: e.version,
            summary: e.summary.as_deref(),
            blocks: &e.blocks,
        }))
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WindowRef<'a> {
    id: &'a str,
    title: &'a str,
    modal: bool,
    owner_id: Option<&'a str>,
    version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    blocks: &'a RawValue,
}

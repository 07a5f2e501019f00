//! The state every handle of one application shares, and
//! [`Shared::mutate`]: the single choke point through which both flows — an
//! agent's call committing and a person's edit — change it. [`App`](crate::App)
//! is the public handle to it, and the context a handler gets reaches it
//! as a [`Stage`].

use crate::{
    lock::{lock_unpoisoned, read_unpoisoned, write_unpoisoned},
    model::ToolDefinition,
    settings::ToolSurface,
};
use std::{
    any::{Any, TypeId},
    sync::{
        Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use super::{
    AgentActivity, Approver, Change, Error,
    actor::Actor,
    broadcast::{ChangeHub, Pacing},
    config::Config,
    registry::{State, Touched},
    scene::Scene,
    spec::{Level, TypeKey, TypeSpec},
    topology::Placement,
};
use crate::window::{AsWindow, DynActions, Window, context::Stage};

thread_local! {
    /// The apps whose state lock this thread holds, so a callback that calls
    /// back into the same app gets [`Error::Reentrant`] instead of a
    /// deadlock (another app is fine).
    static HELD: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How long one session may take to accept a notification before it is
/// dropped.
const STALL_LIMIT: Duration = Duration::from_secs(10);

/// This thread's mark that it holds an app's state lock, taken with the
/// lock and dropped with it.
struct Held(usize);

impl Held {
    /// Marks `app` held by this thread, or [`Error::Reentrant`] if it
    /// already is (a Purview callback calling back into the same app).
    fn mark(app: usize) -> Result<Self, Error> {
        HELD.with(|held| {
            let mut held = held.borrow_mut();
            if held.contains(&app) {
                return Err(Error::Reentrant);
            }
            held.push(app);
            Ok(Self(app))
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.with(|held| {
            let mut held = held.borrow_mut();
            if let Some(i) = held.iter().rposition(|a| *a == self.0) {
                held.remove(i);
            }
        });
    }
}

/// The state, read: any number of readers at once.
pub(super) struct StateGuard<'a> {
    guard: RwLockReadGuard<'a, State>,
    _held: Held,
}

impl std::ops::Deref for StateGuard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.guard
    }
}

/// The state, written: one writer, no readers.
struct WriteGuard<'a> {
    guard: RwLockWriteGuard<'a, State>,
    _held: Held,
}

impl std::ops::Deref for WriteGuard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.guard
    }
}

impl std::ops::DerefMut for WriteGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.guard
    }
}

pub(super) struct Shared {
    /// Read by every reader at once (tools/list, the resource, the
    /// scene, `app__read_windows`, each built at most once per change);
    /// written only by [`Shared::mutate`] and a type's first compilation.
    state: RwLock<State>,
    /// Serializes agent calls from the gates to the commit (§10.1).
    pub op_lock: tokio::sync::Mutex<()>,
    next_seq: AtomicU64,
    pub changes: ChangeHub,
    pub activity: Mutex<Option<AgentActivity>>,
    /// Who the app asks to approve agents' actions, if anyone.
    pub approver: Mutex<Option<Arc<dyn Approver>>>,
    /// The app's own wording of approval questions, if any.
    pub approval_wording: Mutex<Option<super::approval::Wording>>,
    /// Approval questions waiting for an answer.
    pub pending_approvals: super::approval::PendingApprovals,
    /// 2026-07-28 approval answers already used, and new questions' nonces.
    pub used_answers: super::answers::UsedAnswers,
    /// How the transport seals 2026-07-28 approval questions (made once,
    /// with the app's key or a per-process one).
    pub state_seal: std::sync::OnceLock<Arc<dyn super::ticket::StateSeal>>,
    /// Whether the app has said that no one can approve (said once).
    pub approval_warned: std::sync::atomic::AtomicBool,
    pub config: Config,
    /// The scene of the state as last settled, published as each change
    /// settles once a GUI has read one (`scene_wanted`), so a frame takes
    /// it without waiting for the state lock.
    scene: Mutex<Option<Arc<Scene>>>,
    scene_wanted: AtomicBool,
}

impl Shared {
    pub fn new(state: State, config: Config) -> Self {
        let pacing = Pacing { gap: config.coalesce, stall_limit: STALL_LIMIT };
        Self {
            state: RwLock::new(state),
            op_lock: tokio::sync::Mutex::new(()),
            next_seq: AtomicU64::new(1),
            changes: ChangeHub::new(pacing, config.limits.max_subscribers),
            activity: Mutex::new(None),
            approver: Mutex::new(None),
            approval_wording: Mutex::new(None),
            pending_approvals: super::approval::PendingApprovals::new(&config.limits),
            used_answers: super::answers::UsedAnswers::new(config.approval_timeout),
            state_seal: std::sync::OnceLock::new(),
            approval_warned: Default::default(),
            config,
            scene: Mutex::new(None),
            scene_wanted: AtomicBool::new(false),
        }
    }

    /// Takes the state lock to read, or [`Error::Reentrant`] if this
    /// thread already holds it (a Purview callback calling back into the
    /// same app). Readers do not wait for each other.
    pub fn lock(&self) -> Result<StateGuard<'_>, Error> {
        let held = Held::mark(self as *const Self as usize)?;
        Ok(StateGuard { guard: read_unpoisoned(&self.state), _held: held })
    }

    /// Takes the state lock to write: it waits for every reader.
    fn lock_mut(&self) -> Result<WriteGuard<'_>, Error> {
        let held = Held::mark(self as *const Self as usize)?;
        Ok(WriteGuard { guard: write_unpoisoned(&self.state), _held: held })
    }

    /// Reads the state.
    pub fn read<R>(&self, f: impl FnOnce(&State) -> R) -> Result<R, Error> {
        Ok(f(&*self.lock()?))
    }

    /// [`Shared::read`] for a reader that can refuse: one `Result`, in the
    /// reader's error type, whichever of the two failed.
    pub fn try_read<R, E: From<Error>>(
        &self,
        f: impl FnOnce(&State) -> Result<R, E>,
    ) -> Result<R, E> {
        f(&*self.lock()?)
    }

    pub fn next_seq(&self) -> u64 {
        self.next_seq.fetch_add(1, Ordering::Relaxed)
    }

    /// The single choke point of both flows: runs one mutation under the
    /// state lock, settles it (projection, versions, availability,
    /// operability, tool set), and signals what changed once the lock is
    /// released, so a notification never precedes the state it announces
    /// (§6, §8.3). A mutation that fails says so before it changes
    /// anything: nothing is settled or signalled.
    pub fn mutate<R, E: From<Error>>(
        &self,
        f: impl FnOnce(&mut State) -> Result<(R, Touched), E>,
    ) -> Result<R, E> {
        self.mutate_and(f, |_, _, value| value)
    }

    /// [`Shared::mutate`], then `after` on the settled state and what
    /// changed, still under the lock (to describe the result consistently).
    pub fn mutate_and<R, S, E: From<Error>>(
        &self,
        f: impl FnOnce(&mut State) -> Result<(R, Touched), E>,
        after: impl FnOnce(&State, Change, R) -> S,
    ) -> Result<S, E> {
        let (value, change) = {
            let mut state = self.lock_mut()?;
            let (value, touched) = f(&mut state)?;
            let change = state.settle(touched);
            if self.scene_wanted.load(Ordering::Relaxed) {
                // Published before the lock is released: a frame never
                // shows less than what has settled.
                *lock_unpoisoned(&self.scene) = Some(state.scene());
            }
            let answer = after(&state, change, value);
            state.tools_before = None;
            (answer, change)
        };
        self.signal(change);
        Ok(value)
    }

    /// What a GUI draws in one frame ([`App::scene`](crate::App::scene)):
    /// the scene published when the last change settled, or, for the
    /// first frame, gathered now. A frame waits for no agent.
    pub fn scene(&self) -> Result<Arc<Scene>, Error> {
        self.scene_wanted.store(true, Ordering::Relaxed);
        if let Some(scene) = lock_unpoisoned(&self.scene).clone() {
            return Ok(scene);
        }
        // Published under the state lock, so no change settles between
        // gathering and publishing.
        self.read(|state| {
            let scene = state.scene();
            *lock_unpoisoned(&self.scene) = Some(scene.clone());
            scene
        })
    }

    /// The tool definitions tools/list returns now, shared: the state lock
    /// is held only to clone the handle.
    pub fn listed_tools(&self) -> Result<Arc<[ToolDefinition]>, Error> {
        self.read(|state| state.listed_tools(&self.config))
    }

    /// How many times the app has built each answer it keeps between
    /// changes, and projected a window.
    #[cfg(feature = "test-support")]
    pub fn build_counts(&self) -> Result<super::BuildCounts, Error> {
        self.read(State::build_counts)
    }

    /// How many times the app has serialized its windows for agents.
    #[cfg(feature = "test-support")]
    pub fn windows_serialized(&self) -> u64 {
        self.read(|state| state.windows_serialized.load(Ordering::Relaxed)).unwrap_or_default()
    }

    /// Hands a change to listeners and subscribers. On the dispatcher
    /// surface the tool list never changes, so no tools/list_changed is due.
    pub fn signal(&self, mut change: Change) {
        if self.config.surface == ToolSurface::Dispatcher {
            change.tools = false;
        }
        self.changes.signal(change);
    }

    pub fn type_spec<W: Window>(&self) -> Result<Arc<TypeSpec>, Error> {
        Stage::type_spec(self, TypeKey::of::<W>(Level::Window, W::actions, W::PAGED_BY))
    }

    pub fn read_window<W: Window, R>(&self, id: &str, f: impl FnOnce(&W) -> R) -> Result<R, Error> {
        let state = self.lock()?;
        let entry = state.entry_by_id(id).ok_or_else(|| Error::WindowClosed { id: id.into() })?;
        let vm = entry.actor.vm.as_any().downcast_ref::<W>().ok_or_else(|| Error::WrongType {
            id: id.into(),
            expected: std::any::type_name::<W>(),
        })?;
        Ok(f(vm))
    }

    /// Opens a window from the person's side (not inside an agent's call).
    pub fn open<W: Window>(
        &self,
        window: W,
        name: Option<&str>,
        placement: Placement,
    ) -> Result<Arc<str>, Error> {
        let spec = self.type_spec::<W>()?;
        let seq = self.next_seq();
        let max_windows = self.config.limits.max_windows;
        self.mutate(|state| {
            if state.windows.len() >= max_windows {
                return Err(Error::LimitReached { what: "open windows", limit: max_windows });
            }
            if let Some(name) = name
                && state.by_name.contains_key(name)
            {
                return Err(Error::NameInUse { name: name.to_owned() });
            }
            if let Placement::Modal { owner } = &placement
                && state.entry_by_id(owner).is_none()
            {
                return Err(Error::WindowClosed { id: owner.to_string() });
            }
            let id = state.choose_id(seq, name);
            let vm: Box<dyn DynActions> = Box::new(AsWindow(window));
            state.insert(seq, id.clone(), name.map(str::to_owned), Actor::new(vm, spec), placement);
            Ok((id, Touched { windows: vec![seq], app: false, topology: true }))
        })
    }
}

impl Stage for Shared {
    fn type_spec(&self, key: TypeKey) -> Result<Arc<TypeSpec>, Error> {
        // Compiled once per type: later windows of it only read.
        let compiled = match self.read(|state| state.types.get(&(key.id, key.level)).cloned())? {
            Some(compiled) => compiled,
            None => self.lock_mut()?.type_spec(key),
        };
        compiled.map_err(Error::InvalidDefinition)
    }

    fn next_seq(&self) -> u64 {
        Shared::next_seq(self)
    }

    fn owner_of(&self, id: &str) -> Option<Arc<str>> {
        self.read(|state| state.entry_by_id(id)?.owner.clone()).ok().flatten()
    }

    fn with_window(&self, id: &str, read: &mut dyn FnMut(&dyn Any)) -> Result<(), Error> {
        let state = self.lock()?;
        let entry = state.entry_by_id(id).ok_or_else(|| Error::WindowClosed { id: id.into() })?;
        read(entry.actor.vm.as_any());
        Ok(())
    }

    fn ids_of(&self, type_id: TypeId) -> Result<Vec<Arc<str>>, Error> {
        self.read(|state| {
            state
                .windows
                .values()
                .filter(|entry| entry.actor.vm.as_any().type_id() == type_id)
                .map(|entry| entry.id.clone())
                .collect()
        })
    }
}

//! The runtime agents are served on, beside the person's GUI thread. An
//! agent's call, the HTTP server and the change notifications all run on
//! its workers; the GUI thread draws. Where the machine has more than one
//! core the runtime takes one fewer worker than there are cores, so the
//! person's thread keeps a core to itself however busy the agents are.
//! The app may choose the count instead ([`AgentsRuntime::with_workers`]).

use std::{future::Future, num::NonZeroUsize};

use tokio::runtime::{Builder, Runtime};

/// How many workers the agents' runtime takes on a machine of `cores`:
/// `cores − 1`, and one where there is a single core (the person and the
/// agents then share it; nothing can be kept aside).
///
/// ```
/// use purview_egui::workers_for;
///
/// assert_eq!(workers_for(8), 7);
/// assert_eq!(workers_for(2), 1);
/// assert_eq!(workers_for(1), 1);
/// ```
pub fn workers_for(cores: usize) -> usize {
    cores.saturating_sub(1).max(1)
}

/// A runtime for the agents' work: serve the app on it, and make the
/// [`Desk`](crate::Desk) inside it so the person's calls run there too.
/// Tokio stays out of sight: it is all this type holds.
///
/// ```no_run
/// use purview_egui::{AgentsRuntime, Desk};
///
/// let runtime = AgentsRuntime::new().expect("a runtime");
/// let app = purview::App::builder().name("desk").build();
/// let server = runtime.block_on(app.serve_http(purview::http::HttpOptions::default()));
/// let desk = runtime.within(|| Desk::new(app.clone()));
/// # drop((server, desk));
/// ```
pub struct AgentsRuntime {
    runtime: Runtime,
}

impl AgentsRuntime {
    /// A runtime of [`workers_for`] this machine's cores: `cores − 1`.
    ///
    /// ```
    /// let runtime = purview_egui::AgentsRuntime::new().unwrap();
    /// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    /// assert_eq!(runtime.workers(), purview_egui::workers_for(cores));
    /// ```
    pub fn new() -> std::io::Result<Self> {
        let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        Self::with_workers(workers_for(cores))
    }

    /// A runtime of `workers` workers, as the app chooses (at least one).
    ///
    /// ```
    /// let runtime = purview_egui::AgentsRuntime::with_workers(3).unwrap();
    /// assert_eq!(runtime.workers(), 3);
    /// assert_eq!(purview_egui::AgentsRuntime::with_workers(0).unwrap().workers(), 1);
    /// ```
    pub fn with_workers(workers: usize) -> std::io::Result<Self> {
        let runtime = Builder::new_multi_thread()
            .worker_threads(workers.max(1))
            .thread_name("purview-agents")
            .enable_all()
            .build()?;
        Ok(Self { runtime })
    }

    /// How many workers it runs, as the runtime itself counts them.
    ///
    /// ```
    /// assert_eq!(purview_egui::AgentsRuntime::with_workers(2).unwrap().workers(), 2);
    /// ```
    pub fn workers(&self) -> usize {
        self.runtime.metrics().num_workers()
    }

    /// Runs `future` to its end on this runtime (serving, shutting down).
    ///
    /// ```
    /// let runtime = purview_egui::AgentsRuntime::with_workers(1).unwrap();
    /// assert_eq!(runtime.block_on(async { 6 * 7 }), 42);
    /// ```
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// Runs `inside` within this runtime: a [`Desk`](crate::Desk) made
    /// there runs the person's calls on it (and eframe's loop may run
    /// there whole).
    ///
    /// ```
    /// let runtime = purview_egui::AgentsRuntime::with_workers(1).unwrap();
    /// let app = purview::App::builder().build();
    /// let desk = runtime.within(|| purview_egui::Desk::new(app));
    /// # drop(desk);
    /// ```
    pub fn within<R>(&self, inside: impl FnOnce() -> R) -> R {
        let _entered = self.runtime.enter();
        inside()
    }
}

impl std::fmt::Debug for AgentsRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentsRuntime").field("workers", &self.workers()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_person_keeps_a_core_wherever_there_is_more_than_one() {
        for cores in 2..=64 {
            assert_eq!(workers_for(cores) + 1, cores, "{cores} cores");
        }
        assert_eq!(workers_for(1), 1, "one core is shared: the agents still get a worker");
        assert_eq!(workers_for(0), 1, "an unknown count is one core");
    }

    #[test]
    fn the_runtime_runs_the_workers_it_was_given() {
        for workers in [1, 2, 5] {
            assert_eq!(AgentsRuntime::with_workers(workers).unwrap().workers(), workers);
        }
        let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        assert_eq!(AgentsRuntime::new().unwrap().workers(), workers_for(cores));
    }
}

//! Where the person's calls run. Purview's calls are futures that need a
//! tokio runtime (their timeouts are tokio timers); a GUI thread has none of
//! its own, so calls go to the host's runtime when the [`Desk`](crate::Desk)
//! is made inside one, or else to a small runtime this crate starts. Tokio
//! never appears in the public API.

use std::{future::Future, sync::Arc};

use tokio::runtime::{Builder, Handle, Runtime};

/// Spawns futures on a tokio runtime, the host's or a private one.
#[derive(Clone)]
pub(crate) struct Executor {
    /// `Err` says why no runtime could be started.
    handle: Result<Handle, String>,
    /// The private runtime, kept alive as long as any clone of this executor.
    _own: Option<Arc<OwnRuntime>>,
}

/// A runtime started by this crate; shut down without waiting, so dropping
/// the last [`Desk`](crate::Desk) never blocks the GUI thread.
struct OwnRuntime(Option<Runtime>);

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

impl Executor {
    /// The runtime this thread is in, or a new two-thread one.
    pub(crate) fn current_or_own() -> Self {
        if let Ok(handle) = Handle::try_current() {
            return Self { handle: Ok(handle), _own: None };
        }
        // A GUI's calls are few and short: two workers are plenty.
        let built = Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("purview-egui")
            .enable_all()
            .build();
        match built {
            Ok(runtime) => Self {
                handle: Ok(runtime.handle().clone()),
                _own: Some(Arc::new(OwnRuntime(Some(runtime)))),
            },
            Err(e) => {
                Self { handle: Err(format!("cannot start an async runtime: {e}")), _own: None }
            }
        }
    }

    /// Runs `future` to completion in the background; `Err` says why it
    /// cannot run at all.
    pub(crate) fn spawn(
        &self,
        future: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), String> {
        let handle = self.handle.as_ref().map_err(Clone::clone)?;
        drop(handle.spawn(future));
        Ok(())
    }
}

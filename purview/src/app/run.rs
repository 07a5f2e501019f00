//! The run phase of a call (see call.rs): the handler on the working copy, with
//! timeout, cancellation and panic guard, ending in one [`HandlerOutcome`]
//! that [`handler_output`] turns into the output or the refusal.

use std::{
    future::Future,
    panic::{AssertUnwindSafe, catch_unwind},
    pin::Pin,
    task::Poll,
    time::Duration,
};

use tokio_util::sync::CancellationToken;

use super::route::ActionCall;
use crate::window::{Context, DynActions};
use crate::{ActionOutput, Args, model::ToolError, refusals};

tokio::task_local! {
    /// Set while an action handler runs: `App::call` from inside one would
    /// wait for the call it is part of.
    static IN_HANDLER: ();
}

/// How a handler ended.
pub(super) enum HandlerOutcome {
    Returned(ActionOutput),
    Failed(ToolError),
    Panicked,
    TimedOut,
    Cancelled,
}

/// The run phase: the handler on the working copy, guarded against panics (in
/// its synchronous part too), timeouts and the client cancelling.
pub(super) async fn run_handler(
    working: &mut Box<dyn DynActions>,
    key: usize,
    action: &str,
    args: Args,
    cx: &mut Context,
    timeout: Duration,
    cancel: &CancellationToken,
) -> HandlerOutcome {
    let future =
        match catch_unwind(AssertUnwindSafe(move || working.call_at(key, action, args, cx))) {
            Err(_) => return HandlerOutcome::Panicked,
            Ok(future) => future,
        };
    let guarded = IN_HANDLER.scope((), catch_unwind_future(future));
    tokio::select! {
        biased;
        () = cancel.cancelled() => HandlerOutcome::Cancelled,
        result = tokio::time::timeout(timeout, guarded) => match result {
            Err(_) => HandlerOutcome::TimedOut,
            Ok(Err(())) => HandlerOutcome::Panicked,
            Ok(Ok(Err(error))) => HandlerOutcome::Failed(error),
            Ok(Ok(Ok(output))) => HandlerOutcome::Returned(output),
        },
    }
}

/// `App::call` from inside a handler would wait for the call it is part of.
pub(super) fn refuse_reentry(call: &ActionCall) -> Result<(), ToolError> {
    if IN_HANDLER.try_with(|_| ()).is_ok() {
        return Err(refusals::reentered(&call.action));
    }
    Ok(())
}

/// Turns how the handler ended into its output, or the error to return.
pub(super) fn handler_output(
    outcome: HandlerOutcome,
    action: &str,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<ActionOutput, ToolError> {
    match outcome {
        HandlerOutcome::Returned(output) => Ok(output),
        HandlerOutcome::Failed(error) => Err(error),
        HandlerOutcome::Cancelled => {
            tracing::info!(action, "call cancelled by the client before it took effect");
            Err(refusals::cancelled(action))
        }
        HandlerOutcome::TimedOut => {
            tracing::warn!(action, "action timed out");
            Err(refusals::timed_out(action, timeout))
        }
        HandlerOutcome::Panicked if cancel.is_cancelled() => Err(refusals::cancelled(action)),
        HandlerOutcome::Panicked => {
            tracing::error!(action, "action handler panicked; the call was rolled back");
            Err(refusals::failed_inside(action))
        }
    }
}

/// Polls a boxed future, turning a panic into `Err(())`.
async fn catch_unwind_future<T>(
    mut future: Pin<Box<dyn Future<Output = T> + Send + '_>>,
) -> Result<T, ()> {
    std::future::poll_fn(move |cx| {
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    })
    .await
}

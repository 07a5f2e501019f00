//! A call's progress reports (MCP `notifications/progress`), on their way to
//! the client that asked for them with a `progressToken`.
//!
//! The policy lives here, away from the transport: a report that does not
//! move `done` forward is dropped (MCP requires each notification's
//! progress to increase); reports closer together than [`INTERVAL`] are
//! coalesced into the latest one; the last report of a call is always
//! delivered, before the call's result. The transport only supplies the
//! `send` of [`pace`].

use std::{
    future::Future,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::lock::lock_unpoisoned;

/// The least time between two progress notifications of one call: a handler
/// reporting in a tight loop costs the client at most this many messages a
/// second (plus the last).
pub(crate) const INTERVAL: Duration = Duration::from_millis(50);

/// One progress report as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Progress {
    /// Work done so far; increases from one delivered report to the next.
    pub done: u64,
    /// The whole work, when known.
    pub total: Option<u64>,
    /// What is being done, when the handler said.
    pub message: Option<String>,
}

impl Progress {
    /// A handler's `(done, total, message)` as it is sent: a total of 0, or
    /// one `done` has already passed, is not a total anyone can draw a bar
    /// from, so it is left out; an empty message is no message.
    pub fn new(done: u64, total: u64, message: String) -> Self {
        Self {
            done,
            total: (total > 0 && done <= total).then_some(total),
            message: (!message.is_empty()).then_some(message),
        }
    }
}

/// The reports of one call whose client asked for progress: the handler's
/// side writes ([`ProgressFeed::report`]), [`pace`] reads.
#[derive(Default)]
pub(crate) struct ProgressFeed {
    state: Mutex<FeedState>,
    wake: Notify,
    closed: CancellationToken,
}

#[derive(Default)]
struct FeedState {
    /// The `done` of the last report accepted.
    last_done: Option<u64>,
    /// The latest report not yet taken by [`pace`].
    pending: Option<Progress>,
}

impl ProgressFeed {
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    /// Accepts a report unless it does not move `done` forward (or the call
    /// has finished); returns whether it was accepted.
    pub fn report(&self, progress: Progress) -> bool {
        if self.closed.is_cancelled() {
            return false;
        }
        let mut state = lock_unpoisoned(&self.state);
        if state.last_done.is_some_and(|last| progress.done <= last) {
            return false;
        }
        state.last_done = Some(progress.done);
        state.pending = Some(progress);
        drop(state);
        self.wake.notify_one();
        true
    }

    /// The call has finished: what is pending is the last report.
    pub fn close(&self) {
        self.closed.cancel();
    }

    /// The latest report not yet taken, waiting for one; `None` once the
    /// call has finished and everything was taken.
    async fn next(&self) -> Option<Progress> {
        loop {
            if let Some(progress) = lock_unpoisoned(&self.state).pending.take() {
                return Some(progress);
            }
            if self.closed.is_cancelled() {
                return None;
            }
            tokio::select! {
                () = self.wake.notified() => {}
                () = self.closed.cancelled() => {}
            }
        }
    }
}

/// Delivers `feed`'s reports through `send` until the call has finished
/// (`feed` closed) and its last report has gone, at most one per
/// `interval` before that last one. Stops early when `send` fails: the
/// client is gone.
pub(crate) async fn pace<F, Fut>(feed: &ProgressFeed, interval: Duration, mut send: F)
where
    F: FnMut(Progress) -> Fut,
    Fut: Future<Output = Result<(), ()>>,
{
    while let Some(progress) = feed.next().await {
        if send(progress).await.is_err() {
            return;
        }
        // The last report need not wait out the interval: the call's
        // result waits for it.
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            () = feed.closed.cancelled() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(feed: &ProgressFeed, done: u64) -> bool {
        feed.report(Progress::new(done, 10, format!("step {done}")))
    }

    /// Runs `handler` against a feed paced as a transport would, returning
    /// what was sent.
    async fn delivered(handler: impl AsyncFnOnce(&ProgressFeed)) -> Vec<Progress> {
        let feed = ProgressFeed::new();
        let sent = Mutex::new(Vec::new());
        let send = |p| {
            sent.lock().unwrap().push(p);
            std::future::ready(Ok(()))
        };
        let run = async {
            handler(&feed).await;
            feed.close();
        };
        tokio::join!(run, pace(&feed, INTERVAL, send));
        sent.into_inner().unwrap()
    }

    #[test]
    fn a_total_of_zero_or_below_done_is_left_out_and_so_is_an_empty_message() {
        assert_eq!(
            Progress::new(3, 0, String::new()),
            Progress { done: 3, total: None, message: None }
        );
        assert_eq!(Progress::new(11, 10, "x".into()).total, None);
        assert_eq!(Progress::new(10, 10, "x".into()).total, Some(10));
        assert_eq!(Progress::new(u64::MAX, u64::MAX, "x".into()).total, Some(u64::MAX));
    }

    #[tokio::test(start_paused = true)]
    async fn reports_that_do_not_move_forward_are_dropped() {
        let sent = delivered(async |feed| {
            assert!(report(feed, 0));
            tokio::time::sleep(INTERVAL * 2).await;
            assert!(!report(feed, 0), "the same value again");
            assert!(report(feed, 4));
            tokio::time::sleep(INTERVAL * 2).await;
            assert!(!report(feed, 2), "a smaller value");
            assert!(report(feed, 5));
        })
        .await;
        let done: Vec<u64> = sent.iter().map(|p| p.done).collect();
        assert_eq!(done, [0, 4, 5]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_tight_loop_is_coalesced_and_its_last_report_always_arrives() {
        const REPORTS: u64 = 100_000;
        let sent = delivered(async |feed| {
            for done in 1..=REPORTS {
                feed.report(Progress::new(done, REPORTS, String::new()));
                if done % 1000 == 0 {
                    // A millisecond's work per thousand items: 100 ms in all.
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
        })
        .await;
        let done: Vec<u64> = sent.iter().map(|p| p.done).collect();
        assert!(done.windows(2).all(|w| w[0] < w[1]), "{done:?}");
        assert_eq!(done.last(), Some(&REPORTS), "the last report arrives");
        // 100 ms of work at one report per 50 ms: the first, about two
        // more, and the last.
        assert!(done.len() <= 5, "coalesced to {} notifications: {done:?}", done.len());
        assert_eq!(done[0], 1000, "the first report goes out at the first await");
    }

    #[tokio::test(start_paused = true)]
    async fn nothing_is_sent_for_a_call_that_reports_nothing_or_after_it_finished() {
        assert!(delivered(async |_| {}).await.is_empty());
        let feed = ProgressFeed::new();
        feed.close();
        assert!(!report(&feed, 1));
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_that_is_gone_stops_the_delivery() {
        let feed = ProgressFeed::new();
        let mut attempts = 0;
        let send = |_| {
            attempts += 1;
            std::future::ready(Err(()))
        };
        let run = async {
            report(&feed, 1);
            tokio::task::yield_now().await;
            report(&feed, 2);
            tokio::time::sleep(INTERVAL * 3).await;
            report(&feed, 3);
            feed.close();
        };
        tokio::join!(run, pace(&feed, INTERVAL, send));
        assert_eq!(attempts, 1);
    }
}

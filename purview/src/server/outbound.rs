//! The writing side of the line transport (`lines.rs`): each frame is
//! written by the task that sends it, one frame at a time and in the order
//! the senders got their turn, as rmcp's own transports write. A writer
//! task of its own cost every frame a hand-over between tasks.
//!
//! - At most [`OUTBOUND_FRAMES`] frames wait for their turn; one more waits
//!   up to the stall limit for a place, then the client is disconnected.
//! - A write that the client does not take within the stall limit
//!   disconnects it: every frame still waiting fails at once.
//! - A write cut short (its sender was cancelled halfway through a frame)
//!   leaves a partial line on the wire, so nothing more is written after
//!   it and the connection closes.

use std::{
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use tokio::{
    io::{AsyncWrite, AsyncWriteExt},
    sync::{Mutex, Semaphore},
};
use tokio_util::sync::{CancellationToken, DropGuard};

/// How many outgoing frames may wait for a client that is slow to read.
pub(crate) const OUTBOUND_FRAMES: usize = 256;

/// The transport was closed (the client stopped reading, or the stream
/// broke).
#[derive(Debug)]
pub(crate) struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the connection is closed")
    }
}

impl std::error::Error for Closed {}

/// How the connection ends: closed, and why.
#[derive(Clone)]
pub(super) struct Ends {
    /// Cancelled when the session is over: nothing more is read.
    pub closed: CancellationToken,
    pub stall_limit: Duration,
    /// Set when the client was disconnected for not reading.
    pub stalled: Arc<AtomicBool>,
}

impl Ends {
    /// Disconnects a client that has not read for the stall limit.
    pub fn stall(&self) {
        if !self.stalled.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                "the client has not read its replies for {:?}; disconnecting it",
                self.stall_limit
            );
        }
        self.closed.cancel();
    }
}

/// The writer, shared by everything that sends. When the last holder lets
/// go (the transport, and every send still writing), the writer is dropped
/// and `flushed` is cancelled.
pub(super) struct Outbound {
    writer: Mutex<Pin<Box<dyn AsyncWrite + Send>>>,
    places: Semaphore,
    ends: Ends,
    /// A write failed, stalled or was cut short: nothing more is written.
    broken: AtomicBool,
    _flushed: DropGuard,
}

impl Outbound {
    pub fn new(
        writer: impl AsyncWrite + Send + 'static,
        ends: Ends,
        flushed: CancellationToken,
    ) -> Arc<Self> {
        Arc::new(Self {
            writer: Mutex::new(Box::pin(writer)),
            places: Semaphore::new(OUTBOUND_FRAMES),
            ends,
            broken: AtomicBool::new(false),
            _flushed: flushed.drop_guard(),
        })
    }

    /// Writes one frame (newline included) when its turn comes.
    pub async fn write(&self, frame: &[u8]) -> Result<(), Closed> {
        if self.is_broken() {
            return Err(Closed);
        }
        let place = match tokio::time::timeout(self.ends.stall_limit, self.places.acquire()).await {
            Ok(place) => place.map_err(|_| Closed)?,
            Err(_) => return Err(self.stalled()),
        };
        let mut writer = self.writer.lock().await;
        if self.is_broken() {
            return Err(Closed);
        }
        let mut cut = CutShort(Some(self));
        let written = tokio::time::timeout(self.ends.stall_limit, async {
            writer.write_all(frame).await?;
            writer.flush().await
        })
        .await;
        cut.0 = None;
        drop((writer, place));
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => {
                tracing::info!("the client's side of the connection is closed");
                self.break_off();
                Err(Closed)
            }
            Err(_) => Err(self.stalled()),
        }
    }

    fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Acquire)
    }

    fn break_off(&self) {
        self.broken.store(true, Ordering::Release);
        self.ends.closed.cancel();
    }

    fn stalled(&self) -> Closed {
        self.broken.store(true, Ordering::Release);
        self.ends.stall();
        Closed
    }
}

/// Armed while a frame is being written: dropped armed (its sender was
/// cancelled mid-frame), it breaks the connection off.
struct CutShort<'a>(Option<&'a Outbound>);

impl Drop for CutShort<'_> {
    fn drop(&mut self) {
        if let Some(outbound) = self.0 {
            tracing::info!("a frame was cut short; closing the connection");
            outbound.break_off();
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    fn outbound(writer: impl AsyncWrite + Send + 'static, stall: Duration) -> Arc<Outbound> {
        let ends =
            Ends { closed: CancellationToken::new(), stall_limit: stall, stalled: Arc::default() };
        Outbound::new(writer, ends, CancellationToken::new())
    }

    #[tokio::test]
    async fn a_frame_cut_short_is_the_last_one_written() {
        let (mut client, server) = tokio::io::duplex(8);
        let outbound = outbound(server, Duration::from_secs(10));
        let frame = [b'x'; 64];
        // The client reads nothing, so the write stops after 8 bytes and
        // is cancelled there.
        let cut = tokio::time::timeout(Duration::from_millis(50), outbound.write(&frame)).await;
        assert!(cut.is_err());
        assert!(outbound.write(b"{}\n").await.is_err(), "written after a partial frame");
        let mut head = [0; 8];
        client.read_exact(&mut head).await.unwrap();
        assert_eq!(head, [b'x'; 8]);
    }

    #[tokio::test]
    async fn frames_waiting_behind_a_stalled_write_fail_with_it() {
        let (_client, server) = tokio::io::duplex(8);
        let outbound = outbound(server, Duration::from_millis(100));
        let frame = [b'x'; 64];
        let (first, second) = tokio::join!(outbound.write(&frame), outbound.write(b"{}\n"));
        assert!(first.is_err() && second.is_err());
        assert!(outbound.ends.stalled.load(Ordering::Acquire));
        assert!(outbound.ends.closed.is_cancelled());
    }
}

//! A connection's reads, held to a minimum rate while a request's head
//! arrives. hyper's `header_read_timeout` is a total deadline for the head;
//! nothing in hyper or tower-http holds a head to a rate, so a client could
//! trickle one byte a second and keep a connection for the whole deadline.
//!
//! The head's clock starts with its first byte (a kept-alive connection
//! waiting for its next request is idle, not slow). After [`GRACE`], at
//! least `rate` bytes a second must have come on average; a slower head
//! ends the connection with an error from the read, which hyper answers by
//! closing it. Once the head is whole (the request reached the service,
//! [`Phase::request_began`]) the body's own limits take over (`http.rs`),
//! and when the answer has gone the connection is idle again.
//!
//! Writes are held to progress: a write that cannot move a single byte
//! for [`WRITE_STALL`] (a client that sends pipelined requests and never
//! reads the answers, or stops reading an event stream) fails, and hyper
//! closes the connection, so no client keeps a connection and the
//! kernel's send queue for ever by not reading.

use std::{
    io,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    time::{Instant, Sleep},
};

/// How long a head may take before its rate is held to the minimum.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// How long a write may make no progress at all before the connection is
/// given up.
pub(crate) const WRITE_STALL: Duration = Duration::from_secs(10);

/// Whether a request is between its head and the end of its answer, shared
/// by the connection's reads and its service.
#[derive(Clone, Default)]
pub(crate) struct Phase(Arc<AtomicBool>);

impl Phase {
    /// The head is whole: reads are no longer paced.
    pub fn request_began(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// The answer has gone: the next byte starts a new head.
    pub fn request_ended(&self) {
        self.0.store(false, Ordering::Release);
    }

    fn in_request(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// A head being read: when it began and how much of it came.
struct Head {
    began: Instant,
    bytes: u64,
    deadline: Pin<Box<Sleep>>,
}

/// `io`, its heads held to `rate` bytes a second after [`GRACE`].
pub(crate) struct Paced<T> {
    io: T,
    rate: u64,
    phase: Phase,
    head: Option<Head>,
    /// Since when writes have made no progress, and the alarm for it.
    stalled: Option<Pin<Box<Sleep>>>,
    write_stall: Duration,
}

impl<T> Paced<T> {
    pub fn new(io: T, rate: u32, phase: Phase) -> Self {
        Self {
            io,
            rate: u64::from(rate.max(1)),
            phase,
            head: None,
            stalled: None,
            write_stall: WRITE_STALL,
        }
    }

    /// Notes how a write went: progress clears the stall, a pending write
    /// starts (or keeps) its alarm, which fails the write once it rings.
    fn written<R>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        if !polled.is_pending() {
            self.stalled = None;
            return polled;
        }
        let stall = self.write_stall;
        let alarm = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(stall)));
        if alarm.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing of the answer for too long",
            )));
        }
        Poll::Pending
    }
}

/// When at least one more byte of `head` must have come, at `rate`.
fn due(head: &Head, rate: u64) -> Instant {
    let owed = Duration::from_secs_f64((head.bytes + 1) as f64 / rate as f64);
    head.began + GRACE + owed
}

fn too_slow() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "the request's head arrived too slowly")
}

impl<T: AsyncRead + Unpin> AsyncRead for Paced<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.phase.in_request() {
            this.head = None;
            return Pin::new(&mut this.io).poll_read(cx, buf);
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        let read = (buf.filled().len() - before) as u64;
        if read > 0 {
            let now = Instant::now();
            let head = this.head.get_or_insert_with(|| Head {
                began: now,
                bytes: 0,
                deadline: Box::pin(tokio::time::sleep_until(now + GRACE)),
            });
            head.bytes += read;
        }
        let rate = this.rate;
        let Some(head) = &mut this.head else { return polled };
        let due = due(head, rate);
        if Instant::now() >= due {
            return Poll::Ready(Err(too_slow()));
        }
        if polled.is_pending() {
            // Woken at the due time, to end a head that stalled.
            head.deadline.as_mut().reset(due);
            if head.deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(too_slow()));
            }
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Paced<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        self.written(cx, polled)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.io).poll_flush(cx);
        self.written(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.written(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn s12_a_head_trickled_below_the_rate_ends_after_the_grace() {
        let (client, server) = tokio::io::duplex(1024);
        let mut paced = Paced::new(server, 64, Phase::default());
        let (_, mut write) = tokio::io::split(client);
        let trickle = tokio::spawn(async move {
            for _ in 0..100 {
                if write.write_all(b"x").await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        });
        let started = Instant::now();
        let mut buf = [0u8; 64];
        let ended = loop {
            match paced.read(&mut buf).await {
                Ok(0) => break Ok(()),
                Ok(_) => continue,
                Err(e) => break Err(e),
            }
        };
        assert_eq!(ended.map_err(|e| e.kind()), Err(io::ErrorKind::TimedOut));
        assert!(started.elapsed() < GRACE + Duration::from_secs(1), "{:?}", started.elapsed());
        trickle.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn s12_a_client_that_never_reads_the_answer_loses_the_connection() {
        let (client, server) = tokio::io::duplex(64);
        let mut paced = Paced::new(server, 64, Phase::default());
        let started = Instant::now();
        // The client never reads: after the duplex's 64 bytes, writes stall.
        let mut written = 0usize;
        let ended = loop {
            match paced.write(&[b'x'; 32]).await {
                Ok(n) => written += n,
                Err(e) => break e,
            }
        };
        assert_eq!(ended.kind(), io::ErrorKind::TimedOut);
        assert_eq!(written, 64);
        assert!(started.elapsed() >= WRITE_STALL && started.elapsed() < WRITE_STALL * 2);
        drop(client);
    }

    #[tokio::test(start_paused = true)]
    async fn s12_a_slow_reader_that_keeps_reading_keeps_the_connection() {
        let (mut client, server) = tokio::io::duplex(64);
        let mut paced = Paced::new(server, 64, Phase::default());
        let reader = tokio::spawn(async move {
            let mut buf = [0u8; 16];
            let mut total = 0;
            while total < 1024 {
                tokio::time::sleep(WRITE_STALL / 2).await;
                total += client.read(&mut buf).await.expect("read");
            }
        });
        for _ in 0..32 {
            paced.write_all(&[b'x'; 32]).await.expect("a reader that reads is never cut");
        }
        reader.await.expect("read it all");
    }

    #[tokio::test(start_paused = true)]
    async fn s12_an_idle_kept_alive_connection_and_a_request_in_progress_are_not_paced() {
        let (client, server) = tokio::io::duplex(1024);
        let phase = Phase::default();
        let mut paced = Paced::new(server, 64, phase.clone());
        let (_, mut write) = tokio::io::split(client);
        // Idle for a minute, then a whole head at once.
        tokio::time::sleep(Duration::from_secs(60)).await;
        write.write_all(b"GET / HTTP/1.1\r\n\r\n").await.expect("written");
        let mut buf = [0u8; 64];
        assert!(paced.read(&mut buf).await.is_ok_and(|n| n > 0));
        // The request is served; its body may take its own time.
        phase.request_began();
        tokio::time::sleep(Duration::from_secs(30)).await;
        write.write_all(b"x").await.expect("written");
        assert!(paced.read(&mut buf).await.is_ok_and(|n| n == 1));
    }
}

//! Accepting connections: each one is admitted to its client's fair share
//! (`fair.rs`) or answered 503 at once, then served by hyper with a
//! header-read deadline until it ends, is cut for another client, or the
//! server stops.

use std::{convert::Infallible, sync::Arc, time::Duration};

use hyper_util::rt::{TokioIo, TokioTimer};
use tokio_util::sync::CancellationToken;

use super::super::{
    fair::{Connections, Summary, Tracked},
    paced::Paced,
};

pub(super) struct Limits {
    pub connections: Arc<Connections>,
    pub header_timeout: Duration,
    /// A request's head, after `paced::GRACE`, in bytes a second.
    pub min_rate: u32,
    pub nodelay: bool,
}

/// Accepts connections until cancelled, sharing the slots fairly
/// (`fair.rs`), each served by hyper with a header-read deadline.
pub(super) async fn accept(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: Limits,
    cancel: CancellationToken,
    stopped: CancellationToken,
) {
    let connections = tokio_util::task::TaskTracker::new();
    let failures = Summary::new("accepting a connection failed");
    loop {
        let accepted = tokio::select! {
            () = cancel.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(_) => {
                // Out of file descriptors, for example: wait, then go on.
                failures.note();
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Answers leave in one segment rather than waiting for the
        // client's delayed ACK of the head (Nagle).
        let _ = stream.set_nodelay(limits.nodelay);
        // Refusals are counted and summarised inside.
        let Some(admitted) = limits.connections.admit(peer.ip()) else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let mark = admitted.mark.clone();
        let router = router.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
            let mut request = request.map(axum::body::Body::new);
            request.extensions_mut().insert(mark.clone());
            let busy = mark.busy();
            let mut router = router.clone();
            async move {
                let response = match tower_service::Service::call(&mut router, request).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                let tracked = |body| axum::body::Body::new(Tracked { body, busy: Some(busy) });
                Ok::<_, Infallible>(response.map(tracked))
            }
        });
        let cancel = cancel.clone();
        let header_timeout = limits.header_timeout;
        let mark = admitted.mark.clone();
        let stream = Paced::new(stream, limits.min_rate, mark.phase());
        connections.spawn(async move {
            let cut = admitted.cut.clone();
            let _admitted = admitted;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(header_timeout);
            let connection =
                builder.serve_connection(TokioIo::new(stream), service).with_upgrades();
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                // Cut to make room for another: a request in progress is
                // answered 503 (a body being read, at once), then closed.
                // (Nothing to answer while headers are still arriving.)
                () = cut.cancelled() => if mark.in_request() {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(1), connection).await;
                },
                () = cancel.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(5), connection).await;
                }
            }
        });
    }
    connections.close();
    let _ = tokio::time::timeout(Duration::from_secs(10), connections.wait()).await;
    stopped.cancel();
}

/// Answers a connection that found no room with a 503 and closes it,
/// within a second whatever the client does.
async fn refuse(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{REFUSED}",
        REFUSED.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

const REFUSED: &str = "every connection is held by clients holding no more than yours; close one of yours, or try again shortly";

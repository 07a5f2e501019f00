//! Logging to stderr (feature `logging`, which `cli` includes): stdout
//! carries the protocol, and the MCP library's own events never show what
//! agents send.

use std::io::IsTerminal;

use tracing::Metadata;
use tracing_subscriber::{
    EnvFilter, Layer,
    filter::{FilterFn, filter_fn},
    layer::SubscriberExt,
    util::SubscriberInitExt,
};

/// Installs a `tracing` subscriber that writes to stderr (stdout belongs to
/// the protocol), filtered by `RUST_LOG` (default `warn`) and by
/// [`wire_guard`]. Does nothing if a subscriber is already installed.
pub fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter)
        .with_filter(wire_guard());
    let _ = tracing_subscriber::registry().with(layer).try_init();
}

/// A filter that keeps the MCP library's own log events at `warn` or above
/// whatever `RUST_LOG` says: below that it logs whole messages, including
/// the arguments agents send (a PIN, a password). Set `PURVIEW_LOG_WIRE=1`
/// to see them anyway, on a machine where that is safe.
///
/// ```
/// use tracing_subscriber::{Layer, layer::SubscriberExt};
/// let layer = tracing_subscriber::fmt::layer()
///     .with_writer(std::io::stderr)
///     .with_filter(purview::cli::wire_guard());
/// let _subscriber = tracing_subscriber::registry().with(layer);
/// ```
pub fn wire_guard() -> FilterFn<fn(&Metadata<'_>) -> bool> {
    fn keep(meta: &Metadata<'_>) -> bool {
        let wire = meta.target() == "rmcp" || meta.target().starts_with("rmcp::");
        !wire || *meta.level() <= tracing::Level::WARN || wire_logging_allowed()
    }
    filter_fn(keep as fn(&Metadata<'_>) -> bool)
}

fn wire_logging_allowed() -> bool {
    static ALLOWED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ALLOWED.get_or_init(|| std::env::var_os("PURVIEW_LOG_WIRE").is_some_and(|v| v == "1"))
}

//! A conformance kit for the MCP GUI Bridge Protocol v0.1.0.
//!
//! The [`Explorer`] walks a server's agent surface the way an agent would —
//! reads app://windows, picks an operable window's tool, makes up arguments
//! from its inputSchema (mostly valid; some deliberately wrong, stale or
//! aimed at windows that are gone), calls it, reads again — and after every
//! step checks what came back against the protocol: the snapshot's schema
//! and operability (§2, §4, §10.2), the tool list (§5.1, §5.2), versions and
//! ids (§7.1, §10.3, §10.5), errors (§7.2–§7.4), notifications and their
//! timing (§6, §8.3, §10.1), and masking (§4.5), down to a search for every
//! secret it sent in every byte that came back.
//!
//! A failure is shrunk to the shortest sequence of calls that still shows
//! it on a fresh server, printed as a [`Script`] that replays it.
//!
//! A walk that could not exercise the app — an operation that never once
//! succeeded, a MUST the transport could check but the walk never reached —
//! is [`Verdict::Inconclusive`], never a pass: the report lists each
//! [`Gap`] with its likely cause and fix (such as a [`Explorer::hint`] for
//! a PIN), and [`Explorer::require_coverage`] lets an app's own test refuse
//! such a walk.
//!
//! Point it at a Purview app in your own tests:
//!
//! ```no_run
//! # fn my_app() -> purview::App { purview::App::builder().build() }
//! #[tokio::test]
//! async fn agent_surface_is_conformant() {
//!     purview_conformance::Explorer::new().steps(2_000).explore(my_app).await.assert_clean();
//! }
//! ```
//!
//! or at any server, written in any language, with the `purview-conformance`
//! command:
//!
//! ```text
//! purview-conformance stdio -- python3 server.py
//! purview-conformance http http://127.0.0.1:8080/mcp --bearer TOKEN
//! ```
//!
//! A server that declares the MCP Apps extension (`io.modelcontextprotocol/ui`)
//! is also checked as a host would check it before rendering its views
//! (the `apps-*` checks): each `ui://` view exists with its MIME type, is an
//! HTML5 document with a well-formed CSP, carries its `_meta.ui` where
//! hosts look, stays hidden (with the tools only views call) from clients
//! without the extension, and leaves meaningful text beside it.
//!
//! The explorer never calls a tool that is, or may be, destructive unless
//! told to ([`Explorer::allow_destructive`]), and assumes nothing about the
//! application beyond the protocol. It does assume that nothing but the
//! explorer changes the application during a walk (no person at the
//! keyboard, no timers): a change it did not cause would be blamed on the
//! call it just made.

#![warn(missing_docs)]
#![warn(clippy::too_many_lines)]

mod apps;
mod checks;
mod coverage;
mod explore;
mod generate;
mod report;
mod script;
mod settings;
mod tally;
mod target;
mod verdict;
mod walk;
mod windows;

pub use checks::{Check, Level};
pub use coverage::{Coverage, Restart, ToolCount};
pub use explore::Explorer;
pub use report::{Report, Shrunk};
pub use script::{Call, ExpectedVersion, Intent, Script, Step};
pub use settings::APP_WINDOWS_SCHEMA;
pub use tally::{CheckReport, Evidence, Status};
pub use target::{Endpoint, WINDOWS_URI};
pub use verdict::{CoverageLevel, Gap, Verdict};

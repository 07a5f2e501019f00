//! The settings an application is built with (through
//! [`AppBuilder`](crate::AppBuilder)): which tools agents are offered
//! ([`ToolSurface`]) and what one application accepts from them
//! ([`Limits`]).
//!
//! ```
//! use purview::settings::{Limits, ToolSurface};
//! let app = purview::App::builder()
//!     .tool_surface(ToolSurface::Both)
//!     .limits(Limits::default())
//!     .build();
//! assert_eq!(app.tool_surface(), ToolSurface::Both);
//! ```
//!
//! (Inside the crate this module is a leaf: it uses nothing of Purview's
//! own, so the builder, the argument checks and the instructions can all
//! read it without depending on each other.)
use std::{fmt, str::FromStr};

/// Which tools an agent is offered.
///
/// The protocol's own surface lists `{windowId}__{action}` tools for the
/// operable windows only, and changes (with `tools/list_changed`) whenever a
/// modal opens or closes. Most MCP hosts never re-read their tool list
/// mid-conversation and reject calls to names they have not listed, so an
/// agent there cannot reach a dialog that opened after its list was fetched.
/// Two always-listed tools fix that: `app__read_windows` (the whole
/// `app://windows` snapshot plus each operable window's available actions,
/// for hosts that cannot read resources) and `app__act` (calls any operable
/// window's action by window id and action name, through exactly the same
/// path as its own tool).
///
/// ```
/// use purview::{App, settings::ToolSurface};
/// let app = App::builder().tool_surface(ToolSurface::Dispatcher).build();
/// assert_eq!(app.tool_names().unwrap(), ["app__read_windows", "app__act"]);
/// assert_eq!("both".parse::<ToolSurface>().unwrap(), ToolSurface::Both);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolSurface {
    /// Exactly the protocol's surface (§5, §11): the available actions of
    /// the operable windows, and app-level actions.
    Windows,
    /// The protocol's surface plus `app__read_windows` and `app__act`,
    /// listed first and at every moment. Works in every host.
    #[default]
    Both,
    /// Only `app__read_windows` and `app__act`: tools/list never changes and
    /// `tools/list_changed` is never sent (resource notifications continue).
    Dispatcher,
}

impl ToolSurface {
    /// Whether the per-window tools are listed.
    pub fn lists_window_tools(self) -> bool {
        self != Self::Dispatcher
    }

    /// Whether `app__read_windows` and `app__act` are listed.
    pub fn lists_dispatcher(self) -> bool {
        self != Self::Windows
    }

    /// The name used on command lines: `windows`, `both` or `dispatcher`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Windows => "windows",
            Self::Both => "both",
            Self::Dispatcher => "dispatcher",
        }
    }
}

impl fmt::Display for ToolSurface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Parses `windows`, `both` or `dispatcher`.
impl FromStr for ToolSurface {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "windows" => Ok(Self::Windows),
            "both" => Ok(Self::Both),
            "dispatcher" => Ok(Self::Dispatcher),
            // At most 40 characters of what was given are repeated.
            other => {
                Err(format!("unknown tool surface `{other:.40}`: use windows, both or dispatcher"))
            }
        }
    }
}

/// What one application accepts from agents and clients, so that a hostile
/// or buggy one cannot make it grow without bound. Every limit answers with
/// a structured error that names it.
///
/// ```
/// let limits = purview::settings::Limits::default().max_windows(32).max_string_bytes(4096);
/// let app = purview::App::builder().limits(limits).build();
/// # let _ = app;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Open windows at most (256); an agent's call that would open more
    /// fails with `limit_reached`.
    pub max_windows: usize,
    /// Bytes of one call's arguments, roughly as JSON (1 MiB).
    pub max_argument_bytes: usize,
    /// Bytes of any one string inside the arguments (64 KiB).
    pub max_string_bytes: usize,
    /// Top-level arguments of one call (64).
    pub max_arguments: usize,
    /// Sessions and listen streams receiving notifications at once (256).
    pub max_subscribers: usize,
    /// Approval questions waiting for an answer at once, in all (64); an
    /// agent's call beyond it fails with `limit_reached` without asking.
    pub max_pending_approvals: usize,
    /// Approval questions one agent session may have waiting at once (4).
    pub max_pending_approvals_per_session: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_windows: 256,
            max_argument_bytes: 1024 * 1024,
            max_string_bytes: 64 * 1024,
            max_arguments: 64,
            max_subscribers: 256,
            max_pending_approvals: 64,
            max_pending_approvals_per_session: 4,
        }
    }
}

impl Limits {
    /// Sets [`Limits::max_pending_approvals`].
    pub fn max_pending_approvals(mut self, n: usize) -> Self {
        self.max_pending_approvals = n;
        self
    }

    /// Sets [`Limits::max_pending_approvals_per_session`].
    pub fn max_pending_approvals_per_session(mut self, n: usize) -> Self {
        self.max_pending_approvals_per_session = n;
        self
    }

    /// Sets [`Limits::max_windows`].
    pub fn max_windows(mut self, n: usize) -> Self {
        self.max_windows = n;
        self
    }

    /// Sets [`Limits::max_argument_bytes`].
    pub fn max_argument_bytes(mut self, n: usize) -> Self {
        self.max_argument_bytes = n;
        self
    }

    /// Sets [`Limits::max_string_bytes`].
    pub fn max_string_bytes(mut self, n: usize) -> Self {
        self.max_string_bytes = n;
        self
    }

    /// Sets [`Limits::max_arguments`].
    pub fn max_arguments(mut self, n: usize) -> Self {
        self.max_arguments = n;
        self
    }

    /// Sets [`Limits::max_subscribers`].
    pub fn max_subscribers(mut self, n: usize) -> Self {
        self.max_subscribers = n;
        self
    }
}

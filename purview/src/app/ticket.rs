//! A 2026-07-28 approval question as it travels: what it was about (the
//! [`Ticket`] sealed into the client's `requestState`), the question the
//! call ends with, the retry that answers it, and the seal the transport
//! puts on it. The decisions about them are consent.rs's.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Approval;
use crate::model::DenialReason;

/// What a 2026-07-28 approval question was about: sealed into the
/// `requestState` the client sends back with its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ticket {
    /// Once only (`answers.rs`).
    pub nonce: String,
    /// The window id as the call named it (`app` for app-level actions).
    pub window: String,
    pub action: String,
    /// The window's version when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// For an app-level action, its pin (consent.rs) when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<u64>,
}

/// A 2026-07-28 retry that carries a `requestState`, as the transport
/// opened it.
#[derive(Debug, Clone)]
pub(crate) enum Resume {
    /// The state opened: what it was about, and the answer given (`None`
    /// when the client sent none).
    Answered { ticket: Ticket, answer: Option<Approval> },
    /// The state did not open: expired, or altered / for other arguments.
    Unusable(DenialReason),
}

/// The question a 2026-07-28 call ends with: for the client to put to its
/// user and send back answered, with the sealed ticket.
#[derive(Debug, Clone)]
pub(crate) struct Question {
    pub ticket: Ticket,
    /// The same words 2025-11-25 clients get in their elicitation.
    pub message: String,
    /// How long the answer may take.
    pub expires_in: Duration,
}

/// Seals and opens tickets for the transport's `requestState` (rmcp's
/// HMAC codec lives on the transport side).
pub(crate) trait StateSeal: Send + Sync {
    /// `ticket` as an opaque string bound to `bound_to` (the call's tool
    /// name and arguments), valid for `ttl`.
    fn seal(&self, ticket: &Ticket, bound_to: &[u8], ttl: Duration) -> String;
    /// The ticket, if `sealed` is genuine, unexpired and bound to `bound_to`.
    fn open(&self, sealed: &str, bound_to: &[u8]) -> Result<Ticket, DenialReason>;
}

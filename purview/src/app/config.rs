//! What an application was built with ([`AppBuilder`](super::AppBuilder)),
//! as every room of the core reads it.

use std::{sync::Arc, time::Duration};

use super::{Approval, WhoApproves};
use crate::settings::{Limits, ToolSurface};

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub name: String,
    pub version: String,
    pub instructions: Option<String>,
    pub default_timeout: Duration,
    pub coalesce: Duration,
    pub surface: ToolSurface,
    pub limits: Limits,
    pub approval_timeout: Duration,
    /// What a call that needs approval gets when no one can be asked.
    pub no_approver: Approval,
    /// Whose yes the app accepts.
    pub who_approves: WhoApproves,
    /// The key sealing 2026-07-28 approval questions; `None`: one made per
    /// process.
    pub approval_key: Option<Arc<[u8]>>,
}

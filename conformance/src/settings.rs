//! What one walk is told: how far to go, what it may call and with which
//! values, how long to wait. [`Explorer`](crate::Explorer) builds it; the
//! walk only reads it. Below both, so that neither imports the other's
//! half (the explorer runs walks; a walk needs nothing of the explorer).

use std::{
    collections::{BTreeSet, HashMap},
    time::Duration,
};

use serde_json::Value;

use crate::{checks::Check, verdict::CoverageLevel};

/// The JSON Schema of app://windows (§4.2, §4.4 and Appendix B), as the
/// explorer checks every read against it.
pub const APP_WINDOWS_SCHEMA: &str = include_str!("../schemas/app-windows.schema.json");

/// One walk's settings; see the [`Explorer`](crate::Explorer) method of
/// the same name for each.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub steps: usize,
    pub seed: u64,
    pub secrets: Vec<String>,
    pub hints: HashMap<String, Vec<Value>>,
    pub allow_destructive: bool,
    pub call_timeout: Duration,
    pub notification_timeout: Option<Duration>,
    pub settle: Option<Duration>,
    pub shrink: bool,
    pub extension_codes: BTreeSet<String>,
    pub required: CoverageLevel,
    /// How the walk answers approval questions: yes, no, or (`None`) its
    /// client cannot be asked.
    pub approve: Option<bool>,
    /// Checks whose failures do not fail the walk, on purpose.
    pub allowed: BTreeSet<Check>,
}

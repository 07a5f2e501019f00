//! A walk as data: the calls the explorer made, replayable against a fresh
//! server. Versions are recorded by intent ("the current one", "an old
//! one"), not by number, so a shortened walk still means the same thing.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A replayable sequence of calls. Printed with every failure; save it as
/// JSON and give it to `purview-conformance --replay FILE` or
/// [`Explorer::replay`](crate::Explorer::replay).
///
/// ```
/// let script: purview_conformance::Script = serde_json::from_str(r#"{
///     "steps": [
///         {"call": {"tool": "w1__delete", "arguments": {}}},
///         {"call": {"tool": "w1__set_title", "arguments": {"title": "x"},
///                   "expectedVersion": "current"}}
///     ]
/// }"#).unwrap();
/// assert_eq!(script.steps.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// One step of a walk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// One tools/call, answered before the next step.
    Call(Call),
    /// Several tools/calls sent at once (the §10.1 serialization probe).
    Together(Vec<Call>),
}

impl Step {
    /// The calls of this step.
    pub fn calls(&self) -> &[Call] {
        match self {
            Self::Call(call) => std::slice::from_ref(call),
            Self::Together(calls) => calls,
        }
    }
}

/// One tools/call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// The tool name.
    pub tool: String,
    /// The arguments, without `expectedVersion` when that is given by
    /// [`Call::expected_version`].
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// Which `expectedVersion` to send for the tool's window.
    #[serde(default, skip_serializing_if = "ExpectedVersion::is_omit")]
    pub expected_version: ExpectedVersion,
    /// What the explorer meant the call to be.
    #[serde(default, skip_serializing_if = "Intent::is_valid")]
    pub intent: Intent,
}

/// The `expectedVersion` a call carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectedVersion {
    /// None (or whatever the arguments hold).
    #[default]
    Omit,
    /// The window's version as last read.
    Current,
    /// A version the window is not at (the current one plus one).
    Stale,
}

impl ExpectedVersion {
    fn is_omit(&self) -> bool {
        *self == Self::Omit
    }
}

/// What a call was made to test.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Arguments the tool's inputSchema accepts.
    #[default]
    Valid,
    /// Arguments that break the named parameters.
    Invalid(Vec<String>),
    /// A tool name naming a window id that was never open.
    UnknownWindow,
    /// A tool name naming an action the window never offered.
    UnknownAction,
}

impl Intent {
    fn is_valid(&self) -> bool {
        *self == Self::Valid
    }
}

impl Script {
    /// The script as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a script is plain JSON")
    }

    /// The script as a Rust test that replays it against the app in-process
    /// with the kit's API and fails while `check` still fails: to paste into
    /// the app's tests, with `my_app` the function that builds the app.
    ///
    /// ```
    /// let script = purview_conformance::Script { steps: Vec::new() };
    /// let test = script.as_rust_test(purview_conformance::Check::Masking);
    /// assert!(test.contains("Explorer::new()") && test.contains("Check::Masking"));
    /// ```
    pub fn as_rust_test(&self, check: crate::Check) -> String {
        let name = check.name().replace('-', "_");
        let variant = format!("{check:?}");
        format!(
            "#[tokio::test]\nasync fn replays_the_{name}_failure() {{\n    let script: purview_conformance::Script =\n        serde_json::from_str(r###\"{json}\"###).unwrap();\n    let endpoint = purview_conformance::Endpoint::in_process(my_app);\n    let report = purview_conformance::Explorer::new().replay(&endpoint, &script).await;\n    let check = report.check(purview_conformance::Check::{variant});\n    assert_ne!(check.status, purview_conformance::Status::Fail, \"{{report}}\");\n}}\n",
            json = self.to_json()
        )
    }
}

//! What is checked: every MUST of §11 (some split in two so a failure names
//! exactly what broke), the SHOULDs a client can observe, and findings
//! about the application itself.

use std::fmt;

use serde::Serialize;

/// How much a check weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A §11 conformance requirement: failing it fails the run.
    Must,
    /// A recommendation the protocol makes: reported, never fatal.
    Should,
    /// Not the protocol but the application: a handler that failed or
    /// panicked on arguments its own schema accepts.
    App,
    /// A server requirement of the MCP Apps extension
    /// (`io.modelcontextprotocol/ui`), checked when the server declares it:
    /// failing one fails the run.
    #[serde(rename = "mcp-apps")]
    McpApps,
}

/// One thing the explorer checks. The names are stable: use them to look a
/// check up in a [`Report`](crate::Report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Check {
    /// §3: `initialize` declares `resources.subscribe` and `tools.listChanged`.
    Capabilities,
    /// §4, §12.1, §12.2: one resource, app://windows, one JSON text item
    /// whose content matches the protocol's schema.
    Resource,
    /// §2, §10.2: `operableWindowIds` is what modal chains and app-level
    /// modals make operable.
    Operability,
    /// §5.1: tools/list offers only operations of operable windows, and what
    /// it offers can be called.
    ToolsOnlyOperable,
    /// §5.1, §6: a change of the tool list is announced with
    /// `notifications/tools/list_changed`, sent after the list changed.
    ToolsListChanged,
    /// §5.2, §10.4, §12.4: tool names are `{winId}__{action}` and every id is
    /// name-safe.
    ToolNames,
    /// §7.1: a write whose `expectedVersion` is not current is refused with
    /// `stale_state` and the current version, and changes nothing.
    StaleState,
    /// §7.2: a call to an operation that is blocked, hidden or gone is
    /// refused with a tool error and changes nothing.
    RuntimeValidation,
    /// §5.4, §7.4, §12.3: results and failures travel in `structuredContent`
    /// (failures with `isError` and a code), never as JSON-RPC errors, and
    /// every tool declares an `outputSchema` its results match.
    StructuredResults,
    /// §7.3: `validation_failed` names each wrong parameter.
    FieldErrors,
    /// §6, §8.3: `resources/updated` follows every change, only once the
    /// change can be read, and nothing is sent for a call that changed nothing.
    NotifyAfterEffect,
    /// §10.1: operations take effect one at a time.
    Serialized,
    /// §10.1: notifications reach every connection.
    Broadcast,
    /// §4.5: sensitive values are masked, and no secret sent in comes back.
    Masking,
    /// §10.3: window ids and block ids are unique and window ids never reused.
    Ids,
    /// §4.2, §7.1, §10.5: a window's version is a 64-bit integer that moves
    /// up exactly when its summary or blocks change.
    Versions,
    /// §3, §8.1 (SHOULD): `instructions` explain app://windows and
    /// `expectedVersion`.
    Instructions,
    /// §4.2, §4.3 (SHOULD): every window has a summary.
    Summaries,
    /// §5.2 (SHOULD): every tool has a human-readable title or description.
    ToolWords,
    /// §5.6 (SHOULD): every tool carries annotations.
    Annotations,
    /// §5.5 (SHOULD): window operations that write accept `expectedVersion`.
    ExpectedVersionParam,
    /// §5.4 (SHOULD): a successful result carries a `message`.
    ResultMessage,
    /// §12.3 (SHOULD): results carry a text item in `content`.
    ContentMirror,
    /// §7.4 (SHOULD): codes are §7.4's (or documented extensions) and used
    /// for what §7.4 says; a window that never existed is `window_not_found`.
    ErrorCodes,
    /// §7.3 (SHOULD): arguments outside the tool's inputSchema are refused.
    RejectsInvalid,
    /// §4.4 (SHOULD): media blocks carry `alt` text.
    MediaAlt,
    /// §9 (SHOULD): a table or list cut short (its `total` above the rows
    /// it shows) has a read-only operation in its window that fetches the
    /// rest, listed or offered through `app__read_windows`; and an action
    /// whose signature there says it pages a table (`[pages table rows]`)
    /// answers pages that count that table's rows.
    LargeData,
    /// The application: a handler failed (`action_failed`) on arguments its
    /// schema accepts — usually a panic or an unhandled case.
    HandlerFailed,
    /// MCP Apps: every `ui://` resource a tool names is listed and read as
    /// `text/html;profile=mcp-app`, and the extension declares that type.
    AppsResource,
    /// MCP Apps: a view's document is an HTML5 document.
    AppsDocument,
    /// MCP Apps: `_meta.ui.csp` names only the spec's fields, each a list of
    /// origins; `prefersBorder` is a boolean.
    AppsCsp,
    /// MCP Apps: a client without the extension lists no view and no tool
    /// only views may call, and is refused when it reads or calls them.
    AppsHidden,
    /// MCP Apps: a tool with a view keeps meaningful text `content` beside
    /// it, for hosts that render none.
    AppsContent,
    /// MCP Apps (the draft's host rule): a view's `_meta.ui` is on its
    /// `resources/list` entry as well as on its read, alike.
    AppsMetaPlacement,
}

impl Check {
    /// Every check, in report order.
    pub const ALL: [Check; 34] = [
        Self::Capabilities,
        Self::Resource,
        Self::Operability,
        Self::ToolsOnlyOperable,
        Self::ToolsListChanged,
        Self::ToolNames,
        Self::StaleState,
        Self::RuntimeValidation,
        Self::StructuredResults,
        Self::FieldErrors,
        Self::NotifyAfterEffect,
        Self::Serialized,
        Self::Broadcast,
        Self::Masking,
        Self::Ids,
        Self::Versions,
        Self::Instructions,
        Self::Summaries,
        Self::ToolWords,
        Self::Annotations,
        Self::ExpectedVersionParam,
        Self::ResultMessage,
        Self::ContentMirror,
        Self::ErrorCodes,
        Self::RejectsInvalid,
        Self::MediaAlt,
        Self::LargeData,
        Self::HandlerFailed,
        Self::AppsResource,
        Self::AppsDocument,
        Self::AppsCsp,
        Self::AppsHidden,
        Self::AppsContent,
        Self::AppsMetaPlacement,
    ];

    /// The stable name used in reports and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Capabilities => "capabilities",
            Self::Resource => "resource",
            Self::Operability => "operability",
            Self::ToolsOnlyOperable => "tools-only-operable",
            Self::ToolsListChanged => "tools-list-changed",
            Self::ToolNames => "tool-names",
            Self::StaleState => "stale-state",
            Self::RuntimeValidation => "runtime-validation",
            Self::StructuredResults => "structured-results",
            Self::FieldErrors => "field-errors",
            Self::NotifyAfterEffect => "notify-after-effect",
            Self::Serialized => "serialized",
            Self::Broadcast => "broadcast",
            Self::Masking => "masking",
            Self::Ids => "ids",
            Self::Versions => "versions",
            Self::Instructions => "instructions",
            Self::Summaries => "summaries",
            Self::ToolWords => "tool-words",
            Self::Annotations => "annotations",
            Self::ExpectedVersionParam => "expected-version-param",
            Self::ResultMessage => "result-message",
            Self::ContentMirror => "content-mirror",
            Self::ErrorCodes => "error-codes",
            Self::RejectsInvalid => "rejects-invalid",
            Self::MediaAlt => "media-alt",
            Self::LargeData => "large-data",
            Self::HandlerFailed => "handler-failed",
            Self::AppsResource => "apps-resource",
            Self::AppsDocument => "apps-document",
            Self::AppsCsp => "apps-csp",
            Self::AppsHidden => "apps-hidden",
            Self::AppsContent => "apps-content",
            Self::AppsMetaPlacement => "apps-meta-placement",
        }
    }

    /// How much it weighs.
    pub fn level(self) -> Level {
        match self {
            Self::Instructions
            | Self::Summaries
            | Self::ToolWords
            | Self::Annotations
            | Self::ExpectedVersionParam
            | Self::ResultMessage
            | Self::ContentMirror
            | Self::ErrorCodes
            | Self::RejectsInvalid
            | Self::MediaAlt
            | Self::LargeData
            | Self::AppsMetaPlacement => Level::Should,
            Self::HandlerFailed => Level::App,
            Self::AppsResource
            | Self::AppsDocument
            | Self::AppsCsp
            | Self::AppsHidden
            | Self::AppsContent => Level::McpApps,
            _ => Level::Must,
        }
    }

    /// The spec sections it checks.
    pub fn sections(self) -> &'static str {
        match self {
            Self::Capabilities => "§3",
            Self::Resource => "§4, §12.1, §12.2",
            Self::Operability => "§2, §10.2",
            Self::ToolsOnlyOperable => "§5.1",
            Self::ToolsListChanged => "§5.1, §6",
            Self::ToolNames => "§5.2, §10.4, §12.4",
            Self::StaleState => "§7.1",
            Self::RuntimeValidation => "§7.2",
            Self::StructuredResults => "§5.4, §7.4, §12.3",
            Self::FieldErrors => "§7.3",
            Self::NotifyAfterEffect => "§6, §8.3",
            Self::Serialized | Self::Broadcast => "§10.1",
            Self::Masking => "§4.5",
            Self::Ids => "§10.3",
            Self::Versions => "§4.2, §7.1, §10.5",
            Self::Instructions => "§3, §8.1",
            Self::Summaries => "§4.2, §4.3",
            Self::ToolWords => "§5.2",
            Self::Annotations => "§5.6",
            Self::ExpectedVersionParam => "§5.5",
            Self::ResultMessage => "§5.4",
            Self::ContentMirror => "§12.3",
            Self::ErrorCodes => "§7.4",
            Self::RejectsInvalid => "§7.3",
            Self::MediaAlt => "§4.4",
            Self::LargeData => "§9",
            Self::HandlerFailed => "application",
            Self::AppsResource
            | Self::AppsDocument
            | Self::AppsCsp
            | Self::AppsHidden
            | Self::AppsContent
            | Self::AppsMetaPlacement => "MCP Apps",
        }
    }

    /// What passing means, in one line.
    pub fn title(self) -> &'static str {
        match self {
            Self::Capabilities => "initialize declares resources.subscribe and tools.listChanged",
            Self::Resource => {
                "app://windows is the one resource, read as one JSON text item matching the protocol's schema"
            }
            Self::Operability => {
                "operableWindowIds is exactly what the modal chains and app-level modals leave operable"
            }
            Self::ToolsOnlyOperable => {
                "tools/list offers only operable windows' operations, and each one offered can be called (and, beside Purview's app__read_windows, exactly the actions it offers)"
            }
            Self::ToolsListChanged => {
                "every change of tools/list is announced with tools/list_changed, after the change"
            }
            Self::ToolNames => {
                "tool names are {winId}__{action}; window ids and actions use only [A-Za-z0-9_-]"
            }
            Self::StaleState => {
                "a write carrying an old expectedVersion is refused with stale_state and currentVersion"
            }
            Self::RuntimeValidation => {
                "calls to blocked, hidden or closed operations are refused with a tool error and change nothing"
            }
            Self::StructuredResults => {
                "results and failures come in structuredContent (failures with isError and a code), never as JSON-RPC errors; each tool declares an outputSchema its results match"
            }
            Self::FieldErrors => "validation_failed lists each wrong parameter by name",
            Self::NotifyAfterEffect => {
                "resources/updated follows every change and only once the change is readable; refused calls notify nothing"
            }
            Self::Serialized => {
                "operations take effect one at a time: two writes on the same version never both land"
            }
            Self::Broadcast => "every connection receives the notifications",
            Self::Masking => {
                "sensitive values are masked, and no secret sent to the server comes back"
            }
            Self::Ids => {
                "window ids are unique and never reused; block ids are unique within their window"
            }
            Self::Versions => {
                "versions are 64-bit integers that rise exactly when a window's summary or blocks change"
            }
            Self::Instructions => "instructions explain app://windows and expectedVersion",
            Self::Summaries => "every window has a one-sentence summary",
            Self::ToolWords => "every tool has a human-readable title or description",
            Self::Annotations => "every tool carries readOnly/destructive/idempotent annotations",
            Self::ExpectedVersionParam => "window operations that write accept expectedVersion",
            Self::ResultMessage => "successful results carry a message",
            Self::ContentMirror => "results mirror their message as text content",
            Self::ErrorCodes => {
                "error codes are §7.4's or documented extensions, each used for its meaning"
            }
            Self::RejectsInvalid => {
                "arguments outside a tool's inputSchema are refused with validation_failed naming them"
            }
            Self::MediaAlt => "media blocks carry alt text",
            Self::LargeData => {
                "a table or list cut short (total above its rows) has a read-only operation in its window to fetch the rest, and a declared load action's pages agree with its table"
            }
            Self::HandlerFailed => {
                "no handler fails (action_failed) on arguments its schema accepts"
            }
            Self::AppsResource => {
                "every ui:// view a tool names is listed and read as text/html;profile=mcp-app"
            }
            Self::AppsDocument => "a view's document is an HTML5 document",
            Self::AppsCsp => "_meta.ui.csp names only the spec's fields, each a list of origins",
            Self::AppsHidden => {
                "a client without the extension sees no view or view-only tool and cannot read or call them"
            }
            Self::AppsContent => "a tool with a view answers meaningful text content beside it",
            Self::AppsMetaPlacement => {
                "a view's _meta.ui is on its resources/list entry as on its read"
            }
        }
    }

    /// The §11 bullet a MUST belongs to (1-based), for the report.
    pub fn bullet(self) -> Option<u8> {
        Some(match self {
            Self::Capabilities => 1,
            Self::Resource => 2,
            Self::Operability => 3,
            Self::ToolsOnlyOperable | Self::ToolsListChanged => 4,
            Self::ToolNames => 5,
            Self::StaleState
            | Self::RuntimeValidation
            | Self::StructuredResults
            | Self::FieldErrors => 6,
            Self::NotifyAfterEffect => 7,
            Self::Serialized | Self::Broadcast => 8,
            Self::Masking => 9,
            Self::Ids | Self::Versions => 10,
            _ => return None,
        })
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Check {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|c| c.name() == s).ok_or_else(|| format!("no check named {s:?}"))
    }
}

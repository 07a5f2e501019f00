//! The reads every agent repeats, answered over HTTP from bytes written
//! once per change and shared by every request: tools/list (written once
//! per change of the tool set), the `app://windows` resource and the
//! unfiltered `app__read_windows` (once per change of the windows). rmcp
//! turned each answer into JSON for each request: with 256 windows a list
//! was 2.8 ms of a core per 600-byte request, the largest work a client
//! could ask for over and over. (`app__read_windows` is a call, but a read
//! of all the windows changes nothing and is the same for every client:
//! its answer is the call path's, `Settled::Read`, as kept.)
//!
//! Only a request whose every header and field says the same as one rmcp
//! would answer with that read is answered here; anything else (a cursor,
//! another resource, a header rmcp would refuse or that this module does
//! not know, an unknown session) goes on to rmcp, which answers it or
//! refuses it in its own words:
//! - a session of the revisions before 2026-07-28 is answered here once
//!   one of these reads went through rmcp in it, which is where its
//!   client's capabilities (whether it renders cards) are learned
//!   ([`SharedReads::note_session`]);
//! - a 2026-07-28 request carries its client's capabilities in its `_meta`,
//!   with every required key, and names its revision, method and resource
//!   in the headers as its body does.
//!
//! The answer is `application/json`, which every client of streamable HTTP
//! accepts: the same `result` rmcp would write, in the shape it gives each
//! revision (`tests/shared_reads.rs` compares them), with nothing to resume.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use axum::{
    body::Bytes,
    http::{HeaderMap, StatusCode, header, request::Parts},
    response::{IntoResponse, Response},
};
use rmcp::model::{ClientRequest, GetMeta, JsonRpcRequest, ProtocolVersion, ServerResult};
use serde_json::Value;

use crate::{
    App, Error,
    lock::lock_unpoisoned,
    model::{JsonObject, ToolDefinition, WINDOWS_URI},
    naming,
};

use super::super::{
    http_sessions::{BoundedSessions, Credential},
    mcp_apps::Card,
    turns::{InLine, InTurns, Turns},
    wire::{read_windows_result, windows_contents},
};

/// The `_meta` keys every 2026-07-28 request carries (its revision, its
/// client and the client's capabilities): any other key goes to rmcp.
const STANDARD_META: &str = "io.modelcontextprotocol/";

/// The reads' bytes, and the sessions whose client is known.
pub(crate) struct SharedReads {
    app: App,
    card: Option<Arc<Card>>,
    /// The MCP endpoint's path: a read sent anywhere else goes on (to the
    /// router's 404).
    path: String,
    sessions: Arc<BoundedSessions>,
    /// How long rmcp keeps an idle session: a session is answered here
    /// only while rmcp saw it within half of that, so reads answered here
    /// never let it expire.
    idle: Duration,
    /// The CPU's turns the writing is done in, charged to the asker.
    turns: Option<Arc<Turns>>,
    tools: Kept<[ToolDefinition]>,
    windows: Kept<str>,
    read_windows: Kept<Value>,
    /// Sessions (of the revisions before 2026-07-28) that read through
    /// rmcp: whether their client renders cards, and when.
    known: Mutex<HashMap<String, (bool, Instant)>>,
}

/// The bytes written from one state of a read (`Arc` identity: a new one
/// each change), for each revision's shape (before 2026-07-28, then from
/// it), without the card's tools and with.
type Kept<T> = Mutex<Option<(Arc<T>, [[Option<Bytes>; 2]; 2])>>;

/// The bytes of `now` for `(stateless, cards)`, written by `write` on the
/// first ask since `now` replaced what `kept` was written from, in the
/// shape rmcp gives the revision (`stateless`: 2026-07-28, with its cache
/// hints; before it, without `resultType` and non-object output schemas).
fn written<T: ?Sized>(
    kept: &Kept<T>,
    now: Arc<T>,
    (stateless, cards): (bool, bool),
    write: impl FnOnce() -> Result<ServerResult, Error>,
) -> Result<Bytes, Error> {
    let mut kept = lock_unpoisoned(kept);
    let slots = match &mut *kept {
        Some((of, slots)) if Arc::ptr_eq(of, &now) => slots,
        other => &mut other.insert((now, Default::default())).1,
    };
    let slot = &mut slots[usize::from(stateless)][usize::from(cards)];
    if let Some(bytes) = slot {
        return Ok(bytes.clone());
    }
    let mut result = write()?;
    if stateless {
        result.fill_missing_cache_hints();
    } else {
        result.strip_result_type_for_legacy_peer();
        result.strip_non_object_output_for_legacy_peer();
    }
    let json = serde_json::to_vec(&result).map_err(|e| Error::Serve(e.to_string()))?;
    Ok(slot.insert(Bytes::from(json)).clone())
}

/// What a request asks for that is answered here.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    Tools,
    Windows,
    /// `app__read_windows`, all of them, without schemas.
    AllWindows,
}

impl SharedReads {
    pub(crate) fn new(
        app: App,
        card: Option<Arc<Card>>,
        (path, idle): (String, Duration),
        sessions: Arc<BoundedSessions>,
        turns: Option<Arc<Turns>>,
    ) -> Self {
        Self {
            app,
            card,
            path,
            idle,
            sessions,
            turns,
            tools: Mutex::default(),
            windows: Mutex::default(),
            read_windows: Mutex::default(),
            known: Mutex::default(),
        }
    }

    /// The JSON of `read` as the app is now, in the shape for `stateless`
    /// (and `cards`, for the list).
    fn bytes(&self, read: Read, stateless: bool, cards: bool) -> Result<Bytes, Error> {
        match read {
            Read::Tools => {
                written(&self.tools, self.app.listed_tools()?, (stateless, cards), || {
                    let card = self.card.as_deref().filter(|_| cards);
                    Ok(ServerResult::ListToolsResult(self.app.tools_reply_for(card)?))
                })
            }
            Read::Windows => {
                let json = self.app.snapshot_json()?;
                let text = json.clone();
                written(&self.windows, json, (stateless, false), move || {
                    Ok(ServerResult::ReadResourceResult(windows_contents(&text)))
                })
            }
            Read::AllWindows => {
                let read = self.app.windows_read()?;
                let value = read.clone();
                written(&self.read_windows, read, (stateless, false), move || {
                    Ok(ServerResult::CallToolResult(read_windows_result(Value::clone(&value))))
                })
            }
        }
    }

    /// Session `id` read through rmcp just now; `cards`: its client renders
    /// cards (as it said when the session opened, not in one request).
    pub(crate) fn note_session(&self, id: &str, cards: bool) {
        let mut known = lock_unpoisoned(&self.known);
        if let Some(seen) = known.get_mut(id) {
            *seen = (cards, Instant::now());
            return;
        }
        // Only live sessions are kept: as many as the server holds.
        known.retain(|id, _| self.sessions.holds(id));
        known.insert(id.to_owned(), (cards, Instant::now()));
    }

    /// What `request` asks for, if it is a read answered here: the read,
    /// its method, and the name the 2026-07-28 headers give it.
    fn asked(&self, request: &ClientRequest) -> Option<(Read, &'static str, Option<&'static str>)> {
        let asked = match request {
            ClientRequest::ListToolsRequest(list)
                if list.params.as_ref().is_none_or(|p| p.cursor.is_none()) =>
            {
                (Read::Tools, "tools/list", None)
            }
            ClientRequest::ReadResourceRequest(read) if read.params.uri == WINDOWS_URI => {
                (Read::Windows, "resources/read", Some(WINDOWS_URI))
            }
            ClientRequest::CallToolRequest(call)
                if call.params.name == naming::READ_WINDOWS_TOOL
                    && call.params.arguments.as_ref().is_none_or(JsonObject::is_empty)
                    && call.params.input_responses.is_none()
                    && call.params.request_state.is_none()
                    && self.app.tool_surface().lists_dispatcher() =>
            {
                (Read::AllWindows, "tools/call", Some(naming::READ_WINDOWS_TOOL))
            }
            _ => return None,
        };
        // Nothing the call path would act on: no progress asked for, no
        // answers to questions carried.
        let meta = request.get_meta();
        if meta.get_progress_token().is_some()
            || meta.0.keys().any(|k| !k.starts_with(STANDARD_META))
        {
            return None;
        }
        Some(asked)
    }

    /// The answer to `request` (with `parts`) if it is a read this module
    /// answers, else `None` for rmcp.
    pub(crate) async fn answer(
        &self,
        parts: &Parts,
        request: &JsonRpcRequest<ClientRequest>,
    ) -> Option<Response> {
        let (read, method, name) = self.asked(&request.request)?;
        if parts.uri.path() != self.path || !plain_post(&parts.headers, method, name) {
            return None;
        }
        // The revision's header: absent, or once and readable.
        let versions = parts.headers.get_all("mcp-protocol-version").iter().count();
        let header_version = one(&parts.headers, "mcp-protocol-version");
        if versions > 1 || (versions == 1 && header_version.is_none()) {
            return None;
        }
        let meta = request.request.get_meta();
        let (stateless, cards) = match one(&parts.headers, "mcp-session-id") {
            Some(id) => {
                // Before 2026-07-28: the version only in the header, if at
                // all, and one rmcp knows; the client's capabilities the
                // session's own (a request naming others goes to rmcp).
                let known_version = header_version.is_none_or(|v| {
                    v < ProtocolVersion::V_2026_07_28.as_str()
                        && ProtocolVersion::KNOWN_VERSIONS.iter().any(|k| k.as_str() == v)
                });
                if !known_version
                    || meta.protocol_version().is_some()
                    || meta.client_capabilities().is_some()
                {
                    return None;
                }
                let (cards, seen) = *lock_unpoisoned(&self.known).get(id)?;
                // rmcp's idle clock runs only on what it serves.
                if seen.elapsed() > self.idle / 2 || !self.sessions.is_live(id).await {
                    return None;
                }
                (false, cards)
            }
            None => {
                // 2026-07-28: every key the revision requires, the same
                // revision in the header as in the body, and the method
                // (and resource) named in the headers.
                let version = meta.protocol_version()?;
                let stateless = one(&parts.headers, "mcp-method") == Some(method)
                    && name.is_none_or(|name| one(&parts.headers, "mcp-name") == Some(name))
                    && version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
                    && ProtocolVersion::KNOWN_VERSIONS.contains(&version)
                    && header_version == Some(version.as_str())
                    && meta.missing_required_keys(&version).is_empty();
                if !stateless {
                    return None;
                }
                (true, super::super::mcp_apps::renders_cards(meta.client_capabilities().as_ref()))
            }
        };
        // Written (once per change) in the asker's turns, as a handler's
        // work is.
        let write = async { self.bytes(read, stateless, cards) };
        let client = parts.extensions.get::<Credential>().map(|c| c.0.clone());
        let result = match (&self.turns, client) {
            (Some(turns), Some(client)) => {
                InTurns::new(write, InLine::new(turns.clone(), client)).await
            }
            _ => write.await,
        }
        .ok()?;
        let id = serde_json::to_vec(&request.id).ok()?;
        let mut body = Vec::with_capacity(result.len() + id.len() + 40);
        body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        body.extend_from_slice(&id);
        body.extend_from_slice(br#","result":"#);
        body.extend_from_slice(&result);
        body.push(b'}');
        Some((StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response())
    }
}

/// The one value of header `name`, if it has exactly one and it is text.
fn one<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    values.next().is_none().then(|| value.to_str().ok()).flatten()
}

/// The request's headers are those of a plain `method` of `name` (a
/// resource's URI, if any): JSON sent, JSON and event streams both accepted
/// (each named once, without parameters), `Mcp-Method` absent or `method`,
/// `Mcp-Name` absent or `name` as it is, and no `Mcp-Param-*`.
fn plain_post(headers: &HeaderMap, method: &str, name: Option<&str>) -> bool {
    let json = |v: &str| {
        v.split(';').next().is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
    };
    if !one(headers, "content-type").is_some_and(json) {
        return false;
    }
    let Some(accept) = one(headers, "accept") else { return false };
    let kinds: Vec<&str> = accept.split(',').map(str::trim).collect();
    let named = |kind: &str| kinds.iter().any(|k| k.eq_ignore_ascii_case(kind));
    if kinds.iter().any(|k| k.contains(';'))
        || !named("application/json")
        || !named("text/event-stream")
    {
        return false;
    }
    let absent_or = |header: &str, value: Option<&str>| {
        let count = headers.get_all(header).iter().count();
        count == 0 || (count == 1 && value.is_some() && one(headers, header) == value)
    };
    absent_or("mcp-method", Some(method))
        && absent_or("mcp-name", name)
        && !headers.keys().any(|k| k.as_str().starts_with("mcp-param-"))
}

#[cfg(test)]
mod tests {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

    use super::*;
    use crate::{ActionSpec, Actions, Args, Context, View, Window, by_hand::BoxFuture};

    #[derive(Clone)]
    struct Plain;

    impl Window for Plain {
        fn title(&self) -> String {
            "Plain".into()
        }
        fn project(&self, view: &mut View) {
            view.summary("A window");
        }
    }

    impl Actions for Plain {
        fn actions() -> Vec<ActionSpec> {
            vec![]
        }
        fn call<'a>(&'a mut self, action: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> {
            Box::pin(async move { Err(crate::by_hand::unknown_action(action)) })
        }
    }

    #[test]
    fn s9_the_list_is_written_once_per_change_of_the_tool_set() {
        let app = App::builder().build();
        app.open(Plain).expect("opens");
        let sessions = BoundedSessions::new(LocalSessionManager::default(), 1, 1, 1);
        let at = ("/mcp".to_owned(), Duration::from_secs(300));
        let shared = SharedReads::new(app.clone(), None, at, sessions, None);
        let first = shared.bytes(Read::Tools, true, false).expect("written");
        let again = shared.bytes(Read::Tools, true, false).expect("kept");
        assert_eq!(first.as_ptr(), again.as_ptr(), "written again without a change");
        let legacy = shared.bytes(Read::Tools, false, false).expect("written");
        assert_ne!(first, legacy, "one shape for both revisions");
        app.open(Plain).expect("opens");
        let changed = shared.bytes(Read::Tools, true, false).expect("written");
        assert_ne!(first.as_ptr(), changed.as_ptr(), "the old list after a change");
    }
}

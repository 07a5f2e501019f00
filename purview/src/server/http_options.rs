//! What [`HttpOptions`] holds: the address, the path, the clients and
//! their tokens, the accepted hosts and origins, and every limit the HTTP
//! server enforces (http.rs).

use std::{net::SocketAddr, path::Path, sync::Arc, time::Duration};

use super::{
    guard::{Guard, check_token},
    mcp_apps::Card,
};
#[cfg(doc)]
use crate::App;
use crate::{Error, Secret};

/// How to serve streamable HTTP.
///
/// Defaults: `127.0.0.1:0` (a free port on loopback), path `/mcp`, no token,
/// only loopback `Host` headers and loopback browser `Origin`s accepted
/// (DNS-rebinding protection), and the limits below. Serving beyond loopback
/// requires a bearer token (or an explicit
/// [`HttpOptions::allow_remote_without_token`]).
///
/// ```
/// let options = purview::http::HttpOptions::default()
///     .addr("127.0.0.1:8765".parse().unwrap())
///     .bearer_token("5f0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f")
///     .max_sessions(16);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct HttpOptions {
    pub(super) addr: SocketAddr,
    pub(super) path: String,
    /// The named clients and their bearer tokens.
    pub(super) clients: Vec<NamedClient>,
    pub(super) allowed_hosts: Vec<String>,
    pub(super) allowed_origins: Vec<String>,
    pub(super) remote_without_token: bool,
    pub(super) header_timeout: Duration,
    pub(super) body_timeout: Duration,
    pub(super) max_body_bytes: usize,
    pub(super) max_connections: usize,
    pub(super) min_request_rate: u32,
    pub(super) max_sessions: usize,
    pub(super) max_streams_per_session: usize,
    pub(super) max_streams: usize,
    pub(super) max_listen_streams: usize,
    pub(super) session_idle: Duration,
    /// Nagle's algorithm left on for accepted sockets (only for measuring).
    pub(super) nagle: bool,
    /// Answers written without CPU turns (`server/turns.rs`), as before
    /// them: for measuring what they change. Not part of the API.
    pub(super) no_cpu_turns: bool,
    /// Routes served beside the MCP endpoint, each under its path prefix.
    pub(super) beside: Vec<(String, axum::Router)>,
    /// The card shown to MCP Apps hosts, if any.
    pub(super) card: Option<Arc<Card>>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            path: "/mcp".into(),
            clients: Vec::new(),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
            ],
            remote_without_token: false,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_body_bytes: 4 * 1024 * 1024,
            max_connections: 256,
            min_request_rate: 1024,
            max_sessions: 64,
            max_streams_per_session: 4,
            max_streams: 64,
            max_listen_streams: 64,
            session_idle: Duration::from_secs(5 * 60),
            nagle: false,
            no_cpu_turns: false,
            beside: Vec::new(),
            card: None,
        }
    }
}

impl HttpOptions {
    /// The address to bind. Binding beyond loopback also needs a bearer
    /// token and [`HttpOptions::allow_host`] for the names clients will use.
    pub fn addr(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }

    /// The URL path of the MCP endpoint (default `/mcp`); must start with `/`
    /// and name a sub-path.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// One token for every client: the client named `bearer`
    /// ([`HttpOptions::client`]). Everyone who holds it is the same client,
    /// so its holders share one share of every limit; give each host its
    /// own token with [`HttpOptions::client`] instead, so that no holder can
    /// crowd out another.
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        self.client("bearer", token)
    }

    /// A client known by its own bearer token: every request must then
    /// carry `Authorization: Bearer <token>` (the scheme in any case) with
    /// one of the clients' tokens, and each client gets its own share of
    /// every limit (connections, sessions, streams, approval questions) and
    /// its own budgets in the app ([`Context::client`](crate::Context::client)
    /// names it), so no client can crowd out or slow down another.
    ///
    /// A name is 1 to 64 letters, digits, `.`, `_` or `-`, and every token
    /// at least 16 characters, different from every other
    /// ([`App::serve_http`] refuses anything else); `openssl rand -hex 32`
    /// makes a good one. Wrong tokens are answered more and more slowly per
    /// source address (after 5, each waits twice as long, up to 2 s), and at
    /// most 32 a second from all addresses together; a request without a
    /// token is answered at once. Read tokens from a file
    /// ([`HttpOptions::clients_file`]) or the environment, never from the
    /// command line, which any local user can read.
    ///
    /// ```
    /// let options = purview::http::HttpOptions::default()
    ///     .client("claude-desktop", "6d1f0c9e8b7a65432f1e0d9c8b7a6543")
    ///     .client("ci-runner", "0a9b8c7d6e5f40312a3b4c5d6e7f8091");
    /// # let _ = options;
    /// ```
    pub fn client(mut self, name: impl Into<String>, token: impl Into<String>) -> Self {
        let (name, token) = (name.into().into(), Secret::new(token.into()));
        self.clients.push(NamedClient { name, token, line: None });
        self
    }

    /// The clients named in a file, one a line: a name, white space, its
    /// token. Blank lines and lines starting with `#` are skipped. The file
    /// must name at least one client (an empty file would let everyone in
    /// without a token), and, on Unix, be readable and writable by the
    /// app's user alone (`chmod 600`): it holds every client's token.
    ///
    /// ```
    /// # fn run() -> Result<(), purview::Error> {
    /// let path = std::env::temp_dir().join("purview-clients-doc");
    /// std::fs::write(&path, "# name token\nclaude-desktop 6d1f0c9e8b7a65432f1e0d9c8b7a6543\n")
    ///     .map_err(|e| purview::Error::Serve(e.to_string()))?;
    /// # #[cfg(unix)] {
    /// use std::os::unix::fs::PermissionsExt;
    /// std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
    ///     .map_err(|e| purview::Error::Serve(e.to_string()))?;
    /// # }
    /// let options = purview::http::HttpOptions::default().clients_file(&path)?;
    /// # let _ = options; let _ = std::fs::remove_file(&path);
    /// # Ok(()) }
    /// # run().unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Serve`] when the file cannot be read, other users may read
    /// or change it, it names no client, or a line is not a name and a
    /// token (or reads as a token, then a name). A message names a line by
    /// its number, never quoting it: a line's columns may be swapped, and
    /// its first then holds a token.
    pub fn clients_file(mut self, path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        refuse_if_others_may_read(path)?;
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Serve(format!("cannot read the clients file {}: {e}", path.display()))
        })?;
        let before = self.clients.len();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let place = format!("line {} of the clients file {}", number + 1, path.display());
            let mut words = line.split_whitespace();
            match (words.next(), words.next(), words.next()) {
                (Some(name), Some(token), None) => {
                    let (name, token) = (name.into(), Secret::new(token.to_owned()));
                    self.clients.push(NamedClient { name, token, line: Some(place) });
                }
                _ => return Err(Error::Serve(format!("{place} is not `NAME TOKEN`"))),
            }
        }
        if self.clients.len() == before {
            return Err(Error::Serve(format!(
                "the clients file {} names no client (it is empty, or holds only comments), so a server started with it would let everyone in without a token: add a line `NAME TOKEN` for each client (make a token with `openssl rand -hex 32`), or leave out --clients to serve loopback without tokens",
                path.display()
            )));
        }
        Ok(self)
    }

    /// Accepts one more `Host` header value (a hostname or IP, without port).
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Accepts one more browser `Origin` (`scheme://host[:port|:*]`).
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Serves beyond loopback without a bearer token. Only for a server
    /// behind an authenticating proxy: otherwise anyone who can reach the
    /// port controls the application.
    pub fn allow_remote_without_token(mut self) -> Self {
        self.remote_without_token = true;
        self
    }

    /// How long a client may take to send a request's headers (10 s);
    /// slower connections are closed.
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// How long a request body may take to arrive, in all (30 s), however
    /// slowly it trickles in; a slower one gets 408.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// The largest request body accepted (4 MiB); larger ones get 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// After their first two seconds, a request's head and its body must
    /// each arrive at least this fast on average, in bytes a second (1,024;
    /// a head's clock starts with its first byte, so an idle kept-alive
    /// connection is not slow). A slower head closes the connection; a
    /// slower body gets 408 and then the close. With
    /// [`HttpOptions::header_timeout`] and [`HttpOptions::body_timeout`]
    /// this bounds how long a trickled request holds a connection.
    pub fn min_request_rate(mut self, bytes_per_second: u32) -> Self {
        self.min_request_rate = bytes_per_second;
        self
    }

    /// Connections open at once (256), shared fairly: each is charged to
    /// its client (the named client whose token its requests carry, else
    /// its source address, all of loopback as one and an IPv6 /64 as one).
    /// At the limit a new connection takes the place of the client holding
    /// the most (connections whose headers are still unchecked after a
    /// second first, then those reading a body, then those accepted within
    /// the last second, then idle ones, then busy ones, oldest first), or
    /// recycles its own client's cheapest one short of one at work;
    /// otherwise it is answered 503 with `Retry-After` and closed. A cut
    /// request is answered 503 too. RELIABILITY.md states the rule in full.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n;
        self
    }

    /// MCP sessions at once (64), shared fairly by the same rule as
    /// connections: at the limit, a new session closes the oldest session
    /// of the client holding the most, if that client holds more than the
    /// newcomer's would then; otherwise the `initialize` gets HTTP 503 with
    /// a JSON-RPC error saying so.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n;
        self
    }

    /// Server-to-client GET streams one session may hold open (4).
    pub fn max_streams_per_session(mut self, n: usize) -> Self {
        self.max_streams_per_session = n;
        self
    }

    /// GET streams all sessions together may hold open (64), so that
    /// streams never take every connection; shared fairly: at the limit, a
    /// client holding fewer than another ends that one's oldest stream.
    pub fn max_streams(mut self, n: usize) -> Self {
        self.max_streams = n;
        self
    }

    /// 2026-07-28 `subscriptions/listen` streams open at once over HTTP, in
    /// all (64). Each is its own request, so no per-connection count could
    /// bound them; this keeps them, with the sessions, within the app's
    /// subscriber limit. Shared fairly: at the limit, a client holding
    /// fewer than another ends that one's oldest listen stream.
    pub fn max_listen_streams(mut self, n: usize) -> Self {
        self.max_listen_streams = n;
        self
    }

    /// How long a session may stay idle before it is closed (5 minutes).
    pub fn session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// Leaves Nagle's algorithm on for accepted sockets, as it was before
    /// answers were sent without delay: for measuring what that cost a
    /// client that acknowledges lazily. Not part of the API.
    #[cfg(feature = "test-support")]
    #[doc(hidden)]
    pub fn with_nagle(mut self) -> Self {
        self.nagle = true;
        self
    }

    /// Writes every answer as soon as it is polled, with no CPU turns, as
    /// before they were taken: for measuring what they change under load.
    /// Not part of the API.
    #[cfg(feature = "test-support")]
    #[doc(hidden)]
    pub fn without_cpu_turns(mut self) -> Self {
        self.no_cpu_turns = true;
        self
    }

    /// Serves `routes` (an axum 0.8 [`Router`](axum::Router)) beside the
    /// MCP endpoint, for every request whose path is `prefix` or starts
    /// with `prefix/`: a face for the person, for example (the
    /// `purview-web` crate). They share the listener, the fair shares of
    /// connections, the header deadlines, and the body limits (size, total
    /// time, minimum rate; a POST body is read whole before `routes` see
    /// it), and pass the `Host` and `Origin` checks; but they are not MCP:
    /// no bearer token is asked for or looked at, so `routes` must
    /// authenticate their own requests, and a request there is charged to
    /// its source address. `prefix` must start with `/`, name a sub-path
    /// and not overlap the MCP path or another prefix
    /// ([`App::serve_http`] refuses it otherwise).
    ///
    /// ```
    /// let hello = axum::Router::new()
    ///     .route("/hello/", axum::routing::get(|| async { "hello" }));
    /// let options = purview::http::HttpOptions::default().serve_beside("/hello", hello);
    /// # let _ = options;
    /// ```
    pub fn serve_beside(mut self, prefix: impl Into<String>, routes: axum::Router) -> Self {
        self.beside.push((prefix.into(), routes));
        self
    }

    /// Shows `card` to MCP Apps hosts (clients that declare the
    /// `io.modelcontextprotocol/ui` extension): the capability, the card's
    /// `ui://` resource, its URI on the tools it is shown with, and its own
    /// tools. Every other client lists and reads exactly what it would
    /// without it. A later card replaces an earlier one.
    ///
    /// ```
    /// let card = purview::http::mcp_apps::Card::new("ui://demo/hello", "<p>Hello</p>")
    ///     .shown_with("app__read_windows");
    /// let options = purview::http::HttpOptions::default().show_card(card);
    /// # let _ = options;
    /// ```
    pub fn show_card(mut self, card: Card) -> Self {
        self.card = Some(Arc::new(card));
        self
    }

    pub(super) fn check(&self) -> Result<(), Error> {
        if !self.path.starts_with('/') || self.path.len() < 2 || self.path.ends_with('/') {
            return Err(Error::Serve(format!(
                "the MCP path must start with `/` and name a sub-path, such as `/mcp` (got `{}`)",
                self.path
            )));
        }
        for (number, client) in self.clients.iter().enumerate() {
            client.check()?;
            let earlier = &self.clients[..number];
            if let Some(other) = earlier.iter().find(|c| c.token.expose() == client.token.expose())
            {
                return Err(Error::Serve(format!(
                    "{} and {} have the same token: give each client its own, or they are one client",
                    other.called(),
                    client.called()
                )));
            }
            if earlier.iter().any(|c| c.name == client.name) {
                return Err(Error::Serve(format!(
                    "{} is named twice: give each client a name of its own",
                    client.called()
                )));
            }
        }
        self.check_beside()?;
        if !self.addr.ip().is_loopback() && self.clients.is_empty() && !self.remote_without_token {
            return Err(Error::Serve(format!(
                "refusing to serve {} without a bearer token: anyone who can reach that address would control the application. Name clients with their tokens (--clients FILE, or one token with --token-file FILE or PURVIEW_TOKEN), bind 127.0.0.1, or, behind an authenticating proxy, allow it explicitly (--allow-remote-without-token)",
                self.addr
            )));
        }
        Ok(())
    }

    /// Refuses a prefix for [`HttpOptions::serve_beside`] that is
    /// malformed or overlaps the MCP path or another prefix.
    fn check_beside(&self) -> Result<(), Error> {
        let overlap = |a: &str, b: &str| under(a, b) || under(b, a);
        for (number, (prefix, _)) in self.beside.iter().enumerate() {
            if !prefix.starts_with('/') || prefix.len() < 2 || prefix.ends_with('/') {
                return Err(Error::Serve(format!(
                    "a path served beside MCP must start with `/` and name a sub-path, such as `/person` (got `{prefix}`)"
                )));
            }
            let others = self.beside[..number].iter().map(|(p, _)| p.as_str());
            if let Some(other) =
                std::iter::once(self.path.as_str()).chain(others).find(|o| overlap(o, prefix))
            {
                return Err(Error::Serve(format!(
                    "the path `{prefix}` served beside MCP overlaps `{other}`: give each its own"
                )));
            }
        }
        Ok(())
    }

    /// The prefixes of [`HttpOptions::serve_beside`].
    pub(super) fn beside_prefixes(&self) -> Vec<String> {
        self.beside.iter().map(|(prefix, _)| prefix.clone()).collect()
    }

    pub(super) fn guard(&self) -> Guard {
        Guard {
            hosts: self.allowed_hosts.clone(),
            origins: self.allowed_origins.clone(),
            tokens: self
                .clients
                .iter()
                .map(|client| (client.name.clone(), client.token.expose().clone()))
                .collect(),
        }
    }
}

/// Whether `path` is `prefix` or lies under it (`prefix/...`).
pub(super) fn under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// A named client, as [`HttpOptions::client`] or a line of
/// [`HttpOptions::clients_file`] gave it.
#[derive(Debug, Clone)]
pub(super) struct NamedClient {
    pub name: Arc<str>,
    pub token: Secret<String>,
    /// The line of the clients file it was read from (`line 3 of the
    /// clients file …`), which messages name instead of quoting it.
    pub line: Option<String>,
}

impl NamedClient {
    /// How a message names it: by its line in the clients file, whose
    /// columns may be swapped, else by its name, given in code.
    fn called(&self) -> String {
        match &self.line {
            Some(line) => format!("the client on {line}"),
            None => format!("the client `{}`", self.name),
        }
    }

    /// Refuses a name that would not read well, a token that could be
    /// guessed, and a name and token that look swapped.
    fn check(&self) -> Result<(), Error> {
        let (name, token) = (&*self.name, self.token.expose().as_str());
        if looks_generated(name) && check_client_name(token).is_ok() && !looks_generated(token) {
            let place = self.line.as_deref().unwrap_or("a client given in code");
            return Err(Error::Serve(format!(
                "{place} reads as a token, then a name: write the client's name first, then its token (`NAME TOKEN`)"
            )));
        }
        let who = self.called();
        check_client_name(name).map_err(|problem| Error::Serve(format!("{who}: {problem}")))?;
        check_token(token).map_err(|problem| Error::Serve(format!("{who}: {problem}")))
    }
}

/// Whether `text` looks made by a generator of secrets rather than
/// written as a name: long, with letters and digits mixed throughout
/// (`openssl rand -hex 32` or `secrets.token_urlsafe(32)`, not
/// `claude-desktop` or `ci-runner-2`).
fn looks_generated(text: &str) -> bool {
    let class = |c: char| {
        if c.is_ascii_digit() {
            1
        } else if c.is_alphabetic() {
            2
        } else {
            0
        }
    };
    let changes = text
        .chars()
        .map(class)
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|pair| pair[0] != 0 && pair[1] != 0 && pair[0] != pair[1])
        .count();
    text.chars().count() >= 16 && changes >= 6
}

/// Refuses a clients file that users other than the app's may read or
/// change (Unix permissions): it holds every client's token.
fn refuse_if_others_may_read(path: &Path) -> Result<(), Error> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let metadata = std::fs::metadata(path).map_err(|e| {
            Error::Serve(format!("cannot read the clients file {}: {e}", path.display()))
        })?;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(Error::Serve(format!(
                "the clients file {} may be read or changed by other users (mode {mode:03o}), and it holds every client's token: make it this user's alone with `chmod 600 {}`, then start again",
                path.display(),
                path.display()
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The longest client name.
const CLIENT_NAME_CHARS: usize = 64;

/// Refuses a client name that would not read well in a log or a question.
fn check_client_name(name: &str) -> Result<(), String> {
    let fits = !name.is_empty()
        && name.len() <= CLIENT_NAME_CHARS
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if fits {
        return Ok(());
    }
    Err(format!(
        "a client's name must be 1 to {CLIENT_NAME_CHARS} letters, digits, `.`, `_` or `-` (got one of {} characters)",
        name.chars().count()
    ))
}

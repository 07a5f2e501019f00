//! Which client a call came from, as the transport knows it: the named
//! client whose bearer token the request carried, the connection it came
//! on (stdio, or any transport of the app's own), or an address where no
//! token is required. The app keys
//! its own budgets by it (a PIN's wrong tries, say), so that one client's
//! mistakes or attacks cost that client alone.

use std::{fmt, net::IpAddr, sync::Arc};

/// Which client is calling (see [`Context::client`](crate::Context::client)).
///
/// Two requests with the same `ClientId` come from the same client as far
/// as the server can tell: over HTTP with named clients
/// ([`HttpOptions::client`](crate::http::HttpOptions::client)), the holder of
/// one token; over stdio (or any transport the app serves with
/// [`App::mcp_server`](crate::App::mcp_server)), the connection. Where no
/// token is required, every local process is the same client, `local`:
/// nothing tells two of them apart.
///
/// ```
/// use purview::activity::ClientId;
/// let host = ClientId::named("claude-desktop");
/// assert_eq!(host.to_string(), "claude-desktop");
/// assert_ne!(host, ClientId::local());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ClientId(Kind);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Kind {
    Named(Arc<str>),
    Connection(u64),
    Local,
    Address(IpAddr),
}

impl ClientId {
    /// The named client with this name.
    pub fn named(name: impl Into<Arc<str>>) -> Self {
        Self(Kind::Named(name.into()))
    }

    /// The client at the other end of one connection (stdio, or a
    /// transport of the app's own), by the connection's number.
    pub fn connection(number: u64) -> Self {
        Self(Kind::Connection(number))
    }

    /// Any local process, where no token is required.
    pub fn local() -> Self {
        Self(Kind::Local)
    }

    /// A client known only by its network address (served beyond loopback
    /// without a token, behind an authenticating proxy).
    pub fn address(address: IpAddr) -> Self {
        Self(Kind::Address(address))
    }

    /// The name, for a named client.
    pub fn name(&self) -> Option<&str> {
        match &self.0 {
            Kind::Named(name) => Some(name),
            _ => None,
        }
    }

    /// How a person is told who this client is, at the start of a
    /// sentence: a named client by its name; any other by how the server
    /// knows it (an address, where no token is required; a connection).
    pub(crate) fn as_told(&self) -> String {
        match &self.0 {
            Kind::Named(name) => name.to_string(),
            Kind::Connection(number) => format!("The client on connection {number}"),
            Kind::Local => "A local client (127.0.0.1, no token)".to_owned(),
            Kind::Address(ip) => format!("The client at {ip} (no token)"),
        }
    }
}

impl fmt::Display for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Kind::Named(name) => f.write_str(name),
            Kind::Connection(number) => write!(f, "connection {number}"),
            Kind::Local => f.write_str("local"),
            Kind::Address(ip) => write!(f, "{ip}"),
        }
    }
}

impl fmt::Debug for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ClientId({self})")
    }
}

//! Routes served beside the MCP endpoint (`HttpOptions::serve_beside`):
//! merged into the one router, told apart by their path prefix, their
//! bodies read whole within the same limits as an MCP request's.

use std::sync::Arc;

use axum::{
    extract::Request,
    middleware::{self, Next},
    response::{IntoResponse, Response},
};

use super::{BodyLimits, ConnectionMark, HttpOptions, answer_malformed, read_body, unread};

/// The MCP endpoint at its path, and every route served beside it.
pub(super) fn router<S>(options: &HttpOptions, mcp: S) -> axum::Router
where
    S: tower_service::Service<Request, Error = std::convert::Infallible> + Clone + Send + Sync,
    S: 'static,
    S::Response: IntoResponse,
    S::Future: Send + 'static,
{
    options
        .beside
        .iter()
        .fold(axum::Router::new().nest_service(&options.path, mcp), |router, (_, routes)| {
            router.merge(routes.clone())
        })
}

/// `router` with every request body read within `limits`: an MCP
/// request's as one JSON-RPC message (`answer_malformed`; a common read
/// answered from the `shared` reads' bytes where it can be), one served
/// beside it as bytes.
pub(super) fn read_bodies(
    router: axum::Router,
    prefixes: Arc<[String]>,
    limits: BodyLimits,
    shared: Arc<super::shared_reads::SharedReads>,
) -> axum::Router {
    router.layer(middleware::from_fn(move |request: Request, next: Next| {
        let beside = is_beside(&prefixes, request.uri().path());
        let shared = shared.clone();
        async move {
            if beside {
                read_whole(limits, request, next).await
            } else {
                answer_malformed(limits, shared, request, next).await
            }
        }
    }))
}

/// Whether `path` is served beside MCP rather than by it.
pub(super) fn is_beside(prefixes: &[String], path: &str) -> bool {
    prefixes.iter().any(|prefix| crate::server::http_options::under(path, prefix))
}

/// A request to the routes served beside MCP: its body, if any, read whole
/// within `limits` first (in all and at a minimum rate), as an MCP
/// request's is, so a trickled body holds a connection no longer there.
async fn read_whole(limits: BodyLimits, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let mark = parts.extensions.get::<ConnectionMark>().cloned();
    let bytes = match read_body(body, limits, mark.as_ref()).await {
        Ok(bytes) => bytes,
        Err(why) => return unread(why),
    };
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

/// Charges the connection a request served beside MCP came on to `client`,
/// a credential of the routes' own (a session of theirs), as a bearer token
/// charges an MCP request's connection to its named client: the fair
/// shares then tell that connection apart from everyone else's at the same
/// address. A route calls it once the request has proven the credential;
/// `client` never collides with a named MCP client's name. Outside
/// [`App::serve_http`](crate::App::serve_http) it does nothing.
///
/// ```
/// use axum::{extract::Request, routing::get};
/// let routes = axum::Router::new().route(
///     "/desk/",
///     get(|request: Request| async move {
///         // ... once the request's own credential is checked:
///         purview::http::charge_connection(request.extensions(), "desk-session-1");
///         "hello"
///     }),
/// );
/// let options = purview::http::HttpOptions::default().serve_beside("/desk", routes);
/// # let _ = options;
/// ```
pub fn charge_connection(extensions: &axum::http::Extensions, client: &str) {
    if let Some(mark) = extensions.get::<ConnectionMark>() {
        // Named MCP clients' names hold no `:`, so these never meet them.
        mark.checked(Some(Arc::from(format!("beside:{client}"))));
    }
}

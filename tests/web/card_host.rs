//! The test host page (tests/web/host, built on ext-apps' `AppBridge`)
//! served beside order_desk's `/mcp`, for the card's browser tests.

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, ensure};
use axum::{
    extract::Path as UrlPath,
    http::{StatusCode, header},
    response::IntoResponse,
    routing::get,
};
use purview::{
    App,
    approval::{ApprovalQueue, WhoApproves},
    http::{HttpOptions, HttpServer},
};
use purview_web::Face;

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
pub mod order_desk;

/// Where the host page and its npm packages live.
fn host_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("web/host")
}

/// A file of the host page or its packages, by its path under `host_dir`:
/// never outside it.
async fn host_file(path: &str) -> axum::response::Response {
    let relative = Path::new(path);
    if relative.components().any(|c| !matches!(c, Component::Normal(_))) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let mime = match relative.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    };
    match tokio::fs::read(host_dir().join(relative)).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, mime)], bytes).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The host page's routes, under `/host`.
fn host_routes() -> axum::Router {
    axum::Router::new().route("/host/", get(|| host_file("host.html"))).route(
        "/host/{*path}",
        get(|UrlPath(path): UrlPath<String>| async move { host_file(&path).await }),
    )
}

/// `app` with the person's face answering `approvals` and the host page
/// beside its `/mcp`.
pub async fn hosted(app: &App, approvals: ApprovalQueue) -> Result<(Face, HttpServer)> {
    ensure!(
        host_dir().join("node_modules/@modelcontextprotocol/ext-apps/package.json").exists(),
        "the host's packages are not installed: run `npm ci` in tests/web/host (./scripts/test does)"
    );
    let face = Face::answering(app.clone(), approvals);
    let options = face.serve_beside(HttpOptions::default()).serve_beside("/host", host_routes());
    let server = app.serve_http(options).await?;
    Ok((face, server))
}

/// order_desk with the person's face answering its approval questions, the
/// host page beside its `/mcp`, and setting its details needing approval.
pub async fn desk() -> Result<(App, ApprovalQueue, Face, HttpServer)> {
    desk_with(HttpOptions::default()).await
}

/// [`desk`] served with `options` (named clients, for one).
pub async fn desk_with(options: HttpOptions) -> Result<(App, ApprovalQueue, Face, HttpServer)> {
    ensure!(
        host_dir().join("node_modules/@modelcontextprotocol/ext-apps/package.json").exists(),
        "the host's packages are not installed: run `npm ci` in tests/web/host (./scripts/test does)"
    );
    let approvals = ApprovalQueue::new();
    let builder = App::builder()
        .require_approval::<order_desk::OrderEditor>("set_details")
        .who_approves(WhoApproves::InApp)
        .approver(approvals.clone());
    let app = order_desk::order_desk(builder);
    let face = Face::answering(app.clone(), approvals.clone());
    let options = face.serve_beside(options).serve_beside("/host", host_routes());
    let server = app.serve_http(options).await?;
    Ok((app, approvals, face, server))
}

//! The window card (purview-web's face as an MCP Apps view) rendered by a
//! host built on the official SDK's host side: `AppBridge` and the MCP
//! client of `@modelcontextprotocol/ext-apps` and `@modelcontextprotocol/client`
//! (installed from npm into tests/web/host by `./scripts/test`), in a real
//! headless Chromium. The host page is served beside the app's `/mcp`, and
//! its client talks to the app over MCP like any host's. Screenshots land in
//! the target directory's tmp folder.

#[path = "web/driver.rs"]
#[allow(dead_code)] // what the other browser tests use
mod driver;
#[path = "../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use std::path::{Component, Path, PathBuf};

use anyhow::{Context as _, Result, anyhow, ensure};
use axum::{
    extract::Path as UrlPath,
    http::{StatusCode, header},
    response::IntoResponse,
    routing::get,
};
use driver::Browser;
use purview::{
    App,
    approval::{ApprovalQueue, WhoApproves},
    http::{HttpOptions, HttpServer},
    serde_json::{Value, json},
};
use purview_web::Face;

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

/// order_desk with the person's face answering its approval questions, the
/// host page beside its `/mcp`, and setting its details needing approval.
async fn desk() -> Result<(App, ApprovalQueue, Face, HttpServer)> {
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
    let options = face.serve_beside(HttpOptions::default()).serve_beside("/host", host_routes());
    let server = app.serve_http(options).await?;
    Ok((app, approvals, face, server))
}

/// The text the card shows, from inside its frame.
const CARD_TEXT: &str = "document.body.innerText";

#[tokio::test(flavor = "multi_thread")]
async fn the_card_in_an_ext_apps_host_shows_the_windows_calls_the_app_and_never_approves()
-> Result<()> {
    let (app, approvals, face, server) = desk().await?;
    let base = format!("http://{}", server.local_addr());
    let browser = Browser::start().await?;
    browser.goto(&format!("{base}/host/")).await?;
    browser.wait_for("window.hostConnected === true || window.hostError !== undefined").await?;
    let failed = browser.run("return window.hostError || null;").await?;
    ensure!(failed.is_null(), "the host page failed: {failed}");

    // What the host saw: the card's URI on the read, both keys, the
    // card's own tools for the view only, the resource's type and CSP.
    let tools = browser.run("return window.hostTools;").await?;
    let tool =
        |name: &str| tools.as_array().and_then(|t| t.iter().find(|t| t["name"] == name)).cloned();
    let read = tool("app__read_windows").ok_or_else(|| anyhow!("no read tool: {tools}"))?;
    ensure!(read["meta"]["ui"]["resourceUri"] == purview_web::CARD_URI, "{read}");
    ensure!(read["meta"]["ui/resourceUri"] == purview_web::CARD_URI, "{read}");
    for helper in ["app__card_scene", "app__card_call"] {
        let listed = tool(helper).ok_or_else(|| anyhow!("no {helper}: {tools}"))?;
        ensure!(listed["meta"]["ui"]["visibility"] == json!(["app"]), "{listed}");
    }
    let resource = browser.run("return window.hostResource;").await?;
    ensure!(resource["mimeType"] == "text/html;profile=mcp-app", "{resource}");
    ensure!(resource["meta"]["ui"]["csp"]["connectDomains"] == json!([]), "{resource}");

    // The card shows the windows once the host hands it the result, and
    // tells the host its size.
    browser.wait_for("window.hostShowedResult === true").await?;
    browser.wait_for("window.hostCardHeight > 0").await?;
    browser.enter_frame("#card").await?;
    browser
        .wait_for(&format!(
            "{CARD_TEXT}.includes('Order Editor') && {CARD_TEXT}.includes('Report Details')"
        ))
        .await?;

    // A call made in the card reaches the app, as an agent's.
    let editors = app.windows_of::<order_desk::OrderEditor>()?;
    let editor = editors.first().map(|w| w.id().to_owned()).ok_or_else(|| anyhow!("no editor"))?;
    let section = format!("section[data-window=\"{editor}\"]");
    let form = format!("#pv-{editor}-edit_field");
    browser.press(&section, "Edit field…").await?;
    browser.click(&format!("{form}-field")).await?;
    browser.click(&format!("{form}-field option[value=recipient]")).await?;
    browser.type_into(&format!("{form}-value"), "Grace Hopper").await?;
    browser.press(&section, "Edit field").await?;
    browser.wait_for(&format!("{CARD_TEXT}.includes('Grace Hopper')")).await?;
    let seen = app.read_windows(None)?.to_string();
    ensure!(seen.contains("Grace Hopper"), "the app never got the card's call: {seen}");

    // A call that needs approval waits for the person: the card shows the
    // question and where to answer it, and has no way to answer it.
    browser.press(&section, "Set details…").await?;
    let details = format!("#pv-{editor}-set_details");
    browser.type_into(&format!("{details}-recipient"), "Ada Lovelace").await?;
    browser.type_into(&format!("{details}-amount"), "42").await?;
    browser.press(&section, "Set details").await?;
    browser.wait_for("document.querySelector('.pv-question') !== null").await?;
    let question = browser.run("return document.querySelector('.pv-question').innerText;").await?;
    let question = question.as_str().unwrap_or_default().to_owned();
    ensure!(question.contains("set details") && question.contains("Ada Lovelace"), "{question}");
    ensure!(question.contains("This card cannot approve"), "{question}");
    ensure!(question.contains(face.prefix()), "where to answer: {question}");
    let buttons = browser
        .run("return Array.from(document.querySelectorAll('button')).map(function (b) { return b.textContent; });")
        .await?;
    let labels = buttons.as_array().cloned().unwrap_or_default();
    ensure!(
        !labels.iter().any(|b| b == "Approve" || b == "Decline"),
        "the card offers an answer: {buttons}"
    );
    // Even asked by hand, the card's transport answers nothing.
    let pending = approvals.pending();
    let id = pending.first().map(|p| p.id).ok_or_else(|| anyhow!("no question pending"))?;
    let tried = browser
        .run_async(&format!(
            "var done = arguments[arguments.length - 1];
             window.PurviewTransport.post('answer', {{id: {id}, approve: true}}).then(function (a) {{ done(JSON.stringify(a)); }}, function (e) {{ done(String(e)); }});"
        ))
        .await?;
    let tried: Value = purview::serde_json::from_str(tried.as_str().unwrap_or_default())?;
    ensure!(tried.get("error").is_some(), "the card answered: {tried}");
    ensure!(approvals.pending().len() == 1, "the question went away");
    ensure!(!app.read_windows(None)?.to_string().contains("Ada Lovelace"), "applied unanswered");
    browser.leave_frame().await?;
    browser.run("window.scrollTo(0, 0); return null;").await?;
    browser.screenshot("web-card-approval").await?;

    // The person answers where the card said, on the face, in a browser of
    // their own; the card follows.
    let person = Browser::start().await?;
    let link = face.one_time_link(&server).context("no randomness for a link")?;
    person.goto(&link).await?;
    person.wait_for("document.querySelector('.pv-question') !== null").await?;
    person.screenshot("web-card-face").await?;
    person.press(".pv-question", "Approve").await?;
    browser.enter_frame("#card").await?;
    browser.wait_for(&format!("{CARD_TEXT}.includes('Ada Lovelace')")).await?;
    browser.wait_for("document.querySelector('.pv-question') === null").await?;
    ensure!(approvals.pending().is_empty(), "the question is still pending");

    // No secret in the card: the payment password is only ever a mask.
    let html = browser.html().await?;
    ensure!(!html.contains("hunter2"), "a secret in the card's DOM");
    ensure!(html.contains(purview::model::MASK), "the masked field is missing");
    browser.leave_frame().await?;
    ensure!(!browser.html().await?.contains("hunter2"), "a secret in the host page");
    Ok(())
}

/// The card's tools answer a client that renders cards, and a client that
/// does not declare the extension lists exactly what the app lists.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_without_the_extension_lists_nothing_of_the_card() -> Result<()> {
    let (app, _approvals, _face, server) = desk().await?;
    let agent = purview_tests::Agent::over(
        rmcp::transport::StreamableHttpClientTransport::from_uri(server.url()),
    )
    .await?;
    let listed = agent.tools().await?;
    let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
    ensure!(!names.iter().any(|n| n.starts_with("app__card_")), "{names:?}");
    ensure!(listed.iter().all(|t| t.meta.is_none()), "a _meta for a client without the extension");
    let ours: Vec<Value> = app.tools()?.iter().map(|t| json!(t.name)).collect();
    ensure!(ours.len() == names.len(), "{names:?} against {ours:?}");
    Ok(())
}

/// A client that declares the extension, on each protocol generation the
/// server speaks (2025-11-25 through `initialize`, 2026-07-28 in every
/// request's `_meta`): the capability, the card's URI on every tool (both
/// keys), the card's tools for the view only, and the card's resource.
#[tokio::test(flavor = "multi_thread")]
async fn both_protocol_generations_see_the_card_when_they_declare_the_extension() -> Result<()> {
    use rmcp::{
        ClientLifecycleMode, ClientServiceExt, ServiceExt,
        model::{
            ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
            ReadResourceRequestParams,
        },
        transport::StreamableHttpClientTransport,
    };
    let (_app, _approvals, _face, server) = desk().await?;
    let mut capabilities = ClientCapabilities::default();
    let extension = json!({ purview::http::mcp_apps::EXTENSION: {"mimeTypes": [purview::http::mcp_apps::MIME_TYPE]} });
    capabilities.extensions = Some(purview::serde_json::from_value(extension)?);
    let host = ClientConfig::new(capabilities, Implementation::new("card-host", "1.0.0"));
    for modern in [false, true] {
        let transport = StreamableHttpClientTransport::from_uri(server.url());
        let client = if modern {
            let mode = ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            };
            host.clone().serve_with_lifecycle(transport, mode).await?
        } else {
            host.clone().serve(transport).await?
        };
        let generation = if modern { "2026-07-28" } else { "2025-11-25" };
        let declared = client
            .peer_info()
            .and_then(|info| info.capabilities.extensions.clone())
            .and_then(|e| e.get(purview::http::mcp_apps::EXTENSION).cloned());
        ensure!(declared.is_some(), "{generation}: the server did not declare the extension");
        let tools = client.list_all_tools().await?;
        for tool in &tools {
            let meta = purview::serde_json::to_value(&tool.meta)?;
            ensure!(meta["ui"]["resourceUri"] == purview_web::CARD_URI, "{generation}: {meta}");
            ensure!(meta["ui/resourceUri"] == purview_web::CARD_URI, "{generation}: {meta}");
        }
        for helper in ["app__card_scene", "app__card_call"] {
            let listed = tools.iter().find(|t| t.name == helper);
            let meta = purview::serde_json::to_value(listed.map(|t| &t.meta))?;
            ensure!(meta["ui"]["visibility"] == json!(["app"]), "{generation}: {helper} {meta}");
        }
        let read =
            client.read_resource(ReadResourceRequestParams::new(purview_web::CARD_URI)).await?;
        let contents = purview::serde_json::to_value(&read.contents)?;
        ensure!(contents[0]["mimeType"] == purview::http::mcp_apps::MIME_TYPE, "{generation}");
        ensure!(contents[0]["text"].as_str().is_some_and(|t| t.contains("ui/initialize")));
        let _ = client.cancel().await;
    }
    Ok(())
}

//! The window card (purview-web's face as an MCP Apps view) rendered by a
//! host built on the official SDK's host side: `AppBridge` and the MCP
//! client of `@modelcontextprotocol/ext-apps` and `@modelcontextprotocol/client`
//! (installed from npm into tests/web/host by `./scripts/test`), in a real
//! headless Chromium. The host page is served beside the app's `/mcp`, and
//! its client talks to the app over MCP like any host's. Screenshots land in
//! the target directory's tmp folder.

#[path = "web/card_host.rs"]
#[allow(dead_code)]
mod card_host;
#[path = "web/driver.rs"]
#[allow(dead_code)] // what the other browser tests use
mod driver;

use anyhow::{Context as _, Result, anyhow, ensure};
use card_host::{desk, order_desk};
use driver::Browser;
use purview::serde_json::{Value, json};

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
    // The read the card repeats never asks the person; the call that acts
    // is not called a read.
    let scene = tool("app__card_scene").unwrap_or_default();
    ensure!(scene["annotations"]["readOnlyHint"] == true, "{scene}");
    ensure!(scene["annotations"]["idempotentHint"] == true, "{scene}");
    let call = tool("app__card_call").unwrap_or_default();
    ensure!(call["annotations"].get("readOnlyHint").is_none(), "{call}");
    let resource = browser.run("return window.hostResource;").await?;
    ensure!(resource["mimeType"] == "text/html;profile=mcp-app", "{resource}");
    ensure!(resource["meta"]["ui"]["csp"]["connectDomains"] == json!([]), "{resource}");
    // The list entry carries the same _meta.ui as the read.
    let listed = browser.run("return window.hostListedResource;").await?;
    ensure!(listed["meta"]["ui"] == resource["meta"]["ui"], "{listed} against {resource}");

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
    // The card's document and its tools do not exist for it.
    let resources = agent.client.list_all_resources().await?;
    ensure!(resources.iter().all(|r| r.uri != purview_web::CARD_URI), "{resources:?}");
    let read = agent
        .client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(purview_web::CARD_URI))
        .await;
    ensure!(read.is_err(), "the card's document was read: {read:?}");
    for helper in ["app__card_scene", "app__card_call"] {
        let answer = agent.call(helper, json!({})).await;
        let refused = match &answer {
            Err(_) => true,
            Ok(result) => result.is_error,
        };
        ensure!(refused, "{helper} answered a client without the extension: {answer:?}");
    }
    Ok(())
}

/// A client that declares the extension, on each protocol generation the
/// server speaks (2025-11-25 through `initialize`, 2026-07-28 in every
/// request's `_meta`): the capability, the card's URI on the read of the
/// windows only (both keys), the card's tools for the view only, and the
/// card's resource.
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
        // The card's URI on the read it explains only, under both keys.
        for tool in tools.iter().filter(|t| !t.name.starts_with("app__card_")) {
            let meta = purview::serde_json::to_value(&tool.meta)?;
            if tool.name == "app__read_windows" {
                ensure!(meta["ui"]["resourceUri"] == purview_web::CARD_URI, "{generation}: {meta}");
                ensure!(meta["ui/resourceUri"] == purview_web::CARD_URI, "{generation}: {meta}");
            } else {
                ensure!(meta.get("ui").is_none(), "{generation}: {} has a card: {meta}", tool.name);
            }
        }
        ensure!(tools.iter().any(|t| t.name == "app__read_windows"), "{generation}: no read");
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

/// A host's MCP client over HTTP that declares the extension, with
/// `token` (the named client it is).
async fn card_host_client(
    url: &str,
    token: &str,
) -> Result<rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>> {
    use rmcp::{
        ServiceExt,
        model::{ClientCapabilities, ClientConfig, Implementation},
        transport::{
            StreamableHttpClientTransport,
            streamable_http_client::StreamableHttpClientTransportConfig,
        },
    };
    let mut capabilities = ClientCapabilities::default();
    let extension = json!({ purview::http::mcp_apps::EXTENSION: {"mimeTypes": [purview::http::mcp_apps::MIME_TYPE]} });
    capabilities.extensions = Some(purview::serde_json::from_value(extension)?);
    let host = ClientConfig::new(capabilities, Implementation::new("card-host", "1.0.0"));
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    Ok(host.serve(StreamableHttpClientTransport::from_config(config)).await?)
}

/// The card's scene as `client` reads it, and the whole answer as sent.
async fn card_scene(
    client: &rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>,
) -> Result<(Value, String)> {
    let params = rmcp::model::CallToolRequestParams::new("app__card_scene");
    let result = client.call_tool(params).await?;
    let sent = purview::serde_json::to_string(&result)?;
    let answer = result.structured_content.unwrap_or_default();
    // The scene's text is every client's; the questions beside it are
    // this client's own, put back in their places as the card does.
    let mut scene: Value =
        purview::serde_json::from_str(answer["sceneJson"].as_str().unwrap_or("{}"))?;
    scene["questions"] = answer["questions"].clone();
    for (i, window) in scene["windows"].as_array_mut().into_iter().flatten().enumerate() {
        window["questions"] = answer["windowQuestions"].get(i).cloned().unwrap_or(json!([]));
    }
    Ok((scene, sent))
}

/// Every question a scene shows, app-level and per window.
fn questions(scene: &Value) -> Vec<Value> {
    let mut all: Vec<Value> = scene["questions"].as_array().cloned().unwrap_or_default();
    for window in scene["windows"].as_array().into_iter().flatten() {
        all.extend(window["questions"].as_array().cloned().unwrap_or_default());
    }
    all
}

/// Two hosts, two named clients: the card shows each the person's windows,
/// and only the approval questions its own calls wait on — never another
/// client's call and arguments.
#[tokio::test(flavor = "multi_thread")]
async fn the_cards_scene_shows_a_client_only_its_own_questions() -> Result<()> {
    const ASKER: &str = "card-asker-token-0123456789abcdef";
    const OTHER: &str = "card-other-token-0123456789abcdef";
    let options = purview::http::HttpOptions::default()
        .client("asker-host", ASKER)
        .client("other-host", OTHER);
    let (app, approvals, _face, server) = card_host::desk_with(options).await?;
    let url = server.url();
    let asker = card_host_client(&url, ASKER).await?;
    let other = card_host_client(&url, OTHER).await?;

    let editors = app.windows_of::<order_desk::OrderEditor>()?;
    let editor = editors.first().map(|w| w.id().to_owned()).ok_or_else(|| anyhow!("no editor"))?;
    // The person's steps in the asker's card: open the form, type, submit.
    let tool = |name: &str, arguments: Value| {
        rmcp::model::CallToolRequestParams::new(name.to_owned())
            .with_arguments(arguments.as_object().cloned().unwrap_or_default())
    };
    let intents = [
        json!({"kind": "press", "window": editor, "action": "set_details"}),
        json!({"kind": "type", "window": editor, "action": "set_details", "field": "recipient", "text": "Mallory Secret"}),
        json!({"kind": "type", "window": editor, "action": "set_details", "field": "amount", "text": "999999.99"}),
        json!({"kind": "submit", "window": editor, "action": "set_details"}),
    ];
    let mut asks = Value::Null;
    for intent in intents {
        let answer = asker
            .call_tool(tool("app__card_intent", json!({"card": "c1", "intent": intent})))
            .await?;
        asks = answer.structured_content.unwrap_or_default();
    }
    ensure!(asks["call"] == true, "the submit asked for no call: {asks}");
    let params = tool("app__card_call", json!({"card": "c1"}));
    let peer = asker.peer().clone();
    let waiting = tokio::spawn(async move { peer.call_tool(params).await });
    for _ in 0..200 {
        if !approvals.pending().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    ensure!(approvals.pending().len() == 1, "the call never waited for the person");

    // The asker's own card shows its question: the filter lets it through.
    let (own, _) = card_scene(&asker).await?;
    let asked = questions(&own);
    ensure!(asked.len() == 1, "the asker does not see its own question: {own}");
    ensure!(asked[0].to_string().contains("Mallory Secret"), "{asked:?}");

    // Another client's card shows the same windows and no question.
    let (theirs, sent) = card_scene(&other).await?;
    ensure!(questions(&theirs).is_empty(), "another client's question leaked: {theirs}");
    ensure!(!sent.contains("Mallory Secret"), "its arguments leaked: {sent}");
    let ids = |scene: &Value| -> Vec<Value> {
        scene["windows"].as_array().into_iter().flatten().map(|w| w["id"].clone()).collect()
    };
    ensure!(!ids(&theirs).is_empty() && ids(&theirs) == ids(&own), "{theirs} against {own}");

    let pending = approvals.pending();
    let id = pending.first().map(|p| p.id).ok_or_else(|| anyhow!("no question"))?;
    approvals.answer(id, purview::approval::Approval::Decline);
    let _ = waiting.await?;
    let _ = (asker.cancel().await, other.cancel().await);
    Ok(())
}

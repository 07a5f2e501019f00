//! The MCP Apps checks (`apps-*`): order_desk with its window card over
//! HTTP passes every one; a card planted broken (a fragment for a
//! document, a URI that is not `ui://`) fails the one it breaks, and the
//! run with it; a server without a card is not checked at all.

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use purview::{
    App,
    http::{HttpOptions, mcp_apps::Card},
};
use purview_conformance::{Check, Endpoint, Explorer, Level, Report, Status};

const APPS: [Check; 6] = [
    Check::AppsResource,
    Check::AppsDocument,
    Check::AppsCsp,
    Check::AppsHidden,
    Check::AppsContent,
    Check::AppsMetaPlacement,
];

fn desk() -> App {
    order_desk::order_desk(App::builder())
}

/// A short walk of `app` served over HTTP with `options`.
async fn walk(app: &App, options: HttpOptions) -> Report {
    let server = app.serve_http(options).await.expect("order_desk serves HTTP");
    let report = Explorer::new()
        .steps(20)
        .hint("pin", order_desk::UNLOCK_PIN)
        .run(&Endpoint::http(server.url()))
        .await;
    server.shutdown().await;
    report
}

#[tokio::test(flavor = "multi_thread")]
async fn order_desk_with_its_card_passes_every_mcp_apps_check() {
    let app = desk();
    let face = purview_web::Face::new(app.clone());
    let report = walk(&app, face.serve_beside(HttpOptions::default())).await;
    for check in APPS {
        assert_eq!(report.check(check).status, Status::Pass, "{check}:\n{report}");
    }
    assert_eq!(report.check(Check::AppsResource).level, Level::McpApps);
    assert!(report.failed(Level::McpApps).next().is_none(), "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_that_is_not_a_document_fails_apps_document_and_the_run() {
    let app = desk();
    let card =
        Card::new("ui://planted/card", "<p>Only a fragment</p>").shown_with("app__read_windows");
    let report = walk(&app, HttpOptions::default().show_card(card)).await;
    let document = report.check(Check::AppsDocument);
    assert_eq!(document.status, Status::Fail, "{report}");
    assert!(document.evidence[0].detail.contains("doctype"), "{report}");
    assert_eq!(report.check(Check::AppsResource).status, Status::Pass, "{report}");
    assert!(!report.passed(), "a broken card passed:\n{report}");
    assert!(report.to_string().contains("MCP APPS"), "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_outside_the_ui_scheme_fails_apps_resource() {
    let app = desk();
    let card =
        Card::new("app://planted-card", "<!doctype html><html><head></head><body></body></html>")
            .shown_with("app__read_windows");
    let report = walk(&app, HttpOptions::default().show_card(card)).await;
    let resource = report.check(Check::AppsResource);
    assert_eq!(resource.status, Status::Fail, "{report}");
    assert!(resource.evidence.iter().any(|e| e.detail.contains("not a ui:// URI")), "{report}");
    assert!(!report.passed());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_the_extension_is_not_checked_for_it() {
    let app = desk();
    let report = walk(&app, HttpOptions::default()).await;
    for check in APPS {
        let found = report.check(check);
        assert_eq!(found.status, Status::NotExercised, "{check}:\n{report}");
        assert!(found.note.as_deref().is_some_and(|n| n.contains("does not declare")), "{report}");
    }
    assert!(report.gaps.iter().all(|g| !g.what.starts_with("apps-")), "{report}");
}

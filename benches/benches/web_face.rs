//! The person's face (purview-web) in headless Chromium on order_desk's
//! windows, over loopback (BENCHMARKS.md "The person's face"):
//!
//! - a person's click to the agent seeing it: from the run button's
//!   `click` event in the page (the face submits on click, as a sandboxed
//!   host frame may fire no `submit`; the browser's clock, `performance.timeOrigin +
//!   performance.now()`) until an rmcp client subscribed to
//!   `app://windows` receives `resources/updated` (the same machine's wall
//!   clock);
//! - and back: from the agent's `tools/call` until the page shows the new
//!   value (a MutationObserver in the page resolves the wait);
//!
//! p50 and p90 of `PURVIEW_WEB_ROUNDS` rounds each (30), and the weight of
//! the embedded script and style. Needs Debian's `chromium` and
//! `chromium-driver` (./scripts/test installs them).
//!
//! `cargo bench -p purview-benches --bench web_face`

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

#[path = "../../tests/web/driver.rs"]
#[allow(dead_code)]
mod driver;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Result, anyhow};
use purview::{App, http::HttpOptions, model::WINDOWS_URI};
use rmcp::{
    ClientHandler, RoleClient, ServiceExt,
    model::{CallToolRequestParams, ResourceUpdatedNotificationParam, SubscribeRequestParams},
    service::NotificationContext,
    transport::StreamableHttpClientTransport,
};
use serde_json::json;
use tokio::sync::mpsc;

/// An agent that only hears `resources/updated`.
struct Hears(mpsc::UnboundedSender<SystemTime>);

impl ClientHandler for Hears {
    async fn on_resource_updated(
        &self,
        _params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(SystemTime::now());
    }
}

fn quantile(samples: &mut [Duration], q: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * q).round() as usize;
    samples.get(index).copied().unwrap_or_default()
}

#[allow(deprecated)]
async fn run(rounds: usize) -> Result<()> {
    let app: App = order_desk::order_desk(App::builder());
    let face = purview_web::Face::new(app.clone());
    let server = app.serve_http(face.serve_beside(HttpOptions::default())).await?;
    let link = face.one_time_link(&server).ok_or_else(|| anyhow!("no link"))?;
    let browser = driver::Browser::start().await?;
    browser.goto(&link).await?;
    browser.wait_for("document.querySelectorAll('section[data-window]').length === 2").await?;
    let (heard, mut hearing) = mpsc::unbounded_channel();
    let agent = Hears(heard).serve(StreamableHttpClientTransport::from_uri(server.url())).await?;
    agent.subscribe(SubscribeRequestParams::new(WINDOWS_URI)).await?;
    let editor = app.scene()?.windows[0].state.id.clone();
    let card = format!("section[data-window=\"{editor}\"]");
    let form = format!("#pv-{editor}-edit_field");

    let mut to_agent = Vec::new();
    let mut to_person = Vec::new();
    for round in 0..rounds {
        // The person's click.
        browser.press(&card, "Edit field…").await?;
        browser.click(&format!("{form}-field option[value=amount]")).await?;
        browser.type_into(&format!("{form}-value"), &format!("{}.00", 10 + 2 * round)).await?;
        while hearing.try_recv().is_ok() {}
        browser
            .run(
                "window.pvClicked = null; document.addEventListener('click', function () {
                   window.pvClicked = performance.timeOrigin + performance.now(); }, {capture: true, once: true});",
            )
            .await?;
        browser.press(&card, "Edit field").await?;
        let seen = tokio::time::timeout(Duration::from_secs(10), hearing.recv())
            .await?
            .ok_or_else(|| anyhow!("the agent's session ended"))?;
        let clicked_ms = browser.run("return window.pvClicked;").await?.as_f64();
        let clicked_ms = clicked_ms.ok_or_else(|| anyhow!("the page saw no click"))?;
        let seen_ms = seen.duration_since(UNIX_EPOCH)?.as_secs_f64() * 1e3;
        to_agent.push(Duration::from_secs_f64((seen_ms - clicked_ms).max(0.0) / 1e3));

        // And back: the agent's call, until the page shows it.
        let amount = format!("${}.00", 11 + 2 * round);
        let version = app.scene()?.windows[0].state.version;
        let waiting = format!(
            "var done = arguments[arguments.length - 1];
             var shows = function () {{ var c = document.querySelector('{card}'); return c && c.innerText.includes('{amount}'); }};
             if (shows()) {{ done(true); return; }}
             new MutationObserver(function (_, o) {{ if (shows()) {{ o.disconnect(); done(true); }} }})
               .observe(document.getElementById('purview'), {{childList: true, subtree: true}});"
        );
        let page = {
            let browser = &browser;
            async move { browser.run_async(&waiting).await }
        };
        let call = async {
            // Let the page's wait start first.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let arguments = json!({"field": "amount", "value": amount, "expectedVersion": version});
            let params = CallToolRequestParams::new(format!("{editor}__edit_field"))
                .with_arguments(arguments.as_object().cloned().unwrap_or_default());
            let started = Instant::now();
            agent.call_tool(params).await?;
            anyhow::Ok(started)
        };
        let (shown, started) = tokio::join!(page, call);
        shown?;
        to_person.push(started?.elapsed());
    }
    let weight = purview_web::script_and_style_bytes();
    println!("The person's face (purview-web), {rounds} rounds over loopback:");
    println!("| measure | p50 | p90 |");
    println!("|---|---|---|");
    for (what, samples) in [
        ("a person's click → the agent's notification", &mut to_agent),
        ("an agent's call → the page shows it", &mut to_person),
    ] {
        let (p50, p90) = (quantile(samples, 0.5), quantile(samples, 0.9));
        println!(
            "| {what} | {:.1} ms | {:.1} ms |",
            p50.as_secs_f64() * 1e3,
            p90.as_secs_f64() * 1e3
        );
    }
    println!(
        "script and style, uncompressed: {weight} bytes (budget {})",
        purview_web::BUDGET_BYTES
    );
    drop(agent);
    server.shutdown().await;
    Ok(())
}

fn main() -> Result<()> {
    // `cargo bench` passes `--bench`; nothing else is taken.
    let quick = std::env::var_os("PURVIEW_BENCH_QUICK").is_some();
    let rounds = std::env::var("PURVIEW_WEB_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if quick { 3 } else { 30 });
    tokio::runtime::Runtime::new()?.block_on(run(rounds))
}

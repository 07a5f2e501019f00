//! The window card at home in a host built on ext-apps' `AppBridge` (the
//! page under tests/web/host), in headless Chromium: it takes the host's
//! context (theme, style variables, fonts, container size) from
//! `ui/initialize` and every `host-context-changed`; fills a fixed height
//! without size reports; settles in a flexible one even when the host
//! misjudges the frame (the shrink loop hosts report); stops everything on
//! teardown; shows a cancelled tool; never acts on `tool-input` alone; and
//! shows the read's result when the app cannot be reached; a page of rows
//! it loads comes back with its pager, made by the model. Screenshots of
//! the card in a light and a dark host land in the target's tmp folder.

#[path = "web/card_host.rs"]
#[allow(dead_code)]
mod card_host;
#[path = "web/driver.rs"]
#[allow(dead_code)] // what the other browser tests use
mod driver;

use std::time::Duration;

use anyhow::{Context as _, Result, anyhow, ensure};
use card_host::{desk, hosted, order_desk};
use driver::Browser;
use purview::{
    App, actions,
    approval::ApprovalQueue,
    projection::Page,
    serde_json::{Value, json},
    window,
};

/// The host page with `query`, the card's scene drawn, and the browser
/// inside the card's frame.
async fn card_in(query: &str) -> Result<(App, purview::http::HttpServer, Browser)> {
    let (app, _approvals, _face, server) = desk().await?;
    let browser = Browser::start().await?;
    browser.goto(&format!("http://{}/host/?{query}", server.local_addr())).await?;
    browser.wait_for("window.hostConnected === true || window.hostError !== undefined").await?;
    let failed = browser.run("return window.hostError || null;").await?;
    ensure!(failed.is_null(), "the host page failed: {failed}");
    browser.enter_frame("#card").await?;
    browser.wait_for("document.body.innerText.includes('Order Editor')").await?;
    Ok((app, server, browser))
}

/// What the host saw the card post, from outside its frame.
async fn host_value(browser: &Browser, expression: &str) -> Result<Value> {
    browser.leave_frame().await?;
    let value = browser.run(&format!("return {expression};")).await;
    browser.enter_frame("#card").await?;
    value
}

/// An edit the person makes in the app: the card's next read sees it.
async fn edit(app: &App, recipient: &str) -> Result<()> {
    let editors = app.windows_of::<order_desk::OrderEditor>()?;
    let editor = editors.first().map(|w| w.id().to_owned()).ok_or_else(|| anyhow!("no editor"))?;
    let arguments = json!({"field": "recipient", "value": recipient});
    let _ =
        app.call(&format!("{editor}__edit_field"), arguments.as_object().cloned()).outcome().await;
    ensure!(app.read_windows(None)?.to_string().contains(recipient), "the edit did not land");
    Ok(())
}

const BODY_BACKGROUND: &str = "getComputedStyle(document.body).backgroundColor";

#[tokio::test(flavor = "multi_thread")]
async fn the_card_takes_the_hosts_theme_and_follows_its_changes() -> Result<()> {
    let (_app, _server, browser) = card_in("theme=light&maxHeight=2400").await?;
    // From ui/initialize: the theme, the standard variables (the host's
    // own colours and font, not the card's fallbacks).
    let theme = browser.run("return document.documentElement.dataset.theme;").await?;
    ensure!(theme == "light", "{theme}");
    let background = browser.run(&format!("return {BODY_BACKGROUND};")).await?;
    ensure!(background == "rgb(243, 241, 236)", "the host's background is not used: {background}");
    let font = browser.run("return getComputedStyle(document.body).fontFamily;").await?;
    ensure!(font.as_str().unwrap_or_default().contains("Georgia"), "{font}");
    let radius = browser
        .run("return getComputedStyle(document.querySelector('.pv-window')).borderTopLeftRadius;")
        .await?;
    ensure!(radius == "14px", "{radius}");
    browser.leave_frame().await?;
    browser.screenshot("web-card-host-light").await?;

    // After host-context-changed: dark, with the host's dark variables.
    browser
        .run("window.hostSetContext({theme: 'dark', styles: {variables: window.hostPalettes.dark}}); return null;")
        .await?;
    browser.enter_frame("#card").await?;
    browser.wait_for("document.documentElement.dataset.theme === 'dark'").await?;
    browser.wait_for(&format!("{BODY_BACKGROUND} === 'rgb(17, 20, 27)'")).await?;
    let text = browser.run("return getComputedStyle(document.body).color;").await?;
    ensure!(text == "rgb(236, 239, 244)", "the host's dark text colour is not used: {text}");
    let scheme = browser.run("return document.documentElement.style.colorScheme;").await?;
    ensure!(scheme == "dark", "{scheme}");
    browser.leave_frame().await?;
    browser.screenshot("web-card-host-dark").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fixed_height_container_is_filled_and_no_size_is_reported() -> Result<()> {
    let (app, _server, browser) = card_in("height=420").await?;
    let filled = browser
        .run("var m = document.querySelector('main'); return [document.documentElement.getBoundingClientRect().height, document.body.getBoundingClientRect().height, m.scrollHeight > m.clientHeight];")
        .await?;
    ensure!(
        filled == json!([420, 420, true]),
        "the card does not fill 420 px and scroll: {filled}"
    );
    // A change redraws the card; still no size report.
    edit(&app, "Fixed Height").await?;
    browser.wait_for("document.body.innerText.includes('Fixed Height')").await?;
    let reported = host_value(&browser, "window.hostMessages.filter(function (m) { return m.method === 'ui/notifications/size-changed'; }).length").await?;
    ensure!(reported == 0, "the card reported {reported} sizes for a fixed container");
    Ok(())
}

/// The host sets the frame 8 px short of every reported height, the way
/// hosts that shrink a card from 398 to 210 px do. A card that measured
/// its viewport would answer each resize with a smaller report.
#[tokio::test(flavor = "multi_thread")]
async fn a_flexible_container_settles_even_when_the_host_misjudges_the_frame() -> Result<()> {
    let (_app, _server, browser) = card_in("maxHeight=3000&fudge=-8").await?;
    browser.leave_frame().await?;
    browser.wait_for("window.hostSizes.length > 0").await?;
    // Settled: nothing changes for 5 s, and nothing is reported.
    tokio::time::sleep(Duration::from_secs(1)).await;
    browser.enter_frame("#card").await?;
    let content = browser.run("return document.body.getBoundingClientRect().height;").await?;
    browser.leave_frame().await?;
    let settled = browser.run("return window.hostSizes.length;").await?;
    tokio::time::sleep(Duration::from_secs(5)).await;
    let later = browser.run("return window.hostSizes;").await?;
    let later = later.as_array().cloned().unwrap_or_default();
    ensure!(settled.as_u64().is_some_and(|n| n <= 4), "{settled} reports to settle: {later:?}");
    ensure!(
        Some(later.len() as u64) == settled.as_u64(),
        "reports while nothing changed: {later:?}"
    );
    // The last report is the content's height, not the frame's.
    let last = later.last().map(|s| s["height"].clone()).unwrap_or_default();
    ensure!(
        last.as_f64().map(f64::ceil) == content.as_f64().map(f64::ceil),
        "{last} against {content}"
    );

    // The host shrinks its limit below the content: the frame shrinks, the
    // card scrolls within it and reports nothing new.
    browser
        .run("window.hostSetContext({containerDimensions: {maxHeight: 300, maxWidth: 1100}}); return null;")
        .await?;
    browser
        .wait_for("document.querySelector('#card').getBoundingClientRect().height <= 302")
        .await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = browser.run("return window.hostSizes.length;").await?;
    ensure!(after.as_u64() == Some(later.len() as u64), "the card answered a shrink: {after}");

    // The harness does reproduce the loop: a view that measures its frame
    // (its page at `height: 100%`) shrinks without end in this host.
    browser
        .run("window.hostSetContext({containerDimensions: {maxHeight: 3000, maxWidth: 1100}}); return null;")
        .await?;
    browser.enter_frame("#card").await?;
    browser
        .run("var page = document.documentElement; page.style.height = '100%'; new ResizeObserver(function () { parent.postMessage({jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: {height: Math.ceil(page.getBoundingClientRect().height)}}, '*'); }).observe(page); return null;")
        .await?;
    browser.leave_frame().await?;
    browser.wait_for(&format!("window.hostSizes.length > {} + 20", later.len())).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn teardown_stops_every_request_before_it_is_answered() -> Result<()> {
    let (app, _server, browser) = card_in("maxHeight=2400").await?;
    let count =
        "window.hostMessages.filter(function (m) { return m.tool === 'app__card_scene'; }).length";
    // Before teardown a change is followed by a read: the host sees it.
    let before = host_value(&browser, count).await?;
    edit(&app, "Before Teardown").await?;
    browser.wait_for("document.body.innerText.includes('Before Teardown')").await?;
    browser.leave_frame().await?;
    browser.wait_for(&format!("{count} > {before}")).await?;

    browser.run("window.hostTeardown(); return null;").await?;
    browser.wait_for("window.hostTornDown === true").await?;
    edit(&app, "After Teardown").await?;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let sent =
        browser.run("return window.hostMessages.slice(window.hostMessagesAtTeardown);").await?;
    ensure!(sent == json!([]), "the card sent after its teardown: {sent}");
    let last =
        browser.run("return window.hostMessages[window.hostMessagesAtTeardown - 1];").await?;
    ensure!(last["method"].is_null() && !last["id"].is_null(), "the answer was not last: {last}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_tool_is_shown_and_full_screen_is_asked_only_where_offered() -> Result<()> {
    let (_app, _server, browser) = card_in("modes=inline,fullscreen").await?;
    let declared = host_value(&browser, "window.hostAppCapabilities").await?;
    ensure!(declared["availableDisplayModes"] == json!(["inline", "fullscreen"]), "{declared}");

    browser.leave_frame().await?;
    browser.run("window.hostCancel('the person stopped it'); return null;").await?;
    browser.enter_frame("#card").await?;
    browser
        .wait_for("document.getElementById('pv-notice').innerText.includes('cancelled')")
        .await?;
    let notice = browser.run("return document.getElementById('pv-notice').innerText;").await?;
    ensure!(notice.as_str().unwrap_or_default().contains("the person stopped it"), "{notice}");

    browser.press("#pv-modes", "Full screen").await?;
    browser.wait_for("document.documentElement.dataset.displayMode === 'fullscreen'").await?;
    browser
        .wait_for("document.getElementById('pv-modes').innerText.includes('Back inline')")
        .await?;
    let asked = host_value(&browser, "window.hostMessages.filter(function (m) { return m.method === 'ui/request-display-mode'; }).length").await?;
    ensure!(asked == 1, "{asked}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_offering_inline_only_gets_no_full_screen_button() -> Result<()> {
    let (_app, _server, browser) = card_in("modes=inline").await?;
    let buttons =
        browser.run("return document.getElementById('pv-modes').children.length;").await?;
    ensure!(buttons == 0, "{buttons}");
    Ok(())
}

/// Some hosts show a card before the person approved its call: the input
/// alone is never acted on (the card reads the scene, nothing else).
#[tokio::test(flavor = "multi_thread")]
async fn tool_input_alone_never_triggers_a_call() -> Result<()> {
    let (app, _server, browser) = card_in("input=only").await?;
    let before = app.read_windows(None)?;
    browser.leave_frame().await?;
    browser.wait_for("window.hostSentInput === true").await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let calls = browser
        .run("return window.hostMessages.filter(function (m) { return m.method === 'tools/call'; });")
        .await?;
    let calls = calls.as_array().cloned().unwrap_or_default();
    ensure!(!calls.is_empty(), "the card never read its scene");
    ensure!(calls.iter().all(|c| c["tool"] == "app__card_scene"), "the card acted: {calls:?}");
    ensure!(app.read_windows(None)? == before, "the app changed");
    Ok(())
}

/// A host that passes nothing on to the server: the card shows the
/// windows of the read's result, with its time.
#[tokio::test(flavor = "multi_thread")]
async fn when_the_app_cannot_be_reached_the_card_shows_the_results_windows() -> Result<()> {
    let (_app, _approvals, _face, server) = desk().await?;
    let browser = Browser::start().await?;
    browser.goto(&format!("http://{}/host/?proxy=none", server.local_addr())).await?;
    browser.wait_for("window.hostShowedResult === true || window.hostError !== undefined").await?;
    browser.enter_frame("#card").await?;
    browser
        .wait_for("document.getElementById('pv-notice').innerText.includes('cannot be reached')")
        .await?;
    let text = browser.run("return document.body.innerText;").await?;
    let text = text.as_str().unwrap_or_default();
    ensure!(
        text.contains("Order Editor") && text.contains("as the agent last read them, at"),
        "{text}"
    );
    Ok(())
}

/// A kennel of 30 dogs, five rows a page.
#[purview::window(title = "Kennel", summary = "30 dogs")]
#[derive(Clone)]
struct Kennel {
    #[block(table, limit = 5, load = load_rows, columns = ["Dog", "Name"])]
    dogs: Vec<(u32, String)>,
}

#[purview::actions]
impl Kennel {
    /// Fetch a range of dogs.
    #[action(read_only, idempotent)]
    fn load_rows(&self, offset: usize, limit: usize) -> Page<(u32, String)> {
        Page::slice(&self.dogs, offset, limit)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn s9_a_page_of_rows_the_card_loads_comes_back_with_its_pager() -> Result<()> {
    let app = App::builder().name("kennel").build();
    let dogs = (1..=30).map(|i| (i, format!("Dog {i}"))).collect();
    app.open(Kennel { dogs })?;
    let (_face, server) = hosted(&app, ApprovalQueue::new()).await?;
    let browser = Browser::start().await?;
    browser.goto(&format!("http://{}/host/", server.local_addr())).await?;
    browser.wait_for("window.hostConnected === true || window.hostError !== undefined").await?;
    browser.enter_frame("#card").await?;
    let shows = |said: &str| format!("document.body.innerText.includes({said:?})");
    browser.wait_for(&shows("Rows 1–5 of 30")).await?;
    // The last page, then the one before it: each pager button goes where
    // the model said, from the page loaded, not from the scene's first.
    browser.press("section[data-window]", "Last rows").await?;
    browser.wait_for(&shows("Rows 26–30 of 30")).await?;
    ensure!(browser.run(&format!("return {};", shows("Dog 30"))).await? == true, "the rows");
    browser.press("section[data-window]", "Previous rows").await?;
    browser.wait_for(&shows("Rows 21–25 of 30")).await?;
    let next = "Array.from(document.querySelectorAll('.pv-pager button'))\
        .filter(function (b) { return b.textContent === 'Next rows'; })[0].disabled";
    ensure!(browser.run(&format!("return {next};")).await? == false, "Next is offered again");
    // The app renames the first dog (which the window shows) and one on
    // that page: the card stays on it, loaded again (the card's own call),
    // and shows the change.
    let kennel = app.windows_of::<Kennel>()?.into_iter().next().context("the kennel")?;
    kennel.update(|k| {
        k.dogs[0].1 = "Dog 1, renamed".to_owned();
        k.dogs[22].1 = "Dog renamed by the app".to_owned();
    })?;
    browser
        .wait_for(&format!("{} && {}", shows("Dog renamed by the app"), shows("Rows 21–25 of 30")))
        .await?;
    Ok(())
}

/// A window may be named anything an id allows, `constructor` too, and an
/// argument may be called so: the card draws such a window (its questions
/// looked up as its own, not as a script's built-in), and the face sends
/// what the person typed into such a field, nothing inherited.
#[window(title = "Oddly named", summary = "Noted: {note}")]
#[derive(Clone)]
struct Oddly {
    note: String,
}

#[actions]
impl Oddly {
    /// Note something down.
    #[action]
    fn note(
        &mut self,
        /// What to note.
        constructor: String,
    ) {
        self.note = constructor;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_window_and_a_field_named_like_a_scripts_own_words_are_drawn_and_sent() -> Result<()> {
    let (app, _approvals, face, server) = desk().await?;
    let oddly = app.open_named("constructor", Oddly { note: "nothing".into() })?;
    let browser = Browser::start().await?;
    browser.goto(&format!("http://{}/host/?maxHeight=2400", server.local_addr())).await?;
    browser.wait_for("window.hostConnected === true || window.hostError !== undefined").await?;
    browser.enter_frame("#card").await?;
    browser.wait_for("document.body.innerText.includes('Noted: nothing')").await?;
    browser.wait_for("document.body.innerText.includes('Order Editor')").await?;

    browser.leave_frame().await?;
    browser.goto(&face.one_time_link(&server).ok_or_else(|| anyhow!("a link"))?).await?;
    let window = "section[data-window='constructor']";
    browser.wait_for(&format!("document.querySelector(\"{window}\") !== null")).await?;
    browser.press(window, "Note…").await?;
    let field = "#pv-constructor-note-constructor";
    browser.wait_for(&format!("document.querySelector('{field}') !== null")).await?;
    let shown = browser.run(&format!("return document.querySelector('{field}').value;")).await?;
    ensure!(shown == "", "the field starts with something the person never typed: {shown}");
    browser.type_into(field, "bread").await?;
    browser.press(&format!("{window} form"), "Note").await?;
    for _ in 0..200 {
        if oddly.read(|o| o.note.clone())? == "bread" {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    Err(anyhow!("the app got {:?}, not what was typed", oddly.read(|o| o.note.clone())?))
}

#[tokio::test(flavor = "multi_thread")]
async fn s7_a_field_typed_into_in_the_card_is_kept_while_an_agent_changes_another_window()
-> Result<()> {
    let (app, _approvals, _face, server) = desk().await?;
    let oddly = app.open(Oddly { note: "nothing".into() })?;
    let browser = Browser::start().await?;
    browser.goto(&format!("http://{}/host/?maxHeight=2400", server.local_addr())).await?;
    browser.wait_for("window.hostConnected === true || window.hostError !== undefined").await?;
    browser.enter_frame("#card").await?;
    browser.wait_for("document.body.innerText.includes('Noted: nothing')").await?;
    let window = format!("section[data-window='{}']", oddly.id());
    browser.press(&window, "Note…").await?;
    let field = format!("#pv-{}-note-constructor", oddly.id());
    browser.wait_for(&format!("document.querySelector('{field}') !== null")).await?;
    browser.type_into(&field, "half a wo").await?;
    browser
        .run(&format!(
            "const f = document.querySelector('{field}'); f.focus(); f.setSelectionRange(5, 9); f.dataset.typing = 'yes';"
        ))
        .await?;
    // An agent changes the order editor; the card reads the scene again.
    edit(&app, "Grace Hopper").await?;
    browser.wait_for("document.body.innerText.includes('Grace Hopper')").await?;
    let kept = browser
        .run(&format!(
            "const f = document.querySelector('{field}'); \
             return [f.dataset.typing, f.value, f.selectionStart, f.selectionEnd, document.activeElement === f];"
        ))
        .await?;
    ensure!(kept == json!(["yes", "half a wo", 5, 9, true]), "the field was replaced: {kept}");
    Ok(())
}

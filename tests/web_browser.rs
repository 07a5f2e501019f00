//! The person's face (purview-web) in a real headless Chromium, driven
//! over WebDriver, while an agent works on the same order_desk over MCP:
//! the order story, the stale call refused after the person's edit (§7.1),
//! an approval given in the browser and applied once, a cross-site form
//! post refused, and no secret in the page or its events (§4.5).
//! Screenshots land in the target directory's tmp folder.

#[path = "web/driver.rs"]
mod driver;

use std::{process::Stdio, sync::Arc, time::Duration};

use anyhow::{Context as _, Result, anyhow, ensure};
use driver::Browser;
use purview_tests::Agent;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// order_desk over HTTP with its face, and what it printed on stderr.
struct Desk {
    /// The app, killed when this is dropped.
    _child: tokio::process::Child,
    mcp_url: String,
    link: String,
}

impl Desk {
    /// Starts order_desk with `args` after `--http 127.0.0.1:0`, and reads
    /// the MCP endpoint and the face's one-time link from its stderr.
    async fn start(args: &[&str], env: &[(&str, &str)]) -> Result<Self> {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_order_desk"));
        command.args(["--http", "127.0.0.1:0"]).args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let stderr = child.stderr.take().ok_or_else(|| anyhow!("no stderr"))?;
        let mut lines = BufReader::new(stderr).lines();
        let (mut mcp_url, mut link) = (None, None);
        while mcp_url.is_none() || link.is_none() {
            let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
                .await??
                .ok_or_else(|| anyhow!("order_desk ended before printing its link"))?;
            if let Some(url) = line.split("MCP endpoint ").nth(1) {
                mcp_url = Some(url.trim().to_owned());
            }
            if let Some(url) = line.split("browser): ").nth(1) {
                link = Some(url.trim().to_owned());
            }
        }
        // Keep draining stderr so the app never blocks on it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Self {
            _child: child,
            mcp_url: mcp_url.unwrap_or_default(),
            link: link.unwrap_or_default(),
        })
    }

    /// `http://host:port`, from the MCP endpoint's URL.
    fn origin(&self) -> String {
        self.mcp_url.trim_end_matches("/mcp").to_owned()
    }
}

/// The id of the open window titled `title`, and its version.
async fn window(agent: &Agent, title: &str) -> Result<(String, u64)> {
    let snapshot = agent.read().await?;
    let found = snapshot.windows.iter().find(|w| w.title == title);
    let found = found.ok_or_else(|| anyhow::anyhow!("no window titled {title}"))?;
    Ok((found.id.clone(), found.version))
}

/// The CSS selector of a window's card on the page.
fn card(id: &str) -> String {
    format!("section[data-window=\"{id}\"]")
}

/// The text of a window's card.
fn card_text(id: &str) -> String {
    format!(
        "((document.querySelector('{}') || {{}}).innerText || '')",
        card(id).replace('\'', "\\'")
    )
}

async fn opened(args: &[&str]) -> Result<(Desk, Browser, Agent)> {
    let desk = Desk::start(args, &[]).await?;
    let browser = Browser::start().await?;
    browser.goto(&desk.link).await?;
    browser.wait_for("document.querySelectorAll('section[data-window]').length === 2").await?;
    let agent = Agent::over(StreamableHttpClientTransport::from_uri(desk.mcp_url.clone())).await?;
    Ok((desk, browser, agent))
}

#[tokio::test(flavor = "multi_thread")]
async fn s7_1_a_person_in_the_browser_and_an_agent_over_mcp_do_the_order_story() -> Result<()> {
    let (_desk, browser, agent) =
        opened(&["--approvals-from", "in-app", "--require-approval"]).await?;
    let (editor, seen) = window(&agent, "Order Editor").await?;
    let form = format!("#pv-{editor}-edit_field");

    // The person fills in the recipient in the browser.
    browser.press(&card(&editor), "Edit field…").await?;
    browser.click(&format!("{form}-field")).await?;
    browser.click(&format!("{form}-field option[value=recipient]")).await?;
    browser.type_into(&format!("{form}-value"), "Ada Lovelace").await?;
    browser.press(&card(&editor), "Edit field").await?;
    browser
        .wait_for(&format!("{}.includes('every field is filled in')", card_text(&editor)))
        .await?;
    browser.screenshot("web-face-person-edited").await?;

    // §7.1: the agent's call made against what it saw before is refused.
    let stale = agent
        .call(
            &format!("{editor}__edit_field"),
            json!({"field": "amount", "value": "250", "expectedVersion": seen}),
        )
        .await?;
    ensure!(stale.code() == Some("stale_state"), "the stale call: {:?}", stale.structured);
    ensure!(stale.structured["currentVersion"].as_u64() > Some(seen), "{:?}", stale.structured);

    // Re-read, the agent edits; the person sees it live, and where it works.
    let (_, now) = window(&agent, "Order Editor").await?;
    let edit = json!({"field": "amount", "value": "250", "expectedVersion": now});
    let done = agent.call(&format!("{editor}__edit_field"), edit).await?;
    ensure!(!done.is_error, "{:?}", done.structured);
    browser.wait_for(&format!("{}.includes('$250.00')", card_text(&editor))).await?;
    browser.wait_for(&format!("{}.includes('Agent is working here')", card_text(&editor))).await?;
    ensure!(browser.html().await?.contains("Ada Lovelace"), "the person's edit stayed");

    // The agent submits: the dialog opens and blocks the editor.
    let (_, now) = window(&agent, "Order Editor").await?;
    let submit = agent.call(&format!("{editor}__submit"), json!({"expectedVersion": now})).await?;
    ensure!(!submit.is_error, "{:?}", submit.structured);
    browser
        .wait_for(&format!("{}.includes('Blocked by Confirm submission')", card_text(&editor)))
        .await?;
    let (dialog, version) = window(&agent, "Confirm submission").await?;

    // The confirmation waits for the person's yes, given in the browser.
    let agent = Arc::new(agent);
    let asking = agent.clone();
    let confirm = tokio::spawn(async move {
        asking.call(&format!("{dialog}__confirm"), json!({"expectedVersion": version})).await
    });
    browser.wait_for("document.querySelector('.pv-question') !== null").await?;
    let question = browser.run("return document.querySelector('.pv-question').innerText;").await?;
    ensure!(question.as_str().unwrap_or("").contains("Confirm submission"), "{question}");
    browser.screenshot("web-face-approval").await?;
    let asked = browser
        .run_async(
            "var done = arguments[arguments.length - 1];
             var session = localStorage.getItem('purview-session:/person');
             fetch('/person/scene', {headers: {'x-purview-session': session}})
               .then(function (r) { return r.json(); }).then(function (s) {
               var w = s.windows.filter(function (w) { return w.questions.length; })[0];
               done(w ? w.questions[0].id : null); });",
        )
        .await?;
    let id = asked.as_u64().ok_or_else(|| anyhow::anyhow!("no question in the scene: {asked}"))?;
    browser.press(".pv-question", "Approve").await?;
    let confirmed = confirm.await??;
    ensure!(!confirmed.is_error, "{:?}", confirmed.structured);
    browser
        .wait_for(&format!("{}.includes('has been submitted to Ada Lovelace')", card_text(&editor)))
        .await?;
    browser.screenshot("web-face-submitted").await?;

    // Applied once: the question is gone, a second answer to it changes
    // nothing, and the order says it was submitted once.
    ensure!(browser.run("return document.querySelector('.pv-question');").await? == Value::Null);
    let again = browser.run_async(&answer_script(id)).await?;
    ensure!(again["answered"] == json!(false), "a second answer was taken: {again}");
    let text = browser.run(&format!("return {};", card_text(&editor))).await?;
    ensure!(text.as_str().unwrap_or("").matches("was submitted").count() == 1, "{text}");
    Ok(())
}

/// A script answering question `id` from the page, as its own buttons do.
fn answer_script(id: u64) -> String {
    format!(
        "var done = arguments[arguments.length - 1];
         var session = localStorage.getItem('purview-session:/person');
         fetch('/person/intent', {{method: 'POST', headers: {{'content-type': 'application/json', 'x-purview-session': session}}, body: JSON.stringify({{kind: 'approve', id: {id}}})}})
           .then(function (r) {{ return r.json(); }}).then(done, function (e) {{ done(String(e)); }});"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn s4_5_no_secret_reaches_the_page_or_its_events() -> Result<()> {
    let (_desk, browser, agent) = opened(&[]).await?;
    let (editor, version) = window(&agent, "Order Editor").await?;
    let person_secret = "browser-typed-secret-7431";
    let agent_secret = "agent-sent-secret-9916";

    // The person sets the password in the browser.
    browser.press(&card(&editor), "Set password…").await?;
    let field = format!("#pv-{editor}-set_password-password");
    browser.type_into(&field, person_secret).await?;
    browser.press(&card(&editor), "Set password").await?;
    browser.wait_for(&format!("!document.querySelector('{field}')")).await?;
    // Then the agent does, over MCP.
    let set = agent
        .call(
            &format!("{editor}__set_password"),
            json!({"password": agent_secret, "expectedVersion": version}),
        )
        .await?;
    ensure!(set.code() != Some("validation_failed"), "{:?}", set.structured);

    // Neither appears in the page, in a fresh event, or in the scene.
    let event = browser
        .run_async(
            "var done = arguments[arguments.length - 1];
             var session = localStorage.getItem('purview-session:/person');
             fetch('/person/events', {headers: {'x-purview-session': session}}).then(function (r) {
               var reader = r.body.getReader(), decoder = new TextDecoder(), text = '';
               var pump = function () { return reader.read().then(function (c) {
                 if (c.value) text += decoder.decode(c.value, {stream: true});
                 if (c.done || text.indexOf('\\n\\n') >= 0) { reader.cancel(); done(text); } else pump();
               }); };
               pump();
             });",
        )
        .await?;
    let scene = browser
        .run_async(
            "var done = arguments[arguments.length - 1];
             var session = localStorage.getItem('purview-session:/person');
             fetch('/person/scene', {headers: {'x-purview-session': session}})
               .then(function (r) { return r.text(); }).then(done);",
        )
        .await?;
    let html = browser.html().await?;
    for (what, text) in [
        ("page", html.as_str()),
        ("event", event.as_str().unwrap_or("")),
        ("scene", scene.as_str().unwrap_or("")),
    ] {
        ensure!(text.contains("Payment password"), "the {what} shows the field: {text:.300}");
        for secret in [person_secret, agent_secret, "hunter2"] {
            ensure!(!text.contains(secret), "the {what} holds a secret");
        }
    }
    browser.screenshot("web-face-masked").await?;
    Ok(())
}

/// The number in "N field(s) still to fill in" of the editor's card (0
/// once every field is filled in).
async fn still_to_fill(browser: &Browser, editor: &str) -> Result<usize> {
    let text = browser.run(&format!("return {};", card_text(editor))).await?;
    let text = text.as_str().unwrap_or_default();
    if text.contains("every field is filled in") {
        return Ok(0);
    }
    let count = text.split(" field").next().and_then(|head| head.rsplit(' ').next());
    count.and_then(|n| n.parse().ok()).ok_or_else(|| anyhow!("no count in {text:.300}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn s4_5_what_the_person_types_into_a_secret_arrives_then_the_page_forgets_it() -> Result<()> {
    let (_desk, browser, agent) = opened(&[]).await?;
    let (editor, _) = window(&agent, "Order Editor").await?;
    // The agent empties the password: one field more to fill in.
    let (_, version) = window(&agent, "Order Editor").await?;
    let start = still_to_fill(&browser, &editor).await?;
    let emptied = agent
        .call(
            &format!("{editor}__set_password"),
            json!({"password": "", "expectedVersion": version}),
        )
        .await?;
    ensure!(!emptied.is_error, "{:?}", emptied.structured);
    let more = start + 1;
    browser.wait_for(&format!("{}.includes('{more} field')", card_text(&editor))).await?;
    let before = still_to_fill(&browser, &editor).await?;
    ensure!(before == start + 1, "the empty password still counts as set: {start} -> {before}");
    // A password typed in the browser arrives: one field fewer again.
    browser.press(&card(&editor), "Set password…").await?;
    let field = format!("#pv-{editor}-set_password-password");
    browser.type_into(&field, "typed-in-the-browser").await?;
    browser.press(&card(&editor), "Set password").await?;
    browser.wait_for(&format!("!document.querySelector('{field}')")).await?;
    // The form closes on the call's answer; the summary follows with the
    // change's event.
    let fewer = before - 1;
    let shown = format!("{}.includes('{fewer} field')", card_text(&editor));
    browser.wait_for(&shown).await.context("the typed password did not arrive")?;
    let after = still_to_fill(&browser, &editor).await?;
    ensure!(after == before - 1, "the typed password did not arrive: {before} -> {after}");
    // The lock screen: a wrong PIN is refused and forgotten by the form,
    // the right one typed in the browser unlocks.
    browser.press(".pv-app", "Lock").await?;
    browser.wait_for("document.querySelector('.pv-overlay [aria-modal=true]') !== null").await?;
    let (locked, _) = window(&agent, "Locked").await?;
    let pin = format!("#pv-{locked}-unlock-pin");
    browser.press(&card(&locked), "Unlock…").await?;
    browser.type_into(&pin, "9999").await?;
    browser.press(&card(&locked), "Unlock").await?;
    browser.wait_for(&format!("{}.includes('wrong PIN')", card_text(&locked))).await?;
    let kept = browser.run(&format!("return document.querySelector('{pin}').value;")).await?;
    ensure!(kept == json!(""), "the page kept the typed PIN: {kept}");
    browser.type_into(&pin, "1234").await?;
    browser.press(&card(&locked), "Unlock").await?;
    browser.wait_for("document.querySelector('.pv-overlay') === null").await?;
    ensure!(window(&agent, "Locked").await.is_err(), "the right PIN did not unlock");
    Ok(())
}

/// A server on another port of this host that answers every request with
/// an empty page and keeps each request's head, as any local web app the
/// person visits could.
async fn logging_server() -> Result<(String, Arc<std::sync::Mutex<Vec<String>>>)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/", listener.local_addr()?);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buffer = [0u8; 8192];
            let read = stream.read(&mut buffer).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buffer[..read]).into_owned();
            log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(head);
            let page = "<!doctype html><title>another app</title><p>Another app";
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    Ok((url, seen))
}

#[tokio::test(flavor = "multi_thread")]
async fn s12_nothing_another_port_receives_acts_as_the_person() -> Result<()> {
    let (desk, browser, agent) =
        opened(&["--approvals-from", "in-app", "--require-approval"]).await?;
    let origin = desk.origin();
    // The face works: the person holds a live session.
    let session = browser.run("return localStorage.getItem('purview-session:/person');").await?;
    let session = session.as_str().unwrap_or_default().to_owned();
    ensure!(session.len() == 64, "the page holds no session: {session:?}");
    // The person visits another local web app; it keeps what it receives.
    let (other, seen) = logging_server().await?;
    browser.goto(&other).await?;
    browser.wait_for("document.body && document.body.innerText.includes('Another app')").await?;
    let heads = seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    ensure!(!heads.is_empty(), "the other app received nothing");
    let received = heads.join("\n");
    ensure!(!received.contains(&session), "the other port received the credential");
    // It replays every header it received at the face, with a plain
    // client and whatever Origin it likes: nothing opens.
    let (editor, version) = window(&agent, "Order Editor").await?;
    let http = reqwest::Client::new();
    let replayed = |mut request: reqwest::RequestBuilder| {
        for line in heads[0].lines().skip(1) {
            if let Some((name, value)) = line.split_once(':') {
                let name = name.trim();
                if !name.is_empty() && !name.eq_ignore_ascii_case("host") {
                    request = request.header(name, value.trim());
                }
            }
        }
        request
    };
    for path in ["/person/scene", "/person/events"] {
        let answer = replayed(http.get(format!("{origin}{path}"))).send().await?;
        ensure!(answer.status() == 401, "{path} replayed: {}", answer.status());
    }
    let page = replayed(http.get(format!("{origin}/person/"))).send().await?.text().await?;
    ensure!(!page.contains(&session), "the page handed out the credential");
    let call = json!({"kind": "press", "window": editor, "action": "submit"});
    for (path, body) in
        [("/person/intent", call), ("/person/intent", json!({"kind": "approve", "id": 1}))]
    {
        let answer = replayed(http.post(format!("{origin}{path}")))
            .header("origin", &origin)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await?;
        ensure!(answer.status() == 401, "{path} replayed: {}", answer.status());
    }
    let (_, after) = window(&agent, "Order Editor").await?;
    ensure!(after == version, "the replay changed the editor: {version} -> {after}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cross_site_form_post_is_refused() -> Result<()> {
    let (desk, browser, agent) = opened(&[]).await?;
    let (editor, before) = window(&agent, "Order Editor").await?;
    // Another site on this machine (another port: the same site to the
    // browser, so the SameSite cookie goes along) posts a form to the face.
    let evil = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let evil_url = format!("http://{}/", evil.local_addr()?);
    let page = format!(
        "<!doctype html><form id=f method=post enctype=text/plain action=\"{}/person/intent\">\
         <input name='{{\"kind\":\"press\",\"window\":\"{editor}\",\"action\":\"submit\",\"x\":\"' value='\"}}'>\
         </form><script>document.getElementById('f').submit()</script>",
        desk.origin()
    );
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut stream, _)) = evil.accept().await {
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer).await;
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    browser.goto(&evil_url).await?;
    browser.wait_for("document.body && document.body.innerText.includes('Refused')").await?;
    browser.screenshot("web-face-cross-site-refused").await?;
    let (_, after) = window(&agent, "Order Editor").await?;
    ensure!(after == before, "the cross-site post changed the editor: {before} -> {after}");
    ensure!(!agent.read_json().await?.to_string().contains("Mallory"));
    Ok(())
}

/// WebDriver's Tab and Enter keys.
const TAB: &str = "\u{E004}";
const ENTER: &str = "\u{E007}";

#[tokio::test(flavor = "multi_thread")]
async fn the_face_is_usable_with_the_keyboard_alone_and_labelled() -> Result<()> {
    let (_desk, browser, agent) = opened(&[]).await?;
    let (editor, _) = window(&agent, "Order Editor").await?;
    // Every input is labelled, every window a named region.
    let unlabelled = browser
        .run(
            "return Array.from(document.querySelectorAll('section[data-window]')).filter(function (s) {
               return s.getAttribute('role') !== 'region' || !document.getElementById(s.getAttribute('aria-labelledby')); }).length;",
        )
        .await?;
    ensure!(unlabelled == json!(0), "{unlabelled} windows without a role and a name");
    // Tab to the editor's "Edit field…" button, open its form with Enter.
    let mut found = false;
    for _ in 0..40 {
        browser.keys(TAB).await?;
        let focused = browser.run("return document.activeElement.textContent;").await?;
        if focused == json!("Edit field…") {
            found = true;
            break;
        }
    }
    ensure!(found, "Tab never reached the Edit field button");
    browser.keys(ENTER).await?;
    let form = format!("pv-{editor}-edit_field");
    browser.wait_for(&format!("document.activeElement.id === '{form}-field'")).await?;
    let labelled = browser
        .run("return Array.from(document.querySelectorAll('form input, form select')).every(function (i) { return i.labels.length === 1; });")
        .await?;
    ensure!(labelled == json!(true), "a form field without its label");
    // Choose with the keyboard, type, and send with Enter.
    browser.keys("r").await?;
    browser.keys(TAB).await?;
    browser.keys("Grace Hopper").await?;
    browser.keys(ENTER).await?;
    browser.wait_for(&format!("{}.includes('Grace Hopper')", card_text(&editor))).await?;
    let recipient = agent.read_json().await?.to_string();
    ensure!(recipient.contains("Grace Hopper"), "the agent does not see the person's edit");
    browser.screenshot("web-face-keyboard").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn s7_3_the_person_sees_field_errors_confirms_pages_and_meets_the_app_modal() -> Result<()> {
    let (_desk, browser, agent) = opened(&[]).await?;
    let (editor, _) = window(&agent, "Order Editor").await?;
    let (report, _) = window(&agent, "Report Details").await?;
    // A value the window refuses: its error stands beside the field.
    let form = format!("#pv-{editor}-edit_field");
    browser.press(&card(&editor), "Edit field…").await?;
    browser.click(&format!("{form}-field option[value=amount]")).await?;
    browser.type_into(&format!("{form}-value"), "ten dollars").await?;
    browser.press(&card(&editor), "Edit field").await?;
    browser.wait_for(&format!("document.querySelector('{form}-value-error') !== null")).await?;
    let invalid = browser
        .run(&format!(
            "return document.querySelector('{form}-value').getAttribute('aria-invalid');"
        ))
        .await?;
    ensure!(invalid == json!("true"), "the field is not marked invalid");
    browser.screenshot("web-face-field-error").await?;
    // Paging through the report with its loader.
    browser.press(&card(&report), "Next rows").await?;
    browser.wait_for(&format!("{}.includes('Rows 6–10 of 10000')", card_text(&report))).await?;
    // A destructive action asks first; "No" leaves everything as it was.
    // (The form stayed open with its error.)
    browser.click(&format!("{form}-field option[value=recipient]")).await?;
    browser.type_into(&format!("{form}-value"), "Ada").await?;
    browser.press(&card(&editor), "Edit field").await?;
    browser.wait_for(&format!("{}.includes('every field')", card_text(&editor))).await?;
    browser.press(&card(&editor), "Submit").await?;
    browser.wait_for("document.querySelector('[role=alertdialog]') !== null").await?;
    browser.press("[role=alertdialog]", "Do not submit").await?;
    ensure!(window(&agent, "Confirm submission").await.is_err(), "No still submitted");
    browser.press(&card(&editor), "Submit").await?;
    browser.press("[role=alertdialog]", "Yes, submit").await?;
    browser
        .wait_for(&format!("{}.includes('Blocked by Confirm submission')", card_text(&editor)))
        .await?;
    ensure!(window(&agent, "Confirm submission").await.is_ok());
    browser.screenshot("web-face-dialog").await?;
    browser.press("section[role=dialog]", "Cancel").await?;
    browser.wait_for(&format!("!{}.includes('Blocked by')", card_text(&editor))).await?;
    // The app-level modal covers everything; the rest cannot be reached.
    browser.press(".pv-app", "Lock").await?;
    browser.wait_for("document.querySelector('.pv-overlay [aria-modal=true]') !== null").await?;
    let inert = browser.run("return document.querySelector('.pv-windows').inert && document.querySelector('.pv-app').inert;").await?;
    ensure!(inert == json!(true), "the windows under the app-level modal can still be reached");
    browser.screenshot("web-face-app-modal").await?;
    Ok(())
}

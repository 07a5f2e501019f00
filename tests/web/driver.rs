//! A headless Chromium driven over WebDriver (Debian's `chromium` and
//! `chromium-driver`, which ./scripts/test installs): what the browser
//! tests and the face's benchmark share. Without the browser they fail,
//! saying what to install; they never skip.

use std::{path::PathBuf, process::Stdio, time::Duration};

use anyhow::{Context as _, Result, anyhow, bail};
use serde_json::{Value, json};

/// The W3C WebDriver key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// One headless Chromium session; the browser and the driver process end
/// with it, whether the test passed, failed or panicked.
pub struct Browser {
    http: reqwest::Client,
    session: String,
    base: String,
    port: u16,
    _driver: tokio::process::Child,
}

impl Drop for Browser {
    /// Ends the WebDriver session first, so chromedriver closes the
    /// browser it started, then waits (5 s at most) until every process
    /// chromedriver started has exited, and kills any that has not:
    /// chromedriver answers as the browser is quitting, and killing it
    /// (`kill_on_drop`) while a browser lives would leave that Chromium
    /// running, orphaned, after the tests. Plain blocking I/O with short
    /// timeouts, as a drop cannot await.
    fn drop(&mut self) {
        if !self.session.is_empty() {
            self.end_session();
        }
        let Some(driver) = self._driver.id() else { return };
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !descendants(driver).is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        for pid in descendants(driver) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
    }
}

impl Browser {
    /// `DELETE /session/…`, read until its answer is whole.
    fn end_session(&self) {
        use std::io::{Read, Write};
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], self.port));
        let Ok(mut stream) = std::net::TcpStream::connect_timeout(&address, Duration::from_secs(2))
        else {
            return;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let _ = stream.set_write_timeout(Some(Duration::from_secs(2)));
        let request = format!(
            "DELETE /session/{} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.session, self.port
        );
        if stream.write_all(request.as_bytes()).is_ok() {
            // chromedriver keeps the connection open after its answer,
            // whatever the request asked, so the answer ends where its
            // length says.
            let mut answer = Vec::new();
            let mut chunk = [0; 4096];
            while let Ok(read @ 1..) = stream.read(&mut chunk) {
                answer.extend_from_slice(&chunk[..read]);
                if answered_in_full(&answer) {
                    break;
                }
            }
        }
    }
}

/// Every live process below `pid` (its children, theirs, …), from /proc.
fn descendants(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut next = vec![pid];
    while let Some(parent) = next.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{parent}/task")) else { continue };
        for task in tasks.flatten() {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            for child in children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()) {
                // A child that has exited, reaped or not, is gone.
                let Ok(state) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
                    continue;
                };
                let zombie = state
                    .rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
                if !zombie {
                    found.push(child);
                }
                next.push(child);
            }
        }
    }
    found
}

/// Whether `answer` holds an HTTP response's head and all of the body its
/// `Content-Length` announces.
fn answered_in_full(answer: &[u8]) -> bool {
    let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    answer.len() >= end + 4 + length
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session.
    pub async fn start() -> Result<Self> {
        let port = free_port()?;
        let driver = tokio::process::Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("chromedriver did not start: install Debian's chromium and chromium-driver (./scripts/test does)")?;
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let mut ready = false;
        for _ in 0..100 {
            if http.get(format!("{base}/status")).send().await.is_ok() {
                ready = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if !ready {
            bail!("chromedriver did not answer on port {port}");
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1000"]
            }
        }}});
        let mut browser = Self { http, session: String::new(), base, port, _driver: driver };
        let created = browser.send(reqwest::Method::POST, "/session", Some(capabilities)).await?;
        browser.session =
            created["sessionId"].as_str().ok_or_else(|| anyhow!("no session: {created}"))?.into();
        Ok(browser)
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value> {
        let url = if path == "/session" {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let mut request = self.http.request(method, url);
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body.to_string());
        }
        let answer: Value = serde_json::from_slice(&request.send().await?.bytes().await?)?;
        let value = answer.get("value").cloned().unwrap_or(Value::Null);
        if value.get("error").is_some() {
            bail!("WebDriver {path}: {value}");
        }
        Ok(value)
    }

    /// Goes to `url`.
    pub async fn goto(&self, url: &str) -> Result<()> {
        self.send(reqwest::Method::POST, "/url", Some(json!({ "url": url }))).await.map(drop)
    }

    /// Runs `script` (a function body) in the page and returns its value.
    pub async fn run(&self, script: &str) -> Result<Value> {
        let body = json!({"script": script, "args": []});
        self.send(reqwest::Method::POST, "/execute/sync", Some(body)).await
    }

    /// Runs an async `script` whose last argument is the callback to call
    /// with its result.
    pub async fn run_async(&self, script: &str) -> Result<Value> {
        let body = json!({"script": script, "args": []});
        self.send(reqwest::Method::POST, "/execute/async", Some(body)).await
    }

    /// Waits (up to 10 s) until `condition`, a JavaScript expression, holds.
    pub async fn wait_for(&self, condition: &str) -> Result<()> {
        for _ in 0..200 {
            if self.run(&format!("return !!({condition});")).await? == Value::Bool(true) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let text = self.run("return document.body.innerText;").await.unwrap_or_default();
        bail!("the page never showed `{condition}`; it shows:\n{}", text.as_str().unwrap_or(""))
    }

    /// The element `css` selects, waited for: what the person's last step
    /// opened is drawn once the page's person has taken the step.
    async fn element(&self, css: &str) -> Result<String> {
        let find = Some(json!({"using": "css selector", "value": css}));
        let mut tries = 0;
        loop {
            match self.send(reqwest::Method::POST, "/element", find.clone()).await {
                Ok(found) => {
                    return found[ELEMENT]
                        .as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| anyhow!("no element {css}"));
                }
                Err(error) if tries >= 100 => return Err(error),
                Err(_) => tries += 1,
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Clicks the element `css` selects, as a person's mouse would.
    pub async fn click(&self, css: &str) -> Result<()> {
        let id = self.element(css).await?;
        self.send(reqwest::Method::POST, &format!("/element/{id}/click"), Some(json!({})))
            .await
            .map(drop)
    }

    /// Types `text` into the element `css` selects, as a keyboard would,
    /// in place of what it held.
    pub async fn type_into(&self, css: &str, text: &str) -> Result<()> {
        let id = self.element(css).await?;
        self.send(reqwest::Method::POST, &format!("/element/{id}/clear"), Some(json!({}))).await?;
        let body = json!({ "text": text });
        self.send(reqwest::Method::POST, &format!("/element/{id}/value"), Some(body))
            .await
            .map(drop)
    }

    /// Clicks the button whose text is `label` inside the element `within`.
    /// The page redraws on every change, so a button found just before a
    /// redraw may be gone when clicked: then it is found again.
    pub async fn press(&self, within: &str, label: &str) -> Result<()> {
        let script = format!(
            "document.querySelectorAll('[data-pressed]').forEach(function (b) {{ b.removeAttribute('data-pressed'); }}); var b = Array.from(document.querySelectorAll({within:?} + ' button')).filter(function (b) {{ return b.textContent === {label:?}; }})[0]; if (!b) return null; b.setAttribute('data-pressed', '1'); return true;"
        );
        let mut last = None;
        for _ in 0..20 {
            if self.run(&script).await? == Value::Bool(true) {
                match self.click("button[data-pressed]").await {
                    Ok(()) => return Ok(()),
                    Err(error) => last = Some(error),
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        match last {
            Some(error) => Err(error.context(format!("pressing {label:?} in {within}"))),
            None => bail!("no button {label:?} in {within}"),
        }
    }

    /// Presses keys (WebDriver key codes, such as `\u{E004}` for Tab) on
    /// whatever has the focus, as a keyboard would.
    pub async fn keys(&self, keys: &str) -> Result<()> {
        let mut actions = Vec::new();
        for key in keys.chars() {
            actions.push(json!({"type": "keyDown", "value": key.to_string()}));
            actions.push(json!({"type": "keyUp", "value": key.to_string()}));
        }
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]});
        self.send(reqwest::Method::POST, "/actions", Some(body)).await.map(drop)
    }

    /// Goes into the frame `css` selects (a host's iframe): later calls
    /// act on its document until [`Browser::leave_frame`].
    #[allow(dead_code)] // the card's test only
    pub async fn enter_frame(&self, css: &str) -> Result<()> {
        let id = self.element(css).await?;
        let body = json!({"id": {ELEMENT: id}});
        self.send(reqwest::Method::POST, "/frame", Some(body)).await.map(drop)
    }

    /// Back to the top-level page.
    #[allow(dead_code)] // the card's test only
    pub async fn leave_frame(&self) -> Result<()> {
        self.send(reqwest::Method::POST, "/frame", Some(json!({"id": null}))).await.map(drop)
    }

    /// The whole page as HTML, as it is now.
    pub async fn html(&self) -> Result<String> {
        Ok(self
            .run("return document.documentElement.outerHTML;")
            .await?
            .as_str()
            .unwrap_or("")
            .into())
    }

    /// Sizes the browser's window, as a person's screen would be.
    #[allow(dead_code)] // the tests that screenshot at given sizes
    pub async fn resize(&self, width: u32, height: u32) -> Result<()> {
        let rect = json!({"width": width, "height": height});
        self.send(reqwest::Method::POST, "/window/rect", Some(rect)).await?;
        Ok(())
    }

    /// Saves a screenshot to `name`.png under the target directory's test
    /// folder, returning where.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf> {
        use base64_decode::decode;
        let png = self.send(reqwest::Method::GET, "/screenshot", None).await?;
        let bytes = decode(png.as_str().unwrap_or_default())?;
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"));
        std::fs::write(&path, bytes)?;
        Ok(path)
    }
}

/// Base64 without a crate for it: screenshots are all it decodes.
mod base64_decode {
    pub fn decode(text: &str) -> anyhow::Result<Vec<u8>> {
        let value = |c: u8| -> Option<u32> {
            Some(match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => return None,
            } as u32)
        };
        let mut out = Vec::with_capacity(text.len() * 3 / 4);
        let (mut acc, mut bits) = (0u32, 0);
        for c in text.bytes().filter(|c| *c != b'=' && !c.is_ascii_whitespace()) {
            acc = (acc << 6) | value(c).ok_or_else(|| anyhow::anyhow!("not base64"))?;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
                acc &= (1 << bits) - 1;
            }
        }
        Ok(out)
    }
}

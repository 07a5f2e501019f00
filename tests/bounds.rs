//! The second hardening pass, beyond HTTP's shares: bounded queues
//! (approval questions, answers waiting for a client that does not read),
//! approval questions that say what is approved, a PIN backoff that never
//! makes the person wait for an agent's guesses, and the small things
//! (repeated JSON keys, short tokens, fractions of a cent). Each test drives
//! the real order_desk binary or a real MCP transport.

#[path = "../examples/order_desk/windows.rs"]
#[allow(dead_code, missing_docs)]
mod order_desk;

use std::{process::Stdio, time::Duration};

use anyhow::{Context as _, Result, ensure};
use purview::{approval::ApprovalQueue, http::HttpOptions, settings::ToolSurface};
use purview_tests::{Agent, Elicit, Elicitation};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");

fn initialize(id: u64, capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "hostile", "version": "0"}}})
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

/// order_desk on stdio, driven line by line.
struct Desk {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Desk {
    async fn start(args: &[&str], capabilities: Value) -> Result<Self> {
        let mut child = tokio::process::Command::new(ORDER_DESK)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child.stdin.take().context("stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("stdout")?).lines();
        let mut desk = Self { child, stdin, stdout };
        desk.send(&initialize(0, capabilities)).await?;
        desk.answer(0).await?;
        desk.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
        Ok(desk)
    }

    async fn send(&mut self, message: &Value) -> Result<()> {
        self.send_raw(message.to_string().as_bytes()).await
    }

    async fn send_raw(&mut self, line: &[u8]) -> Result<()> {
        self.stdin.write_all(line).await?;
        self.stdin.write_all(b"\n").await?;
        Ok(())
    }

    /// The next message from the server.
    async fn next(&mut self) -> Result<Value> {
        let line = tokio::time::timeout(Duration::from_secs(20), self.stdout.next_line())
            .await
            .context("no message within 20 s")??
            .context("stdout closed")?;
        Ok(serde_json::from_str(&line)?)
    }

    /// The answer to request `id`, skipping anything else.
    async fn answer(&mut self, id: u64) -> Result<Value> {
        loop {
            let message = self.next().await?;
            if message["id"] == id && message.get("method").is_none() {
                return Ok(message);
            }
        }
    }

    async fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Result<Value> {
        self.send(&call(id, tool, arguments)).await?;
        Ok(self.answer(id).await?["result"].clone())
    }
}

#[tokio::test]
async fn jsonrpc_a_message_with_a_repeated_key_is_refused_not_read_last_wins() -> Result<()> {
    let mut desk = Desk::start(&[], json!({})).await?;
    // "name" twice: a proxy reading the first sees a harmless read, the
    // server used to run the second.
    let frame = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"app__read_windows","name":"app__lock","arguments":{}}}"#;
    desk.send_raw(frame.as_bytes()).await?;
    let refused = desk.answer(1).await?;
    ensure!(refused["error"]["code"] == -32600, "{refused}");
    ensure!(
        refused["error"]["message"].as_str().unwrap_or_default().contains("same key twice"),
        "{refused}"
    );
    // The same inside the arguments.
    let frame = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w1__edit_field","arguments":{"field":"recipient","value":"Ada","value":"Eve"}}}"#;
    desk.send_raw(frame.as_bytes()).await?;
    ensure!(desk.answer(2).await?["error"]["code"] == -32600);
    let windows = desk.call(3, "app__read_windows", json!({})).await?;
    let text = windows.to_string();
    ensure!(!text.contains("Locked") && !text.contains("Eve"), "nothing ran: {text}");
    Ok(())
}

#[tokio::test]
async fn order_desk_refuses_amounts_below_a_cent() -> Result<()> {
    let mut desk = Desk::start(&[], json!({})).await?;
    for (id, amount) in [(1, json!(1e-9)), (2, json!(0.004)), (3, json!(0.0))] {
        let refused =
            desk.call(id, "w1__set_details", json!({"recipient": "Ada", "amount": amount})).await?;
        ensure!(refused["structuredContent"]["code"] == "validation_failed", "{amount}: {refused}");
    }
    let text = desk.call(4, "w1__edit_field", json!({"field": "amount", "value": "0.000000001"}));
    ensure!(text.await?["structuredContent"]["code"] == "validation_failed");
    let cent = desk.call(5, "w1__set_details", json!({"recipient": "Ada", "amount": 0.01})).await?;
    ensure!(cent["isError"] == false, "one cent is money: {cent}");
    Ok(())
}

#[tokio::test]
async fn s12_a_short_or_empty_token_is_refused_at_start_up_with_how_to_make_one() -> Result<()> {
    for token in ["", "ab", "fifteen-chars!!"] {
        let started = tokio::process::Command::new(ORDER_DESK)
            .args(["--http", "127.0.0.1:0", "--token", token])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        // A server that accepted the token would serve until killed.
        let run = tokio::time::timeout(Duration::from_secs(20), started.wait_with_output())
            .await
            .with_context(|| format!("{token:?} was accepted: the server is serving"))??;
        let stderr = String::from_utf8_lossy(&run.stderr);
        ensure!(run.status.code() == Some(1), "{token:?} was accepted: {stderr}");
        ensure!(stderr.contains("at least 16 characters"), "{stderr}");
        ensure!(stderr.contains("openssl rand"), "says how to make one: {stderr}");
    }
    Ok(())
}

#[tokio::test]
async fn s5_6_the_approval_question_says_what_is_being_approved() -> Result<()> {
    let mut command = tokio::process::Command::new(ORDER_DESK);
    command.arg("--require-approval");
    let (transport, _) =
        rmcp::transport::TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
    let elicitation = Elicitation::new(Elicit::Decline);
    let agent = Agent::over_with(transport, Some(elicitation.clone())).await?;
    // set_details needs approval too here: fill the fields one by one.
    agent.call("w1__edit_field", json!({"field": "recipient", "value": "Ada Lovelace"})).await?;
    agent.call("w1__edit_field", json!({"field": "amount", "value": "1250.5"})).await?;
    agent.call("w1__submit", json!({})).await?;
    let declined = agent.call("w3__confirm", json!({})).await?;
    ensure!(declined.structured["reason"] == "declined", "{declined:?}");
    let asked = elicitation.messages().first().cloned().context("a question")?;
    for what in ["Confirm submission", "Ada Lovelace", "$1250.50", "order #12345"] {
        ensure!(asked.contains(what), "the question does not say {what:?}: {asked}");
    }
    agent.close().await
}

#[tokio::test]
async fn s5_6_questions_waiting_for_an_answer_are_bounded_per_session() -> Result<()> {
    let mut desk =
        Desk::start(&["--require-approval"], json!({"elicitation": {"form": {}}})).await?;
    desk.call(1, "w1__edit_field", json!({"field": "recipient", "value": "Ada"})).await?;
    desk.call(2, "w1__submit", json!({})).await?;
    // Questions nobody answers: the client never replies to elicitation.
    for id in 10..20 {
        desk.send(&call(id, "w3__confirm", json!({}))).await?;
    }
    let mut limited = 0;
    let mut asked = 0;
    while limited < 6 {
        let message = desk.next().await?;
        if message["method"] == "elicitation/create" {
            asked += 1;
        } else if message["result"]["structuredContent"]["code"] == "limit_reached" {
            let text = message["result"]["structuredContent"]["message"].to_string();
            ensure!(text.contains("4 approval questions"), "{text}");
            limited += 1;
        }
    }
    ensure!(asked <= 4, "{asked} questions were put to the person at once");
    let _ = desk.child.start_kill();
    Ok(())
}

#[tokio::test]
async fn s5_6_a_question_is_withdrawn_when_its_http_client_goes() -> Result<()> {
    let app = order_desk::order_desk(
        purview::App::builder().require_approval::<order_desk::ConfirmSubmission>("confirm"),
    );
    let queue = ApprovalQueue::new();
    app.set_approver(queue.clone());
    app.call("w1__edit_field", json!({"field": "recipient", "value": "Ada"}).as_object().cloned())
        .by_person()
        .await
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    app.call("w1__submit", None).by_person().await.map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let server = app.serve_http(HttpOptions::default()).await?;
    let (client, url) = (reqwest::Client::new(), server.url());
    let init = post(&client, &url, None, initialize(1, json!({}))).await?;
    let session = init.headers().get("mcp-session-id").context("session")?.to_str()?.to_owned();
    init.text().await?;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&client, &url, Some(session.clone()), note).await?.text().await?;
    // The call waits for the person; then the client gives up and goes.
    let waiting = tokio::spawn(async move {
        let reply = post(&client, &url, Some(session), call(2, "w3__confirm", json!({}))).await;
        tokio::time::sleep(Duration::from_secs(120)).await;
        drop(reply);
    });
    let mut asked = false;
    for _ in 0..200 {
        if !queue.pending().is_empty() {
            asked = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    ensure!(asked, "the question reached the app's prompt");
    let prompt = queue.pending()[0].request.describe();
    ensure!(prompt.contains("to Ada for $100.00"), "the in-app prompt says what: {prompt}");
    waiting.abort();
    let mut withdrawn = false;
    for _ in 0..1250 {
        if queue.pending().is_empty() {
            withdrawn = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    ensure!(withdrawn, "the question stayed after its client had gone");
    server.shutdown().await;
    Ok(())
}

/// POSTs one JSON-RPC message.
async fn post(
    client: &reqwest::Client,
    url: &str,
    session: Option<String>,
    body: Value,
) -> reqwest::Result<reqwest::Response> {
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await
}

#[tokio::test]
async fn order_desk_an_agents_wrong_pins_never_make_the_person_wait() -> Result<()> {
    let app = order_desk::order_desk_app(ToolSurface::Both);
    let agent = Agent::legacy(&app).await?;
    agent.call("app__lock", json!({})).await?;
    let lock = app.operable_window_ids()?.into_iter().next().context("the lock screen")?;
    let unlock = format!("{lock}__unlock");
    // An agent that keeps guessing, through the backoff and beyond.
    let mut codes = Vec::new();
    for _ in 0..12 {
        let guess = agent.call(&unlock, json!({"pin": "0000"})).await?;
        codes.push(guess.structured["fields"][0]["error"].as_str().unwrap_or_default().to_owned());
    }
    ensure!(codes[..3].iter().all(|c| c == "wrong PIN"), "{codes:?}");
    ensure!(codes.iter().any(|c| c.contains("next try")), "the agent is slowed: {codes:?}");
    // Even the right PIN from an agent is refused while it must wait.
    let right = agent.call(&unlock, json!({"pin": order_desk::UNLOCK_PIN})).await?;
    ensure!(right.code() == Some("validation_failed"), "{right:?}");
    // The person at the keyboard is not made to wait for any of it.
    let pin = json!({"pin": order_desk::UNLOCK_PIN});
    let person = app.call(&unlock, pin.as_object().cloned()).by_person().await;
    ensure!(person.is_ok(), "the person waits for the agent's guesses: {person:?}");
    ensure!(!app.operable_window_ids()?.contains(&lock), "unlocked");
    Ok(())
}

/// RELIABILITY.md "A hostile agent": one agent ended service for every
/// agent of the headless app with `app__lock` and 11 wrong PINs in 0.01 s
/// (tries refused for coming too soon counted towards the 10, and agents
/// could never unlock again; order_desk has no person).
#[tokio::test]
async fn order_desk_no_agent_can_lock_the_other_agents_out_for_good() -> Result<()> {
    let app = order_desk::order_desk_app(ToolSurface::Both);
    let hostile = Agent::legacy(&app).await?;
    let honest = Agent::legacy(&app).await?;
    hostile.call("app__lock", json!({})).await?;
    let lock = app.operable_window_ids()?.into_iter().next().context("the lock screen")?;
    let unlock = format!("{lock}__unlock");
    let mut wrong = 0;
    for _ in 0..11 {
        let guess = hostile.call(&unlock, json!({"pin": "0000"})).await?;
        wrong += usize::from(guess.structured["fields"][0]["error"] == "wrong PIN");
    }
    ensure!(wrong == 3, "{wrong} of the 11 rapid guesses were looked at");
    // The honest agent waits as it is told, and gets in.
    let mut unlocked = false;
    for _ in 0..10 {
        let right = honest.call(&unlock, json!({"pin": order_desk::UNLOCK_PIN})).await?;
        if !right.is_error {
            unlocked = true;
            break;
        }
        let error = right.structured["fields"][0]["error"].as_str().unwrap_or_default().to_owned();
        ensure!(error.contains("next try is possible in"), "{error}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    ensure!(unlocked, "the honest agent never got to try the right PIN");
    ensure!(!app.operable_window_ids()?.contains(&lock), "unlocked");
    Ok(())
}

#[tokio::test]
async fn a_stdio_client_that_never_reads_is_not_buffered_for_and_the_process_ends() -> Result<()> {
    let mut desk = Desk::start(&[], json!({})).await?;
    // Requests whose answers are never read. Each asks for the whole tool
    // list and is padded to 4 KiB with insignificant whitespace, so the pipe
    // buffers and the server's 64 KiB read chunk hold only a few dozen of
    // them, and the count below measures the server's own queues (in the
    // hundreds), not the operating system's.
    let read = format!(r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/list"{:4000}}}"#, "");
    let mut written = 0;
    let writing = async {
        for _ in 0..20_000 {
            desk.stdin.write_all(read.as_bytes()).await?;
            desk.stdin.write_all(b"\n").await?;
            written += 1;
        }
        anyhow::Ok(())
    };
    // The server stops reading once its bounded queues are full, so the
    // client's writes block instead of the server's memory growing.
    let blocked = tokio::time::timeout(Duration::from_secs(10), writing).await.is_err();
    ensure!(blocked, "all {written} requests were read although no answer was");
    ensure!(written < 1_000, "{written} requests were read before the server stopped reading");
    // After the stall limit the process ends by itself (it used to log
    // "exiting" and stay blocked in a write).
    let status = tokio::time::timeout(Duration::from_secs(60), desk.child.wait())
        .await
        .context("the process was still alive 60 s after its client stopped reading")??;
    ensure!(status.code() == Some(1), "{status:?}");
    Ok(())
}

//! The reference app as a newcomer first meets it: at a terminal it says
//! what it is and how to connect to it (on stderr; stdout carries only
//! protocol frames), it ends calmly when stdin closes before any client
//! spoke, and its command line explains every option.

use std::{
    io::{Read, Write},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context as _, Result, ensure};
use nix::pty::openpty;

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");

/// Reads from `pipe` on a thread until `done` says so or `limit` passes.
fn read_until(
    mut pipe: impl Read + Send + 'static,
    limit: Duration,
) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let mut buffer = [0u8; 4096];
        while started.elapsed() < limit {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(String::from_utf8_lossy(&buffer[..n]).into_owned()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

fn collect(rx: &std::sync::mpsc::Receiver<String>, wait: Duration) -> String {
    let mut text = String::new();
    let deadline = Instant::now() + wait;
    while let Ok(chunk) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        text.push_str(&chunk);
    }
    text
}

/// order_desk with a pseudo-terminal as its stdin (and pipes for its
/// output), as a person starts it at a shell; the terminal's other end.
fn at_a_terminal() -> Result<(std::process::Child, std::os::fd::OwnedFd)> {
    let pty = openpty(None, None)?;
    let child = Command::new(ORDER_DESK)
        .stdin(Stdio::from(pty.slave))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    Ok((child, pty.master))
}

#[test]
fn s3_at_a_terminal_a_hint_goes_to_stderr_and_stdout_waits_for_a_client() -> Result<()> {
    let (mut child, master) = at_a_terminal()?;
    let stdout = read_until(child.stdout.take().context("stdout")?, Duration::from_secs(10));
    let stderr = read_until(child.stderr.take().context("stderr")?, Duration::from_secs(10));
    let hint = collect(&stderr, Duration::from_millis(1500));
    ensure!(hint.contains("MCP server") && hint.contains("--http"), "hint: {hint:?}");
    ensure!(hint.contains("Connect an agent"), "it points at the README: {hint:?}");
    let silent = collect(&stdout, Duration::from_millis(300));
    ensure!(silent.is_empty(), "stdout before any client spoke: {silent:?}");
    // A client speaks through the terminal: the answer goes to stdout.
    let mut terminal = std::fs::File::from(master);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tty","version":"0"}}}"#;
    writeln!(terminal, "{init}")?;
    let answer = collect(&stdout, Duration::from_millis(1500));
    ensure!(answer.contains(r#""serverInfo""#), "stdout after initialize: {answer:?}");
    child.kill()?;
    child.wait()?;
    Ok(())
}

#[test]
fn s3_without_a_terminal_nothing_extra_is_said_and_an_early_eof_exits_0() -> Result<()> {
    let output = Command::new(ORDER_DESK).stdin(Stdio::null()).output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    ensure!(output.status.code() == Some(0), "exit {:?}: {stderr}", output.status);
    ensure!(output.stdout.is_empty());
    ensure!(!stderr.contains("MCP server"), "no hint without a terminal: {stderr}");
    ensure!(!stderr.contains("failed"), "an early EOF is not a failure: {stderr}");
    ensure!(stderr.lines().count() == 1, "one calm line: {stderr}");
    Ok(())
}

#[test]
fn the_command_line_explains_every_option() -> Result<()> {
    let help = Command::new(ORDER_DESK).arg("--help").output()?;
    let text = String::from_utf8_lossy(&help.stdout);
    ensure!(help.status.success());
    for option in [
        "--http",
        "--token",
        "--tools",
        "--require-approval",
        "--approvals-from",
        "--approval-timeout",
        "--allow-remote-without-token",
        "--allow-host",
        "--version",
    ] {
        ensure!(text.contains(option), "--help does not mention {option}:\n{text}");
    }
    let version = Command::new(ORDER_DESK).arg("--version").output()?;
    ensure!(
        String::from_utf8_lossy(&version.stdout).trim()
            == format!("order_desk {}", env!("CARGO_PKG_VERSION"))
    );
    let wrong = Command::new(ORDER_DESK).args(["--tools", "everything"]).output()?;
    let complaint = String::from_utf8_lossy(&wrong.stderr);
    ensure!(wrong.status.code() == Some(2), "{complaint}");
    ensure!(complaint.contains("--tools") && complaint.contains("dispatcher"), "{complaint}");
    Ok(())
}

#[test]
fn s3_a_port_in_use_exits_1_saying_what_to_do() -> Result<()> {
    let holder = std::net::TcpListener::bind("127.0.0.1:0")?;
    let addr = holder.local_addr()?.to_string();
    let output = Command::new(ORDER_DESK).args(["--http", &addr]).stdin(Stdio::null()).output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    ensure!(output.status.code() == Some(1), "exit {:?}: {stderr}", output.status);
    ensure!(output.stdout.is_empty());
    ensure!(stderr.contains(&addr), "names the address: {stderr}");
    ensure!(stderr.contains("choose another port"), "says what to do: {stderr}");
    Ok(())
}

#[test]
fn s3_ctrl_d_at_the_terminal_exits_0() -> Result<()> {
    let (mut child, master) = at_a_terminal()?;
    let stderr = read_until(child.stderr.take().context("stderr")?, Duration::from_secs(10));
    let hint = collect(&stderr, Duration::from_millis(1000));
    ensure!(hint.contains("Ctrl-D quits"), "hint: {hint:?}");
    // Ctrl-D at the start of a line: the terminal ends the input.
    let mut terminal = std::fs::File::from(master);
    terminal.write_all(&[0x04])?;
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            child.kill()?;
            anyhow::bail!("still running 10 s after Ctrl-D");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let farewell = collect(&stderr, Duration::from_millis(300));
    ensure!(status.code() == Some(0), "exit {status:?}: {farewell}");
    ensure!(!farewell.contains("failed"), "{farewell}");
    Ok(())
}

#[test]
fn jsonrpc_requests_piped_in_are_answered_even_when_input_ends_at_once() -> Result<()> {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    // `printf ... | order_desk`: the input is over before the server has
    // answered anything; it answers all the same, every time.
    for round in 0..10 {
        let mut child = Command::new(ORDER_DESK)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut stdin = child.stdin.take().context("stdin")?;
        writeln!(stdin, "{init}\n{initialized}\n{list}")?;
        drop(stdin);
        let output = child.wait_with_output()?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        ensure!(output.status.code() == Some(0), "round {round}: {:?}", output.status);
        ensure!(stdout.contains(r#""id":1"#), "round {round}: no answer to initialize: {stdout}");
        ensure!(stdout.contains(r#""id":2"#), "round {round}: no answer to tools/list: {stdout}");
    }
    Ok(())
}

//! §4.5: a sensitive value never leaves the process in plaintext — not in
//! resource reads, tool results, error messages, logs or Debug output.

use std::{
    io::Write,
    sync::{Arc, Mutex},
};

use anyhow::Result;
use purview::Secret;
use purview_tests::{
    Agent, Editor,
    windows::{PASSWORD, PIN},
};
use rmcp::ServiceExt;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Copies bytes from `from` to `to`, recording them when `record` is set.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    record: Option<Arc<Mutex<Vec<u8>>>>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Some(record) = &record {
            record.lock().unwrap().extend_from_slice(&buf[..n]);
        }
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const WRONG_PIN: &str = "wrong-pin-5520";

fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for secret in [PASSWORD, PIN, WRONG_PIN, "98765"] {
        assert!(!text.contains(secret), "{what} contains the plaintext {secret:?}:\n{text}");
    }
}

#[tokio::test]
async fn s4_5_no_plaintext_secret_in_any_byte_sent_or_logged() -> Result<()> {
    // Logs: everything Purview says, at trace level. rmcp itself logs whole
    // messages (including what the agent sent) at debug, so it stays at info,
    // as the README recommends.
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("trace,rmcp=info"))
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let app = purview_tests::demo_app();
    let editor = app.open(Editor { recipient: "Ada".into(), ..Editor::default() })?;

    // Every byte the server sends passes through a recording tap.
    let sent = Arc::new(Mutex::new(Vec::new()));
    let (server_io, server_far) = tokio::io::duplex(1 << 20);
    let (client_io, client_far) = tokio::io::duplex(1 << 20);
    let (server_far_read, server_far_write) = tokio::io::split(server_far);
    let (client_far_read, client_far_write) = tokio::io::split(client_far);
    tokio::spawn(pump(server_far_read, client_far_write, Some(sent.clone())));
    tokio::spawn(pump(client_far_read, server_far_write, None));
    let server = app.mcp_server();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let mut agent = Agent::over(client_io).await?;
    agent.subscribe().await?;

    let id = editor.id().to_owned();
    // The projection shows the password masked.
    let snap = agent.read_json().await?;
    let password_item = &snap["windows"][0]["blocks"][1]["items"][2];
    assert_eq!(
        password_item,
        &json!({"label": "Payment password", "value": "••••••", "sensitive": true})
    );
    // A handler that returns the Secret: masked in result and message.
    let reveal = agent.call(&format!("{id}__reveal"), json!({})).await?;
    assert_eq!(reveal.structured["result"]["password"], "••••••");
    // A sensitive argument in a call that fails validation is not quoted back.
    let refused = agent
        .call(&format!("{id}__set_password"), json!({"password": PASSWORD, "surprise": 1}))
        .await?;
    assert_eq!(refused.code(), Some("validation_failed"));
    // Setting a new password from an agent, then reading it back masked.
    agent.call(&format!("{id}__set_password"), json!({"password": WRONG_PIN})).await?;
    // Wrong pins, of the right and of the wrong type.
    let lock = agent.call("app__lock", json!({})).await?;
    let locked = lock.structured["openedWindowIds"][0].as_str().unwrap().to_owned();
    let wrong = agent.call(&format!("{locked}__unlock"), json!({"pin": WRONG_PIN})).await?;
    assert_eq!(wrong.code(), Some("validation_failed"));
    let wrong_type = agent.call(&format!("{locked}__unlock"), json!({"pin": 98765})).await?;
    assert_eq!(wrong_type.structured["fields"][0]["field"], "pin");
    let right = agent.call(&format!("{locked}__unlock"), json!({"pin": PIN})).await?;
    assert!(!right.is_error, "{right:?}");
    let _ = agent.read_json().await?;
    agent.drain().await;
    agent.close().await?;

    assert_clean("the bytes the server sent", &sent.lock().unwrap());
    assert_clean("the logs", &logs.0.lock().unwrap());
    assert!(
        !sent.lock().unwrap().is_empty() && !logs.0.lock().unwrap().is_empty(),
        "the taps saw traffic"
    );
    // The secret really is in the app: this is not a vacuous pass.
    assert_eq!(editor.read(|e| e.password.expose().clone())?, WRONG_PIN);
    Ok(())
}

#[test]
fn s4_5_debug_display_and_serialize_mask_secrets() {
    let secret = Secret::new(PASSWORD.to_owned());
    assert!(!format!("{secret:?} {secret} {:#?}", Some(&secret)).contains(PASSWORD));
    assert!(!serde_json::to_string(&secret).unwrap().contains(PASSWORD));
    #[derive(Debug)]
    #[allow(dead_code)]
    struct Form {
        password: Secret<String>,
    }
    assert!(!format!("{:?}", Form { password: secret.clone() }).contains(PASSWORD));
    assert_eq!(secret.expose(), PASSWORD);
}

#[test]
fn s4_5_a_sensitive_field_item_serializes_masked_even_if_built_from_plaintext() {
    let forged: purview::model::FieldItem =
        serde_json::from_value(json!({"label": "PIN", "value": PIN, "sensitive": true})).unwrap();
    let out = serde_json::to_string(&forged).unwrap();
    assert!(!out.contains(PIN), "{out}");
    assert!(out.contains("••••••"));
}

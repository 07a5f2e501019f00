//! Arbitrary JSON as the arguments of every order_desk action, in every
//! window the app can show (editor, report, confirmation dialog, terms, lock
//! screen): validation, decoding and the handlers must not panic, every
//! failure must be a structured error with a code, and the payment password
//! must never appear in an answer.
#![no_main]

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod windows;

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use purview::{App, settings::ToolSurface};
use serde_json::{Value, json};

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime")
});

async fn every_tool(app: &App, arguments: &serde_json::Map<String, Value>) {
    for tool in app.tool_names().expect("not inside a callback") {
        let outcome = app.call(&tool, Some(arguments.clone())).outcome().await;
        if outcome.is_error {
            assert!(outcome.structured["code"].is_string(), "{tool}: {}", outcome.structured);
        }
        assert!(!outcome.structured.to_string().contains("hunter2"), "{tool} leaked the password");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Object(arguments)) = serde_json::from_slice::<Value>(data) else { return };
    RUNTIME.block_on(async {
        let app = windows::order_desk_app(ToolSurface::Both);
        every_tool(&app, &arguments).await;
        // Into the dialogs: a recipient, submit, terms; then the lock screen.
        let steps = [
            ("w1__edit_field", json!({"field": "recipient", "value": "Ada"})),
            ("w1__submit", json!({})),
        ];
        for (tool, args) in steps {
            let _ = app.call(tool, args.as_object().cloned()).outcome().await;
        }
        every_tool(&app, &arguments).await;
        let _ = app.call("app__lock", None).outcome().await;
        every_tool(&app, &arguments).await;
    });
});

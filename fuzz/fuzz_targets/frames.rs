//! Raw bytes into a served order_desk over an in-memory stdio transport:
//! the session must end when the input ends, nothing may panic, and the
//! payment password must never appear in what the server writes. One app
//! serves every input in turn, as one app serves session after session, so
//! what earlier inputs did (dialogs, locks, reports) is there for later ones.
#![no_main]

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod windows;

use std::{sync::LazyLock, time::Duration};

use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime")
});

static APP: LazyLock<purview::App> =
    LazyLock::new(|| windows::order_desk_app(purview::settings::ToolSurface::Both));

fuzz_target!(|data: &[u8]| {
    RUNTIME.block_on(async {
        let app = APP.clone();
        let (server, client) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let serving = tokio::spawn(async move { app.serve_io(read, write).await });
        let (mut output, mut input) = tokio::io::split(client);
        let drain = tokio::spawn(async move {
            let mut everything = Vec::new();
            let _ = output.read_to_end(&mut everything).await;
            everything
        });
        let _ = input.write_all(data).await;
        // End of input, as a client closing stdin.
        let _ = input.shutdown().await;
        let ended = tokio::time::timeout(Duration::from_secs(10), serving).await;
        assert!(ended.is_ok(), "the session did not end after its input closed");
        let written = drain.await.expect("the reader task");
        let text = String::from_utf8_lossy(&written);
        assert!(!text.contains("hunter2"), "the payment password left the process");
    });
});

//! How fast the conformance explorer walks (BENCHMARKS.md): steps per second
//! over order_desk in-process (notification coalescing off, and at its
//! 20 ms default), and over stdio to the release order_desk binary
//! (`PURVIEW_ORDER_DESK`, set by scripts/bench). One step is one call, the
//! read of app://windows and tools/list after it, every check, and waiting
//! for the notifications the change calls for.
//!
//! `cargo bench -p purview-benches --bench explore`

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use std::time::Duration;

use purview::{App, settings::ToolSurface};
use purview_conformance::{Endpoint, Explorer, Report};

fn explorer(steps: usize) -> Explorer {
    Explorer::new()
        .seed(1)
        .steps(steps)
        .allow_destructive(true)
        .hint("pin", order_desk::UNLOCK_PIN)
        .secret("hunter2")
        .shrink(false)
}

fn line(what: &str, report: &Report) {
    assert!(report.clean(), "{report}");
    println!(
        "explore/{what}: {} steps in {:.2} s = {:.0} steps/s",
        report.steps,
        report.elapsed.as_secs_f64(),
        report.steps as f64 / report.elapsed.as_secs_f64()
    );
}

#[tokio::main]
async fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let steps = purview_benches::scaled(3_000, 100);
    for (what, gap) in [
        ("in-process, coalescing off", Duration::ZERO),
        ("in-process, 20 ms coalescing", Duration::from_millis(20)),
    ] {
        let report = explorer(steps)
            .explore(move || {
                order_desk::order_desk(
                    App::builder().tool_surface(ToolSurface::Windows).coalesce(gap),
                )
            })
            .await;
        line(what, &report);
    }
    match std::env::var("PURVIEW_ORDER_DESK") {
        Ok(desk) => {
            let report =
                explorer(steps / 3).run(&Endpoint::stdio(desk, ["--tools", "windows"])).await;
            line("stdio, release order_desk", &report);
        }
        Err(_) => {
            println!("explore/stdio: skipped (set PURVIEW_ORDER_DESK, as scripts/bench does)")
        }
    }
}

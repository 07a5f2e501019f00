//! What a model reads (BENCHMARKS.md, section 8): the bytes of one
//! `app__read_windows` answer next to the `app://windows` text of the same
//! moment, on order_desk and on 10 and 100 benchmark boards, and the whole
//! "order story" of a frugal agent whose host lists tools once, never reads
//! resources and shows the model `structuredContent`: the first tools/list
//! (names, titles, descriptions, input schemas), then read, fill in the
//! recipient, submit, confirm, read again.
//!
//! Sizes are of compact JSON in UTF-8, as a host passes it on; they do not
//! vary between runs. `cargo bench -p purview-benches --bench bytes`

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use purview::{App, settings::ToolSurface};
use purview_benches::{boards, tools_list_bytes};
use serde_json::{Value, json};

fn size(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// One read through `app__read_windows` and the resource text beside it.
async fn one_read(app: &App) -> (usize, usize) {
    let read = app.call("app__read_windows", None).outcome().await;
    assert!(!read.is_error, "{}", read.structured);
    let resource = app.snapshot_json().expect("snapshot").len();
    (size(&read.structured), resource)
}

/// The frugal order story on `surface`: every byte the model reads.
async fn order_story(surface: ToolSurface) -> (usize, Vec<(String, usize)>) {
    let app = order_desk::order_desk_app(surface);
    let listed: Vec<String> = app.tool_names().expect("names");
    let mut parts = vec![("tools/list".to_owned(), tools_list_bytes(&app))];
    let call = async |tool: &str, window: &str, action: &str, arguments: Value| {
        let direct = format!("{window}__{action}");
        let outcome = if tool == "app__read_windows" {
            app.call(tool, None).outcome().await
        } else if listed.contains(&direct) {
            app.call(&direct, arguments.as_object().cloned()).outcome().await
        } else {
            let act = json!({"window": window, "action": action, "arguments": arguments});
            app.call("app__act", act.as_object().cloned()).outcome().await
        };
        assert!(!outcome.is_error, "{}", outcome.structured);
        outcome.structured
    };
    let read = call("app__read_windows", "", "", json!({})).await;
    parts.push(("read".to_owned(), size(&read)));
    let fill = json!({"field": "recipient", "value": "Ada Lovelace"});
    let filled = call("", "w1", "edit_field", fill).await;
    parts.push(("edit_field".to_owned(), size(&filled)));
    let submitted = call("", "w1", "submit", json!({})).await;
    parts.push(("submit".to_owned(), size(&submitted)));
    let dialog = submitted["openedWindowIds"][0].as_str().expect("a dialog").to_owned();
    let confirmed = call("", &dialog, "confirm", json!({})).await;
    parts.push(("confirm".to_owned(), size(&confirmed)));
    let check = call("app__read_windows", "", "", json!({})).await;
    parts.push(("read".to_owned(), size(&check)));
    (parts.iter().map(|(_, n)| n).sum(), parts)
}

#[tokio::main]
async fn main() {
    println!("| what | app__read_windows | app://windows | ratio |");
    println!("|---|---|---|---|");
    let desk = order_desk::order_desk_app(ToolSurface::Both);
    let mut apps = vec![("order_desk".to_owned(), desk)];
    for n in [10, 100] {
        apps.push((format!("{n} windows × 10 actions"), boards(n)));
    }
    for (what, app) in &apps {
        let (read, resource) = one_read(app).await;
        println!("| {what} | {read} B | {resource} B | {:.2} |", read as f64 / resource as f64);
    }
    for surface in [ToolSurface::Both, ToolSurface::Dispatcher] {
        let (total, parts) = order_story(surface).await;
        let parts: Vec<String> = parts.iter().map(|(w, n)| format!("{w} {n}")).collect();
        println!("order story on {surface:?}: {total} B ({})", parts.join(" + "));
    }
}

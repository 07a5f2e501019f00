//! What the person's face in a browser costs per change (BENCHMARKS.md
//! "The person's face in a browser", §20): with 4 event streams open (the
//! most a face keeps), the bytes each `scene` event carries and the CPU
//! the whole process spends per change, at 20 and 1,000 open windows.
//!
//! Each change is an agent's call on one window; the next is made once
//! every stream has received the event of the last, so none is coalesced.
//! Two more rows have each tab open the changed window's form first, so
//! that window is drawn for each page apart at every change.
//! The baseline is the same calls with no stream open, in the same run:
//! a row's CPU ÷ baseline is what the face adds; its bytes ÷ the 20-window
//! row's bytes is what 1,000 windows add to every event. The streams'
//! readers run in the process and are counted with it.
//!
//! `cargo bench -p purview-benches --bench face_cost`
//! (`PURVIEW_FACE_CHANGES=N` changes per row; 200 unless quick).

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use anyhow::{Context as _, Result, anyhow, ensure};
use purview::{App, actions, http::HttpOptions, window};
use purview_benches::{own_cpu, quick, should_run};

#[window(summary = "Counts to {count}")]
#[derive(Clone, Default)]
struct Counter {
    #[block(field)]
    count: u32,
    #[block(text)]
    note: String,
}

#[actions]
impl Counter {
    /// Count one more.
    #[action]
    fn increment(&mut self) {
        self.count += 1;
    }

    /// Count from here.
    #[action]
    fn set(&mut self, count: u32) {
        self.count = count;
    }
}

/// What a row measured.
struct Cost {
    bytes_per_event: f64,
    cpu_per_change: Duration,
}

/// Bytes and `scene` events the streams received, all together.
#[derive(Default)]
struct Heard {
    bytes: AtomicUsize,
    events: AtomicUsize,
}

async fn measure(windows: usize, streams: usize, changes: usize, held: bool) -> Result<Cost> {
    let limits = purview::settings::Limits::default().max_windows(windows.max(1));
    let app = App::builder().name("face-cost").limits(limits).build();
    let mut first = None;
    for i in 0..windows {
        let handle = app.open(Counter { count: 0, note: format!("Window {i} of {windows}") })?;
        first.get_or_insert_with(|| handle.id().to_owned());
    }
    let window = first.ok_or_else(|| anyhow!("no window"))?;
    let tool = format!("{window}__increment");
    let face = purview_web::Face::new(app.clone());
    let server = app.serve_http(face.serve_beside(HttpOptions::default())).await?;
    let link = face.one_time_link(&server).context("a link")?;
    let (page, key) = link.split_once("#key=").context("a key in the link")?;
    let origin = format!("http://{}", server.local_addr());
    let client = reqwest::Client::new();
    let opened = client
        .post(format!("{page}open"))
        .header("origin", &origin)
        .header("content-type", "application/json")
        .body(format!("{{\"key\":\"{key}\"}}"))
        .send()
        .await?
        .text()
        .await?;
    let opened: serde_json::Value = serde_json::from_str(&opened)?;
    let session = opened["session"].as_str().context("a session")?.to_owned();

    let heard = Arc::new(Heard::default());
    let mut readers = Vec::new();
    for tab in 0..streams {
        let mut response = client
            .get(format!("{page}events"))
            .header("x-purview-session", &session)
            .header("x-purview-page", format!("tab{tab}"))
            .send()
            .await?;
        ensure!(response.status().is_success(), "the stream: {}", response.status());
        let heard = heard.clone();
        readers.push(tokio::spawn(async move {
            while let Ok(Some(chunk)) = response.chunk().await {
                let events = chunk.windows(12).filter(|w| w == b"event: scene").count();
                heard.bytes.fetch_add(chunk.len(), Ordering::Relaxed);
                heard.events.fetch_add(events, Ordering::Relaxed);
            }
        }));
    }
    let until = |events: usize| {
        let heard = heard.clone();
        async move {
            for _ in 0..30_000 {
                if heard.events.load(Ordering::Relaxed) >= events {
                    return Ok(());
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Err(anyhow!("the streams never heard {events} events"))
        }
    };
    until(streams).await?;
    // Each tab opens the changed window's form: that window is then drawn
    // for each page apart (what the person holds in it), at every change.
    if held {
        for tab in 0..streams {
            let opened = client
                .post(format!("{page}intent"))
                .header("origin", &origin)
                .header("content-type", "application/json")
                .header("x-purview-session", &session)
                .header("x-purview-page", format!("tab{tab}"))
                .body(format!(r#"{{"kind":"press","window":"{window}","action":"set"}}"#))
                .send()
                .await?;
            ensure!(opened.status().is_success(), "the form: {}", opened.status());
        }
        until(streams * 2).await?;
    }
    heard.bytes.store(0, Ordering::Relaxed);
    heard.events.store(0, Ordering::Relaxed);

    let before = own_cpu();
    for change in 1..=changes {
        app.call(&tool, None).await.map_err(|e| anyhow!("{e}"))?;
        until(streams * change).await?;
    }
    let cpu = own_cpu().saturating_sub(before);
    let events = heard.events.load(Ordering::Relaxed).max(1);
    let bytes = heard.bytes.load(Ordering::Relaxed);
    for reader in readers {
        reader.abort();
    }
    server.shutdown().await;
    Ok(Cost {
        bytes_per_event: bytes as f64 / events as f64,
        cpu_per_change: cpu / u32::try_from(changes.max(1)).unwrap_or(u32::MAX),
    })
}

async fn run(changes: usize) -> Result<()> {
    let rows = [
        (20, 0, false),
        (20, 4, false),
        (1_000, 0, false),
        (1_000, 4, false),
        (20, 4, true),
        (1_000, 4, true),
    ];
    let mut costs = Vec::new();
    for (windows, streams, held) in rows {
        costs.push(measure(windows, streams, changes, held).await?);
    }
    let baseline = costs[0].cpu_per_change.as_secs_f64().max(1e-9);
    let bytes_20 = costs[1].bytes_per_event.max(1.0);
    println!("The face's cost per change, {changes} changes a row:");
    println!("| windows, streams | bytes per event | ÷ 20 windows | CPU per change | ÷ baseline |");
    println!("|---|---|---|---|---|");
    for ((windows, streams, held), cost) in rows.iter().zip(&costs) {
        let streams =
            if *held { format!("{streams}, a form open in each") } else { streams.to_string() };
        let cpu = cost.cpu_per_change.as_secs_f64();
        let bytes = if streams == "0" {
            "—".to_owned()
        } else {
            format!("{:.0} B | {:.2}", cost.bytes_per_event, cost.bytes_per_event / bytes_20)
        };
        let bytes = if streams == "0" { format!("{bytes} | —") } else { bytes };
        println!(
            "| {windows}, {streams} | {bytes} | {:.3} ms | {:.2} |",
            cpu * 1e3,
            cpu / baseline
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    if !should_run() {
        return Ok(());
    }
    let changes = std::env::var("PURVIEW_FACE_CHANGES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if quick() { 5 } else { 200 });
    tokio::runtime::Runtime::new()?.block_on(run(changes))
}

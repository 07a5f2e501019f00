//! The person's frame: what one frame of purview-egui's desk costs, drawn
//! headless on a bare `egui::Context` (layout and tessellation, no GPU),
//! and how much agents working on the same app slow it.
//!
//! - **(a)** 20 open windows, idle, then while 8 in-process agents (tokio
//!   tasks) call actions and read and list the app as fast as they can:
//!   frame time p50 and p99 of each, in one run; and `App::scene` alone,
//!   idle and under the same agents (how long a frame waits on the app);
//!   and the same agents on one worker thread, which leaves the second
//!   core to the frame.
//! - **(b)** a frame after one window changed, with 10, 20 and 1,000 open
//!   windows; beside it, `App::scene` alone (the app's part of the frame).
//!   At this size the desk draws 20 windows at once, so 1,000 windows are
//!   also shown against 20: what the 980 windows waiting in the list cost.
//!
//! Ratios are to the baseline measured in the same run. Prints a table;
//! nothing is asserted (`scripts/test` runs it in quick mode so it keeps
//! running). `cargo bench -p purview-benches --bench frame`
//!
//! `PURVIEW_FRAME_FRAMES=N` changes how many frames each row times.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use purview::App;
use purview_benches::{Board, boards, quick, scaled};
use purview_egui::Desk;

/// The viewport the frames are laid out in.
const SCREEN: [f32; 2] = [1400.0, 1000.0];

fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let frames = std::env::var("PURVIEW_FRAME_FRAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| scaled(600, 4));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");

    let Loaded { idle, loaded, idle_scene, loaded_scene, calls } = under_agents(&runtime, frames);
    // The same agents on one worker thread: a core left to the person's.
    let one_core = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let spared = under_agents(&one_core, frames);
    let few = changed_frames(10, frames);
    let drawn = changed_frames(20, frames);
    let eight = changing_frames(20, 8, frames);
    let many = changed_frames(1_000, scaled(300, 2));
    if quick() {
        return;
    }
    println!("## The person's frame (19)");
    println!();
    println!("{frames} frames per row at 20 windows and 10 windows, 300 at 1,000; {SCREEN:?} px.");
    println!();
    println!("| frame | p50 | p99 | p50 ÷ baseline | p99 ÷ baseline |");
    println!("|---|---|---|---|---|");
    row("20 windows, idle (baseline)", &idle, &idle);
    row("20 windows, 8 agents working", &loaded, &idle);
    row("20 windows, 8 agents working on one worker thread", &spared.loaded, &idle);
    row("20 windows, 8 changed before each frame, no agents", &eight.frame, &idle);
    row("`App::scene` alone, 20 windows, idle (baseline)", &idle_scene, &idle_scene);
    row("`App::scene` alone, 20 windows, 8 agents working", &loaded_scene, &idle_scene);
    row("10 windows, one changed (baseline)", &few.frame, &few.frame);
    row("20 windows, one changed", &drawn.frame, &few.frame);
    row("1,000 windows, one changed", &many.frame, &few.frame);
    row("1,000 windows, one changed, ÷ 20 windows (both draw 20)", &many.frame, &drawn.frame);
    row("`App::scene` alone, 10 windows (baseline)", &few.scene, &few.scene);
    row("`App::scene` alone, 1,000 windows", &many.scene, &few.scene);
    println!();
    let seconds = frames as f64 * p(&loaded, 0.5).as_secs_f64();
    println!(
        "The 8 agents completed {calls} calls, reads and lists while loaded (about {:.0}/s).",
        calls as f64 / seconds.max(1e-9)
    );
}

/// Frame times, sorted.
struct Times(Vec<Duration>);

fn p(times: &Times, q: f64) -> Duration {
    let sorted = &times.0;
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn ratio(a: Duration, b: Duration) -> String {
    format!("{:.2}", a.as_secs_f64() / b.as_secs_f64().max(1e-12))
}

fn row(name: &str, times: &Times, baseline: &Times) {
    let (p50, p99) = (p(times, 0.5), p(times, 0.99));
    println!(
        "| {name} | {} | {} | {} | {} |",
        ms(p50),
        ms(p99),
        ratio(p50, p(baseline, 0.5)),
        ratio(p99, p(baseline, 0.99))
    );
}

/// A headless host: one egui context and the desk it draws every frame.
struct Host {
    ctx: egui::Context,
    desk: Desk,
    time: f64,
}

impl Host {
    fn new(app: &App) -> Self {
        let desk = Desk::new(app.clone()).embedded(true).heading("Frame bench");
        Self { ctx: egui::Context::default(), desk, time: 0.0 }
    }

    /// One whole frame: the desk's pass, then tessellation, as a host's
    /// integration does before painting.
    fn frame(&mut self) -> Duration {
        self.time += 1.0 / 60.0;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, SCREEN.into())),
            time: Some(self.time),
            ..Default::default()
        };
        let start = Instant::now();
        let desk = &mut self.desk;
        let mut output = self.ctx.run_ui(input, |ui| desk.show(ui));
        let shapes = std::mem::take(&mut output.shapes);
        let primitives = self.ctx.tessellate(shapes, output.pixels_per_point);
        let took = start.elapsed();
        // No painter here: the font atlas's uploads are dropped, not applied.
        output.drop_without_applying_deltas();
        std::hint::black_box(primitives);
        took
    }

    fn time(&mut self, frames: usize) -> Times {
        let mut times: Vec<Duration> = (0..frames).map(|_| self.frame()).collect();
        times.sort();
        Times(times)
    }
}

/// (a)'s figures: frames and `App::scene` alone, idle and under agents,
/// and how many calls the agents completed while the frames were timed.
struct Loaded {
    idle: Times,
    loaded: Times,
    idle_scene: Times,
    loaded_scene: Times,
    calls: u64,
}

/// `App::scene` alone, `n` times a frame's length apart (a millisecond):
/// how long a frame waits to read the app.
fn scenes(app: &App, n: usize) -> Times {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(1));
            let start = Instant::now();
            std::hint::black_box(app.scene().expect("the scene"));
            start.elapsed()
        })
        .collect();
    times.sort();
    Times(times)
}

/// (a): 20 windows idle, then under 8 agents.
fn under_agents(runtime: &tokio::runtime::Runtime, frames: usize) -> Loaded {
    let app = boards(20);
    let mut host = Host::new(&app);
    // Warm: fonts, window sizes and the scene's first gathering.
    host.time(30);
    let idle = host.time(frames);
    let idle_scene = scenes(&app, frames);

    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let agents: Vec<_> = (0..8)
        .map(|agent| runtime.spawn(agent_loop(app.clone(), agent, stop.clone(), done.clone())))
        .collect();
    // Let every agent get going before timing.
    while done.load(Ordering::Relaxed) < 16 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let before = done.load(Ordering::Relaxed);
    let loaded = host.time(frames);
    let calls = done.load(Ordering::Relaxed) - before;
    let loaded_scene = scenes(&app, frames);
    stop.store(true, Ordering::Relaxed);
    for agent in agents {
        runtime.block_on(agent).expect("an agent");
    }
    Loaded { idle, loaded, idle_scene, loaded_scene, calls }
}

/// One agent: changes its own board, reads every window, lists the tools,
/// over and over.
async fn agent_loop(app: App, agent: usize, stop: Arc<AtomicBool>, done: Arc<AtomicU64>) {
    let tool = format!("w{}__set_status", agent + 1);
    let mut round = 0u64;
    while !stop.load(Ordering::Relaxed) {
        round += 1;
        let status = serde_json::json!({"status": format!("round {round}")});
        let changed = app.call(&tool, status.as_object().cloned()).await;
        std::hint::black_box(changed.is_ok());
        let read = app.call("app__read_windows", None).outcome().await;
        std::hint::black_box(read.is_error);
        std::hint::black_box(app.tools().map(|t| t.len()).unwrap_or_default());
        done.fetch_add(3, Ordering::Relaxed);
        // Yield, so eight agents on two workers all take turns.
        tokio::task::yield_now().await;
    }
}

/// (b)'s figures for one number of windows.
struct Changed {
    frame: Times,
    scene: Times,
}

/// Frames with `windows` open, one of them changed before each frame.
fn changed_frames(windows: usize, frames: usize) -> Changed {
    changing_frames(windows, 1, frames)
}

/// Frames with `windows` open, the first `changed` of them changed before
/// each frame, one after another (no agents, no other thread).
fn changing_frames(windows: usize, changed: usize, frames: usize) -> Changed {
    let app = boards(windows);
    let boards: Vec<_> =
        (1..=changed).map(|n| app.window::<Board>(&format!("w{n}")).expect("a board")).collect();
    let mut host = Host::new(&app);
    host.time(3);
    let mut change = 0u64;
    let mut next = || {
        change += 1;
        for board in &boards {
            board.update(|b| b.status = format!("change {change}")).expect("a change");
        }
    };
    let mut times = Vec::with_capacity(frames);
    for _ in 0..frames {
        next();
        times.push(host.frame());
    }
    times.sort();
    let mut scenes = Vec::with_capacity(frames);
    for _ in 0..frames {
        next();
        let start = Instant::now();
        std::hint::black_box(app.scene().expect("the scene"));
        scenes.push(start.elapsed());
    }
    scenes.sort();
    Changed { frame: Times(times), scene: Times(scenes) }
}

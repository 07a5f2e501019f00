//! What one `tools/list` costs with 256 open windows (the most an app
//! lets agents open by default): the server's CPU for the whole answer
//! (the handler's work and its JSON, as the transport writes it), next to
//! the JSON alone in the same run, and how long the answer holds the
//! state lock that the person's edits, the GUI's frames and every other
//! agent wait on. `cargo bench -p purview-benches --bench reads`

use std::time::{Duration, Instant};

use purview_benches::{boards, quick, scaled, thread_cpu};

fn per(total: Duration, n: usize) -> f64 {
    total.as_secs_f64() * 1e3 / n as f64
}

fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let app = boards(256);
    let rounds = scaled(200, 3);
    // Warm: the first list after a change may build what later ones reuse.
    let reply = app.tools_list_reply().expect("tools/list");
    let bytes = serde_json::to_vec(&reply).expect("json").len();

    let start = thread_cpu();
    for _ in 0..rounds {
        let reply = app.tools_list_reply().expect("tools/list");
        std::hint::black_box(serde_json::to_vec(&reply).expect("json"));
    }
    let whole = thread_cpu() - start;

    let start = thread_cpu();
    for _ in 0..rounds {
        std::hint::black_box(serde_json::to_vec(&reply).expect("json"));
    }
    let json_only = thread_cpu() - start;

    let mut held = Duration::ZERO;
    let wall = Instant::now();
    for _ in 0..rounds {
        held += app.tools_lock_hold().expect("lock");
    }
    let _ = wall.elapsed();

    if quick() {
        return;
    }
    println!("## tools/list with 256 open windows ({} tools, {bytes} bytes)", reply.tools.len());
    println!("| measure | per list |");
    println!("|---|---|");
    println!("| server CPU, whole answer | {:.2} ms |", per(whole, rounds));
    println!("| of which JSON alone (same run) | {:.2} ms |", per(json_only, rounds));
    println!("| whole ÷ JSON alone | {:.2} |", whole.as_secs_f64() / json_only.as_secs_f64());
    println!("| state lock held | {:.1} µs |", per(held, rounds) * 1e3);
}

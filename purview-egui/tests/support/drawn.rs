//! The person at a desk drawn headlessly for its pictures: the harness on
//! the CPU renderer, and what a person does there (let it draw, type into
//! a field, wait for something to show). Shared by the picture tests here
//! and the returns desk's (tests/returns_desk.rs).

use std::time::Duration;

use egui_kittest::{Harness, kittest::Queryable};
use purview_egui::Desk;

/// `desk` at `size`, drawn on the CPU, after its first frames.
pub fn drawn(desk: Desk, size: [f32; 2]) -> Harness<'static, Desk> {
    let mut harness = Harness::builder()
        .with_size(size)
        .renderer(super::cpu_render::CpuRenderer::default())
        .build_ui_state(|ui, desk: &mut Desk| desk.show(ui), desk);
    settle(&mut harness);
    harness
}

/// A few frames: windows take their size from what they drew last frame.
pub fn settle(harness: &mut Harness<'static, Desk>) {
    for _ in 0..4 {
        let _ = harness.try_run();
    }
}

/// Types `text` into the field labelled `label`, as a person does: focus
/// it, then type.
#[allow(dead_code)] // not every picture test types
pub fn type_into(harness: &mut Harness<'static, Desk>, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    settle(harness);
    harness.get_by_label(label).type_text(text);
    settle(harness);
}

/// Draws (letting background calls land) until `until` holds.
#[allow(dead_code)] // not every picture test waits
pub async fn until(
    harness: &mut Harness<'static, Desk>,
    what: &str,
    until: impl Fn(&Harness<'static, Desk>) -> bool,
) {
    for _ in 0..200 {
        settle(harness);
        if until(harness) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never: {what}");
}

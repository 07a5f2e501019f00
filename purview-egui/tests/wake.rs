//! Agents working fast must not keep the person's GUI thread busy: the
//! desk asks egui for a frame on the first change after a frame begins,
//! and every later change waits for that frame, which reads them all.

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use purview::{App, actions, window};
use purview_egui::Desk;

#[window(title = "Board", summary = "{status}")]
#[derive(Clone, Default)]
struct Board {
    #[block(field)]
    status: String,
}

#[actions]
impl Board {}

/// One frame of `desk` on `ctx`, as a host draws it: the text it drew.
fn frame(ctx: &egui::Context, desk: &mut Desk) -> String {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, [1200.0, 800.0].into())),
        ..Default::default()
    };
    let mut output = ctx.run_ui(input, |ui| desk.show(ui));
    let shapes = std::mem::take(&mut output.shapes);
    output.drop_without_applying_deltas();
    let mut text = String::new();
    for clipped in shapes {
        text_of(&clipped.shape, &mut text);
    }
    text
}

fn text_of(shape: &egui::Shape, out: &mut String) {
    match shape {
        egui::Shape::Text(drawn) => {
            out.push_str(drawn.galley.text());
            out.push('\n');
        }
        egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| text_of(s, out)),
        _ => {}
    }
}

#[test]
fn s6_a_flood_of_changes_asks_the_gui_for_one_frame_and_that_frame_shows_the_last() {
    let app = App::builder().build();
    let board = app.open(Board::default()).expect("a board");
    let mut desk = Desk::new(app.clone()).embedded(true);
    let ctx = egui::Context::default();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    ctx.set_repaint_observer(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    for _ in 0..3 {
        frame(&ctx, &mut desk);
    }

    asked.store(0, Ordering::Relaxed);
    for n in 0..100 {
        board.update(move |b| b.status = format!("change {n}")).expect("a change");
    }
    assert_eq!(asked.load(Ordering::Relaxed), 1, "100 changes between frames, one request");

    let drawn = frame(&ctx, &mut desk);
    assert!(drawn.contains("change 99"), "the frame shows the last change:\n{drawn}");

    // After that frame began, the next change asks again.
    asked.store(0, Ordering::Relaxed);
    board.update(|b| b.status = "after".into()).expect("a change");
    assert_eq!(asked.load(Ordering::Relaxed), 1, "a change after the frame asks for the next");
}

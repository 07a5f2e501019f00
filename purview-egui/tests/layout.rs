//! The desk as a person first sees it, in a small and a large viewport:
//! windows tiled without overlap, each dialog over its owner, the app's
//! own question in the middle with the rest dimmed. Each case is also a
//! snapshot (tests/snapshots/*.png, drawn by the CPU renderer in
//! tests/support), compared with the committed image; `UPDATE_SNAPSHOTS=1`
//! writes new ones.

#[path = "support/cpu_render.rs"]
mod cpu_render;
#[path = "support/drawn.rs"]
mod drawn;

use drawn::settle;
use egui::{Id, Rect};
use egui_kittest::{Harness, kittest::Queryable};
use purview::{App, Context, Secret, actions, projection::Page, window};
use purview_egui::Desk;

/// A week of appointments, paged.
#[window(title = "Appointments", summary = "{count} appointments this week")]
#[derive(Clone)]
struct Appointments {
    count: usize,
    #[block(table, limit = 6, load = load_rows, columns = ["Time", "Pet", "Owner"])]
    rows: Vec<(String, String, String)>,
}

#[actions]
impl Appointments {
    /// Fetch a range of appointments.
    #[action(read_only, idempotent)]
    fn load_rows(&self, offset: usize, limit: usize) -> Page<(String, String, String)> {
        Page::slice(&self.rows, offset, limit)
    }

    /// Book a visit.
    #[action]
    fn book(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open_modal(Booking { pet: "Max".into() })?;
        Ok(())
    }
}

/// The pets on file.
#[window(title = "Pets", summary = "{known} pets on file")]
#[derive(Clone)]
struct Pets {
    known: usize,
    #[block(table, columns = ["Id", "Name", "Kind"])]
    pets: Vec<(u32, String, String)>,
}

#[actions]
impl Pets {
    /// Add a pet to the file.
    #[action]
    fn add_pet(
        &mut self,
        /// The pet's name, as its owner calls it.
        name: String,
        /// Dog, cat, rabbit…
        kind: String,
    ) {
        self.known += 1;
        self.pets.push((self.known as u32, name, kind));
    }
}

/// Who is on duty.
#[window(title = "Staff", summary = "Signed in: {signed_in}")]
#[derive(Clone)]
struct Staff {
    #[block(field, label = "Signed in")]
    signed_in: String,
    #[block(field, group = "shift")]
    starts: String,
    #[block(field, group = "shift")]
    ends: String,
}

#[actions]
impl Staff {
    /// Sign in with your 4-digit PIN.
    #[action]
    fn sign_in(
        &mut self,
        /// Four digits.
        pin: Secret<String>,
    ) {
        drop(pin);
    }
}

/// Today at a glance.
#[window(title = "Today", summary = "{booked} booked, {cancelled} cancelled")]
#[derive(Clone)]
struct Today {
    #[block(field)]
    booked: u32,
    #[block(field)]
    cancelled: u32,
    #[block(notice = "info")]
    note: String,
}

#[actions]
impl Today {}

/// The first dialog of the booking chain.
#[window(title = "Book an appointment", summary = "Book a visit for {pet}?")]
#[derive(Clone)]
struct Booking {
    pet: String,
}

#[actions]
impl Booking {
    /// Choose when.
    #[action]
    fn choose_time(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open_modal(TimePicker)?;
        Ok(())
    }

    /// Book nothing.
    #[action(idempotent)]
    fn cancel(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// The second dialog of the chain.
#[window(title = "Choose a time", summary = "Which time suits Max?")]
#[derive(Clone)]
struct TimePicker;

#[actions]
impl TimePicker {
    /// Take this time.
    #[action]
    fn pick(
        &mut self,
        /// A time of day, 24-hour.
        time: String,
        cx: &mut Context,
    ) {
        drop(time);
        cx.close();
    }
}

/// The app's own question at the end of the day.
#[window(title = "End of day", summary = "Close the books for today?")]
#[derive(Clone)]
struct EndOfDay;

#[actions]
impl EndOfDay {
    /// Close the books: no more bookings today.
    #[action(destructive)]
    fn close_books(&mut self, cx: &mut Context) {
        cx.close();
    }

    /// Keep the day open.
    #[action(idempotent)]
    fn keep_open(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// The clinic's four windows, as the app opens them.
fn clinic() -> App {
    let app = App::builder().name("clinic").build();
    let times = ["09:00", "09:30", "10:00", "10:30", "11:00", "11:30", "14:00", "14:30"];
    let rows: Vec<_> = (0..40)
        .map(|i| (times[i % times.len()].to_owned(), format!("Pet {i}"), format!("Owner {i}")))
        .collect();
    app.open(Appointments { count: rows.len(), rows }).expect("appointments");
    let pets = vec![
        (1, "Max".to_owned(), "dog".to_owned()),
        (2, "Tiger".to_owned(), "cat".to_owned()),
        (3, "Hops".to_owned(), "rabbit".to_owned()),
    ];
    app.open(Pets { known: pets.len(), pets }).expect("pets");
    let staff = Staff { signed_in: "Dr Ada".into(), starts: "08:00".into(), ends: "16:00".into() };
    app.open(staff).expect("staff");
    let note = "The surgery is closed on Friday afternoon".to_owned();
    app.open(Today { booked: 40, cancelled: 2, note }).expect("today");
    app
}

fn person(app: &App, size: [f32; 2]) -> Harness<'static, Desk> {
    drawn::drawn(Desk::new(app.clone()).embedded(true).heading("Clinic"), size)
}

/// Where window `id` is drawn.
fn rect_of(harness: &Harness<'static, Desk>, id: &str) -> Rect {
    let area = Id::unique(("purview-window", id));
    harness.ctx.memory(|m| m.area_rect(area)).unwrap_or_else(|| panic!("{id} is not drawn"))
}

fn assert_tiled(harness: &Harness<'static, Desk>, size: [f32; 2]) {
    let viewport = Rect::from_min_size(egui::Pos2::ZERO, size.into());
    let rects: Vec<(&str, Rect)> =
        ["w1", "w2", "w3", "w4"].into_iter().map(|id| (id, rect_of(harness, id))).collect();
    for (i, (a, ra)) in rects.iter().enumerate() {
        assert!(viewport.contains_rect(*ra), "{a} at {ra:?} leaves the {size:?} viewport");
        for (b, rb) in &rects[i + 1..] {
            let shared = ra.intersect(*rb);
            assert!(!shared.is_positive(), "{a} at {ra:?} overlaps {b} at {rb:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_windows_tile_without_overlap_in_800_by_600() {
    let app = clinic();
    let mut harness = person(&app, [800.0, 600.0]);
    assert_tiled(&harness, [800.0, 600.0]);
    harness.snapshot("desk_800x600");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_windows_tile_without_overlap_in_1400_by_1000() {
    let app = clinic();
    let mut harness = person(&app, [1400.0, 1000.0]);
    assert_tiled(&harness, [1400.0, 1000.0]);
    // The app's words: each window's summary, the group's name.
    assert!(harness.query_by_label("40 appointments this week").is_some());
    assert!(harness.query_by_label("Shift").is_some());
    harness.snapshot("desk_1400x1000");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_of_dialogs_opens_over_its_owner() {
    let app = clinic();
    let appointments = app.window::<Appointments>("w1").expect("w1");
    let booking = appointments.open_modal(Booking { pet: "Max".into() }).expect("booking");
    let mut harness = person(&app, [1400.0, 1000.0]);
    booking.open_modal(TimePicker).expect("time picker");
    settle(&mut harness);
    let (owner, first, second) =
        (rect_of(&harness, "w1"), rect_of(&harness, booking.id()), rect_of(&harness, "w6"));
    assert!(owner.contains(first.center_top()), "{first:?} is not over its owner {owner:?}");
    assert!(first.contains(second.center_top()), "{second:?} is not over its owner {first:?}");
    // Away from the unrelated windows' own places, in front of them.
    assert!(harness.query_by_label("Which time suits Max?").is_some());
    harness.snapshot("modal_chain");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apps_own_question_is_centred_and_shown() {
    let app = clinic();
    let mut harness = person(&app, [1400.0, 1000.0]);
    app.open_app_modal(EndOfDay).expect("end of day");
    settle(&mut harness);
    assert!(harness.query_by_label("Close the books for today?").is_some());
    let modal = rect_of(&harness, "w5");
    let centre = egui::pos2(700.0, 500.0);
    assert!((modal.center() - centre).length() < 2.0, "{modal:?} is not centred");
    harness.snapshot("app_modal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_gives_each_arguments_help_and_says_enter_submits() {
    let app = clinic();
    let mut harness = person(&app, [1400.0, 1000.0]);
    harness.get_by_label("Add pet…").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label("The pet's name, as its owner calls it.").is_some());
    assert!(harness.query_by_label("Enter submits").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_windows_than_fit_wait_in_the_list_until_the_person_raises_one() {
    let app = App::builder().name("clinic").build();
    for i in 0..60 {
        let note = format!("Note {i}");
        app.open(Today { booked: i, cancelled: 0, note }).expect("a window");
    }
    let mut harness = person(&app, [1400.0, 1000.0]);
    // A drawn window shows its notice (egui remembers where closed-off
    // areas were, so their rectangles say nothing).
    let drawn = |h: &Harness<'static, Desk>| {
        (0..60).filter(|i| h.query_by_label(&format!("Info: Note {i}")).is_some()).count()
    };
    let shown = drawn(&harness);
    assert!((4..60).contains(&shown), "{shown} of 60 windows drawn");
    // The latest opened are drawn; the first waits in the list.
    assert!(harness.query_by_label("Info: Note 59").is_some());
    assert!(harness.query_by_label("Info: Note 0").is_none());
    assert!(harness.query_by_label_contains("more windows open").is_some());
    harness.get_by_label("Today").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label("Info: Note 0").is_some(), "the raised window is drawn");
    assert_eq!(drawn(&harness), shown, "one raised, another waits in its place");
}

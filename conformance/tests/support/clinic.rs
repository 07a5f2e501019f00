//! A veterinary clinic's appointment desk, shaped to test a walk's reach:
//! 3,000 appointments in a paged table, a booking that goes through a
//! chain of three dialogs over the desk, a destructive `cancel`, a staff
//! sign-in behind a 4-digit PIN, and an app-level "End of day" modal whose
//! destructive `close_books` withdraws `book` for good (nothing offers it
//! again), and with it the whole booking chain.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use purview::{App, AppBuilder, Context, actions, projection::Page, window};

/// The PIN the staff sign in with.
pub const STAFF_PIN: &str = "4417";

/// The pets, by id.
pub const PETS: [(u32, &str); 4] =
    [(7301, "Max"), (7302, "Bella"), (7303, "Luna"), (7304, "Charlie")];

/// The times a booking may take.
const TIMES: [&str; 3] = ["09:00", "10:30", "14:00"];

/// Every operation of the clinic, as a walk's coverage names it.
pub const OPERATIONS: [&str; 15] = [
    "Appointments · load_rows",
    "Appointments · book",
    "Appointments · cancel",
    "Pets · sort_by_name",
    "Staff · sign_in",
    "Staff · sign_out",
    "app · end_of_day",
    "End of day · close_books",
    "End of day · not_yet",
    "Pick a pet · choose_pet",
    "Pick a pet · cancel_booking",
    "Pick a time · choose_time",
    "Pick a time · back",
    "Confirm booking · confirm",
    "Confirm booking · back",
];

type Row = (u32, String, String, String);

/// The desk: the appointments in a paged table, booking (while the books
/// are open) and cancelling.
#[window(title = "Appointments", summary = "{booked} booked, {cancelled} cancelled")]
#[derive(Clone)]
pub struct Appointments {
    booked: usize,
    cancelled: usize,
    books_open: bool,
    #[block(table, limit = 10, load = load_rows, columns = ["Id", "Pet", "Time", "Status"])]
    rows: Arc<Vec<Row>>,
}

impl Appointments {
    fn new() -> Self {
        let rows = (0..3_000u32)
            .map(|i| {
                let pet = PETS[i as usize % PETS.len()].1.to_owned();
                (i + 1, pet, TIMES[i as usize % TIMES.len()].to_owned(), "booked".to_owned())
            })
            .collect::<Vec<_>>();
        Self { booked: rows.len(), cancelled: 0, books_open: true, rows: Arc::new(rows) }
    }

    fn books_open(&self) -> bool {
        self.books_open
    }

    fn add(&mut self, pet: &str, time: &str) {
        let mut rows = (*self.rows).clone();
        let id = rows.len() as u32 + 1;
        rows.push((id, pet.to_owned(), time.to_owned(), "booked".to_owned()));
        self.rows = Arc::new(rows);
        self.booked += 1;
    }
}

#[actions]
impl Appointments {
    /// Fetch a range of appointments.
    #[action(read_only, idempotent)]
    fn load_rows(
        &self,
        /// Index of the first row, from 0.
        offset: usize,
        /// How many rows, at most 100.
        limit: usize,
        cx: &mut Context,
    ) -> Page<Row> {
        if limit > 100 {
            cx.invalid("limit", "must be at most 100");
        }
        Page::slice(&self.rows, offset, limit.min(100))
    }

    /// Start booking an appointment: pick the pet, then the time, then confirm.
    #[action(available = books_open)]
    fn book(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        let desk = cx.window_id().unwrap_or_default().to_owned();
        cx.open_modal(PickPet { desk })?;
        Ok(())
    }

    /// Cancel an appointment.
    #[action(destructive)]
    fn cancel(
        &mut self,
        /// The appointment's id.
        id: u32,
        cx: &mut Context,
    ) {
        let Some(index) = self.rows.iter().position(|row| row.0 == id) else {
            cx.invalid("id", "no appointment has this id");
            return;
        };
        if self.rows[index].3 == "cancelled" {
            cx.invalid("id", "this appointment is cancelled already");
            return;
        }
        let mut rows = (*self.rows).clone();
        rows[index].3 = "cancelled".to_owned();
        self.rows = Arc::new(rows);
        self.cancelled += 1;
    }
}

/// The clinic's patients.
#[window(title = "Pets", summary = "{count} pets")]
#[derive(Clone)]
pub struct Pets {
    count: usize,
    #[block(table, columns = ["Pet id", "Name"])]
    pets: Vec<(u32, String)>,
}

#[actions]
impl Pets {
    /// Sort the pets by name.
    #[action(idempotent)]
    fn sort_by_name(&mut self) {
        self.pets.sort_by(|a, b| a.1.cmp(&b.1));
    }
}

/// Who is at the desk: signing in takes the staff PIN.
#[window(title = "Staff", summary = "{who}")]
#[derive(Clone)]
pub struct Staff {
    who: String,
    signed_in: bool,
}

impl Staff {
    fn signed_out(&self) -> bool {
        !self.signed_in
    }

    fn signed_in(&self) -> bool {
        self.signed_in
    }
}

#[actions]
impl Staff {
    /// Sign in with the 4-digit staff PIN.
    #[action(available = signed_out)]
    fn sign_in(
        &mut self,
        /// The staff PIN, four digits.
        #[arg(pattern = "^[0-9]{4}$")]
        pin: String,
        cx: &mut Context,
    ) {
        if pin != STAFF_PIN {
            cx.invalid("pin", "not the staff PIN");
            return;
        }
        self.signed_in = true;
        self.who = "Signed in".into();
    }

    /// Sign out.
    #[action(idempotent, available = signed_in)]
    fn sign_out(&mut self) {
        self.signed_in = false;
        self.who = "Nobody signed in".into();
    }
}

/// The clinic's own actions.
#[derive(Clone)]
struct Clinic {
    /// The desk's window id, once it is open.
    desk: Arc<Mutex<String>>,
}

#[actions(app)]
impl Clinic {
    /// End the day: asks whether to close the books.
    #[action]
    fn end_of_day(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        let desk = self.desk.lock().map(|d| d.clone()).unwrap_or_default();
        cx.open_app_modal(EndOfDay { desk })?;
        Ok(())
    }
}

/// The end of the day, over everything else.
#[window(title = "End of day", summary = "Close the books for today?")]
#[derive(Clone)]
struct EndOfDay {
    desk: String,
}

#[actions]
impl EndOfDay {
    /// Close the books: no more bookings until tomorrow.
    #[action(destructive)]
    fn close_books(&mut self, cx: &mut Context) {
        cx.update::<Appointments>(&self.desk, |desk| desk.books_open = false);
        cx.close();
    }

    /// Not yet: back to the desk.
    #[action(idempotent)]
    fn not_yet(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// The first dialog of a booking: the pet's id is in the Pets window.
#[window(title = "Pick a pet", summary = "Which pet is the appointment for? See the Pets window")]
#[derive(Clone)]
struct PickPet {
    desk: String,
}

#[actions]
impl PickPet {
    /// Choose the pet, then the time.
    #[action]
    fn choose_pet(
        &mut self,
        /// The pet's id, from the table.
        pet_id: u32,
        cx: &mut Context,
    ) -> Result<(), purview::Error> {
        let Some((_, name)) = PETS.iter().find(|(id, _)| *id == pet_id) else {
            cx.invalid("pet_id", "no pet has this id; pick one from the table");
            return Ok(());
        };
        let times = TIMES.iter().map(|t| ((*t).to_owned(),)).collect();
        cx.open_modal(PickTime { desk: self.desk.clone(), pet: (*name).to_owned(), times })?;
        Ok(())
    }

    /// Give up booking.
    #[action(idempotent)]
    fn cancel_booking(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// The second dialog: the time.
#[window(title = "Pick a time", summary = "When should {pet} come?")]
#[derive(Clone)]
struct PickTime {
    desk: String,
    pet: String,
    #[block(table, columns = ["Time"])]
    times: Vec<(String,)>,
}

#[actions]
impl PickTime {
    /// Choose the time, then confirm.
    #[action]
    fn choose_time(
        &mut self,
        /// A time from the table, such as 09:00.
        time: String,
        cx: &mut Context,
    ) -> Result<(), purview::Error> {
        if !self.times.iter().any(|(t,)| *t == time) {
            cx.invalid("time", "not a free time; pick one from the table");
            return Ok(());
        }
        cx.open_modal(ConfirmBooking { desk: self.desk.clone(), pet: self.pet.clone(), time })?;
        Ok(())
    }

    /// Back to the pets.
    #[action(idempotent)]
    fn back(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// The last dialog: the booking as it will be made.
#[window(title = "Confirm booking", summary = "Book {pet} at {time}?")]
#[derive(Clone)]
struct ConfirmBooking {
    desk: String,
    pet: String,
    time: String,
}

#[actions]
impl ConfirmBooking {
    /// Book it.
    #[action]
    fn confirm(&mut self, cx: &mut Context) {
        let (pet, time) = (self.pet.clone(), self.time.clone());
        cx.update::<Appointments>(&self.desk, move |desk| desk.add(&pet, &time));
        cx.close();
    }

    /// Back to the times.
    #[action(idempotent)]
    fn back(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// The clinic from a builder the caller has configured (a tool surface),
/// with its three windows open.
pub fn clinic(builder: AppBuilder) -> App {
    let desk = Arc::new(Mutex::new(String::new()));
    let app = builder
        .name("clinic")
        .coalesce(Duration::ZERO)
        .app_actions(Clinic { desk: desk.clone() })
        .build();
    let opened = app.open(Appointments::new()).expect("the desk opens");
    if let Ok(mut id) = desk.lock() {
        *id = opened.id().to_owned();
    }
    let pets: Vec<(u32, String)> =
        PETS.iter().map(|(id, name)| (*id, (*name).to_owned())).collect();
    app.open(Pets { count: pets.len(), pets }).expect("the pets open");
    app.open(Staff { who: "Nobody signed in".into(), signed_in: false }).expect("staff opens");
    app
}

//! The desk speaks the app's words and lets the person pick rather than
//! type: a failed pattern says the app's message and its example (the
//! same words an agent's `validation_failed` carries), an argument taken
//! `from` a table is filled by choosing a row, and the approval prompt
//! leads with the question the app wrote from its own state. Each case is
//! also a snapshot (tests/snapshots/*.png, drawn by the CPU renderer in
//! tests/support); `UPDATE_SNAPSHOTS=1` writes new ones.

#[path = "support/cpu_render.rs"]
mod cpu_render;
#[path = "support/drawn.rs"]
mod drawn;

use std::time::Duration;

use drawn::{settle, type_into, until};
use egui_kittest::{Harness, kittest::Queryable};
use purview::{App, Row, ToolError, actions, window};
use purview_egui::Desk;

/// A pet on file.
#[derive(Clone, Row)]
struct Pet {
    id: u32,
    name: String,
    kind: String,
}

/// One booked visit.
#[derive(Clone)]
struct Visit {
    id: u32,
    pet: u32,
    day: String,
    cancelled: bool,
}

/// The clinic's desk: its pets, and visits booked for them.
#[window(title = "Clinic", summary = "{booked} visits booked")]
#[derive(Clone)]
struct Clinic {
    booked: usize,
    #[block(table)]
    pets: Vec<Pet>,
    visits: Vec<Visit>,
}

#[actions]
impl Clinic {
    /// Book a visit for a pet.
    #[action]
    fn book(
        &mut self,
        /// The pet to see.
        #[arg(from = pets.id)]
        pet: u32,
        /// The visit's day.
        #[arg(
            pattern = r"^\d{4}-\d{2}-\d{2}$",
            example = "2026-03-12",
            message = "a date such as 2026-03-12"
        )]
        day: String,
    ) -> Result<(), ToolError> {
        if !self.pets.iter().any(|p| p.id == pet) {
            return Err(format!("there is no pet {pet}").into());
        }
        let id = self.visits.len() as u32 + 1;
        self.visits.push(Visit { id, pet, day, cancelled: false });
        self.booked += 1;
        Ok(())
    }

    /// Cancel a visit.
    #[action(destructive, approval, question = cancel_question)]
    fn cancel(&mut self, id: u32) -> Result<(), ToolError> {
        let visit = self.visits.iter_mut().find(|v| v.id == id).ok_or("no such visit")?;
        visit.cancelled = true;
        self.booked -= 1;
        Ok(())
    }

    fn cancel_question(&self, id: &u32) -> Result<String, ToolError> {
        let visit = self.visits.iter().find(|v| v.id == *id && !v.cancelled);
        let visit = visit.ok_or_else(|| ToolError::from(format!("no visit {id} to cancel")))?;
        let pet = self.pets.iter().find(|p| p.id == visit.pet);
        let (name, kind) = pet.map_or(("?", "?"), |p| (p.name.as_str(), p.kind.as_str()));
        Ok(format!("Cancel the visit of {name} ({kind}) on {}?", visit.day))
    }
}

fn clinic() -> App {
    let app = App::builder().name("clinic").build();
    let pets = vec![
        Pet { id: 1, name: "Max".into(), kind: "dog".into() },
        Pet { id: 2, name: "Tiger".into(), kind: "cat".into() },
        Pet { id: 3, name: "Hops".into(), kind: "rabbit".into() },
    ];
    app.open(Clinic { booked: 0, pets, visits: Vec::new() }).expect("clinic");
    app
}

fn person(app: &App, size: [f32; 2]) -> Harness<'static, Desk> {
    let desk = Desk::answering(app.clone(), purview::approval::ApprovalQueue::new())
        .embedded(true)
        .heading("Clinic");
    drawn::drawn(desk, size)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s7_3_a_failed_pattern_shows_the_apps_message_under_the_field() {
    let app = clinic();
    let mut harness = person(&app, [900.0, 700.0]);
    harness.get_by_label("Book…").click_accesskit();
    settle(&mut harness);
    type_into(&mut harness, "Pet *", "1");
    type_into(&mut harness, "Day *", "12/03/2026");
    settle(&mut harness);
    harness.get_by_label("Book").click_accesskit();
    let said = "Day: must be a date such as 2026-03-12";
    until(&mut harness, "the field's error", |h| h.query_by_label(said).is_some()).await;
    // The agent hears the same words.
    let agent = app
        .call("w1__book", serde_json::json!({"pet": 1, "day": "12/03/2026"}).as_object().cloned())
        .await
        .expect_err("refused");
    assert_eq!(agent.fields.expect("fields")[0].error, "must be a date such as 2026-03-12");
    harness.snapshot("form_failed_pattern");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_picked_from_the_table_fills_the_argument() {
    let app = clinic();
    let mut harness = person(&app, [900.0, 700.0]);
    harness.get_by_label("Book…").click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label_contains("Choose a row in").is_some());
    let choices = harness.query_all_by_label("Choose").collect::<Vec<_>>();
    assert_eq!(choices.len(), 3, "one choice per pet");
    choices[1].click_accesskit();
    settle(&mut harness);
    assert!(harness.query_by_label("Chosen").is_some(), "Tiger's row shows as chosen");
    type_into(&mut harness, "Day *", "2026-03-12");
    settle(&mut harness);
    harness.snapshot("row_picked");
    harness.get_by_label("Book").click_accesskit();
    let clinic = app.window::<Clinic>("w1").expect("w1");
    until(&mut harness, "the visit booked", |_| clinic.read(|c| c.booked).unwrap() == 1).await;
    let booked = clinic.read(|c| c.visits.first().map(|v| (v.pet, v.day.clone()))).unwrap();
    assert_eq!(booked, Some((2, "2026-03-12".to_owned())), "the picked pet was booked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s5_6_the_approval_prompt_names_the_record_in_the_apps_words() {
    let app = clinic();
    let clinic_window = app.window::<Clinic>("w1").expect("w1");
    clinic_window
        .update(|c| {
            c.visits.push(Visit {
                id: 7,
                pet: 1,
                day: "Monday 5 January".into(),
                cancelled: false,
            });
            c.booked = 1;
        })
        .expect("a visit");
    let mut harness = person(&app, [1000.0, 700.0]);
    let agent = app.clone();
    let args = serde_json::json!({"id": 7}).as_object().cloned();
    let call = tokio::spawn(async move { agent.call("w1__cancel", args).await });
    let question = "Cancel the visit of Max (dog) on Monday 5 January?";
    until(&mut harness, "the prompt", |h| h.query_by_label("Approve").is_some()).await;
    assert!(harness.query_by_label_contains(question).is_some(), "the app's question is shown");
    assert!(harness.query_by_label_contains("id: 7").is_some(), "the agent's value beneath it");
    harness.snapshot("approval_prompt");
    harness.get_by_label("Approve").click_accesskit();
    settle(&mut harness);
    let outcome = tokio::time::timeout(Duration::from_secs(10), call).await.expect("answered");
    assert!(outcome.expect("the call's task").is_ok());
    assert!(clinic_window.read(|c| c.visits[0].cancelled).unwrap());
}

//! Picking a row instead of typing its key, in the person's face
//! (purview-web) in a real headless Chromium: while a form that takes an
//! argument `from` a table is open, each row of that table offers to fill
//! it in, the field says where its value comes from, and the call made
//! with the chosen row's cell is the person's, as any other (§7).

#[path = "web/driver.rs"]
#[allow(dead_code)] // what the other browser tests use
mod driver;

use std::time::Duration;

use anyhow::{Context as _, Result, ensure};
use driver::Browser;
use purview::{App, Row, ToolError, actions, http::HttpOptions, window};
use purview_web::Face;

/// A pet on file.
#[derive(Clone, Row)]
struct Pet {
    id: u32,
    name: String,
}

/// The clinic: its pets, and who is booked.
#[window(title = "Clinic", summary = "{booked} visits booked")]
#[derive(Clone)]
struct Clinic {
    booked: usize,
    #[block(table)]
    pets: Vec<Pet>,
    last: Option<u32>,
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
    ) -> Result<(), ToolError> {
        if !self.pets.iter().any(|p| p.id == pet) {
            return Err(format!("there is no pet {pet}").into());
        }
        self.booked += 1;
        self.last = Some(pet);
        Ok(())
    }
}

fn clinic() -> Clinic {
    let pets = [(7, "Rex"), (12, "Tom"), (31, "Bella")];
    Clinic {
        booked: 0,
        pets: pets.into_iter().map(|(id, name)| Pet { id, name: name.into() }).collect(),
        last: None,
    }
}

/// The text of the page's Clinic card.
const CARD: &str = "(document.querySelector('section[data-window]') || {}).innerText || ''";

#[tokio::test(flavor = "multi_thread")]
async fn s7_the_person_picks_a_row_for_an_argument_taken_from_a_table() -> Result<()> {
    let app = App::builder().name("clinic").build();
    let desk = app.open(clinic())?;
    let face = Face::new(app.clone());
    let server = app.serve_http(face.serve_beside(HttpOptions::default())).await?;
    let browser = Browser::start().await?;
    browser.goto(&face.one_time_link(&server).context("a link")?).await?;
    browser.wait_for(&format!("({CARD}).includes('0 visits booked')")).await?;

    // No form open: the table offers nothing to choose.
    let choose = "document.querySelectorAll('section[data-window] td button').length";
    ensure!(browser.run(&format!("return {choose};")).await? == 0, "buttons without a form");

    browser.press("section[data-window]", "Book…").await?;
    browser.wait_for(&format!("{choose} === 3")).await?;
    let hint = browser.run(&format!("return {CARD};")).await?;
    let hint = hint.as_str().unwrap_or_default();
    ensure!(
        hint.contains("The pet to see. Choose a row in Pets to fill this in."),
        "the field says where its value comes from, in the person's words: {hint}"
    );
    ensure!(!hint.contains("app://windows"), "the agents' hint stays theirs: {hint}");
    // Choosing Tom's row fills the pet in, and says so on that row.
    browser.click("button[aria-label='Choose 12 as Pet for Book']").await?;
    browser.wait_for("document.querySelector('form input[name=pet]').value === '12'").await?;
    let pressed = browser
        .run("return document.querySelector(\"button[aria-label='Choose 12 as Pet for Book']\").getAttribute('aria-pressed');")
        .await?;
    ensure!(pressed == "true", "the chosen row says so: {pressed}");
    let shot = browser.screenshot("web_row_picked").await?;
    ensure!(shot.exists(), "a screenshot of the picked row");

    browser.press("form", "Book").await?;
    browser.wait_for(&format!("({CARD}).includes('1 visits booked')")).await?;
    let booked = desk.read(|c| c.last)?;
    ensure!(booked == Some(12), "the call carried the chosen row's cell: {booked:?}");
    // The form closed with the call: nothing left to choose.
    browser.wait_for(&format!("{choose} === 0")).await?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(())
}

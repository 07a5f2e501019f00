//! A failure three calls show is reported as those three calls: a loans
//! desk whose Borrow dialog fails to confirm once damage was reported. The
//! walk reaches the dialog with book ids it read off the catalogue's Id
//! column (no hint given), and the shortest failing sequence it prints is
//! `borrow`, `report_damage`, `confirm`, whatever dialogs the walk opened
//! and cancelled before, and replays to the same failure.

use std::time::Duration;

use purview::{App, Context, ToolError, actions, window};
use purview_conformance::{Check, Explorer, Status, Step};

/// The catalogue: books by id.
#[window(title = "Catalogue", summary = "{count} books, each lent by its id")]
#[derive(Clone)]
struct Catalogue {
    count: usize,
    #[block(table, columns = ["Id", "Title"])]
    books: Vec<(u32, String)>,
    #[block(field)]
    note: String,
}

#[actions]
impl Catalogue {
    /// Lend a book: a Borrow dialog opens for it.
    #[action]
    fn borrow(
        &mut self,
        /// The id of the book, as the catalogue's Id column shows it.
        book: u32,
        cx: &mut Context,
    ) -> Result<(), ToolError> {
        let Some((_, title)) = self.books.iter().find(|(id, _)| *id == book) else {
            cx.invalid("book", "no book has this id; the catalogue's Id column lists them");
            return Ok(());
        };
        cx.open_modal(Borrow { book, title: title.clone(), damaged: false })?;
        Ok(())
    }

    /// Write a note on the catalogue.
    #[action(idempotent)]
    fn set_note(&mut self, note: String) {
        self.note = note;
    }
}

/// Lending one book; blocks the catalogue.
#[window(title = "Borrow", summary = "Lending book {book}, {title}")]
#[derive(Clone)]
struct Borrow {
    book: u32,
    title: String,
    #[block(field, label = "Damage reported")]
    damaged: bool,
}

#[actions]
impl Borrow {
    /// Note that the book is damaged.
    #[action(idempotent)]
    fn report_damage(&mut self) {
        self.damaged = true;
    }

    /// Lend the book and close the dialog.
    #[action]
    fn confirm(&mut self, cx: &mut Context) -> Result<(), ToolError> {
        if self.damaged {
            // The planted bug: a damaged book can never be lent.
            return Err("the loan could not be recorded".into());
        }
        cx.close();
        Ok(())
    }

    /// Close the dialog without lending.
    #[action(idempotent)]
    fn cancel(&mut self, cx: &mut Context) {
        cx.close();
    }
}

fn desk() -> App {
    let app = App::builder().coalesce(Duration::ZERO).build();
    let books = [(101, "Dune"), (102, "Emma"), (103, "Ulysses"), (104, "Beloved")];
    let books: Vec<(u32, String)> = books.iter().map(|(id, t)| (*id, (*t).to_owned())).collect();
    app.open(Catalogue { count: books.len(), books, note: String::new() }).expect("opens");
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_three_calls_show_shrinks_to_those_three_calls_whatever_the_seed() {
    for seed in 1..=5 {
        let report = Explorer::new().seed(seed).steps(300).explore(desk).await;
        let borrow = &report.coverage.tools["Catalogue · borrow"];
        assert!(borrow.succeeded > 0, "seed {seed}: the ids were on screen:\n{report}");
        assert_eq!(
            report.check(Check::HandlerFailed).status,
            Status::Fail,
            "seed {seed}:\n{report}"
        );
        let shrunk =
            report.shrunk.iter().find(|s| s.check == Check::HandlerFailed).expect("shrunk");
        assert!(shrunk.reproduced, "seed {seed}:\n{report}");
        let actions: Vec<&str> = shrunk
            .script
            .steps
            .iter()
            .map(|step| match step {
                // Through the window's own tool or through app__act.
                Step::Call(call) if call.tool == "app__act" => {
                    call.arguments["action"].as_str().unwrap_or_default()
                }
                Step::Call(call) => call.tool.split_once("__").map_or("", |(_, a)| a),
                Step::Together(_) => "(together)",
            })
            .collect();
        assert_eq!(actions, ["borrow", "report_damage", "confirm"], "seed {seed}:\n{report}");
        // The printed script names the dialog a fresh app opens first,
        // whichever dialog the walk met the failure in, and fails again.
        let endpoint = purview_conformance::Endpoint::in_process(desk);
        let replayed = Explorer::new().replay(&endpoint, &shrunk.script).await;
        assert_eq!(replayed.check(Check::HandlerFailed).status, Status::Fail, "{replayed}");
        assert_eq!(replayed.steps, 3);
    }
}

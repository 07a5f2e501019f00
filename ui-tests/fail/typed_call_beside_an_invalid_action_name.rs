use purview::{App, actions, window};

#[window]
#[derive(Clone, Default)]
struct Catalogue {
    #[block(field)]
    lent: u32,
}

#[actions]
impl Catalogue {
    /// Lend a book.
    #[action]
    fn borrow(&mut self, book: u32) {
        self.lent = book;
    }

    /// Write a book off.
    #[action(destructive, name = "write__off")]
    fn write_off(&mut self) {}
}

// Only the bad name is reported: the calls of the other actions, and of
// the misnamed one, still name methods that exist.
async fn gui(app: App) {
    let catalogue = app.open(Catalogue::default()).unwrap();
    let _ = catalogue.act().borrow(101).await;
    let _ = catalogue.act().write_off().await;
}

fn main() {
    let _ = gui;
}

// A typed call of an action the window does not have: rustc names the
// calls struct, whose type parameter lists the actions that exist, and
// points at the impl, whose methods are the actions.
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
    fn lend_book(&mut self, book: u32) {
        self.lent = book;
    }

    /// Take a book back.
    #[action]
    fn take_back(&mut self) {}
}

async fn gui(app: App) {
    let catalogue = app.open(Catalogue::default()).unwrap();
    let _ = catalogue.act().lend(101).await;
}

fn main() {
    let _ = gui;
}

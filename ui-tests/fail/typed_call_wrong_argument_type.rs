use purview::{App, actions, window};

#[window]
#[derive(Clone, Default)]
struct Editor {
    #[block(field)]
    recipient: String,
    #[block(field)]
    amount: f64,
}

#[actions]
impl Editor {
    /// Set who receives the order and for how much.
    #[action]
    fn set_details(&mut self, recipient: String, amount: f64) {
        self.recipient = recipient;
        self.amount = amount;
    }
}

async fn gui(app: App) {
    let editor = app.open(Editor::default()).unwrap();
    let _ = editor.act().set_details("Ada".to_owned(), "12.50").await;
}

fn main() {
    let _ = gui;
}

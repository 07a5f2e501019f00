// `app.act::<T>()` is for the app-level actions (`#[actions(app)]`); a
// window's actions are called through its handle.
use purview::prelude::*;

#[window(summary = "An order")]
#[derive(Clone, Default)]
struct OrderEditor;

#[actions]
impl OrderEditor {
    /// Put the focus on the editor.
    #[action]
    fn focus(&mut self) {}
}

fn main() {
    let app = App::builder().build();
    let _ = app.act::<OrderEditor>().focus();
}

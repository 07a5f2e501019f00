use purview::{App, actions};

#[derive(Clone)]
struct Menu;

#[actions(app)]
impl Menu {
    /// Do the thing.
    #[action]
    fn act(&mut self) {}
}

fn main() {
    let _app = App::builder().app_actions(Menu).build();
}

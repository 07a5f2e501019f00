//! `crate = ".."` for apps that rename the dependency.

extern crate purview as gui;

#[gui::window(crate = "gui", title = "Renamed")]
#[derive(Clone)]
struct Renamed {
    #[block(field)]
    name: String,
}

#[gui::actions(crate = "gui")]
impl Renamed {
    #[action]
    fn clear(&mut self) {
        self.name.clear();
    }
}

fn main() {
    let app = gui::App::builder().build();
    app.open(Renamed { name: String::new() }).unwrap();
}

#[test]
fn compiles_and_runs() {
    main();
}

use purview::window;

#[window]
#[derive(Clone)]
struct Editor;

fn main() {
    let app = purview::App::builder().build();
    let _ = app.open(Editor);
}

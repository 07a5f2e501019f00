#[purview::window]
#[derive(Clone)]
enum Editor {
    Empty,
}

fn main() {}

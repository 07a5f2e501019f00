use purview::{actions, window};

#[derive(Clone, serde::Serialize)]
struct Line {
    product: String,
}

#[window]
#[derive(Clone)]
struct Order {
    #[block(table)]
    lines: Vec<Line>,
}

#[actions]
impl Order {}

fn main() {}

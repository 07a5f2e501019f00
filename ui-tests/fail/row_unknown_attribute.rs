use purview::{Row, actions, window};

#[derive(Clone, Row)]
struct Line {
    product: String,
    #[row(nmae = "Qty")]
    quantity: u32,
}

// The table still compiles: one mistake, one error.
#[window]
#[derive(Clone)]
struct Order {
    #[block(table)]
    lines: Vec<Line>,
}

#[actions]
impl Order {}

fn main() {}

use purview::{actions, window};

#[derive(Clone, serde::Serialize)]
enum State {
    Draft,
    Sent,
}

#[window(summary = "Order is {state}")]
#[derive(Clone)]
struct Order {
    state: State,
}

#[actions]
impl Order {}

fn main() {}

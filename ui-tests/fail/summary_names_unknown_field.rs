use purview::{actions, window};

#[window(summary = "Order for {recipent}")]
#[derive(Clone)]
struct Editor {
    #[block(field)]
    recipient: String,
}

#[actions]
impl Editor {}

fn main() {}

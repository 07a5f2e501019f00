use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor {
    #[block]
    recipient: String,
}

#[actions]
impl Editor {}

fn main() {}

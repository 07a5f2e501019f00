use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor {
    #[block(table)]
    recipient: String,
}

#[actions]
impl Editor {}

fn main() {}

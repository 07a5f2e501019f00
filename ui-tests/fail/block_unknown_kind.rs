use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor {
    #[block(badge)]
    status: String,
}

#[actions]
impl Editor {}

fn main() {}

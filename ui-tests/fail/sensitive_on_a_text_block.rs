use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor {
    #[block(text, sensitive)]
    password: String,
}

#[actions]
impl Editor {}

fn main() {}

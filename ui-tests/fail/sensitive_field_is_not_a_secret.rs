use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor {
    #[block(field, sensitive)]
    password: String,
}

#[actions]
impl Editor {}

fn main() {}

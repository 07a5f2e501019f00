use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor {
    #[block(notice = "eror")]
    problem: Option<String>,
}

#[actions]
impl Editor {}

fn main() {}

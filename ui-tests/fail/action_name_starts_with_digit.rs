use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action(name = "1st_step")]
    fn first_step(&mut self) {}
}

fn main() {}

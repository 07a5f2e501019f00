use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action(timeout = "0s")]
    fn save(&mut self) {}
}

fn main() {}

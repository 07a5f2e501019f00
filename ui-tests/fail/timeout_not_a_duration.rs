use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action(timeout = "five seconds")]
    fn save(&mut self) {}
}

fn main() {}

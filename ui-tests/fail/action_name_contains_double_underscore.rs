use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action(name = "save__all")]
    fn save(&mut self) {}
}

fn main() {}

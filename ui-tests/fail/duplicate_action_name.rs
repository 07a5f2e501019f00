use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action]
    fn save(&mut self) {}

    #[action(name = "save")]
    fn save_again(&mut self) {}
}

fn main() {}

use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action]
    fn save(&mut self) {}
}

#[actions]
impl Editor {
    #[action]
    fn close(&mut self) {}
}

fn main() {}

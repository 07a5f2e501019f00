use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action(destructve)]
    fn delete(&mut self) {}
}

fn main() {}

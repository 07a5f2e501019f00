use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action]
    fn recalculate_every_total_in_the_order(&mut self) {}
}

fn main() {}

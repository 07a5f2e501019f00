use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor {
    #[block(text, sensitive)]
    name: String,
    #[block(list, ordered, label = "Lines")]
    lines: Vec<String>,
}

#[actions]
impl Editor {
    #[action(name = "bad__name")]
    fn one(&mut self) {}

    #[action(idempotnt)]
    fn two(self) {}
}

fn main() {}

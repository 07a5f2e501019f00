use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action]
    fn rename(&mut self, name: &str) {
        let _ = name;
    }
}

fn main() {}

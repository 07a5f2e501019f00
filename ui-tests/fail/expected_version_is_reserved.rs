use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action]
    fn save(&mut self, expected_version: u64) {
        let _ = expected_version;
    }
}

fn main() {}

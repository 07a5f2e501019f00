use purview::{actions, window};

#[derive(serde::Serialize)]
struct Receipt {
    total: u32,
}

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action]
    fn receipt(&self) -> Receipt {
        Receipt { total: 1 }
    }
}

fn main() {}

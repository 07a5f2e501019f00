use purview::{actions, window};

#[derive(schemars::JsonSchema)]
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

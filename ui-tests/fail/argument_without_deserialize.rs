use purview::{actions, window};

#[derive(schemars::JsonSchema)]
struct Address {
    street: String,
}

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {
    #[action]
    fn ship_to(&mut self, address: Address) {
        let _ = address.street;
    }
}

fn main() {}

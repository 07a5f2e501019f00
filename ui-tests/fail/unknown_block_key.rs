use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor {
    #[block(field, lable = "Recipient")]
    recipient: String,
}

#[actions]
impl Editor {}

fn main() {}

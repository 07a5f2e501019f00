use purview::{actions, window};

#[window(titel = "Editor")]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {}

fn main() {}

use purview::{WindowHandle, WindowKind, actions, window};

#[window]
#[derive(Clone)]
struct Editor;

#[actions]
impl Editor {}

#[derive(WindowKind)]
enum Open {
    Editor(WindowHandle<Editor>),
    Nothing,
}

fn main() {}

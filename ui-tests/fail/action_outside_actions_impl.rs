struct Editor;

impl Editor {
    #[purview::action]
    fn save(&mut self) {}
}

fn main() {}

use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Returns {
    #[block(field)]
    count: u32,
}

#[actions]
impl Returns {
    #[action]
    fn add(&mut self, n: u32) {
        self.count += n
        self.count += 1;
    }
}

fn main() {}

use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Refund;

#[actions]
impl Refund {
    #[action]
    fn set_items(&mut self, #[arg(range(min = 0.5))] items: Option<usize>) {
        let _ = items;
    }
}

fn main() {}

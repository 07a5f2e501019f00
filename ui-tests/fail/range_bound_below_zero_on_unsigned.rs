use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Refund;

#[actions]
impl Refund {
    #[action]
    fn set_quantity(&mut self, #[arg(range(min = -5, max = 20))] quantity: u32) {
        let _ = quantity;
    }
}

fn main() {}

use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Refund;

#[actions]
impl Refund {
    #[action]
    fn set_amount(&mut self, #[arg(range(min = "0.01"))] amount: f64) {
        let _ = amount;
    }
}

fn main() {}

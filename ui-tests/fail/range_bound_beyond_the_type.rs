use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Refund;

#[actions]
impl Refund {
    #[action]
    fn set_cents(&mut self, #[arg(range(min = 1, max = 99999999999))] cents: u32) {
        let _ = cents;
    }
}

fn main() {}

use purview::{Row, actions, window};

#[derive(Clone, Row)]
struct Payment {
    reference: String,
}

#[window]
#[derive(Clone)]
struct Refund {
    #[block(table)]
    payment_list: Vec<Payment>,
}

#[actions]
impl Refund {
    #[action]
    fn refund(&mut self, #[arg(from = payments.reference)] payment: String) {
        let _ = payment;
    }
}

fn main() {}

use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Refund;

#[actions]
impl Refund {
    /// Pays the refund back. This cannot be undone.
    #[action(approval, destructive, question = refund_question)]
    fn refund(&mut self, amount: f64) {
        let _ = amount;
    }

    fn refund_question(&self, amount: &f64, reason: &String) -> String {
        format!("Refund {amount} because {reason}?")
    }
}

fn main() {}

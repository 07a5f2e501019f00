use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Returns {
    #[block(field)]
    refunded: u32,
}

#[actions]
impl Returns {
    /// Pays the refund back to the card. This cannot be undone.
    #[action(approval)]
    fn refund(&mut self, cents: u32) {
        self.refunded += cents;
    }
}

fn main() {}

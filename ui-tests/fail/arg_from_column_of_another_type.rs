use purview::{Row, actions, window};

#[derive(Clone, Row)]
struct Return {
    rma: String,
    order: u32,
}

#[window]
#[derive(Clone)]
struct Returns {
    #[block(table)]
    returns: Vec<Return>,
}

#[actions]
impl Returns {
    /// Opens one return.
    #[action]
    fn open_return(&mut self, #[arg(from = returns.rma)] number: u32) {
        let _ = number;
    }
}

fn main() {}

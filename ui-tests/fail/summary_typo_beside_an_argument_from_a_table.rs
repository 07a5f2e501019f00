use purview::{Row, actions, window};

#[derive(Clone, Row)]
struct Return {
    rma: String,
}

#[window(summary = "{cunt} returns")]
#[derive(Clone)]
struct Returns {
    #[block(field)]
    count: u32,
    #[block(table)]
    returns: Vec<Return>,
}

#[actions]
impl Returns {
    #[action]
    fn open_return(&mut self, #[arg(from = returns.rma)] rma: String) {
        let _ = rma;
    }
}

fn main() {}

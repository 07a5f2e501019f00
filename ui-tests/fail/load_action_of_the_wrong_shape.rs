// A table's load action must take `offset` and `limit` and return a `Page`
// of the table's own rows: this one returns a plain list.
use purview::{actions, projection::Page, window};

#[window(summary = "{count} loans")]
#[derive(Clone)]
struct Loans {
    count: usize,
    #[block(table, limit = 5, load = load_loans, columns = ["Book", "Reader"])]
    loans: Vec<(u32, String)>,
    #[block(table, limit = 5, load = load_returns, columns = ["Book"])]
    returns: Vec<(u32,)>,
}

#[actions]
impl Loans {
    /// Fetch a range of loans.
    #[action(read_only)]
    fn load_loans(&self, offset: usize, limit: usize) -> Vec<(u32, String)> {
        self.loans.iter().skip(offset).take(limit).cloned().collect()
    }

    /// Fetch a range of returns, as pages of another table's rows.
    #[action(read_only)]
    fn load_returns(&self, offset: String, limit: usize) -> Page<(u32, String)> {
        let _ = offset;
        Page::slice(&self.loans, 0, limit)
    }
}

fn main() {}

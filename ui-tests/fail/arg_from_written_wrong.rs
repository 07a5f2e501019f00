use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Clinic {
    #[block(table, columns = ["Day", "Pet"])]
    visits: Vec<(String, u32)>,
}

#[actions]
impl Clinic {
    #[action]
    fn book(
        &mut self,
        #[arg(from = visits)] visit: u32,
        #[arg(message = "a date such as 2026-03-12")] day: String,
    ) {
        let _ = (visit, day);
    }
}

fn main() {}

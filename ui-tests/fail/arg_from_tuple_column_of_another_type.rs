use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Visits {
    #[block(table, columns = ["Day", "Pet"])]
    visits: Vec<(String, u32)>,
}

#[actions]
impl Visits {
    /// Moves the visit on that day.
    #[action]
    fn move_visit(&mut self, #[arg(from = visits.0)] day: u32) {
        let _ = day;
    }
}

fn main() {}

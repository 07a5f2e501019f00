use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Ticket;

#[actions]
impl Ticket {
    #[action]
    fn triage(
        &mut self,
        #[arg(range(min = 1, max = 5))] subject: String,
        #[arg(length(max = 3))] priority: u8,
        #[arg(pattern = "^[a-z]+$")] tags: Vec<String>,
    ) {
        let _ = (subject, priority, tags);
    }
}

fn main() {}

use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Ticket;

#[actions]
impl Ticket {
    #[action]
    fn triage(
        &mut self,
        #[arg(range(min = 5, max = 1))] priority: u8,
        #[arg(length())] subject: String,
        #[arg(pattern = "([a-z]+")] code: String,
        #[arg(pattern = r"^\p{Klingon}+$")] name: String,
        #[arg(range(min = "one"))] count: u32,
        #[arg(lenght(max = 3))] note: String,
        #[arg(pattern = r"^(?!admin$)[a-z]+$")] owner: String,
        #[arg(pattern = r"^\d{4}(?<!0000)$")] pin: String,
        #[arg(pattern = r"(?i)^[a-z]+$")] tag: String,
        #[arg(pattern = r"^[[:alpha:]]+\z")] word: String,
        #[arg(pattern = r"^\p{Greek}+$")] greek: String,
    ) {
        let _ = (priority, subject, code, name, count, note, owner, pin, tag, word, greek);
    }
}

fn main() {}

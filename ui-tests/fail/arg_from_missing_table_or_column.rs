use purview::{Row, actions, window};

#[derive(Clone, Row)]
struct Pet {
    id: u32,
    name: String,
}

#[window]
#[derive(Clone)]
struct Clinic {
    #[block(table)]
    pets: Vec<Pet>,
    #[block(table, columns = ["Day", "Pet"])]
    visits: Vec<(String, u32)>,
}

#[actions]
impl Clinic {
    #[action]
    fn book(
        &mut self,
        #[arg(from = owners.id)] owner: u32,
        #[arg(from = pets.species)] pet: u32,
        #[arg(from = visits.2)] visit: u32,
    ) {
        let _ = (owner, pet, visit);
    }
}

fn main() {}

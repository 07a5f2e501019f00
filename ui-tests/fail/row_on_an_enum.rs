use purview::Row;

#[derive(Row)]
enum Line {
    Product(String),
}

fn main() {}

use purview::Row;

struct Sku(u64);

#[derive(Row)]
struct Line {
    product: String,
    sku: Sku,
}

fn main() {}

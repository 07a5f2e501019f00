use purview::Row;

#[derive(Row)]
struct Line(String, u32);

fn main() {}

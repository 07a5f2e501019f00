//! examples/order_desk as a binary of this package, so the black-box tests
//! can spawn it (`CARGO_BIN_EXE_order_desk`).

#[path = "../../examples/order_desk/main.rs"]
mod order_desk;

fn main() -> std::process::ExitCode {
    order_desk::main()
}

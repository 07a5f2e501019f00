//! One compile-fail case per check the macros make, each with the message a
//! person sees (`fail/*.stderr`). The cases that must compile and run
//! (`pass/*.rs`) are test targets of their own (see Cargo.toml), so
//! trybuild only checks. The toolchain is pinned in rust-toolchain.toml so
//! the snapshots do not churn; regenerate them with
//! `TRYBUILD=overwrite cargo test -p purview-ui-tests`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("fail/*.rs");
}

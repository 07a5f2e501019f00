//! Any line through the stdio transport's decoding by method: whenever the
//! transport would take that path, the message must be the one rmcp's own
//! decoding makes of the same line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|line: &[u8]| {
    if let Some(same) = purview::__fuzz::by_method_agrees(line) {
        assert!(same, "decoded by method differently: {}", String::from_utf8_lossy(line));
    }
});

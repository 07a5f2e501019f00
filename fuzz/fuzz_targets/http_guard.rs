//! Raw header lines through the HTTP guard: it must not panic, and when it
//! lets a request through there is exactly one Host, naming a loopback
//! host, and the exact bearer token.
#![no_main]

use libfuzzer_sys::fuzz_target;

const TOKEN: &str = "fuzz-token";

/// What HTTP allows as a header name and value (the guard never sees
/// anything else: a client's headers are parsed before it runs).
fn valid(name: &[u8], value: &[u8]) -> bool {
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    !name.is_empty()
        && name.iter().all(token)
        && value.iter().all(|b| *b == b'\t' || (*b >= 0x20 && *b != 0x7f))
}

fuzz_target!(|data: &[u8]| {
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = data
        .split(|b| *b == b'\n')
        .filter_map(|line| {
            let colon = line.iter().position(|b| *b == b':')?;
            let value = line[colon + 1..].strip_prefix(b" ").unwrap_or(&line[colon + 1..]);
            Some((line[..colon].to_vec(), value.to_vec()))
        })
        .filter(|(name, value)| valid(name, value))
        .collect();
    if let Ok(text) = std::str::from_utf8(data)
        && let Some((host, _)) = purview::__fuzz::authority_host(text)
    {
        assert!(!host.contains(['@', '/', ' ']), "{host:?} parsed as a host");
    }
    if purview::__fuzz::check_headers(&pairs, TOKEN).is_ok() {
        let named = |name: &str| {
            pairs.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes())).collect::<Vec<_>>()
        };
        let hosts = named("host");
        assert_eq!(hosts.len(), 1, "passed with {} Host headers", hosts.len());
        let host = String::from_utf8_lossy(&hosts[0].1).to_ascii_lowercase();
        let allowed = ["localhost", "127.0.0.1", "[::1]"];
        assert!(allowed.iter().any(|a| host == *a || host.starts_with(&format!("{a}:"))), "{host:?}");
        // Origin: absent, or exactly one `http://localhost[:port]`,
        // `http://127.0.0.1[:port]` or `http://[::1][:port]` (the defaults),
        // nothing more.
        let origins = named("origin");
        assert!(origins.len() <= 1, "passed with {} Origin headers", origins.len());
        if let Some((_, origin)) = origins.first() {
            let origin = String::from_utf8_lossy(origin).to_ascii_lowercase();
            let rest = ["http://localhost", "http://127.0.0.1", "http://[::1]"]
                .iter()
                .find_map(|base| origin.strip_prefix(base))
                .unwrap_or_else(|| panic!("{origin:?} passed as an allowed Origin"));
            let port = rest.strip_prefix(':').unwrap_or(rest);
            assert!(
                rest.is_empty() || (rest.starts_with(':') && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())),
                "{origin:?} passed with more than a port after the host"
            );
        }
        let auth = named("authorization");
        // The scheme is case-insensitive (RFC 9110 §11.1); the token exact.
        assert!(auth.len() == 1 && auth[0].1.len() == 7 + TOKEN.len());
        assert!(auth[0].1[..7].eq_ignore_ascii_case(b"bearer ") && &auth[0].1[7..] == TOKEN.as_bytes());
    }
});

//! Keep-alive HTTP requests from a plain socket client that writes each
//! request in one `write` and acknowledges lazily, as most HTTP stacks do
//! (no `TCP_QUICKACK`): `tools/list` and a tool call on order_desk over
//! streamable HTTP, p50 per request (BENCHMARKS.md "Lazy ACKs").
//!
//! Measured four ways in the same run: Purview as it serves (`TCP_NODELAY`
//! on every accepted socket) and with Nagle's algorithm left on, as it was
//! before; each from the lazy client and from the same client asking for
//! quick ACKs (`TCP_QUICKACK` before every read), the baseline the ratios
//! are taken to. With Nagle on, an answer's body waits for the client's
//! delayed ACK of its head (about 40 ms on Linux).
//!
//! `cargo bench -p purview-benches --bench lazy_ack` (`PURVIEW_LAZY_ACK_CALLS`
//! changes the 50 requests per way).

#[path = "../../examples/order_desk/windows.rs"]
#[allow(dead_code)]
mod order_desk;

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    os::fd::AsRawFd,
    time::{Duration, Instant},
};

use purview::{http::HttpOptions, settings::ToolSurface};

/// A keep-alive connection speaking MCP over streamable HTTP by hand.
struct Raw {
    stream: TcpStream,
    addr: SocketAddr,
    session: Option<String>,
    quick_ack: bool,
    next_id: u64,
}

impl Raw {
    fn connect(addr: SocketAddr, quick_ack: bool) -> Self {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        let mut raw = Self { stream, addr, session: None, quick_ack, next_id: 1 };
        let init = serde_json::json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "lazy-ack", "version": "0"}}
        });
        let (head, _) = raw.post(&init.to_string());
        raw.session = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id").then(|| value.trim().to_owned())
            })
            .or_else(|| panic!("no session id in {head}"));
        raw.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        raw
    }

    /// Sends one JSON-RPC request and reads its whole answer.
    fn request(&mut self, method: &str, params: serde_json::Value) -> String {
        let id = self.next_id;
        self.next_id += 1;
        let body =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (head, body) = self.post(&body.to_string());
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(body.contains(&format!("\"id\":{id}")), "{body}");
        body
    }

    /// One POST, head and body in one write; the answer's head and body.
    fn post(&mut self, body: &str) -> (String, String) {
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if let Some(session) = &self.session {
            request.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        self.stream.write_all(request.as_bytes()).expect("write");
        self.read_answer()
    }

    fn read_more(&mut self, buffer: &mut Vec<u8>) {
        if self.quick_ack {
            let on: libc::c_int = 1;
            // SAFETY: a valid socket and a c_int option value we own.
            unsafe {
                libc::setsockopt(
                    self.stream.as_raw_fd(),
                    libc::IPPROTO_TCP,
                    libc::TCP_QUICKACK,
                    std::ptr::from_ref(&on).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                );
            }
        }
        let mut chunk = [0u8; 16 * 1024];
        let n = self.stream.read(&mut chunk).expect("read");
        assert!(n > 0, "the server closed the connection");
        buffer.extend_from_slice(&chunk[..n]);
    }

    /// Reads one HTTP/1.1 answer: a Content-Length body or a chunked one.
    fn read_answer(&mut self) -> (String, String) {
        let mut buffer = Vec::new();
        let end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            self.read_more(&mut buffer);
        };
        let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
        let mut rest = buffer.split_off(end);
        let header = |name: &str| {
            head.lines().find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.eq_ignore_ascii_case(name).then(|| v.trim().to_ascii_lowercase())
            })
        };
        if let Some(length) = header("content-length") {
            let length: usize = length.parse().expect("a length");
            while rest.len() < length {
                self.read_more(&mut rest);
            }
            return (head, String::from_utf8_lossy(&rest[..length]).into_owned());
        }
        if header("transfer-encoding").is_none_or(|t| !t.contains("chunked")) {
            return (head, String::new());
        }
        // Chunked: sizes in hex, the last chunk empty.
        let mut body = Vec::new();
        let mut at = 0;
        loop {
            let Some(line_end) = rest[at..].windows(2).position(|w| w == b"\r\n") else {
                self.read_more(&mut rest);
                continue;
            };
            let size_text = String::from_utf8_lossy(&rest[at..at + line_end]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .expect("a chunk size");
            let start = at + line_end + 2;
            while rest.len() < start + size + 2 {
                self.read_more(&mut rest);
            }
            if size == 0 {
                return (head, String::from_utf8_lossy(&body).into_owned());
            }
            body.extend_from_slice(&rest[start..start + size]);
            at = start + size + 2;
        }
    }
}

/// The median, in milliseconds.
fn p50(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1e3
}

fn measure(addr: SocketAddr, quick_ack: bool, calls: usize) -> (f64, f64) {
    let mut raw = Raw::connect(addr, quick_ack);
    // Unmeasured: the first requests of a fresh app fill its caches.
    for _ in 0..5 {
        raw.request("tools/list", serde_json::json!({}));
    }
    let mut list = Vec::new();
    let mut call = Vec::new();
    for _ in 0..calls {
        let started = Instant::now();
        let body = raw.request("tools/list", serde_json::json!({}));
        list.push(started.elapsed());
        assert!(body.contains("w2__load_rows"), "{body}");
        let started = Instant::now();
        let params =
            serde_json::json!({"name": "w2__load_rows", "arguments": {"offset": 0, "limit": 3}});
        let body = raw.request("tools/call", params);
        call.push(started.elapsed());
        assert!(body.contains("\"isError\":false"), "{body}");
    }
    (p50(list), p50(call))
}

fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let calls: usize = std::env::var("PURVIEW_LAZY_ACK_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(purview_benches::scaled(50, 5));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    println!("Keep-alive requests on order_desk over HTTP, {calls} of each, p50 in ms:\n");
    println!("| server | client | tools/list | tools/call | ×quick-ACK client |");
    println!("|---|---|---|---|---|");
    for (server, options) in [
        ("TCP_NODELAY (as served)", HttpOptions::default()),
        ("Nagle on (before)", HttpOptions::default().with_nagle()),
    ] {
        let app = order_desk::order_desk_app(ToolSurface::Both);
        let served = runtime.block_on(app.serve_http(options)).expect("serve");
        let addr = served.local_addr();
        let (quick_list, quick_call) = measure(addr, true, calls);
        let (lazy_list, lazy_call) = measure(addr, false, calls);
        println!("| {server} | quick ACKs (baseline) | {quick_list:.2} | {quick_call:.2} | 1.00 |");
        println!(
            "| {server} | lazy ACKs | {lazy_list:.2} | {lazy_call:.2} | {:.2} |",
            (lazy_list + lazy_call) / (quick_list + quick_call)
        );
        runtime.block_on(served.shutdown());
    }
}

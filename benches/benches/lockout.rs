//! Lock-out, as a table: for each way a hostile client can hold a scarce
//! thing over streamable HTTP (idle connections, slow headers, slow bodies,
//! churn, every session, streams, wrong tokens, an approval flood), how
//! many of a second client's requests succeeded and how long they took, on
//! a keep-alive session it opened before the attack and on a new
//! connection each time (RELIABILITY.md "Fair shares", BENCHMARKS.md);
//! then the attacks on the person's face (link guesses, streams, slow
//! writes), with the agent's requests and the person's clicks.
//! The attacks are the fairness harness's (`tests/support/fairness.rs`),
//! whose success rates the tests assert.
//!
//! `cargo bench -p purview-benches --bench lockout` (`PURVIEW_LOCKOUT_CALLS`
//! changes the 200 requests per way and attack).

#[path = "../../tests/support/fairness.rs"]
#[allow(dead_code)]
mod fairness;

use fairness::{Auth, Strategy};

fn main() {
    if !purview_benches::should_run() {
        return;
    }
    let calls: usize = std::env::var("PURVIEW_LOCKOUT_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(purview_benches::scaled(200, 10));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        // The quick run (scripts/test) takes the baseline and one attack:
        // each attack spends five seconds setting up, and tests/shares.rs
        // already asserts every one of them through the same harness.
        let strategies =
            if purview_benches::quick() { &Strategy::ALL[..2] } else { &Strategy::ALL[..] };
        let mut outcomes = Vec::new();
        for &strategy in strategies {
            match fairness::run(strategy, Auth::Named, calls).await {
                Ok(outcome) => outcomes.push(outcome),
                Err(error) => panic!("{}: {error}", strategy.name()),
            }
        }
        println!("Two named clients, each with its own token, {calls} requests each way:\n");
        println!("{}", fairness::table(&outcomes));
        // The person's face, attacked through its routes with a leaked
        // link's session: the agent on MCP and the person at the face.
        let face =
            if purview_benches::quick() { &Strategy::FACE[..1] } else { &Strategy::FACE[..] };
        let mut attacked = Vec::new();
        for &strategy in face {
            match fairness::run(strategy, Auth::Named, calls).await {
                Ok(outcome) => attacked.push(outcome),
                Err(error) => panic!("{}: {error}", strategy.name()),
            }
        }
        println!("The person's face under attack, {calls} requests each:\n");
        println!("{}", fairness::face_table(&attacked));
        let mut one = Vec::new();
        for auth in [Auth::Shared, Auth::None] {
            one.push(fairness::run(Strategy::SlowBody, auth, calls).await.expect("runs"));
        }
        println!("One shared token, and no token (where any local process passes the checks):\n");
        println!("{}", fairness::table(&one));
    });
}

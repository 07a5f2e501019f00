//! The fair-share table's own tests: who a connection is charged to,
//! which one goes when every slot is taken, and the wrong-token budget.

use super::*;

const HERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

/// Connections of `HERE` whose request proved no credential and is being
/// read or answered.
const ANSWERING: Client = Client::Answering(HERE);

fn checked(admitted: &Admitted, client: &str) {
    admitted.mark.checked(Some(client.into()));
}

/// A request that carried no token, checked and answered.
fn answered_token_less(admitted: &Admitted) {
    admitted.mark.checked(None);
    admitted.mark.settled();
}

/// `n` connections that each asked something with no token and were
/// answered, kept alive: a token-less crowd, all `local`.
fn token_less_crowd(connections: &Arc<Connections>, n: usize) -> Vec<Admitted> {
    (0..n)
        .map(|_| {
            let admitted = connections.admit(HERE).expect("room");
            answered_token_less(&admitted);
            admitted
        })
        .collect()
}

/// The crowd's reconnects: `n` new connections, each answered like the
/// crowd's.
fn reconnect(connections: &Arc<Connections>, crowd: &mut Vec<Admitted>, n: usize) {
    for _ in 0..n {
        let again = connections.admit(HERE).expect("the crowd recycles its own");
        answered_token_less(&again);
        crowd.push(again);
    }
}

#[test]
fn s12_a_client_recycles_its_own_unchecked_connections() {
    let connections = Connections::new(4);
    let idle: Vec<Admitted> = (0..10).filter_map(|_| connections.admit(HERE)).collect();
    let cut = idle.iter().filter(|a| a.cut.is_cancelled()).count();
    assert_eq!((idle.len(), cut), (10, 6), "each new one cuts the oldest");
    assert_eq!(connections.counts(&Client::newcomer(HERE)), (4, 4));
}

#[test]
fn s12_a_named_clients_connection_is_never_cut_for_a_crowd_from_one_address() {
    let connections = Connections::new(4);
    let good = connections.admit(HERE).expect("room");
    checked(&good, "good");
    // Idle, kept alive: the slow-body probe cut exactly this one.
    let mut hostile = Vec::new();
    for _ in 0..20 {
        let admitted = connections.admit(HERE).expect("recycles its own");
        admitted.mark.checked(None);
        hostile.push((admitted.mark.reading(), admitted));
    }
    assert!(!good.cut.is_cancelled(), "the session's connection stays");
    let again = connections.admit(HERE).expect("a new connection still gets in");
    assert!(!again.cut.is_cancelled());
}

#[test]
fn s12_a_token_less_crowds_reconnects_never_cut_a_newcomer() {
    // The crowd holds every slot, checked, with no token (`local`), and
    // reconnects; a newcomer whose headers are on their way is no one's
    // yet, so the crowd's reconnects cut the crowd's own connections.
    let connections = Connections::new(8);
    let mut crowd = token_less_crowd(&connections, 8);
    let newcomer = connections.admit(HERE).expect("the crowd holds the most");
    reconnect(&connections, &mut crowd, 20);
    assert!(!newcomer.cut.is_cancelled(), "the newcomer was never cut");
    answered_token_less(&newcomer);
    assert_eq!(newcomer.mark.client(), Client::address(HERE), "then it is `local`");
    assert_eq!(connections.counts(&Client::address(HERE)), (8, 8));
}

#[test]
fn s12_a_token_less_newcomer_is_no_crowds_until_its_first_request_is_answered() {
    // The same crowd; a newcomer of the same address sent a request with
    // no token, which passed the header checks, and its body is being
    // read. Counted as `local` from its checks on, it was the crowd's
    // cheapest connection and the crowd's reconnects cut it (1 of 20 new
    // connections, now and then, in the fairness harness).
    let connections = Connections::new(8);
    let mut crowd = token_less_crowd(&connections, 7);
    let newcomer = connections.admit(HERE).expect("room");
    newcomer.mark.checked(None);
    let reading = newcomer.mark.reading();
    reconnect(&connections, &mut crowd, 20);
    assert!(!newcomer.cut.is_cancelled(), "the newcomer's request was never cut");
    assert_eq!(connections.counts(&ANSWERING).1, 1);
    drop(reading);
    newcomer.mark.settled();
    assert_eq!(connections.counts(&ANSWERING).1, 0, "answered, it is `local`");
    assert_eq!(connections.counts(&Client::address(HERE)).1, 8);
    // A kept-alive connection's next request without a token is the
    // token-less client's from its checks on: only a first request waits.
    let kept = &crowd[crowd.len() - 1];
    kept.mark.checked(None);
    assert_eq!(connections.counts(&ANSWERING).1, 0);
}

#[test]
fn s12_a_token_less_request_is_no_crowds_of_fresh_connections_either() {
    // A crowd of the same address opens fresh connections that never send
    // a header, each replaced before it is a second old (new, not
    // unchecked). A newcomer whose first request proved no credential is
    // having its body read, the cheaper rank: were it still counted with
    // the newcomers, the crowd would hold the most of that kind and its
    // next connection would recycle it.
    let connections = Connections::new(8);
    let mut crowd: Vec<Admitted> = (0..7).map(|_| connections.admit(HERE).expect("room")).collect();
    let honest = connections.admit(HERE).expect("room");
    honest.mark.checked(None);
    let reading = honest.mark.reading();
    for _ in 0..20 {
        crowd.push(connections.admit(HERE).expect("the crowd recycles its own"));
    }
    assert!(!honest.cut.is_cancelled(), "the honest request was never cut");
    // And the same for a request to a route served beside MCP.
    drop(reading);
    honest.mark.settled();
    let person = crowd.pop().expect("a crowd");
    drop(person);
    let person = connections.admit(HERE).expect("room");
    person.mark.checked_beside();
    let _reading = person.mark.reading();
    for _ in 0..20 {
        crowd.push(connections.admit(HERE).expect("the crowd recycles its own"));
    }
    assert!(!person.cut.is_cancelled(), "the person's request was never cut");
}

#[test]
fn s12_a_request_beside_mcp_is_no_crowds_until_its_route_has_answered() {
    // A token-less crowd keeps every other slot idle through an open route
    // of the face; the person's request passed the header checks and its
    // body is being read before the route has seen its session. Counted
    // as the crowd's, it was the crowd's cheapest connection and its
    // reconnects cut it.
    let connections = Connections::new(8);
    let mut crowd: Vec<Admitted> = (0..7)
        .map(|_| {
            let admitted = connections.admit(HERE).expect("room");
            admitted.mark.checked_beside();
            admitted.mark.settled();
            admitted
        })
        .collect();
    let person = connections.admit(HERE).expect("room");
    person.mark.checked_beside();
    let reading = person.mark.reading();
    for _ in 0..20 {
        let again = connections.admit(HERE).expect("the crowd recycles its own");
        again.mark.checked_beside();
        again.mark.settled();
        crowd.push(again);
    }
    assert!(!person.cut.is_cancelled(), "the person's request was never cut");
    drop(reading);
    checked(&person, "beside:person");
    assert_eq!(person.mark.client(), Client::Named("beside:person".into()));
    // A request its route did not charge is the token-less client's once
    // answered, and an open route asked again on a kept-alive connection
    // leaves it no one's for as long as that request lasts.
    let kept = &crowd[crowd.len() - 1];
    assert_eq!(kept.mark.client(), Client::address(HERE));
    kept.mark.checked_beside();
    assert_eq!(connections.counts(&ANSWERING).1, 1);
    kept.mark.settled();
    assert_eq!(connections.counts(&ANSWERING).1, 0);
}

#[test]
fn s12_a_client_holding_every_slot_idle_still_opens_a_new_connection() {
    // Kept-alive connections that passed the checks (no token needed):
    // the probe's 256 of them left 1 new connection in 125 a place.
    let connections = Connections::new(4);
    let idle = token_less_crowd(&connections, 4);
    let working = connections.admit(HERE).expect("its oldest idle one makes way");
    assert!(idle[0].cut.is_cancelled() && !idle[1].cut.is_cancelled());
    working.mark.checked(None);
    let _busy = working.mark.busy();
    for _ in 0..3 {
        let again = connections.admit(HERE).expect("again");
        answered_token_less(&again);
    }
    assert!(!working.cut.is_cancelled(), "a connection at work is never recycled");
}

#[test]
fn s12_a_second_named_client_always_gets_a_connection_from_one_holding_all() {
    let connections = Connections::new(8);
    let hog: Vec<Admitted> = (0..8)
        .map(|_| {
            let admitted = connections.admit(HERE).expect("room");
            checked(&admitted, "hog");
            admitted
        })
        .collect();
    let mut mine = Vec::new();
    for _ in 0..5 {
        let admitted = connections.admit(HERE).expect("the hog holds the most");
        checked(&admitted, "me");
        mine.push(admitted);
    }
    assert!(mine.iter().all(|a| !a.cut.is_cancelled()));
    assert_eq!(hog.iter().filter(|a| a.cut.is_cancelled()).count(), 5);
    assert_eq!(connections.counts(&Client::Named("me".into())), (8, 5));
    assert_eq!(hog[7].mark.client(), Client::Named("hog".into()));
}

#[test]
fn s12_the_client_holding_the_most_gives_way_even_when_all_its_work_is_busy() {
    let connections = Connections::new(3);
    let mut busy = Vec::new();
    for _ in 0..3 {
        let admitted = connections.admit(HERE).expect("room");
        checked(&admitted, "hog");
        busy.push((admitted.mark.busy(), admitted));
    }
    let elsewhere = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 7));
    let newcomer = connections.admit(elsewhere).expect("the hog holds three");
    assert!(!newcomer.cut.is_cancelled());
    assert_eq!(busy.iter().filter(|(_, a)| a.cut.is_cancelled()).count(), 1);
    // A client holding as many as the newcomer would is not cut.
    let full = Connections::new(1);
    let one = full.admit(HERE).expect("room");
    checked(&one, "s");
    let _work = one.mark.busy();
    assert!(full.admit(elsewhere).is_none(), "refused, not cut");
}

#[test]
fn s12_a_closed_connection_frees_its_slot_though_its_marks_live_on() {
    let connections = Connections::new(2);
    let admitted = connections.admit(HERE).expect("room");
    let kept = admitted.mark.clone();
    drop(admitted);
    assert_eq!(connections.counts(&Client::newcomer(HERE)), (0, 0));
    drop(kept);
}

#[test]
fn s12_addresses_count_as_the_machines_they_name() {
    let v6 = |s: &str| Client::address(s.parse().unwrap());
    assert_eq!(v6("127.9.8.7"), v6("127.0.0.1"), "loopback is one machine");
    assert_eq!(v6("::1"), v6("127.0.0.1"));
    assert_eq!(v6("2001:db8:1:2::5"), v6("2001:db8:1:2:ffff::9"), "one /64");
    assert_ne!(v6("2001:db8:1:2::5"), v6("2001:db8:1:3::5"));
    assert_eq!(v6("::ffff:192.0.2.1"), v6("192.0.2.1"));
}

#[test]
fn wrong_tokens_wait_longer_and_longer_up_to_a_bound() {
    let failures = AuthFailures::default();
    let delays: Vec<Duration> = (0..20).map(|_| failures.failed(HERE)).collect();
    assert!(delays[..FREE_FAILURES as usize].iter().all(|d| *d < Duration::from_secs(1)));
    assert!(delays.windows(2).all(|w| w[0] <= w[1]));
    assert!(delays[19] >= MAX_DELAY);
}

#[test]
fn s12_wrong_tokens_from_many_addresses_leave_at_the_bound_in_all() {
    let failures = AuthFailures::default();
    // Every guess from a fresh address: none is slowed by its own
    // source, yet the answers are spread at the bound in all.
    let last = (0..4 * GUESSES_PER_SECOND)
        .map(|i| failures.failed(IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i))))
        .last()
        .unwrap_or_default();
    assert!(last >= Duration::from_millis(3900), "{last:?}");
}

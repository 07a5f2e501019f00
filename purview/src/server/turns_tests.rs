//! The CPU turns' own tests: who takes the next turn, the express lane,
//! turns given back at every await and on a panic, and cancelled requests.

use super::*;

fn named(name: &str) -> Client {
    Client::Named(name.into())
}

/// `client` has used `ms` of CPU just now: a turn charged that long.
fn used(turns: &Arc<Turns>, client: &Client, ms: u64) {
    let mut turn = turns.take(client).ok().expect("a free turn");
    turn.since -= Duration::from_millis(ms);
    drop(turn);
}

fn ordinary(turn: Result<Turn, oneshot::Receiver<Turn>>) -> Turn {
    let turn = turn.ok().expect("a turn at once");
    assert!(!turn.express, "an express turn where an ordinary one was free");
    turn
}

#[test]
fn for_this_machine_leaves_a_core_and_has_at_least_one_turn() {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    assert_eq!(Turns::for_this_machine().permits(), cores.saturating_sub(1).max(1));
    assert_eq!(Turns::new(0).permits(), 1);
}

#[test]
fn every_server_of_the_process_shares_the_machines_turns() {
    let (one, other) = (Turns::for_this_machine(), Turns::for_this_machine());
    assert!(Arc::ptr_eq(&one, &other), "a second server got turns of its own");
}

#[test]
fn s12_a_light_client_does_not_wait_behind_a_heavy_ones_turns() {
    let turns = Turns::new(1);
    let (heavy, light) = (named("heavy"), named("light"));
    used(&turns, &heavy, 20);
    let running = ordinary(turns.take(&heavy));
    let mut queued = turns.take(&heavy).err().expect("the heavy client waits");
    // The express lane: less than half of what everyone holding or
    // waiting has used.
    let express = turns.take(&light).ok().expect("the light client runs at once");
    assert!(express.express);
    // The express lane holds one turn; a second waits in line...
    let mut next = turns.take(&light).err().expect("one express turn at a time");
    drop(express);
    // ...and takes it when it is given back, before the heavy client's
    // older request, whose turn is still held.
    let express = next.try_recv().expect("the lightest waiter takes the express turn");
    assert!(queued.try_recv().is_err(), "the heavy client waits for its own lane");
    drop(running);
    let heavy_runs = queued.try_recv().expect("the ordinary turn, given back, goes to it");
    drop((heavy_runs, express));
    assert!(turns.idle(), "every turn given back");
}

#[test]
fn s12_the_client_that_used_least_takes_the_next_ordinary_turn() {
    let turns = Turns::new(1);
    let (heavy, light, idle) = (named("heavy"), named("light"), named("idle"));
    used(&turns, &heavy, 40);
    used(&turns, &light, 30);
    let running = ordinary(turns.take(&heavy));
    let express = turns.take(&idle).ok().expect("the express lane, to a client that used none");
    let mut heavy_waits = turns.take(&heavy).err().expect("waits");
    let mut light_waits = turns.take(&light).err().expect("waits: the express lane is taken");
    drop(running);
    let light_runs = light_waits.try_recv().expect("the lighter client goes first");
    assert!(heavy_waits.try_recv().is_err(), "the older request of the heavier one waits");
    drop(light_runs);
    let heavy_runs = heavy_waits.try_recv().expect("and runs next");
    drop((heavy_runs, express));
    assert!(turns.idle(), "every turn given back");
}

#[test]
fn s12_only_a_client_far_lighter_than_the_others_takes_the_express_turn() {
    let turns = Turns::new(1);
    let (heavy, alike, light) = (named("heavy"), named("alike"), named("light"));
    used(&turns, &heavy, 40);
    used(&turns, &alike, 30);
    used(&turns, &light, 10);
    let running = ordinary(turns.take(&heavy));
    // Lighter than the holder, but using the CPU alike: in line, so
    // two busy clients never take both lanes.
    let alike_waits = turns.take(&alike).err().expect("no express turn for a like client");
    // Less than half of everyone's: at once.
    let express = turns.take(&light).ok().expect("the express turn");
    assert!(express.express);
    drop((running, alike_waits, express));
    assert!(turns.idle(), "every turn given back, the waiters gone");
}

#[test]
fn s12_a_turn_granted_to_a_waiter_that_left_goes_on() {
    let turns = Turns::new(1);
    let (first, gone, last) = (named("first"), named("gone"), named("last"));
    used(&turns, &last, 10);
    let running = ordinary(turns.take(&first));
    drop(turns.take(&gone).err().expect("waits"));
    let mut waiting = turns.take(&last).err().expect("waits");
    drop(running);
    let turn = waiting.try_recv().expect("the turn passed over the waiter that left");
    drop(turn);
    assert!(turns.idle(), "every turn given back");
}

#[tokio::test]
async fn s12_a_handler_waits_for_a_turn_and_gives_it_back_at_each_await() {
    let turns = Turns::new(1);
    let (heavy, caller) = (named("heavy"), named("caller"));
    used(&turns, &caller, 10);
    let running = ordinary(turns.take(&heavy));
    let (tell, told) = oneshot::channel::<u32>();
    let polled = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = polled.clone();
    let handler = InTurns::new(
        async move {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            told.await.unwrap_or_default()
        },
        InLine::new(turns.clone(), caller),
    );
    let handler = tokio::spawn(handler);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(polled.load(std::sync::atomic::Ordering::SeqCst), 0, "ran without a turn");
    drop(running);
    for _ in 0..500 {
        if polled.load(std::sync::atomic::Ordering::SeqCst) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(polled.load(std::sync::atomic::Ordering::SeqCst), 1, "never given the turn");
    // Awaiting what it was told, it holds no turn.
    assert!(turns.idle(), "a turn held across an await");
    tell.send(7).expect("the handler listens");
    assert_eq!(handler.await.ok(), Some(7));
    assert!(turns.idle(), "every turn given back");
}

#[tokio::test]
async fn a_future_polled_inside_a_turn_runs_in_that_turn() {
    let turns = Turns::new(1);
    let (outer, inner) = (named("outer"), named("inner"));
    // Without the thread's mark the inner future would wait for the
    // one turn its own outer poll holds, and neither would end.
    let nested = InTurns::new(
        InTurns::new(async { 7 }, InLine::new(turns.clone(), inner)),
        InLine::new(turns.clone(), outer),
    );
    let answered = tokio::time::timeout(Duration::from_secs(5), nested).await;
    assert_eq!(answered.ok(), Some(7));
    assert!(turns.idle(), "every turn given back");
}

#[test]
fn a_poll_that_panics_leaves_its_turn() {
    let turns = Turns::new(1);
    let mut line = InLine::new(turns.clone(), named("panics"));
    let waker = std::task::Waker::noop();
    let mut cx = Context::from_waker(waker);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        line.run(&mut cx, |_| -> Poll<()> { panic!("a handler's bug") })
    }));
    assert!(panicked.is_err());
    assert!(!IN_TURN.get(), "the thread still counts as in a turn");
    assert!(turns.idle(), "the turn was not given back");
}

#[test]
fn what_a_client_used_halves_every_half_life() {
    let at = Instant::now();
    let used = Used { seconds: 1.0, at };
    assert!((used.now(at + HALF_LIFE) - 0.5).abs() < 1e-9);
    assert!((used.now(at + 3 * HALF_LIFE) - 0.125).abs() < 1e-9);
}

/// A call's work: two steps, counted in `ran`, a wait between them.
async fn two_steps(ran: Arc<std::sync::atomic::AtomicUsize>) -> u32 {
    ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(50)).await;
    ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    7
}

/// `two_steps` as a handler runs it: in the caller's turns, stopping
/// where `at` lets it once `cancel` fires.
async fn handled(
    turns: Arc<Turns>,
    ran: Arc<std::sync::atomic::AtomicUsize>,
    cancel: CancellationToken,
    at: Cancel,
) -> u32 {
    let started = std::sync::atomic::AtomicBool::new(false);
    let work = InTurns::new(
        marked(&started, &cancel, two_steps(ran)),
        InLine::new(turns, named("caller")),
    );
    unless_cancelled(work, &started, &cancel, at, || 0).await
}

#[tokio::test]
async fn s12_a_call_cancelled_while_it_waits_for_a_turn_never_runs() {
    let turns = Turns::new(1);
    let running = ordinary(turns.take(&named("heavy")));
    let (ran, cancel) =
        (Arc::new(std::sync::atomic::AtomicUsize::new(0)), CancellationToken::new());
    let call =
        tokio::spawn(handled(turns.clone(), ran.clone(), cancel.clone(), Cancel::BeforeItStarts));
    tokio::time::sleep(Duration::from_millis(30)).await;
    cancel.cancel();
    let answered = tokio::time::timeout(Duration::from_secs(5), call).await;
    assert_eq!(answered.ok().and_then(Result::ok), Some(0), "the cancelled call still waits");
    drop(running);
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 0, "the call ran after all");
    assert!(turns.idle(), "its place in line was kept");
}

#[tokio::test]
async fn s12_a_call_cancelled_once_begun_runs_to_its_end_and_a_read_stops() {
    for (at, answer, steps) in [(Cancel::BeforeItStarts, 7, 2), (Cancel::Anywhere, 0, 1)] {
        let turns = Turns::new(1);
        let (ran, cancel) =
            (Arc::new(std::sync::atomic::AtomicUsize::new(0)), CancellationToken::new());
        let handler = tokio::spawn(handled(turns.clone(), ran.clone(), cancel.clone(), at));
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 1, "{at:?}: begun");
        cancel.cancel();
        assert_eq!(handler.await.ok(), Some(answer), "{at:?}");
        assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), steps, "{at:?}");
        assert!(turns.idle(), "every turn given back");
    }
}

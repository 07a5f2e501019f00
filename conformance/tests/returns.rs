//! A web shop's returns desk, shaped like the records a newcomer's app
//! has: each return opens a window of its own ("Return RMA-10003"), and a
//! refund is paid to one of that return's own payments, picked
//! `from = payments.reference`; no `--hint` could name one, as every
//! record has its own. The walk takes the values from the table the
//! argument's description names, and counts the windows of one kind as
//! one: every seed from 1 to 8 covers every operation within 400 steps,
//! with one kind of return window however many it opened. When the
//! refund waits for a person at the app, the walk says it cannot answer
//! that and how to build the app so it can.

use std::time::Duration;

use purview::{App, Context, Row, actions, window};
use purview_conformance::{Explorer, Report};

#[derive(Clone, Row)]
struct ReturnRow {
    rma: String,
    order: u32,
}

#[derive(Clone, Row)]
struct Payment {
    reference: String,
    cents: u32,
}

/// The desk: every return, and a way into each.
#[window(title = "Returns", summary = "{count} returns")]
#[derive(Clone)]
struct Returns {
    count: usize,
    #[block(table)]
    returns: Vec<ReturnRow>,
}

#[actions]
impl Returns {
    /// Opens one return.
    #[action(read_only)]
    fn open_return(
        &mut self,
        /// The return to open.
        #[arg(from = returns.rma)]
        rma: String,
        cx: &mut Context,
    ) {
        let Some(row) = self.returns.iter().find(|r| r.rma == rma) else {
            cx.invalid("rma", "no return has this number");
            return;
        };
        let payments = (1..=2)
            .map(|i| Payment { reference: format!("PAY-{}-{i}", row.order), cents: 1_000 * i })
            .collect();
        if let Err(e) = cx.open(Return { rma, refunded: 0, payments }) {
            cx.invalid("rma", e.to_string());
        }
    }
}

/// One return: its payments, and the refund paid back to one of them.
#[window(title = "Return {rma}", summary = "{refunded} cents refunded")]
#[derive(Clone)]
struct Return {
    rma: String,
    #[block(field)]
    refunded: u32,
    #[block(table)]
    payments: Vec<Payment>,
}

#[actions]
impl Return {
    /// Pays a payment of this return back. It can be paid again.
    #[action(approval, destructive = false)]
    fn refund(
        &mut self,
        /// The payment to pay back.
        #[arg(from = payments.reference)]
        payment: String,
        cx: &mut Context,
    ) {
        match self.payments.iter().find(|p| p.reference == payment) {
            Some(paid) => self.refunded += paid.cents,
            None => cx.invalid("payment", "not a payment of this return"),
        }
    }

    /// Closes the return.
    #[action(idempotent)]
    fn done(&mut self, cx: &mut Context) {
        cx.close();
    }
}

fn returns_desk() -> App {
    let builder = App::builder().when_no_one_can_approve(purview::approval::Approval::Approve);
    returns_desk_from(builder)
}

fn returns_desk_from(builder: purview::AppBuilder) -> App {
    let app = builder.name("returns").coalesce(Duration::ZERO).build();
    let returns: Vec<ReturnRow> = (0..300u32)
        .map(|i| ReturnRow { rma: format!("RMA-{}", 10_000 + i), order: 50_000 + i })
        .collect();
    app.open(Returns { count: returns.len(), returns }).expect("the desk opens");
    app
}

async fn walk(seed: u64) -> Report {
    Explorer::new().seed(seed).steps(400).explore(returns_desk).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s4_2_arguments_from_a_table_take_each_records_own_values_and_records_are_one_kind() {
    for seed in 1..=8 {
        let report = walk(seed).await;
        let tools = &report.coverage.tools;
        let failing: Vec<&String> = tools
            .iter()
            .filter(|(key, c)| c.succeeded == 0 && !key.starts_with('('))
            .map(|(key, _)| key)
            .chain(&report.coverage.never_called)
            .collect();
        assert!(failing.is_empty(), "seed {seed}: {failing:?}\n{report}");
        let refunds: Vec<&String> = tools.keys().filter(|k| k.ends_with("· refund")).collect();
        assert_eq!(refunds.len(), 1, "seed {seed}: one kind of return window\n{report}");
        let kinds: Vec<&String> =
            report.coverage.windows.keys().filter(|t| t.starts_with("Return RMA-")).collect();
        assert_eq!(kinds.len(), 1, "seed {seed}: {kinds:?}");
        assert!(report.coverage.windows[kinds[0]] >= 1, "seed {seed}");
        assert_eq!(tools[refunds[0]].fields.get("payment"), None, "seed {seed}\n{report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_the_person_gives_in_the_app_is_named_as_what_the_walk_cannot_answer() {
    // The person at the app never answers: the face is closed.
    let asked_in_the_app = || {
        let builder =
            App::builder().approver(|_| std::future::pending::<purview::approval::Approval>());
        returns_desk_from(builder)
    };
    let report = Explorer::new()
        .seed(1)
        .steps(400)
        .call_timeout(Duration::from_secs(2))
        .explore(asked_in_the_app)
        .await;
    let stopped = report.stopped.clone().unwrap_or_default();
    assert!(stopped.contains("refund"), "{report}");
    assert!(stopped.contains("waits for a person's approval"), "{stopped}");
    assert!(stopped.contains("WhoApproves::InAppOrClient"), "{stopped}");
    assert!(!stopped.contains("--steps") && !stopped.contains("--hint"), "{stopped}");
}

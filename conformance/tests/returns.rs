//! A web shop's returns desk, shaped like the records a newcomer's app
//! has: each return opens a window of its own ("Return RMA-10003"), and a
//! refund is paid to one of that return's own payments, picked
//! `from = payments.reference`; no `--hint` could name one, as every
//! record has its own. The walk takes the values from the table the
//! argument's description names, and counts the windows of one kind as
//! one: every seed from 1 to 8 covers every operation within 400 steps,
//! with one kind of return window however many it opened. When the
//! refund waits for a person at the app (in-process, or over HTTP with
//! the browser face asking), the walk says it cannot answer that and how
//! to build the app so it can; and when no write changes
//! its own window (a label printer), it says no number of steps will
//! exercise §10.1, and what kind of action would.

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

/// The same over HTTP, as a newcomer runs the kit against the app it
/// serves: the refund is asked of the person at the browser face, who
/// never answers; the walk says the same, and no more steps or hints.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_an_approval_the_person_gives_at_the_face_is_named_as_what_the_walk_cannot_answer()
 {
    let queue = purview::approval::ApprovalQueue::new();
    let app = returns_desk_from(App::builder().approver(queue.clone()));
    let face = purview_web::Face::answering(app.clone(), queue.clone());
    let options = face.serve_beside(purview::http::HttpOptions::default());
    let server = app.serve_http(options).await.expect("the desk serves HTTP");
    // Whether the question reached the person's queue, where the face
    // shows it, while the walk waited.
    let asked = tokio::spawn(async move {
        loop {
            if queue.pending().iter().any(|p| p.request.action == "refund") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let report = Explorer::new()
        .seed(1)
        .steps(400)
        .call_timeout(Duration::from_secs(2))
        .run(&purview_conformance::Endpoint::http(server.url()))
        .await;
    server.shutdown().await;
    let asked = tokio::time::timeout(Duration::ZERO, asked).await;
    assert!(matches!(asked, Ok(Ok(()))), "the person was asked:\n{report}");
    let stopped = report.stopped.clone().unwrap_or_default();
    assert!(stopped.contains("refund"), "{report}");
    assert!(stopped.contains("waits for a person's approval"), "{stopped}");
    assert!(stopped.contains("WhoApproves::InAppOrClient"), "{stopped}");
    assert!(!stopped.contains("--steps") && !stopped.contains("--hint"), "{stopped}");
}

/// A label printer: each print opens a label, and a label can only be
/// closed. No write changes the window it is called on.
#[window(title = "Printer", summary = "Prints shipping labels")]
#[derive(Clone)]
struct Printer;

#[actions]
impl Printer {
    /// Prints a label for an order.
    #[action]
    fn print(&mut self, #[arg(range(min = 1, max = 9))] order: u32, cx: &mut Context) {
        if let Err(e) = cx.open(Label { order }) {
            cx.invalid("order", e.to_string());
        }
    }
}

#[window(title = "Label", summary = "Label for order {order}")]
#[derive(Clone)]
struct Label {
    order: u32,
}

#[actions]
impl Label {
    /// Puts the label away.
    #[action(idempotent)]
    fn done(&mut self, cx: &mut Context) {
        cx.close();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s10_1_an_app_whose_writes_never_change_their_own_window_is_told_what_would() {
    let printer = || {
        let app = App::builder().name("printer").coalesce(Duration::ZERO).build();
        app.open(Printer).expect("the printer opens");
        app
    };
    let report = Explorer::new().seed(1).steps(400).explore(printer).await;
    let gap = report.gaps.iter().find(|g| g.what == "serialized");
    let gap = gap.unwrap_or_else(|| panic!("no serialized gap:\n{report}"));
    assert!(gap.cause.contains("at any number of steps"), "{report}");
    assert!(gap.fix.starts_with("more --steps will not help"), "{report}");
    assert!(gap.fix.contains("changes what its own window shows"), "{report}");
}

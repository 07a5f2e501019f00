//! The windows of order_desk, written with Purview's macros only.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use purview::{
    App, AppBuilder, Context, Secret, actions, projection::Page, settings::ToolSurface, window,
};
use serde::{Deserialize, Serialize};

/// The PIN that unlocks the app-level lock screen.
pub const UNLOCK_PIN: &str = "1234";

/// Which field `edit_field` changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EditableField {
    /// Who receives the order.
    Recipient,
    /// The amount, such as "$12.50".
    Amount,
}

/// Reads "$1,250.50", "1250.5" or "12" as a positive amount of money in
/// whole cents ("0.001" is not money).
fn parse_money(text: &str) -> Option<f64> {
    let cleaned: String =
        text.trim().trim_start_matches('$').chars().filter(|c| *c != ',').collect();
    if cleaned.split_once('.').is_some_and(|(_, cents)| cents.len() > 2) {
        return None;
    }
    let value: f64 = cleaned.parse().ok()?;
    valid_amount(value).then_some(value)
}

/// Finite, at least one cent, in whole cents, and below a billion
/// (`1e-9` is neither zero nor money).
fn valid_amount(value: f64) -> bool {
    let cents = value * 100.0;
    value.is_finite() && value < 1e9 && cents.round() >= 1.0 && (cents.round() - cents).abs() < 1e-6
}

const AMOUNT_RULE: &str =
    "must be a positive amount of money in dollars and cents, such as 12.50 or $12.50";

/// What is wrong with a recipient's name, if anything: it is shown to the
/// person, asked about in approvals and printed on the order, so it must be
/// one plain line — no control characters, line separators, zero-width or
/// tag characters, or direction overrides that would make it read
/// differently from what it is ([`purview::constraint::plain_line`]).
fn recipient_problem(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        Some("cannot be empty".into())
    } else if name.chars().count() > 200 {
        Some("must be at most 200 characters".into())
    } else {
        purview::constraint::plain_line(name).err()
    }
}

fn money(value: f64) -> String {
    format!("${value:.2}")
}

/// Order #12345, being edited.
#[window(title = "Order Editor", summary_fn = describe)]
#[derive(Clone)]
pub struct OrderEditor {
    pub order: u32,
    #[block(text)]
    pub heading: String,
    #[block(field)]
    pub recipient: String,
    #[block(field)]
    pub amount: String,
    #[block(field, label = "Payment password", sensitive)]
    pub password: Secret<String>,
    #[block(table, columns = ["Product", "Quantity"])]
    pub items: Vec<(String, u32)>,
    #[block(notice = "error")]
    pub recipient_error: Option<String>,
    #[block(notice = "success")]
    pub submitted_notice: Option<String>,
    pub submitted: bool,
}

impl Default for OrderEditor {
    fn default() -> Self {
        let mut editor = Self {
            order: 12345,
            heading: "Order #12345".into(),
            recipient: String::new(),
            amount: money(100.0),
            password: Secret::new("hunter2".into()),
            items: vec![("A".into(), 2), ("B".into(), 1)],
            recipient_error: None,
            submitted_notice: None,
            submitted: false,
        };
        editor.check();
        editor
    }
}

#[actions]
impl OrderEditor {
    /// Change one field of the order (until it is submitted).
    #[action(idempotent, available = editable)]
    fn edit_field(
        &mut self,
        /// The field to change: "recipient" or "amount".
        field: EditableField,
        /// The new value. Amounts are positive money values such as "12.50" or "$12.50".
        value: String,
        cx: &mut Context,
    ) {
        match field {
            EditableField::Recipient => match recipient_problem(&value) {
                Some(problem) => cx.invalid("value", problem),
                None => self.recipient = value.trim().to_owned(),
            },
            EditableField::Amount => match parse_money(&value) {
                Some(amount) => self.amount = money(amount),
                None => cx.invalid("value", AMOUNT_RULE),
            },
        }
        self.check();
    }

    /// Set the payment password (until the order is submitted). It is never
    /// shown back: the window shows it masked.
    #[action(idempotent, available = editable)]
    fn set_password(
        &mut self,
        /// The new payment password.
        password: Secret<String>,
    ) {
        self.password = password;
    }

    /// Set the recipient and the amount together (until the order is submitted).
    #[action(available = editable)]
    fn set_details(
        &mut self,
        /// Who receives the order; must not be empty.
        recipient: String,
        /// The amount in dollars; must be greater than 0.
        amount: f64,
        cx: &mut Context,
    ) {
        if let Some(problem) = recipient_problem(&recipient) {
            cx.invalid("recipient", problem);
        }
        if !(amount.is_finite() && amount > 0.0) {
            cx.invalid("amount", "must be greater than 0");
        } else if !valid_amount(amount) {
            cx.invalid("amount", AMOUNT_RULE);
        }
        self.recipient = recipient.trim().to_owned();
        self.amount = money(amount);
        self.check();
    }

    /// Submit the order. A "Confirm submission" dialog opens and must be answered.
    #[action(destructive, available = can_submit)]
    fn submit(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        let dialog = cx.open_modal(ConfirmSubmission {
            order: self.order,
            recipient: self.recipient.clone(),
            amount: self.amount.clone(),
        })?;
        cx.message(format!("Submitted for confirmation: answer the dialog {dialog}"));
        Ok(())
    }

    /// Bring the editor to the front, so the person sees where the agent works.
    #[action(idempotent)]
    fn focus(&mut self, cx: &mut Context) {
        cx.request_focus();
        cx.message("The Order Editor is in front");
    }

    /// A submitted order is read-only.
    pub fn editable(&self) -> bool {
        !self.submitted
    }

    pub fn can_submit(&self) -> bool {
        !self.recipient.is_empty() && !self.submitted
    }

    pub fn describe(&self) -> String {
        if self.submitted {
            return format!("Order #{} has been submitted to {}", self.order, self.recipient);
        }
        let missing =
            [self.recipient.is_empty(), self.amount.is_empty(), !self.password.is_filled()]
                .into_iter()
                .filter(|m| *m)
                .count();
        match missing {
            0 => format!("Editing order #{}; every field is filled in", self.order),
            1 => format!("Editing order #{}; 1 field is still to fill in", self.order),
            n => format!("Editing order #{}; {n} fields are still to fill in", self.order),
        }
    }

    pub fn check(&mut self) {
        self.recipient_error =
            self.recipient.is_empty().then(|| "Recipient cannot be empty".to_owned());
    }

    pub fn mark_submitted(&mut self) {
        self.submitted = true;
        self.submitted_notice = Some(format!("Order #{} was submitted", self.order));
    }
}

/// Asks to confirm a submission; owned by the editor, which it blocks.
#[window(
    title = "Confirm submission",
    summary = "Confirm submitting order #{order} to {recipient} for {amount}"
)]
#[derive(Clone)]
pub struct ConfirmSubmission {
    pub order: u32,
    #[block(field)]
    pub recipient: String,
    #[block(field)]
    pub amount: String,
}

#[actions]
impl ConfirmSubmission {
    /// Submit the order for real and close this dialog.
    #[action(destructive)]
    fn confirm(&mut self, cx: &mut Context) {
        if let Some(editor) = cx.owner_id() {
            cx.update::<OrderEditor>(&editor, OrderEditor::mark_submitted);
        }
        cx.close();
        cx.message(format!("Order #{} submitted", self.order));
    }

    /// Close this dialog without submitting.
    #[action(idempotent)]
    fn cancel(&mut self, cx: &mut Context) {
        cx.close();
        cx.message("Submission cancelled; the editor is operable again");
    }

    /// Open the terms of sale on top of this dialog.
    #[action(read_only)]
    fn show_terms(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open_modal(Terms)?;
        Ok(())
    }
}

/// The terms of sale; owned by the confirmation dialog.
#[window(title = "Terms", summary = "The terms of sale that apply to this order")]
#[derive(Clone)]
pub struct Terms;

#[actions]
impl Terms {
    /// Close the terms and return to the confirmation dialog.
    #[action(idempotent)]
    fn close(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// A revenue report too large to inline: the blocks show the first rows, the
/// rest comes through `load_rows` (§9).
#[window(
    title = "Report Details",
    summary = "Revenue report with {total} rows; the first 5 are shown, load_rows fetches any range"
)]
#[derive(Clone)]
pub struct ReportDetails {
    pub total: usize,
    #[block(table, limit = 5, load = load_rows, columns = ["Row", "Region", "Revenue"])]
    pub rows: Arc<Vec<(u32, String, f64)>>,
}

/// Rows in the revenue report.
const REPORT_ROWS: u32 = 10_000;

/// Row `i` (from 0) of the revenue report, as its source has it.
fn report_row(i: u32) -> (u32, String, f64) {
    const REGIONS: [&str; 4] = ["North", "South", "East", "West"];
    (i + 1, REGIONS[i as usize % 4].to_owned(), f64::from((i * 7919) % 10_000) + 0.5)
}

impl Default for ReportDetails {
    fn default() -> Self {
        let rows: Vec<(u32, String, f64)> = (0..REPORT_ROWS).map(report_row).collect();
        Self { total: rows.len(), rows: Arc::new(rows) }
    }
}

#[actions]
impl ReportDetails {
    /// Fetch a range of report rows.
    #[action(read_only, idempotent)]
    fn load_rows(
        &self,
        /// Index of the first row, from 0.
        offset: usize,
        /// How many rows, at most 1000.
        limit: usize,
        cx: &mut Context,
    ) -> Page<(u32, String, f64)> {
        if limit > 1000 {
            cx.invalid("limit", "must be at most 1000");
        }
        if offset >= self.rows.len() {
            cx.invalid("offset", format!("must be below {}, the number of rows", self.rows.len()));
        }
        Page::slice(&self.rows, offset, limit.min(1000))
    }

    /// Reload the report.
    #[action(read_only, idempotent)]
    async fn refresh(&mut self, cx: &mut Context) {
        // A long action: it reloads in batches, lets the app run between
        // them, and says how far it has got to a client that asked.
        const BATCH: u32 = 1000;
        let mut rows = Vec::with_capacity(REPORT_ROWS as usize);
        for start in (0..REPORT_ROWS).step_by(BATCH as usize) {
            rows.extend((start..(start + BATCH).min(REPORT_ROWS)).map(report_row));
            let loaded = rows.len() as u64;
            let total = u64::from(REPORT_ROWS);
            cx.progress(loaded, total, format!("Reloaded {loaded} of {total} rows"));
            tokio::task::yield_now().await;
        }
        self.total = rows.len();
        self.rows = Arc::new(rows);
        cx.message(format!("The report is up to date ({} rows)", self.total));
    }

    /// Close the report window.
    #[action]
    fn close(&mut self, cx: &mut Context) {
        cx.close();
    }
}

/// Wrong PINs tolerated before each further try must wait.
const FREE_TRIES: u32 = 3;
/// The longest wait between tries.
const MAX_WAIT: Duration = Duration::from_secs(300);
/// Wrong PINs from agents after which each further try from an agent waits
/// [`COOL_DOWN`]: agents can still unlock a headless app, only slowly.
const AGENT_TRIES: u32 = 10;
/// The wait between agents' tries once they have had [`AGENT_TRIES`] wrong.
const COOL_DOWN: Duration = Duration::from_secs(15 * 60);

/// One caller's wrong PINs so far and when the last one came. Only PINs
/// that were looked at count: a try refused for coming too soon is not
/// looked at, so it neither counts nor restarts the wait.
#[derive(Debug, Default)]
pub struct Tries {
    wrong: u32,
    last: Option<Instant>,
}

impl Tries {
    /// How long to wait before the next try is looked at, if at all; from
    /// the `cool_down_after`-th wrong PIN on, [`COOL_DOWN`] each time.
    fn wait(&self, cool_down_after: u32) -> Option<Duration> {
        let over = self.wrong.checked_sub(FREE_TRIES)?;
        let wait = if self.wrong >= cool_down_after {
            COOL_DOWN
        } else {
            Duration::from_secs(1u64 << over.min(9)).min(MAX_WAIT)
        };
        let waited = self.last.map_or(wait, |at| at.elapsed());
        wait.checked_sub(waited).filter(|left| !left.is_zero())
    }

    fn failed(&mut self) {
        self.wrong += 1;
        self.last = Some(Instant::now());
    }
}

/// Wrong PINs per caller: the person's own, and each agent client's (keyed
/// by [`Context::client`], so a new session or connection of the same
/// client does not start afresh, and one client's wrong PINs never hold
/// back another client, nor the person at the keyboard). Shared by every
/// copy of the lock screen, because a wrong PIN fails its call (and a
/// failed call applies nothing to the view-model), yet must still count.
#[derive(Debug, Default)]
pub struct Attempts {
    person: Tries,
    agents: HashMap<String, Tries>,
}

/// Clients whose wrong PINs are counted apart; beyond them (only possible
/// where clients are known by address), the rest share one count.
const COUNTED_CLIENTS: usize = 1024;

impl Attempts {
    /// The wrong PINs of the calling agent's client.
    fn of_agent(&mut self, cx: &Context) -> &mut Tries {
        let key = cx.client().map_or_else(|| "in-process".to_owned(), ToString::to_string);
        let key = if self.agents.len() >= COUNTED_CLIENTS && !self.agents.contains_key(&key) {
            "others".to_owned()
        } else {
            key
        };
        self.agents.entry(key).or_default()
    }
}

/// The lock screen: an app-level modal.
#[window(title = "Locked", summary = "The application is locked; unlock it with the PIN")]
#[derive(Clone)]
pub struct Locked {
    #[block(notice = "warn")]
    pub notice: String,
    pub attempts: Arc<Mutex<Attempts>>,
}

impl Locked {
    pub fn new() -> Self {
        Self {
            notice: format!(
                "Locked: enter the PIN to continue. After {FREE_TRIES} wrong PINs each try must wait longer, up to {} minutes; after {AGENT_TRIES} wrong PINs from one agent client, that client may try once every {} minutes.",
                MAX_WAIT.as_secs() / 60,
                COOL_DOWN.as_secs() / 60
            ),
            attempts: Arc::default(),
        }
    }
}

impl Default for Locked {
    fn default() -> Self {
        Self::new()
    }
}

#[actions]
impl Locked {
    /// Unlock the application. After three wrong PINs each try must wait
    /// longer (the error says how long); after ten wrong PINs from one
    /// client, that client may try once every 15 minutes.
    #[action]
    fn unlock(
        &mut self,
        /// The PIN.
        pin: Secret<String>,
        cx: &mut Context,
    ) {
        let mut attempts = self.attempts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let agent = cx.called_by().is_agent();
        let (tries, cool_down_after) = if agent {
            (attempts.of_agent(cx), AGENT_TRIES)
        } else {
            (&mut attempts.person, u32::MAX)
        };
        if let Some(left) = tries.wait(cool_down_after) {
            let whose = if agent && tries.wrong >= AGENT_TRIES {
                format!(
                    "this client has entered {AGENT_TRIES} wrong PINs, so it may try once every {} minutes (other clients and the person at the app are not held back)",
                    COOL_DOWN.as_secs() / 60
                )
            } else {
                "too many wrong PINs".to_owned()
            };
            cx.invalid(
                "pin",
                format!("{whose}: the next try is possible in {} s", left.as_secs().max(1)),
            );
        } else if pin.expose() == UNLOCK_PIN {
            // Only the caller's own count starts afresh: another client's
            // wrong PINs still count against it.
            *tries = Tries::default();
            cx.close();
            cx.message("Unlocked");
        } else {
            tries.failed();
            cx.invalid("pin", "wrong PIN");
        }
    }
}

/// The id of a window an action opened.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
    /// The new window's id.
    pub window_id: String,
}

/// Application-wide actions (`app__…` tools).
#[derive(Clone)]
pub struct Desk;

#[actions(app)]
impl Desk {
    /// Open another Report Details window.
    #[action]
    fn new_report(&mut self, cx: &mut Context) -> Result<Opened, purview::Error> {
        Ok(Opened { window_id: cx.open(ReportDetails::default())? })
    }

    /// Lock the application until the PIN is entered.
    #[action]
    fn lock(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open_app_modal(Locked::new())?;
        Ok(())
    }
}

/// The order_desk application on the given tool surface: its app-level
/// actions, the Order Editor (w1) and Report Details (w2).
#[allow(dead_code)] // used by desk_gui and the tests, not by the binary
pub fn order_desk_app(surface: ToolSurface) -> App {
    order_desk(App::builder().tool_surface(surface))
}

/// order_desk from a builder the caller has configured (a tool surface, an
/// approval requirement, limits).
pub fn order_desk(builder: AppBuilder) -> App {
    let app = builder
        .name("order_desk")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions(
            "Order Desk edits order #12345 and browses a revenue report. Amounts are dollars. \
             Submitting an order needs a recipient and a confirmation in the dialog that opens.",
        )
        .app_actions(Desk)
        .build();
    // These types' definitions are checked at compile time and nothing else
    // is open yet, so opening cannot fail.
    app.open(OrderEditor::default()).expect("open the Order Editor");
    app.open(ReportDetails::default()).expect("open Report Details");
    app
}

#[cfg(test)]
mod pin_tests {
    // Benches include this file with `cfg(test)` but no tests.
    #[allow(unused_imports)]
    use super::*;

    #[test]
    fn after_ten_wrong_pins_agents_wait_a_cool_down_not_for_ever() {
        let now = Instant::now();
        let tries = Tries { wrong: AGENT_TRIES, last: Some(now) };
        let left = tries.wait(AGENT_TRIES).expect("a wait");
        assert!(left > MAX_WAIT && left <= COOL_DOWN, "{left:?}");
        let long_ago = now.checked_sub(COOL_DOWN + Duration::from_secs(1));
        let waited = Tries { wrong: AGENT_TRIES + 5, last: long_ago };
        assert_eq!(waited.wait(AGENT_TRIES), None, "agents may try again");
        let person = Tries { wrong: AGENT_TRIES, last: Some(now) };
        assert!(person.wait(u32::MAX).is_some_and(|left| left <= MAX_WAIT));
    }
}

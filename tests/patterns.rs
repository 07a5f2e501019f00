//! The flows of the Patterns guide (purview/guide/patterns.md), run against an MCP
//! session: what an agent reads and is told, not only what the view-models
//! hold. The guide's own examples run as doctests of `purview`; these check
//! the same behaviour from the wire, plus `App::windows_of`.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicBool, Ordering},
};

use anyhow::{Result, ensure};
use purview::{
    App, Context, Secret, ToolError, actions, approval::Approval, approval::ApprovalRequest,
    model::ErrorCode, window,
};
use purview_tests::{Agent, Note};
use serde_json::json;

// ---- two windows that must agree -------------------------------------------

#[window(title = "Orders", summary = "{count} order(s)")]
#[derive(Clone)]
struct Orders {
    count: usize,
    #[block(table, columns = ["Order", "Customer", "Status"])]
    rows: Vec<(u32, String, String)>,
    /// The detail windows this table opened, to find them again.
    details: Vec<String>,
}

impl Orders {
    fn with_order(order: u32) -> Self {
        Self { count: 1, rows: vec![(order, "Ada".into(), "pending".into())], details: vec![] }
    }

    fn status(&self, order: u32) -> Option<String> {
        self.rows.iter().find(|row| row.0 == order).map(|row| row.2.clone())
    }

    fn set_status(&mut self, order: u32, status: &str) {
        if let Some(row) = self.rows.iter_mut().find(|row| row.0 == order) {
            row.2 = status.to_owned();
        }
    }
}

#[actions]
impl Orders {
    /// Open one order's detail window, or return the one already open.
    #[action]
    fn show_order(
        &mut self,
        /// The order number.
        order: u32,
        cx: &mut Context,
    ) -> Result<String, ToolError> {
        for detail in self.details.iter() {
            if cx.read::<OrderDetail, _>(detail, |d| d.order == order).unwrap_or(false) {
                cx.message(format!("Order {order} is already open as window {detail}"));
                return Ok(detail.clone());
            }
        }
        let status = self.status(order).ok_or("no such order")?;
        let table = cx.window_id().unwrap_or_default().to_owned();
        let id = cx.open(OrderDetail { order, status, table })?;
        self.details.push(id.clone());
        Ok(id)
    }
}

#[window(title = "Order #{order}", summary = "Order #{order} is {status}")]
#[derive(Clone)]
struct OrderDetail {
    order: u32,
    #[block(field)]
    status: String,
    table: String,
}

#[actions]
impl OrderDetail {
    /// Mark the order as shipped, in the table too.
    #[action(idempotent)]
    fn ship(&mut self, cx: &mut Context) {
        self.status = "shipped".into();
        let order = self.order;
        if cx.read::<Orders, _>(&self.table, |_| ()).is_ok() {
            cx.update::<Orders>(&self.table, move |orders| orders.set_status(order, "shipped"));
        }
    }

    /// Ship, then fail: neither window may change.
    #[action]
    fn ship_and_fail(&mut self, cx: &mut Context) -> Result<(), ToolError> {
        self.ship(cx);
        Err("the carrier refused the parcel; nothing was shipped".into())
    }

    /// Close this window.
    #[action]
    fn close(&mut self, cx: &mut Context) {
        cx.close();
    }
}

#[tokio::test]
async fn s8_3_a_detail_edit_moves_both_windows_in_one_notified_step() -> Result<()> {
    let app = App::builder().build();
    let orders = app.open(Orders::with_order(12))?;
    let mut agent = Agent::legacy(&app).await?;
    agent.subscribe().await?;

    let opened = agent.call(&format!("{}__show_order", orders.id()), json!({"order": 12})).await?;
    ensure!(!opened.is_error, "{opened:?}");
    let detail = opened.structured["openedWindowIds"][0].as_str().unwrap_or_default().to_owned();
    agent.drain().await;
    let before = agent.read().await?;
    let version = |snapshot: &purview::model::Snapshot, id: &str| {
        snapshot.windows.iter().find(|w| w.id == id).map(|w| w.version)
    };

    let shipped = agent.call(&format!("{detail}__ship"), json!({})).await?;
    ensure!(!shipped.is_error, "{shipped:?}");
    let after = agent.read().await?;
    ensure!(version(&after, orders.id()) > version(&before, orders.id()), "the table moved");
    ensure!(version(&after, &detail) > version(&before, &detail), "the detail moved");
    ensure!(orders.read(|o| o.status(12))?.as_deref() == Some("shipped"));
    agent.expect(Note::Updated(purview::model::WINDOWS_URI.into())).await?;
    Ok(())
}

#[tokio::test]
async fn s5_4_a_failed_call_leaves_both_windows_and_announces_nothing() -> Result<()> {
    let app = App::builder().build();
    let orders = app.open(Orders::with_order(12))?;
    let detail = orders.act().show_order(12).await?.value;
    let mut agent = Agent::legacy(&app).await?;
    agent.subscribe().await?;
    let before = app.snapshot_json()?;

    let failed = agent.call(&format!("{detail}__ship_and_fail"), json!({})).await?;
    ensure!(failed.code() == Some("action_failed"), "{failed:?}");
    ensure!(app.snapshot_json()? == before, "a failed call changed a window");
    ensure!(agent.drain().await.is_empty(), "a failed call notified");
    Ok(())
}

#[tokio::test]
async fn a_detail_whose_table_closed_still_ships_alone() -> Result<()> {
    let app = App::builder().build();
    let orders = app.open(Orders::with_order(12))?;
    let detail = app.window::<OrderDetail>(&orders.act().show_order(12).await?.value)?;
    orders.close()?;
    app.call(&format!("{}__ship", detail.id()), None).await.map_err(anyhow::Error::msg)?;
    ensure!(detail.read(|d| d.status.clone())? == "shipped");
    Ok(())
}

// ---- open it, or go to the one already open --------------------------------

#[tokio::test]
async fn show_order_opens_once_then_returns_the_open_window() -> Result<()> {
    let app = App::builder().build();
    let orders = app.open(Orders::with_order(12))?;
    let agent = Agent::legacy(&app).await?;
    let tool = format!("{}__show_order", orders.id());

    let first = agent.call(&tool, json!({"order": 12})).await?;
    let opened = &first.structured["openedWindowIds"];
    ensure!(opened.as_array().map(Vec::len) == Some(1), "{first:?}");
    let again = agent.call(&tool, json!({"order": 12})).await?;
    // §5.4: nothing opened, so no openedWindowIds.
    ensure!(again.structured.get("openedWindowIds").is_none(), "{again:?}");
    ensure!(again.structured["message"].as_str().unwrap_or_default().contains("already open"));
    ensure!(app.windows_of::<OrderDetail>()?.len() == 1);

    // Closed, it is opened afresh under a new id (ids are never reused).
    let closed = opened[0].as_str().unwrap_or_default();
    agent.call(&format!("{closed}__close"), json!({})).await?;
    let third = agent.call(&tool, json!({"order": 12})).await?;
    let reopened = third.structured["openedWindowIds"][0].as_str().unwrap_or_default();
    ensure!(!reopened.is_empty() && reopened != closed, "{third:?}");
    Ok(())
}

#[tokio::test]
async fn windows_of_lists_open_windows_of_one_type_in_opening_order() -> Result<()> {
    let app = App::builder().build();
    ensure!(app.windows_of::<OrderDetail>()?.is_empty());
    let table = app.open(Orders::with_order(1))?;
    let first = app.open(OrderDetail { order: 1, status: "a".into(), table: "t".into() })?;
    let second = app.open(OrderDetail { order: 2, status: "b".into(), table: "t".into() })?;
    // A modal of the type counts too.
    let modal =
        table.open_modal(OrderDetail { order: 3, status: "c".into(), table: "t".into() })?;

    let ids: Vec<String> =
        app.windows_of::<OrderDetail>()?.iter().map(|h| h.id().to_owned()).collect();
    ensure!(ids == [first.id(), second.id(), modal.id()], "{ids:?}");
    let tables: Vec<String> =
        app.windows_of::<Orders>()?.iter().map(|h| h.id().to_owned()).collect();
    ensure!(tables == [table.id()], "{tables:?}");

    first.close()?;
    let orders: Vec<u32> = app
        .windows_of::<OrderDetail>()?
        .iter()
        .map(|h| h.read(|d| d.order))
        .collect::<Result<_, _>>()?;
    ensure!(orders == [2, 3], "{orders:?}");
    Ok(())
}

// ---- a button calls the action; typing edits the view-model ----------------

#[window(title = "Order", summary = "An order for {recipient}")]
#[derive(Clone, Default)]
struct Editor {
    #[block(field)]
    recipient: String,
    submitted: bool,
}

#[actions]
impl Editor {
    /// Submit the order; a confirmation dialog opens.
    #[action(destructive)]
    fn submit(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        if self.recipient.is_empty() {
            cx.invalid("recipient", "cannot be empty");
        }
        cx.open_modal(Confirm)?;
        Ok(())
    }
}

#[window(title = "Submit?", summary = "Asks to confirm the submission")]
#[derive(Clone)]
struct Confirm;

#[actions]
impl Confirm {
    /// Submit for real, with a person's approval when an agent asks.
    #[action(destructive, approval)]
    fn confirm(&mut self, cx: &mut Context) {
        if let Some(owner) = cx.owner_id() {
            cx.update::<Editor>(&owner, |e| e.submitted = true);
        }
        cx.close();
    }

    /// Close the dialog without submitting.
    #[action]
    fn cancel(&mut self, cx: &mut Context) {
        cx.close();
    }
}

#[tokio::test]
async fn s7_2_a_button_runs_the_action_an_update_runs_none() -> Result<()> {
    let app = App::builder().build();
    let editor = app.open(Editor::default())?;
    let agent = Agent::legacy(&app).await?;

    // update: no check, no dialog — only the edit.
    editor.update(|e| e.recipient = "Ada".into())?;
    ensure!(app.window_list()?.len() == 1, "update opened nothing");

    // act: the dialog opens and the agent's tools are handed over to it.
    let done = editor.act().submit().await.map_err(anyhow::Error::msg)?;
    let dialog = done.opened_window_ids[0].clone();
    let tools = agent.tool_names().await?;
    ensure!(tools.contains(&format!("{dialog}__confirm")), "{tools:?}");
    ensure!(!tools.contains(&format!("{}__submit", editor.id())), "{tools:?}");
    let blocked = editor.act().submit().await.err();
    ensure!(blocked.map(|e| e.code) == Some(ErrorCode::BlockedByModal));
    Ok(())
}

// ---- state that must survive a failed call ---------------------------------

#[window(title = "Account", summary = "Balance {balance}")]
#[derive(Clone)]
struct Account {
    #[block(field)]
    balance: u64,
    withdrawals: u32,
    wrong_pins: Arc<Mutex<u32>>,
}

#[actions]
impl Account {
    /// Withdraw an amount.
    #[action]
    fn withdraw(
        &mut self,
        /// The amount.
        amount: u64,
    ) -> Result<u64, ToolError> {
        self.withdrawals += 1;
        if amount > self.balance {
            return Err("not enough money; nothing was withdrawn".into());
        }
        self.balance -= amount;
        Ok(self.balance)
    }

    /// Unlock with a PIN.
    #[action]
    fn unlock(
        &mut self,
        /// The PIN.
        pin: Secret<String>,
        cx: &mut Context,
    ) {
        if pin.expose() != "1234" {
            *self.wrong_pins.lock().unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
            cx.invalid("pin", "wrong PIN");
        }
    }
}

#[tokio::test]
async fn s5_4_a_failed_call_undoes_the_view_model_but_not_what_it_shares() -> Result<()> {
    let app = App::builder().build();
    let wrong_pins = Arc::new(Mutex::new(0));
    let account =
        app.open(Account { balance: 100, withdrawals: 0, wrong_pins: wrong_pins.clone() })?;
    let agent = Agent::legacy(&app).await?;
    let id = account.id();

    let refused = agent.call(&format!("{id}__withdraw"), json!({"amount": 500})).await?;
    ensure!(refused.code() == Some("action_failed"), "{refused:?}");
    ensure!(account.read(|a| (a.balance, a.withdrawals))? == (100, 0));
    let paid = agent.call(&format!("{id}__withdraw"), json!({"amount": 30})).await?;
    ensure!(paid.structured["result"]["value"] == json!(70), "{paid:?}");
    ensure!(account.read(|a| (a.balance, a.withdrawals))? == (70, 1));

    let version = account.version()?;
    let wrong = agent.call(&format!("{id}__unlock"), json!({"pin": "0000"})).await?;
    ensure!(wrong.code() == Some("validation_failed"), "{wrong:?}");
    ensure!(*wrong_pins.lock().unwrap_or_else(std::sync::PoisonError::into_inner) == 1);
    ensure!(account.version()? == version, "the shared counter is not part of the projection");
    Ok(())
}

// ---- a destructive action: a dialog and a person's approval ----------------

#[tokio::test]
async fn s5_6_an_agent_confirms_only_with_approval_the_person_never_is_asked() -> Result<()> {
    let yes = Arc::new(AtomicBool::new(false));
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let (answer, questions) = (yes.clone(), asked.clone());
    let app = App::builder()
        .approver(move |request: ApprovalRequest| {
            questions
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(request.action);
            let approve = answer.load(Ordering::SeqCst);
            async move { if approve { Approval::Approve } else { Approval::Decline } }
        })
        .build();
    let editor = app.open(Editor { recipient: "Ada".into(), submitted: false })?;
    let agent = Agent::legacy(&app).await?;

    let submitted = agent.call(&format!("{}__submit", editor.id()), json!({})).await?;
    let dialog = submitted.structured["openedWindowIds"][0].as_str().unwrap_or_default().to_owned();
    let confirm = format!("{dialog}__confirm");
    let before = app.snapshot_json()?;
    let declined = agent.call(&confirm, json!({})).await?;
    ensure!(declined.code() == Some("approval_denied"), "{declined:?}");
    ensure!(declined.structured["reason"] == "declined", "{declined:?}");
    ensure!(app.snapshot_json()? == before, "a declined call changed something");

    yes.store(true, Ordering::SeqCst);
    let approved = agent.call(&confirm, json!({})).await?;
    ensure!(!approved.is_error, "{approved:?}");
    ensure!(editor.read(|e| e.submitted)?);
    ensure!(asked.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len() == 2);

    // The person's own confirm is never asked about.
    yes.store(false, Ordering::SeqCst);
    editor.update(|e| e.submitted = false)?;
    let dialog =
        editor.act().submit().await.map_err(anyhow::Error::msg)?.opened_window_ids[0].clone();
    app.window::<Confirm>(&dialog)?.act().confirm().await.map_err(anyhow::Error::msg)?;
    ensure!(editor.read(|e| e.submitted)?, "the person's click ran without approval");
    ensure!(asked.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len() == 2);
    Ok(())
}

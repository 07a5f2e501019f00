//! Hand-written windows covering every protocol path.

use std::time::Duration;

use purview::{
    ActionOutput, ActionSpec, Actions, App, AppBuilder, Args, Context, Secret, View, Window,
    by_hand::BoxFuture,
    model::{Block, FieldItem, Severity},
    settings::ToolSurface,
};
use serde::Deserialize;

/// The PIN that unlocks [`Locked`].
pub const PIN: &str = "open-sesame-7319";
/// The editor's secret password; must never leave the process.
pub const PASSWORD: &str = "hunter2";

/// An order editor.
#[derive(Clone)]
pub struct Editor {
    pub recipient: String,
    pub amount: f64,
    pub password: Secret<String>,
    /// State that is not projected: changing it must not bump the version.
    pub hidden_counter: u32,
    pub submitted: bool,
}

impl Default for Editor {
    fn default() -> Self {
        Self {
            recipient: String::new(),
            amount: 100.0,
            password: Secret::new(PASSWORD.into()),
            hidden_counter: 0,
            submitted: false,
        }
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct EditField {
    /// Which field: "recipient" or "amount".
    field: String,
    /// The new value, as text.
    value: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct SetPassword {
    /// The new password; never shown back.
    password: Secret<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct SetDetails {
    /// Who receives the order.
    recipient: String,
    /// Amount in dollars; must be greater than 0.
    amount: f64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Slow {
    /// How long to work, in milliseconds.
    millis: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Load {
    /// First row.
    offset: u8,
    /// How many rows.
    limit: u8,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Rows {
    rows: Vec<u32>,
    total: u32,
}

impl Window for Editor {
    fn title(&self) -> String {
        "Order Editor".into()
    }

    fn project(&self, view: &mut View) {
        let missing = usize::from(self.recipient.is_empty());
        view.summary(format!("Editing order #12345, {missing} field(s) still to fill in"))
            .text("order", "Editing order #12345")
            .fields(
                "form",
                [
                    FieldItem::new("Recipient", &self.recipient),
                    FieldItem::new("Amount", format!("${:.2}", self.amount)),
                    FieldItem::sensitive("Payment password", self.password.is_filled()),
                ],
            )
            .push(Block::table(
                "items",
                ["Product", "Quantity"],
                vec![vec!["A".into(), 2.into()], vec!["B".into(), 1.into()]],
            ));
        if self.recipient.is_empty() {
            view.notice("recipient_error", Severity::Error, "Recipient cannot be empty");
        }
        if self.submitted {
            view.notice("submitted", Severity::Success, "Order submitted");
        }
    }
}

impl Actions for Editor {
    fn actions() -> Vec<ActionSpec> {
        vec![
            ActionSpec::new("edit_field")
                .description("Change one field")
                .input::<EditField>()
                .idempotent(),
            ActionSpec::new("set_password")
                .description("Set the payment password")
                .input::<SetPassword>()
                .idempotent(),
            ActionSpec::new("set_details")
                .description("Set recipient and amount together")
                .input::<SetDetails>(),
            ActionSpec::new("submit")
                .description("Submit the order for confirmation")
                .destructive(),
            ActionSpec::new("focus")
                .description("Bring the window to the front")
                .read_only()
                .idempotent(),
            ActionSpec::new("touch").description("Change state that is not shown"),
            ActionSpec::new("slow")
                .description("Edit, then work for a while")
                .input::<Slow>()
                .timeout(Duration::from_millis(300)),
            ActionSpec::new("explode").description("Edit, then panic"),
            ActionSpec::new("load")
                .description("Fetch rows")
                .input::<Load>()
                .result::<Rows>()
                .read_only(),
            ActionSpec::new("close").description("Close the editor"),
            ActionSpec::new("reveal")
                .description("Return the password (masked on the way out)")
                .read_only(),
        ]
    }

    fn is_available(&self, action: &str) -> bool {
        match action {
            "submit" => !self.recipient.is_empty() && !self.submitted,
            _ => true,
        }
    }

    fn call<'a>(&'a mut self, action: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a> {
        Box::pin(async move {
            match action {
                "edit_field" => {
                    let EditField { field, value } = args.parse()?;
                    match field.as_str() {
                        "recipient" => self.recipient = value,
                        "amount" => match value.trim_start_matches('$').parse::<f64>() {
                            Ok(amount) if amount > 0.0 => self.amount = amount,
                            _ => cx.invalid(
                                "value",
                                "must be a positive amount of money, such as 12.50",
                            ),
                        },
                        _ => cx.invalid("field", "must be one of recipient, amount"),
                    }
                    Ok(ActionOutput::message(format!("{field} updated")))
                }
                "set_password" => {
                    let SetPassword { password } = args.parse()?;
                    self.password = password;
                    Ok(ActionOutput::message("password updated"))
                }
                "set_details" => {
                    let SetDetails { recipient, amount } = args.parse()?;
                    if recipient.is_empty() {
                        cx.invalid("recipient", "cannot be empty");
                    }
                    if amount <= 0.0 {
                        cx.invalid("amount", "must be greater than 0");
                    }
                    self.recipient = recipient;
                    self.amount = amount;
                    Ok(ActionOutput::message("details updated"))
                }
                "submit" => {
                    args.finish()?;
                    let dialog = cx.open_modal(Confirm { depth: 1 })?;
                    Ok(ActionOutput::message(format!("Submitted; confirm in {dialog}")))
                }
                "focus" => {
                    args.finish()?;
                    Ok(ActionOutput::message("focused"))
                }
                "touch" => {
                    args.finish()?;
                    self.hidden_counter += 1;
                    Ok(ActionOutput::default())
                }
                "slow" => {
                    let Slow { millis } = args.parse()?;
                    self.recipient = "half-done".into();
                    tokio::time::sleep(Duration::from_millis(millis)).await;
                    Ok(ActionOutput::message("slow work done"))
                }
                "explode" => {
                    args.finish()?;
                    self.recipient = "half-done".into();
                    panic!("the explode action always panics");
                }
                "load" => {
                    let Load { offset, limit } = args.parse()?;
                    let rows: Vec<u32> =
                        (u32::from(offset)..u32::from(offset) + u32::from(limit)).collect();
                    Ok(ActionOutput::result(Rows { rows, total: 256 }))
                }
                "close" => {
                    args.finish()?;
                    cx.close();
                    Ok(ActionOutput::message("closed"))
                }
                "reveal" => {
                    args.finish()?;
                    // A careless handler: the Secret still leaves masked.
                    Ok(ActionOutput::message(format!("password is {}", self.password))
                        .with_result(serde_json::json!({"password": self.password})))
                }
                other => Err(purview::by_hand::unknown_action(other)),
            }
        })
    }
}

/// A confirmation dialog; `nest` opens another one on top of it.
#[derive(Clone)]
pub struct Confirm {
    pub depth: u32,
}

impl Window for Confirm {
    fn title(&self) -> String {
        format!("Confirm submission (level {})", self.depth)
    }

    fn project(&self, view: &mut View) {
        view.summary("Asks to confirm the order").text("question", "Submit this order?");
    }
}

impl Actions for Confirm {
    fn actions() -> Vec<ActionSpec> {
        vec![
            ActionSpec::new("confirm").description("Submit for real").destructive(),
            ActionSpec::new("cancel").description("Go back"),
            ActionSpec::new("nest").description("Open another dialog on top"),
        ]
    }

    fn call<'a>(&'a mut self, action: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a> {
        Box::pin(async move {
            args.finish()?;
            match action {
                "confirm" => {
                    if let Some(owner) = cx.owner_id() {
                        cx.update::<Editor>(&owner, |e| e.submitted = true);
                    }
                    cx.close();
                    Ok(ActionOutput::message("confirmed"))
                }
                "cancel" => {
                    cx.close();
                    Ok(ActionOutput::message("cancelled"))
                }
                "nest" => {
                    let id = cx.open_modal(Confirm { depth: self.depth + 1 })?;
                    Ok(ActionOutput::message(format!("opened {id}")))
                }
                other => Err(purview::by_hand::unknown_action(other)),
            }
        })
    }
}

/// The app-level lock screen.
#[derive(Clone, Default)]
pub struct Locked;

#[derive(Deserialize, schemars::JsonSchema)]
struct Unlock {
    /// The PIN.
    pin: Secret<String>,
}

impl Window for Locked {
    fn title(&self) -> String {
        "Locked".into()
    }

    fn project(&self, view: &mut View) {
        view.summary("The application is locked; enter the PIN to unlock").notice(
            "locked",
            Severity::Warn,
            "Locked",
        );
    }
}

impl Actions for Locked {
    fn actions() -> Vec<ActionSpec> {
        vec![ActionSpec::new("unlock").description("Unlock with the PIN").input::<Unlock>()]
    }

    fn call<'a>(&'a mut self, action: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a> {
        Box::pin(async move {
            match action {
                "unlock" => {
                    let Unlock { pin } = args.parse()?;
                    if pin.expose() == PIN {
                        cx.close();
                        Ok(ActionOutput::message("unlocked"))
                    } else {
                        cx.invalid("pin", "wrong PIN");
                        Ok(ActionOutput::default())
                    }
                }
                other => Err(purview::by_hand::unknown_action(other)),
            }
        })
    }
}

/// App-level actions.
#[derive(Clone, Default)]
pub struct AppMenu;

/// App-level actions: `app__{action}` tools.
impl purview::AppActions for AppMenu {}

impl Actions for AppMenu {
    fn actions() -> Vec<ActionSpec> {
        vec![
            ActionSpec::new("new_editor").description("Open another order editor"),
            ActionSpec::new("lock").description("Lock the application"),
        ]
    }

    fn call<'a>(&'a mut self, action: &'a str, args: Args, cx: &'a mut Context) -> BoxFuture<'a> {
        Box::pin(async move {
            args.finish()?;
            match action {
                "new_editor" => {
                    let id = cx.open(Editor::default())?;
                    Ok(ActionOutput::message(format!("opened {id}")))
                }
                "lock" => {
                    cx.open_app_modal(Locked)?;
                    Ok(ActionOutput::message("locked"))
                }
                other => Err(purview::by_hand::unknown_action(other)),
            }
        })
    }
}

/// The standard fixture on the protocol's own tool surface (§5), where the
/// §11 tests run: app actions, no window yet.
pub fn demo_app() -> App {
    demo_app_on(ToolSurface::Windows)
}

/// The standard fixture on any tool surface.
pub fn demo_app_on(surface: ToolSurface) -> App {
    demo_builder().tool_surface(surface).build()
}

/// The standard fixture's builder, for tests that configure more.
pub fn demo_builder() -> AppBuilder {
    App::builder()
        .name("purview-test-app")
        .instructions("Test fixture.")
        .coalesce(Duration::from_millis(5))
        .tool_surface(ToolSurface::Windows)
        .app_actions(AppMenu)
}

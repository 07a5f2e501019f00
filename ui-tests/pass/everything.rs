//! Every block kind and action form in one window, plus app-level actions.

use purview::{
    ActionOutput, App, Context, Row, Secret, ToolError, actions, projection::Media, window,
};

#[derive(Clone, Row)]
struct Line {
    product: String,
    #[row(name = "Qty")]
    quantity: u32,
    #[row(skip)]
    _code: u64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Receipt {
    total: u32,
}

#[window(title = "Order #{order}", summary = "Order {order} for {recipient}")]
#[derive(Clone, Default)]
struct Order {
    order: u32,
    #[block(text)]
    heading: String,
    #[block(field)]
    recipient: String,
    #[block(field, label = "PIN", sensitive, group = "secrets")]
    pin: Secret<String>,
    #[block(table, limit = 10)]
    lines: Vec<Line>,
    #[block(table, columns = ["Key", "Value"], id = "pairs")]
    pairs: Vec<(String, u32)>,
    #[block(list, ordered, limit = 3)]
    log: Vec<String>,
    #[block(notice = "warn")]
    warning: String,
    #[block(notice = "success")]
    done: Option<String>,
    #[block(media)]
    chart: Option<Media>,
    #[block(custom)]
    raw: serde_json::Value,
}

#[actions]
impl Order {
    /// Plain.
    #[action]
    fn plain(&mut self) {}

    #[action(read_only, idempotent, title = "Receipt", description = "The receipt")]
    fn receipt(&self) -> Receipt {
        Receipt { total: 1 }
    }

    #[action(destructive, open_world, timeout = "250ms", available = can_send)]
    async fn send(
        &mut self,
        cx: &mut Context,
        /// Where to.
        to: String,
        copies: Option<u8>,
    ) -> Result<ActionOutput, ToolError> {
        cx.message(format!("sent {} to {to}", copies.unwrap_or(1)));
        Ok(ActionOutput::default())
    }

    #[action]
    fn io(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    #[action]
    fn fail(&mut self) -> Result<(), String> {
        Err("the printer is offline; try again later".into())
    }

    #[action]
    fn r#type(&mut self, r#type: String) {
        let _ = r#type;
    }

    fn can_send(&self) -> bool {
        true
    }
}

#[derive(Clone)]
struct Menu;

#[actions(app)]
impl Menu {
    #[action]
    fn new_order(&mut self, cx: &mut Context) -> Result<(), purview::ToolError> {
        cx.open(Order::default())?;
        Ok(())
    }
}

fn main() {
    let app = App::builder().app_actions(Menu).build();
    app.open(Order::default()).unwrap();
}

#[test]
fn compiles_and_runs() {
    main();
}

//! The person's side of a returns desk, intent by intent, with no face at
//! all: what a person sees and what each intent does are decided here
//! once, for every face (§7 the person's calls, §9 paging).

use purview::{App, Context, ToolError, actions, projection::Page, window};
use purview_person::{Around, Effect, FieldKind, Intent, Model, Person, PersonCall, Reader};

#[window(title = "Returns", summary = "{refunded} refunded")]
#[derive(Clone)]
struct Returns {
    refunded: u32,
    #[block(table, limit = 20, load = load_rows, columns = ["Return", "Status"])]
    rows: Vec<(u32, String)>,
}

#[actions]
impl Returns {
    /// Fetch a range of returns.
    #[action(read_only, idempotent)]
    fn load_rows(&self, offset: usize, limit: usize) -> Page<(u32, String)> {
        Page::slice(&self.rows, offset, limit)
    }

    /// Refund a return.
    #[action]
    fn refund(
        &mut self,
        /// The return to refund.
        #[arg(from = rows.0)]
        id: u32,
        /// How much to give back.
        #[arg(range(min = 1, max = 500), example = 25)]
        amount: u32,
    ) -> Result<(), ToolError> {
        if !self.rows.iter().any(|r| r.0 == id) {
            return Err(format!("there is no return {id}").into());
        }
        self.refunded += amount;
        Ok(())
    }

    /// Forget every return.
    #[action(destructive)]
    fn purge(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        cx.open_modal(ConfirmPurge)?;
        Ok(())
    }
}

#[window(title = "Confirm purge", summary = "Forget every return?")]
#[derive(Clone)]
struct ConfirmPurge;

#[actions]
impl ConfirmPurge {
    /// Forget them.
    #[action(destructive)]
    fn confirm(&mut self, cx: &mut Context) {
        cx.close();
    }
}

struct Desk {
    app: App,
    reader: Reader,
    model: Model,
    person: Person,
}

impl Desk {
    fn new() -> (Self, String) {
        let app = App::builder().name("returns").build();
        let rows = (1..=300).map(|i| (i, if i % 3 == 0 { "waiting" } else { "open" }.into()));
        let id = app.open(Returns { refunded: 0, rows: rows.collect() }).unwrap().id().to_owned();
        let mut desk = Self {
            app,
            reader: Reader::default(),
            model: Model::default(),
            person: Person::default(),
        };
        desk.read();
        (desk, id)
    }

    fn read(&mut self) -> Vec<PersonCall> {
        self.model = self.reader.read(&self.app.scene().unwrap(), Around::default());
        self.person.settle(&self.model)
    }

    /// An intent, and the call it asks for made as the person.
    async fn intend(&mut self, intent: Intent) -> Effect {
        let effect = self.person.intend(&self.model, intent);
        if let Effect::Call(call) = &effect {
            self.make(call).await;
        }
        effect
    }

    async fn make(&mut self, call: &PersonCall) {
        let action = self.model.action(call.scope.as_deref(), &call.action).unwrap();
        let done = action.info.call(&self.app, call.arguments.clone()).by_person().await;
        self.person.finished(call, done.map(|p| p.value));
        for again in self.read() {
            Box::pin(self.make(&again)).await;
        }
    }

    fn rows_label(&self, window: &str) -> String {
        let view = self.model.window(window).unwrap();
        let table = view.tables().next().unwrap();
        self.person.rows(view, table).count
    }
}

fn press(id: &str, action: &str) -> Intent {
    Intent::Press { scope: Some(id.into()), action: action.into() }
}

#[tokio::test]
async fn s7_a_refund_form_says_its_bounds_and_example_and_takes_its_id_from_a_row() {
    let (mut desk, id) = Desk::new();
    let refund = desk.model.action(Some(&id), "refund").unwrap().clone();
    let amount = refund.fields.iter().find(|f| f.name == "amount").unwrap();
    assert_eq!(
        (amount.kind.clone(), amount.placeholder.as_deref()),
        (FieldKind::Integer, Some("25"))
    );
    assert_eq!(amount.bounds.as_deref(), Some("From 1 to 500"));
    assert_eq!(amount.help.as_deref(), Some("How much to give back."));
    let from = refund.fields.iter().find(|f| f.name == "id").unwrap().from.clone().unwrap();
    assert_eq!((from.table.as_str(), from.column), ("rows", 0));

    desk.intend(press(&id, "refund")).await;
    let view = desk.model.window(&id).unwrap();
    let rows = desk.person.rows(view, view.tables().next().unwrap());
    assert_eq!(rows.pickers.len(), 1, "the open form makes the rows choosable");
    assert_eq!(rows.pickers[0].button("3").2, "Choose 3 as Id for Refund");
    // A table the app's own drawing hands over (the block as it projects
    // it, with none of the model's fills) offers the same rows to choose.
    let scene = desk.app.scene().unwrap();
    let block = scene.windows[0].state.blocks.iter().find(|b| b.id.as_deref() == Some("rows"));
    let purview_person::Shown::Table(own) = purview_person::Shown::of(block.unwrap(), 0) else {
        panic!("a table")
    };
    assert!(own.fills.is_empty());
    assert_eq!(desk.person.rows(view, &own).pickers.len(), 1, "the app's own table");
    let choose = Intent::ChooseRow { window: id.clone(), table: "rows".into(), row: 2, picker: 0 };
    desk.intend(choose).await;
    assert_eq!(desk.person.form(&Some(id.clone()), "refund").unwrap()["id"], "3");

    let typed = |text: &str| Intent::Type {
        scope: Some(id.clone()),
        action: "refund".into(),
        field: "amount".into(),
        text: text.into(),
    };
    desk.intend(typed("ten")).await;
    let submit = Intent::Submit { scope: Some(id.clone()), action: "refund".into() };
    assert_eq!(desk.intend(submit.clone()).await, Effect::Redraw, "refused before any call");
    let problem = desk.person.field_problem(&Some(id.clone()), &refund, "amount");
    assert_eq!(problem.as_deref(), Some("Amount: must be a whole number"));
    // Cancelling the form clears its failure: it is no longer news.
    desk.intend(Intent::Cancel { scope: Some(id.clone()), action: "refund".into() }).await;
    assert!(desk.person.failure(&Some(id.clone())).is_none());

    desk.intend(press(&id, "refund")).await;
    let choose = Intent::ChooseRow { window: id.clone(), table: "rows".into(), row: 0, picker: 0 };
    desk.intend(choose).await;
    desk.intend(typed("999")).await;
    let effect = desk.intend(submit.clone()).await;
    assert!(matches!(effect, Effect::Call(_)), "{effect:?}");
    let failure = desk.person.failure(&Some(id.clone())).expect("the app refused 999");
    assert!(failure.error.message.contains("amount"), "{:?}", failure.error);
    desk.intend(typed("40")).await;
    desk.intend(submit).await;
    assert!(desk.person.failure(&Some(id.clone())).is_none(), "the success cleared the failure");
    assert!(desk.person.form(&Some(id.clone()), "refund").is_none(), "and closed the form");
    assert_eq!(desk.model.window(&id).unwrap().summary.as_deref(), Some("40 refunded"));
}

#[tokio::test]
async fn s9_the_last_of_300_rows_is_one_intent_away_and_stays_through_a_change() {
    let (mut desk, id) = Desk::new();
    assert_eq!(desk.rows_label(&id), "Rows 1–20 of 300");
    let view = desk.model.window(&id).unwrap();
    let paging = desk.person.rows(view, view.tables().next().unwrap()).paging.unwrap();
    let last =
        Intent::Page { window: id.clone(), table: "rows".into(), offset: paging.last.unwrap() };
    desk.intend(last).await;
    assert_eq!(desk.rows_label(&id), "Rows 281–300 of 300");
    let go = |typed: &str| Intent::GoToRow {
        window: id.clone(),
        table: "rows".into(),
        typed: typed.into(),
    };
    desk.intend(go("301")).await;
    let view = desk.model.window(&id).unwrap();
    let refused = desk.person.rows(view, view.tables().next().unwrap()).refused;
    assert_eq!(refused.as_deref(), Some("A row from 1 to 300"));
    desk.intend(go("150")).await;
    assert_eq!(desk.rows_label(&id), "Rows 141–160 of 300");
    // An agent's change moves the window's version: the person's page
    // is loaded again where it was, not dropped.
    desk.app
        .call(
            &format!("{id}__refund"),
            Some(serde_json::json!({"id": 1, "amount": 5}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let again = desk.read();
    assert_eq!(again.len(), 1, "one reload of the page shown");
    desk.make(&again[0]).await;
    assert_eq!(desk.rows_label(&id), "Rows 141–160 of 300");
}

#[tokio::test]
async fn s7_a_destructive_action_asks_first_except_in_a_modal_which_is_the_question() {
    let (mut desk, id) = Desk::new();
    assert_eq!(desk.intend(press(&id, "purge")).await, Effect::Redraw);
    let asked = desk.person.confirmation(&Some(id.clone())).expect("asked first");
    assert_eq!(asked.question, "Purge? This cannot be undone.");
    assert_eq!((asked.yes.as_str(), asked.no.as_str()), ("Yes, purge", "Do not purge"));
    assert_eq!(desk.intend(Intent::Refuse).await, Effect::Redraw);
    assert!(desk.person.confirmation(&Some(id.clone())).is_none());
    desk.intend(press(&id, "purge")).await;
    assert!(matches!(desk.intend(Intent::Confirm).await, Effect::Call(_)));

    let modal = desk.model.windows.iter().find(|w| w.modal).expect("the dialog").id.clone();
    assert_eq!(desk.model.window(&modal).unwrap().owner.as_deref(), Some("Dialog of Returns"));
    let returns = desk.model.window(&id).unwrap();
    assert_eq!(returns.blocker.as_deref(), Some("Blocked by Confirm purge"));
    assert!(
        returns.actions.iter().any(|a| a.name == "refund"),
        "blocked, its actions stay, drawn disabled"
    );
    let effect = desk.intend(press(&modal, "confirm")).await;
    assert!(matches!(effect, Effect::Call(_)), "the dialog's own action runs at once: {effect:?}");
    assert!(desk.model.windows.iter().all(|w| !w.modal), "the dialog closed");
}

#[tokio::test]
async fn two_windows_of_one_title_are_told_apart() {
    let (mut desk, id) = Desk::new();
    let other = desk.app.open(Returns { refunded: 0, rows: Vec::new() }).unwrap().id().to_owned();
    desk.read();
    let names: Vec<_> =
        desk.model.windows.iter().map(|w| (w.id.as_str(), w.name.as_str())).collect();
    assert_eq!(names, [(id.as_str(), "Returns"), (other.as_str(), "Returns (2)")]);
    assert_eq!(
        purview_person::words::agent_last("refund", Some(names[1].1)),
        "Agent last: refund in Returns (2)"
    );
}

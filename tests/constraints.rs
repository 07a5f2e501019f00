//! `#[arg(range(..), length(..), pattern = "..")]`: constraints declared on
//! an action's arguments are in its input schema (so an agent knows them
//! before calling), and a call that breaks one is refused with
//! `validation_failed` naming every bad argument, before the action runs —
//! for an agent's JSON call and for the person's typed call alike.

use anyhow::{Context as _, Result};
use purview::{App, Context, Secret, WindowHandle, actions, model::ErrorCode, window};
use purview_tests::Agent;
use serde_json::{Value, json};

#[window]
#[derive(Clone, Default)]
struct Ticket {
    #[block(field)]
    priority: u8,
    #[block(field)]
    subject: String,
    #[block(field)]
    tags: String,
    #[block(field)]
    discount: f64,
    pin_set: bool,
}

#[actions]
impl Ticket {
    /// Triages the ticket.
    #[action]
    fn triage(
        &mut self,
        /// 1 (lowest) to 5.
        #[arg(range(min = 1, max = 5))]
        priority: u8,
        #[arg(length(min = 1, max = 12))] subject: String,
        #[arg(length(max = 2))] tags: Vec<String>,
        /// An optional discount, from -0.5 to 0.5.
        #[arg(range(min = -0.5, max = 0.5))]
        discount: Option<f64>,
    ) {
        self.priority = priority;
        self.subject = subject;
        self.tags = tags.join(",");
        self.discount = discount.unwrap_or_default();
    }

    /// Sets a four-digit PIN.
    #[action]
    fn set_pin(&mut self, #[arg(pattern = r"^\d{4}$")] pin: Secret<String>) {
        self.pin_set = !pin.expose().is_empty();
    }

    /// Renames the ticket's owner; `admin` is not a name.
    #[action]
    fn assign(&mut self, #[arg(pattern = "^[a-z]+$")] owner: String, cx: &mut Context) {
        // A pattern has no look-ahead: the rule it cannot say is the action's.
        if owner == "admin" {
            cx.invalid("owner", "`admin` is not a name");
        }
        self.subject = owner;
    }
}

fn app() -> (App, WindowHandle<Ticket>) {
    let app = App::builder().name("tickets").build();
    let ticket = app.open(Ticket::default()).expect("opens");
    (app, ticket)
}

fn properties(app: &App, tool: &str) -> Result<Value> {
    let tools = app.tools()?;
    let tool = tools.iter().find(|t| t.name.ends_with(tool)).context("the tool is listed")?;
    Ok(tool.input_schema["properties"].clone())
}

/// The schema of one property, with an `Option`'s `null` branch and `$ref`s
/// left as schemars writes them: what matters is the keyword is there.
fn keyword(properties: &Value, field: &str, keyword: &str) -> Value {
    properties[field][keyword].clone()
}

#[tokio::test]
async fn s5_5_constraints_are_in_the_input_schema() -> Result<()> {
    let (app, _) = app();
    let triage = properties(&app, "__triage")?;
    assert_eq!(keyword(&triage, "priority", "minimum"), json!(1));
    assert_eq!(keyword(&triage, "priority", "maximum"), json!(5));
    assert_eq!(keyword(&triage, "subject", "minLength"), json!(1));
    assert_eq!(keyword(&triage, "subject", "maxLength"), json!(12));
    assert_eq!(keyword(&triage, "tags", "maxItems"), json!(2));
    assert_eq!(keyword(&triage, "discount", "minimum"), json!(-0.5));
    assert_eq!(keyword(&triage, "discount", "maximum"), json!(0.5));
    let pin = properties(&app, "__set_pin")?;
    assert_eq!(keyword(&pin, "pin", "pattern"), json!(r"^\d{4}$"));
    Ok(())
}

#[tokio::test]
async fn s7_3_an_agent_call_breaking_constraints_names_every_argument() -> Result<()> {
    let (app, ticket) = app();
    let agent = Agent::legacy(&app).await?;
    let tool = format!("{}__triage", ticket.id());
    let before = ticket.version()?;
    let refused = agent
        .call(
            &tool,
            json!({"priority": 9, "subject": "", "tags": ["a", "b", "c"], "discount": 2.0,
                   "expectedVersion": before}),
        )
        .await?;
    assert_eq!(refused.code(), Some("validation_failed"), "{refused:?}");
    let fields: Vec<(String, String)> = refused.structured["fields"]
        .as_array()
        .context("fields")?
        .iter()
        .map(|f| (f["field"].as_str().unwrap().to_owned(), f["error"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(
        fields,
        [
            ("discount".to_owned(), "must be between -0.5 and 0.5".to_owned()),
            ("priority".to_owned(), "must be between 1 and 5".to_owned()),
            ("subject".to_owned(), "must be between 1 and 12 characters long".to_owned()),
            ("tags".to_owned(), "must have at most 2 items".to_owned()),
        ]
    );
    assert_eq!(ticket.version()?, before, "nothing of a refused call is applied");
    // Within the bounds, and with the optional argument left out, it runs.
    let done = agent
        .call(
            &tool,
            json!({"priority": 5, "subject": "Printer", "tags": [], "expectedVersion": before}),
        )
        .await?;
    assert!(done.code().is_none(), "{done:?}");
    assert_eq!(ticket.read(|t| t.priority)?, 5);
    Ok(())
}

#[tokio::test]
async fn s7_3_a_typed_call_is_held_to_the_same_constraints() -> Result<()> {
    let (_app, ticket) = app();
    let refused = ticket
        .act()
        .triage(0, "a subject far too long".into(), vec![], Some(-1.0))
        .await
        .expect_err("three arguments are out of bounds");
    assert_eq!(refused.code, ErrorCode::ValidationFailed);
    let fields: Vec<(String, String)> =
        refused.fields.context("fields")?.into_iter().map(|f| (f.field, f.error)).collect();
    assert_eq!(
        fields,
        [
            ("priority".to_owned(), "must be between 1 and 5".to_owned()),
            ("subject".to_owned(), "must be between 1 and 12 characters long".to_owned()),
            ("discount".to_owned(), "must be between -0.5 and 0.5".to_owned()),
        ]
    );
    assert_eq!(ticket.read(|t| t.subject.clone())?, "", "nothing of a refused call is applied");
    ticket.act().triage(1, "Printer".into(), vec!["hw".into()], None).await?;
    assert_eq!(ticket.read(|t| (t.priority, t.tags.clone()))?, (1, "hw".to_owned()));
    Ok(())
}

#[tokio::test]
async fn s4_5_a_pattern_on_a_secret_refuses_without_showing_it() -> Result<()> {
    let (app, ticket) = app();
    let agent = Agent::legacy(&app).await?;
    let tool = format!("{}__set_pin", ticket.id());
    let refused = agent.call(&tool, json!({"pin": "12x4", "expectedVersion": 1})).await?;
    assert_eq!(refused.code(), Some("validation_failed"), "{refused:?}");
    assert_eq!(refused.structured["fields"][0]["field"], "pin");
    assert!(!refused.structured.to_string().contains("12x4"));
    let typed = ticket.act().set_pin(Secret::new("9x".into())).await.expect_err("not four digits");
    assert!(!format!("{typed:?}").contains("9x"));
    let fields = typed.fields.context("fields")?;
    assert_eq!(
        (fields[0].field.as_str(), fields[0].error.as_str()),
        ("pin", r"must match the pattern ^\d{4}$")
    );
    ticket.act().set_pin(Secret::new("1234".into())).await?;
    assert!(ticket.read(|t| t.pin_set)?);
    Ok(())
}

/// A rule a pattern cannot say (here a look-ahead's "anything but
/// `admin`") is the action's, and holds agents' and typed calls alike,
/// with nothing changed.
#[tokio::test]
async fn s7_3_a_rule_beyond_patterns_is_held_by_the_action() -> Result<()> {
    let (app, ticket) = app();
    let agent = Agent::legacy(&app).await?;
    let tool = format!("{}__assign", ticket.id());
    let refused = agent.call(&tool, json!({"owner": "admin", "expectedVersion": 1})).await?;
    assert_eq!(refused.code(), Some("validation_failed"), "{refused:?}");
    assert_eq!(refused.structured["fields"][0]["field"], "owner");
    let typed = ticket.act().assign("admin".into()).await.expect_err("admin is refused");
    assert_eq!(typed.fields.context("fields")?[0].field, "owner");
    assert_eq!(ticket.read(|t| t.subject.clone())?, "", "nothing changed");
    ticket.act().assign("ada".into()).await?;
    assert_eq!(ticket.read(|t| t.subject.clone())?, "ada");
    Ok(())
}

/// An argument type of the app's own whose schema holds a pattern the
/// check cannot run (a look-ahead, written through schemars rather than
/// `#[arg(pattern)]`, which refuses it at compile time) stops the window
/// from opening, with a message naming the action and the pattern: no
/// constraint is ever skipped while calls are served.
#[test]
fn s7_3_a_pattern_the_check_cannot_run_stops_the_window_opening() {
    #[derive(purview::serde::Deserialize, purview::schemars::JsonSchema)]
    #[serde(crate = "purview::serde")]
    #[schemars(crate = "purview::schemars")]
    struct Owner {
        #[schemars(regex(pattern = r"^(?!admin$)[a-z]+$"))]
        name: String,
    }

    #[window]
    #[derive(Clone, Default)]
    struct Desk {
        owner: String,
    }

    #[actions]
    impl Desk {
        /// Hands the desk to someone.
        #[action]
        fn hand_over(&mut self, owner: Owner) {
            self.owner = owner.name;
        }
    }

    let app = App::builder().name("desks").build();
    let error = app.open(Desk::default()).map(drop).expect_err("the window does not open");
    let text = error.to_string();
    assert!(text.contains("hand_over") && text.contains("(?!admin$)"), "{text}");
    assert!(text.contains("look-around"), "{text}");
}

/// ECMA-262's meaning where it differs from the `regex` crate's, for an
/// agent's call and the person's typed call alike: a name in any script of
/// up to a hundred letters, and a `-` that ends a range (`[+--]`, from `+`
/// to `-`, where `regex` would read `--` as taking one class from another).
#[tokio::test]
async fn s7_3_patterns_take_their_ecma_meaning_end_to_end() -> Result<()> {
    #[window]
    #[derive(Clone, Default)]
    struct Card {
        #[block(field)]
        name: String,
        #[block(field)]
        phone: String,
    }

    #[actions]
    impl Card {
        /// Names the card's holder.
        #[action]
        fn name(&mut self, #[arg(pattern = r"^\p{L}{1,100}$")] name: String) {
            self.name = name;
        }

        /// Sets the phone number: digits, `+` and `-`.
        #[action]
        fn phone(&mut self, #[arg(pattern = "^[0-9+--]+$")] phone: String) {
            self.phone = phone;
        }
    }

    let app = App::builder().name("cards").build();
    let card = app.open(Card::default()).expect("the patterns compile, so the card opens");
    let agent = Agent::legacy(&app).await?;
    let named = agent.call(&format!("{}__name", card.id()), json!({"name": "Ἀριστοτέλης"})).await?;
    assert!(!named.is_error, "{named:?}");
    let refused = agent.call(&format!("{}__name", card.id()), json!({"name": "R2D2"})).await?;
    assert_eq!(refused.code(), Some("validation_failed"), "{refused:?}");
    assert_eq!(refused.structured["fields"][0]["field"], "name");
    let phoned = agent.call(&format!("{}__phone", card.id()), json!({"phone": "+1-555"})).await?;
    assert!(!phoned.is_error, "{phoned:?}");
    let typed = card.act().phone("+1 555".into()).await.expect_err("a space is not in the class");
    assert_eq!(typed.fields.context("fields")?[0].field, "phone");
    assert_eq!(
        card.read(|c| (c.name.clone(), c.phone.clone()))?,
        ("Ἀριστοτέλης".into(), "+1-555".into())
    );
    Ok(())
}

/// A visit booked by date: the pattern carries the app's words and an
/// example, as a person would read them.
#[window(title = "Visits")]
#[derive(Clone, Default)]
struct Visits {
    #[block(field)]
    day: String,
    #[block(field)]
    minutes: u32,
}

#[actions]
impl Visits {
    /// Books a visit.
    #[action]
    fn book(
        &mut self,
        /// The visit's day.
        #[arg(
            pattern = r"^\d{4}-\d{2}-\d{2}$",
            example = "2026-03-12",
            message = "a date such as 2026-03-12"
        )]
        day: String,
        /// How long the visit takes.
        #[arg(range(min = 5, max = 120), example = 30)]
        minutes: u32,
        /// Where the visit is, as the clinic names its rooms.
        #[arg(pattern = "^[A-Z][0-9]$", example = "B2")]
        room: String,
    ) {
        self.day = day;
        self.minutes = minutes;
        let _ = room;
    }
}

fn field_errors(value: &Value) -> Vec<(String, String)> {
    let fields = value["fields"].as_array().cloned().unwrap_or_default();
    fields
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap_or("").to_owned(),
                f["error"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn s7_3_constraint_failures_read_in_the_apps_words_for_agent_and_person_alike() -> Result<()>
{
    let app = App::builder().build();
    let visits = app.open(Visits::default())?;
    let expected = [
        ("day".to_owned(), "must be a date such as 2026-03-12".to_owned()),
        ("minutes".to_owned(), "must be between 5 and 120".to_owned()),
        ("room".to_owned(), "must be written like B2".to_owned()),
    ];
    // The agent's JSON call.
    let agent = Agent::legacy(&app).await?;
    let tool = format!("{}__book", visits.id());
    let refused =
        agent.call(&tool, json!({"day": "12/03/2026", "minutes": 200, "room": "b"})).await?;
    assert_eq!(refused.code(), Some("validation_failed"), "{refused:?}");
    assert_eq!(field_errors(&refused.structured), expected);
    // The person's typed call (the desk's form calls the same way).
    let typed = visits.act().book("12/03/2026".into(), 200, "b".into()).await.expect_err("refused");
    let typed: Vec<(String, String)> =
        typed.fields.context("fields")?.into_iter().map(|f| (f.field, f.error)).collect();
    let mut typed_sorted = typed.clone();
    typed_sorted.sort();
    assert_eq!(typed_sorted, expected, "the same words on both paths");
    assert_eq!(visits.read(|v| v.minutes)?, 0, "nothing applied");
    visits.act().book("2026-03-12".into(), 30, "B2".into()).await?;
    assert_eq!(visits.read(|v| v.day.clone())?, "2026-03-12");
    Ok(())
}

#[tokio::test]
async fn s5_5_examples_and_doc_comments_reach_the_schema_and_app_words_stay_inside() -> Result<()> {
    let app = App::builder().build();
    app.open(Visits::default())?;
    let properties = properties(&app, "__book")?;
    assert_eq!(properties["day"]["examples"], json!(["2026-03-12"]));
    assert_eq!(properties["minutes"]["examples"], json!([30]));
    assert_eq!(properties["day"]["description"], "The visit's day.");
    let text = properties.to_string();
    assert!(!text.contains("x-purview"), "no keyword of Purview's own reaches a client: {text}");
    Ok(())
}

/// A pet on file, a row of the clinic's table.
#[derive(Clone, purview::Row)]
struct Pet {
    id: u32,
    name: String,
}

#[window(title = "Clinic")]
#[derive(Clone)]
struct Clinic {
    #[block(table)]
    pets: Vec<Pet>,
    #[block(field)]
    booked_for: u32,
}

#[actions]
impl Clinic {
    /// Books a visit.
    #[action]
    fn book(
        &mut self,
        /// The pet to see.
        #[arg(from = pets.id)]
        pet: u32,
    ) {
        self.booked_for = pet;
    }
}

#[tokio::test]
async fn s4_2_an_argument_from_a_table_says_where_agents_find_its_values() -> Result<()> {
    let app = App::builder().build();
    let pets = vec![Pet { id: 4, name: "Max".into() }, Pet { id: 9, name: "Tiger".into() }];
    let clinic = app.open(Clinic { pets, booked_for: 0 })?;
    // The schema: the argument's own words, then where to look.
    let properties = properties(&app, "__book")?;
    let said = properties["pet"]["description"].as_str().context("a description")?;
    assert!(said.starts_with("The pet to see. "), "{said}");
    assert!(said.contains("`id` column of this window's `pets` table"), "{said}");
    // app__read_windows's one-line signature says it too.
    let agent = Agent::legacy(&app).await?;
    let read = agent.call("app__read_windows", json!({})).await?;
    let line = read.structured["actions"][clinic.id()][0].as_str().context("a signature")?;
    assert!(line.contains("[pet from pets.id]"), "{line}");
    // The scene tells a GUI which column of which table.
    let scene = app.scene()?;
    let action = &scene.windows[0].actions[0];
    assert_eq!(action.sources.len(), 1);
    assert_eq!((action.sources[0].table.as_ref(), action.sources[0].column), ("pets", 0));
    // An agent picks a value it read there.
    let rows = &read.structured["windows"][0]["blocks"][0]["rows"];
    let tiger = rows[1][0].as_u64().context("the second pet's id")?;
    let done = agent
        .call(&format!("{}__book", clinic.id()), json!({"pet": tiger, "expectedVersion": 1}))
        .await?;
    assert!(done.code().is_none(), "{done:?}");
    assert_eq!(clinic.read(|c| c.booked_for)?, 9);
    Ok(())
}

//! The approval question written by the app (a Purview extension beyond
//! §5.6): an action's `question = method` reads the window as it is and
//! the call's checked arguments, and either refuses the call — no one is
//! asked, on either protocol generation or by the app's own approver — or
//! writes the question the person reads, in the app's words, with the
//! agent's values quoted beneath it.

use std::sync::{Arc, Mutex};

use anyhow::{Result, ensure};
use purview::{
    App, Context, ToolError,
    approval::{Approval, ApprovalRequest, WhoApproves},
    settings::ToolSurface,
};
use purview_tests::{Agent, Elicit, Elicitation};
use serde_json::json;

#[derive(Clone)]
struct Appointment {
    id: u32,
    pet: &'static str,
    when: &'static str,
    cancelled: bool,
}

#[purview::window(title = "Clinic appointments", summary = "{booked} booked")]
#[derive(Clone)]
struct Clinic {
    #[block(field)]
    booked: usize,
    appointments: Vec<Appointment>,
}

#[purview::actions]
impl Clinic {
    /// Cancel one appointment.
    #[action(destructive, approval, question = cancel_question)]
    fn cancel(&mut self, cx: &mut Context, id: u32) -> Result<(), ToolError> {
        let appointment = self.appointments.iter_mut().find(|a| a.id == id);
        let appointment = appointment.ok_or("no such appointment")?;
        appointment.cancelled = true;
        self.booked -= 1;
        cx.message(format!("Cancelled {}", appointment.pet));
        Ok(())
    }

    /// The app's own checks, then its question: read-only, before anyone
    /// is asked.
    fn cancel_question(&self, id: &u32) -> Result<String, ToolError> {
        match self.appointments.iter().find(|a| a.id == *id) {
            None => Err(ToolError::from(format!("there is no appointment {id}"))),
            Some(a) if a.cancelled => {
                Err(ToolError::from(format!("appointment {id} is already cancelled")))
            }
            Some(a) => Ok(format!("Cancel {}, {}?", a.pet, a.when)),
        }
    }
}

fn clinic() -> Clinic {
    Clinic {
        booked: 1,
        appointments: vec![
            Appointment {
                id: 7,
                pet: "Max (dog)",
                when: "Monday 5 January at 10:30",
                cancelled: false,
            },
            Appointment {
                id: 8,
                pet: "Tom (cat)",
                when: "Monday 5 January at 11:00",
                cancelled: true,
            },
        ],
    }
}

fn args(value: serde_json::Value) -> purview::model::JsonObject {
    value.as_object().cloned().unwrap_or_default()
}

fn cancelled(app: &App, id: u32) -> Result<bool> {
    let window = app.window::<Clinic>("w1")?;
    Ok(window.read(|c| c.appointments.iter().any(|a| a.id == id && a.cancelled))?)
}

/// An app whose approver records what it is asked and answers `answer`.
fn with_approver(answer: Approval) -> Result<(App, Arc<Mutex<Vec<ApprovalRequest>>>)> {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let app = App::builder()
        .tool_surface(ToolSurface::Both)
        .approver(move |request: ApprovalRequest| {
            log.lock().unwrap().push(request);
            async move { answer }
        })
        .build();
    app.open(clinic())?;
    Ok((app, asked))
}

/// An app that asks the calling client's user.
fn asking_the_client() -> Result<App> {
    let app = App::builder()
        .tool_surface(ToolSurface::Both)
        .who_approves(WhoApproves::InAppOrClient)
        .build();
    app.open(clinic())?;
    Ok(app)
}

#[tokio::test]
async fn s5_6_a_question_that_refuses_asks_the_in_app_approver_nothing() -> Result<()> {
    let (app, asked) = with_approver(Approval::Approve)?;
    let before = app.snapshot_json()?;
    let refused = app.call("w1__cancel", Some(args(json!({"id": 8})))).await.unwrap_err();
    ensure!(refused.message.contains("already cancelled"), "{refused:?}");
    let unknown = app.call("w1__cancel", Some(args(json!({"id": 99})))).await.unwrap_err();
    ensure!(unknown.message.contains("no appointment 99"), "{unknown:?}");
    ensure!(asked.lock().unwrap().is_empty(), "no one is asked about a refused call");
    ensure!(app.snapshot_json()? == before, "a refused call changed nothing");
    Ok(())
}

#[tokio::test]
async fn s5_6_the_in_app_approver_reads_the_apps_question_with_the_values_beneath() -> Result<()> {
    let (app, asked) = with_approver(Approval::Approve)?;
    app.call("w1__cancel", Some(args(json!({"id": 7})))).await.map_err(anyhow::Error::msg)?;
    ensure!(cancelled(&app, 7)?, "the approved call ran");
    let asked = asked.lock().unwrap();
    ensure!(asked.len() == 1, "asked once: {}", asked.len());
    let request = &asked[0];
    let question = "Cancel Max (dog), Monday 5 January at 10:30?";
    ensure!(request.question.as_deref() == Some(question), "{request:?}");
    let text = request.describe();
    let (head, rest) = text.split_once('\n').unwrap_or((&text, ""));
    ensure!(head.ends_with(&format!("asks: \"{question}\"")), "the question comes first: {text}");
    ensure!(rest.contains("\n  id: 7"), "the agent's values beneath it: {text}");
    ensure!(rest.contains("\"Clinic appointments\" (w1)"), "where: {text}");
    Ok(())
}

/// A refused call asks the client's user nothing; an accepted one asks
/// once, in the app's words, with the agent's value beneath.
async fn the_client_is_asked_only_what_passed(
    app: &App,
    agent: &Agent,
    elicitation: &Elicitation,
) -> Result<()> {
    let refused = agent.call("w1__cancel", json!({"id": 8})).await?;
    ensure!(refused.is_error, "{refused:?}");
    ensure!(
        refused.structured["message"].as_str().unwrap_or_default().contains("already cancelled"),
        "{refused:?}"
    );
    ensure!(elicitation.messages().is_empty(), "no one was asked");

    let done = agent.call("w1__cancel", json!({"id": 7})).await?;
    ensure!(!done.is_error, "{done:?}");
    let asked = elicitation.messages();
    ensure!(
        asked.len() == 1 && asked[0].contains("Cancel Max (dog), Monday 5 January"),
        "{asked:?}"
    );
    ensure!(asked[0].contains("id: 7"), "{asked:?}");
    ensure!(cancelled(app, 7)?);
    Ok(())
}

#[tokio::test]
async fn s5_6_a_question_that_refuses_asks_no_one_by_elicitation_on_2025_11_25() -> Result<()> {
    let app = asking_the_client()?;
    let elicitation = Elicitation::new(Elicit::Approve(true));
    let agent = Agent::eliciting(&app, elicitation.clone()).await?;
    the_client_is_asked_only_what_passed(&app, &agent, &elicitation).await
}

#[tokio::test]
async fn s5_6_a_question_that_refuses_asks_no_one_by_input_request_on_2026_07_28() -> Result<()> {
    let app = asking_the_client()?;
    let elicitation = Elicitation::new(Elicit::Approve(true));
    let agent = Agent::modern_eliciting(&app, elicitation.clone()).await?;
    the_client_is_asked_only_what_passed(&app, &agent, &elicitation).await
}

#[tokio::test]
async fn s5_6_the_persons_own_call_is_not_asked_and_a_panicking_question_refuses() -> Result<()> {
    #[purview::window(title = "Fragile")]
    #[derive(Clone)]
    struct Fragile {
        #[block(field)]
        done: bool,
    }
    #[purview::actions]
    impl Fragile {
        #[action(approval, destructive = false, question = broken)]
        fn go(&mut self) {
            self.done = true;
        }
        fn broken(&self) -> String {
            panic!("a bug in the question")
        }
    }
    let asked = Arc::new(Mutex::new(0));
    let count = asked.clone();
    let app = App::builder()
        .approver(move |_| {
            *count.lock().unwrap() += 1;
            async { Approval::Approve }
        })
        .build();
    let fragile = app.open(Fragile { done: false })?;
    let refused = app.call("w1__go", None).await.unwrap_err();
    ensure!(refused.code == purview::model::ErrorCode::ActionFailed, "{refused:?}");
    ensure!(*asked.lock().unwrap() == 0 && !fragile.read(|f| f.done)?);
    app.call("w1__go", None).by_person().await.map_err(anyhow::Error::msg)?;
    ensure!(fragile.read(|f| f.done)?, "the person's own call needs no question");
    Ok(())
}

//! What an app developer or a misbehaving client can get wrong, and how the
//! runtime stays consistent anyway: effects that cannot apply, worlds that
//! move while a handler runs, cancelled calls, panics outside the handler's
//! future, nested calls, and sessions that come and go across runtimes.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use anyhow::Result;
use purview::{
    ActionOutput, ActionSpec, Actions, App, Args, Context, View, Window, actions,
    by_hand::BoxFuture, http::HttpOptions, model::ErrorCode, window,
};
use purview_tests::{Agent, Note};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A dialog whose actions misuse the context in the ways a reviewer found.
#[window(title = "Dialog")]
#[derive(Clone, Default)]
struct Dialog {
    #[block(field)]
    note: String,
}

#[actions]
impl Dialog {
    /// Closes its own owner, then tries to open a modal on itself.
    #[action]
    fn orphan(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        if let Some(owner) = cx.owner_id() {
            cx.close_window(&owner);
        }
        cx.open_modal(Dialog::default())?;
        Ok(())
    }

    /// Opens a window and edits it in the same call.
    #[action]
    fn edit_new(&mut self, cx: &mut Context) -> Result<(), purview::Error> {
        let id = cx.open(Dialog::default())?;
        cx.update::<Dialog>(&id, |d| d.note = "x".into());
        Ok(())
    }

    /// Waits, so the world can change under it.
    #[action(timeout = "2s")]
    async fn wait(
        &mut self,
        /// Milliseconds.
        millis: u64,
    ) {
        self.note = "waited".into();
        tokio::time::sleep(Duration::from_millis(millis)).await;
    }

    /// Calls another tool of the same app from inside the handler.
    #[action(timeout = "2s")]
    async fn nested(&mut self, cx: &mut Context) -> Result<(), purview::ToolError> {
        let _ = cx;
        let app = APP.with(|a| a.borrow().clone()).expect("test app");
        app.call("w1__wait", json!({"millis": 1}).as_object().cloned()).await.map(|_| ())
    }

    /// Peeks at the context from an async action through a shared reference.
    #[action]
    async fn peek(&self, cx: &Context) -> Option<String> {
        cx.window_id().map(str::to_owned)
    }
}

thread_local! {
    static APP: std::cell::RefCell<Option<App>> = const { std::cell::RefCell::new(None) };
}

/// Hand-written actions that panic outside the future, or in `Clone`.
#[derive(Default)]
struct Fragile {
    clone_panics: Arc<AtomicBool>,
}

impl Clone for Fragile {
    fn clone(&self) -> Self {
        if self.clone_panics.load(Ordering::SeqCst) {
            panic!("this view-model refuses to be cloned");
        }
        Self { clone_panics: self.clone_panics.clone() }
    }
}

impl Window for Fragile {
    fn title(&self) -> String {
        "Fragile".into()
    }
    fn project(&self, view: &mut View) {
        // The same id twice: deduplicated, and must not churn the version.
        view.text("dup", "one").text("dup", "two");
    }
}

impl Actions for Fragile {
    fn actions() -> Vec<ActionSpec> {
        vec![ActionSpec::new("eager"), ActionSpec::new("fine")]
    }
    fn call<'a>(&'a mut self, action: &'a str, args: Args, _: &'a mut Context) -> BoxFuture<'a> {
        if action == "eager" {
            // Work before the future is built: a panic here is outside it.
            let _args: Vec<u8> =
                args.parse().expect("this always fails: the arguments are not a list");
        }
        Box::pin(async move { Ok(ActionOutput::message("fine")) })
    }
}

/// A window without actions: opening it still changes the operable set.
#[window(title = "Static")]
#[derive(Clone)]
struct Static;

#[actions]
impl Static {}

#[tokio::test]
async fn s2_a_modal_whose_owner_closes_in_the_same_call_is_refused() -> Result<()> {
    let app = App::builder().build();
    let owner = app.open(Dialog::default())?;
    let dialog = owner.open_modal(Dialog::default())?;
    let before = app.snapshot_json()?;
    let err = app.call(&format!("{}__orphan", dialog.id()), None).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::ActionFailed);
    assert!(err.message.contains("closed by this same call"), "{}", err.message);
    assert_eq!(app.snapshot_json()?, before, "nothing applied");
    assert_eq!(app.operable_window_ids()?, [dialog.id()]);
    Ok(())
}

#[tokio::test]
async fn s7_4_editing_a_window_opened_in_the_same_call_says_so() -> Result<()> {
    let app = App::builder().build();
    let w = app.open(Dialog::default())?;
    let err = app.call(&format!("{}__edit_new", w.id()), None).await.unwrap_err();
    assert!(err.message.contains("that it opened itself"), "{}", err.message);
    assert_eq!(app.snapshot()?.windows.len(), 1);
    Ok(())
}

#[tokio::test]
async fn s7_2_an_action_withdrawn_or_blocked_while_running_is_not_applied() -> Result<()> {
    let app = App::builder().build();
    let w = app.open(Dialog::default())?;
    // Withdrawn with set_available while it runs.
    let call = {
        let app = app.clone();
        let tool = format!("{}__wait", w.id());
        tokio::spawn(
            async move { app.call(&tool, json!({"millis": 150}).as_object().cloned()).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(40)).await;
    w.set_available("wait", false)?;
    let err = call.await?.unwrap_err();
    assert_eq!(err.code, ErrorCode::ActionNotAvailable, "{err}");
    assert_eq!(w.read(|d| d.note.clone())?, "");
    w.set_available("wait", true)?;
    // Blocked by an app-level modal opened while it runs.
    let call = {
        let app = app.clone();
        let tool = format!("{}__wait", w.id());
        tokio::spawn(
            async move { app.call(&tool, json!({"millis": 150}).as_object().cloned()).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(40)).await;
    let modal = app.open_app_modal(Static)?;
    let err = call.await?.unwrap_err();
    assert_eq!(err.code, ErrorCode::BlockedByModal, "{err}");
    assert_eq!(err.blocked_by.as_deref(), Some(modal.id()));
    assert_eq!(w.read(|d| d.note.clone())?, "");
    Ok(())
}

#[tokio::test]
async fn s7_2_a_cancelled_call_changes_nothing() -> Result<()> {
    let app = App::builder().build();
    let w = app.open(Dialog::default())?;
    let cancel = CancellationToken::new();
    let call = {
        let (app, cancel) = (app.clone(), cancel.clone());
        let tool = format!("{}__wait", w.id());
        tokio::spawn(async move {
            app.call(&tool, json!({"millis": 500}).as_object().cloned()).cancel_on(cancel).await
        })
    };
    tokio::time::sleep(Duration::from_millis(40)).await;
    cancel.cancel();
    let err = call.await?.unwrap_err();
    assert!(err.message.contains("cancelled"), "{}", err.message);
    assert_eq!(w.read(|d| d.note.clone())?, "", "nothing applied");
    Ok(())
}

#[tokio::test]
async fn s7_2_panics_outside_the_handler_future_are_contained() -> Result<()> {
    let app = App::builder().build();
    let fragile = Fragile::default();
    let clone_panics = fragile.clone_panics.clone();
    let w = app.open(fragile)?;
    let eager = app.call(&format!("{}__eager", w.id()), None).await.unwrap_err();
    assert_eq!(eager.code, ErrorCode::ActionFailed);
    clone_panics.store(true, Ordering::SeqCst);
    let clone = app.call(&format!("{}__fine", w.id()), None).await.unwrap_err();
    assert_eq!(clone.code, ErrorCode::ActionFailed);
    clone_panics.store(false, Ordering::SeqCst);
    assert!(app.call(&format!("{}__fine", w.id()), None).await.is_ok(), "the app still works");
    Ok(())
}

#[tokio::test]
async fn s7_1_duplicate_block_ids_do_not_churn_the_version() -> Result<()> {
    let app = App::builder().build();
    let w = app.open(Fragile::default())?;
    let v = w.version()?;
    w.update(|_| ())?;
    w.update(|_| ())?;
    assert_eq!(w.version()?, v);
    let blocks = &app.snapshot()?.windows[0].blocks;
    let ids: Vec<_> = blocks.iter().map(|b| b.id.clone().unwrap()).collect();
    assert_eq!(ids, ["dup", "dup_2"]);
    Ok(())
}

#[tokio::test]
async fn s10_1_a_handler_calling_the_app_gets_an_error_not_a_deadlock() -> Result<()> {
    let app = App::builder().build();
    APP.with(|a| *a.borrow_mut() = Some(app.clone()));
    let w = app.open(Dialog::default())?;
    let started = std::time::Instant::now();
    let err = app.call(&format!("{}__nested", w.id()), None).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::ActionFailed, "{err}");
    assert!(err.message.contains("from inside another action"), "{}", err.message);
    assert!(started.elapsed() < Duration::from_secs(2), "answered without waiting for the timeout");
    Ok(())
}

#[tokio::test]
async fn s5_4_async_actions_may_borrow_the_context() -> Result<()> {
    let app = App::builder().build();
    let w = app.open(Dialog::default())?;
    let out = app.call(&format!("{}__peek", w.id()), None).await.map_err(anyhow::Error::msg)?;
    assert_eq!(out.value, Some(json!({"value": w.id()})));
    Ok(())
}

#[test]
fn s4_5_args_debug_shows_names_not_values() {
    let args = Args::from_json(json!({"pin": "hunter2"}), &["pin"]);
    let shown = format!("{args:?}");
    assert!(shown.contains("pin") && !shown.contains("hunter2"), "{shown}");
}

#[tokio::test]
async fn s6_opening_a_window_without_actions_is_a_tools_list_change() -> Result<()> {
    let app = App::builder().build();
    let mut agent = Agent::legacy(&app).await?;
    agent.drain().await;
    let s = app.open(Static)?;
    agent.expect(Note::ToolsChanged).await?;
    s.close()?;
    agent.expect(Note::ToolsChanged).await?;
    Ok(())
}

#[test]
fn s10_1_notifications_survive_a_runtime_restart() -> Result<()> {
    let app = App::builder().coalesce(Duration::from_millis(1)).build();
    let w = app.open(Dialog::default())?;
    // First runtime: a session comes and goes, then the runtime shuts down.
    tokio::runtime::Runtime::new()?.block_on(async {
        let agent = Agent::legacy(&app).await?;
        agent.close().await
    })?;
    // Second runtime: a new session must still hear about changes.
    tokio::runtime::Runtime::new()?.block_on(async {
        let mut agent = Agent::legacy(&app).await?;
        agent.subscribe().await?;
        w.update(|d| d.note = "after restart".into())?;
        agent.expect(Note::Updated(purview::model::WINDOWS_URI.into())).await
    })
}

#[tokio::test]
async fn s12_http_rejects_an_unusable_path_instead_of_panicking() {
    let app = App::builder().build();
    for path in ["mcp", "/", "/mcp/"] {
        let err = app.serve_http(HttpOptions::default().path(path)).await.unwrap_err();
        assert!(err.to_string().contains("sub-path"), "{err}");
    }
}

#[test]
fn s10_1_two_apps_may_be_used_from_one_callback() -> Result<()> {
    let a = App::builder().build();
    let b = App::builder().build();
    let wa = a.open(Dialog::default())?;
    let wb = b.open(Dialog::default())?;
    // While a's lock is held (inside its update), b is a different app.
    let inner = wa.update(|_| wb.update(|d| d.note = "from a".into()))?;
    assert!(inner.is_ok(), "{inner:?}");
    assert_eq!(wb.read(|d| d.note.clone())?, "from a");
    Ok(())
}

/// Serves `app` over an in-memory stdio-like stream, with one client that
/// subscribes, reads, sees one edit's notification, and disconnects.
async fn one_stdio_session(app: &App) -> Result<()> {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_side);
    let serving = {
        let app = app.clone();
        tokio::spawn(async move { app.serve_io(read, write).await })
    };
    let mut agent = Agent::over(client_side).await?;
    agent.subscribe().await?;
    let editor = app.window::<Dialog>("w1")?;
    editor.update(|d| d.note = "changed".into())?;
    agent.expect(purview_tests::Note::Updated(purview::model::WINDOWS_URI.into())).await?;
    agent.close().await?;
    serving.await??;
    Ok(())
}

/// Serves `app` over HTTP with one client session, then shuts the server
/// down.
async fn one_http_session(app: &App) -> Result<()> {
    let server = app.serve_http(purview::http::HttpOptions::default()).await?;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url());
    let agent = Agent::over(transport).await?;
    agent.subscribe().await?;
    assert_eq!(agent.read().await?.windows.len(), 1);
    agent.close().await?;
    server.shutdown().await;
    Ok(())
}

#[test]
fn s10_1_apps_that_served_mcp_leave_no_background_tasks_when_dropped() -> Result<()> {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let metrics = tokio::runtime::Handle::current().metrics();
        let baseline = metrics.num_alive_tasks();
        for round in 0..100 {
            let app = App::builder().build();
            app.open(Dialog::default())?;
            if round % 2 == 0 {
                one_stdio_session(&app).await?;
            } else {
                one_http_session(&app).await?;
            }
            drop(app);
        }
        // Tasks finish asynchronously after their connection closes.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while metrics.num_alive_tasks() > baseline && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(metrics.num_alive_tasks(), baseline, "tasks outlived their apps");
        Ok(())
    })
}

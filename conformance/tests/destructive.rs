//! The explorer leaves destructive tools alone unless told otherwise, so
//! pointing it at an app with real data deletes nothing.

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use purview::{ActionSpec, Actions, App, Args, Context, View, Window, by_hand::BoxFuture};
use purview_conformance::Explorer;

/// A window with one harmless action and one that must never run.
#[derive(Clone)]
struct Records {
    renames: usize,
    deleted: Arc<AtomicUsize>,
}

impl Window for Records {
    fn title(&self) -> String {
        "Records".into()
    }
    fn project(&self, view: &mut View) {
        view.summary(format!("Renamed {} times", self.renames));
    }
}

impl Actions for Records {
    fn actions() -> Vec<ActionSpec> {
        vec![
            ActionSpec::new("rename").description("Renames the records."),
            ActionSpec::new("delete_everything").description("Deletes every record.").destructive(),
        ]
    }
    fn call<'a>(&'a mut self, action: &'a str, _: Args, _: &'a mut Context) -> BoxFuture<'a> {
        Box::pin(async move {
            match action {
                "rename" => self.renames += 1,
                _ => {
                    self.deleted.fetch_add(1, Ordering::SeqCst);
                }
            }
            Ok(purview::ActionOutput::message("done"))
        })
    }
}

/// What the app logs (it logs every refused call with the tool name).
#[derive(Clone, Default)]
struct Log(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s5_6_destructive_tools_are_left_alone_by_default() {
    let log = Log::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_env_filter("purview=info")
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let deleted = Arc::new(AtomicUsize::new(0));
    let app = {
        let deleted = deleted.clone();
        move || {
            let app = App::builder().build();
            app.open(Records { renames: 0, deleted: deleted.clone() }).expect("opens");
            app
        }
    };
    let report = Explorer::new().seed(3).steps(300).explore(app.clone()).await;
    assert!(report.passed(), "{report}");
    assert_eq!(deleted.load(Ordering::SeqCst), 0, "the destructive action ran:\n{report}");
    assert!(
        report.coverage.skipped_destructive.iter().any(|s| s.contains("delete_everything")),
        "the report says what it left alone: {:?}",
        report.coverage.skipped_destructive
    );
    assert!(report.coverage.tools.keys().any(|k| k.contains("rename")), "it did explore");
    // Not even under a name no window has (the unknown-window probe).
    let asked = log.text();
    assert!(asked.contains("call rejected"), "the log shows refused calls: {asked}");
    assert!(!asked.contains("delete_everything"), "a destructive name was sent:\n{asked}");

    // Told otherwise, it does call it: the guard above is what kept it away.
    let report = Explorer::new().seed(3).steps(300).allow_destructive(true).explore(app).await;
    assert!(report.passed(), "{report}");
    assert!(deleted.load(Ordering::SeqCst) > 0, "with allow_destructive it is called");
    assert!(report.coverage.skipped_destructive.is_empty());
}

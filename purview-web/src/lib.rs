//! # purview-web
//!
//! The person's side of any [Purview](purview) application, in a browser:
//! every open window with its title, summary and blocks (text, fields,
//! tables with paging, lists, notices, media, custom), its actions as
//! buttons and forms generated from their input schemas (each field's
//! error beside it), a confirmation before a destructive action, modals
//! over their owners and blocked windows shown blocked, the app-level
//! modal over everything, where the agent is working, and the agent's
//! approval questions with Approve and Decline ([`Face::answering`]). The
//! page follows every change live (server-sent events, each carrying only
//! the windows that changed), and its clicks are the person's calls
//! ([`purview::Call::by_person`]): the same gates and versions as an
//! agent's call, so an agent's call made against what the person has since
//! changed is refused as stale (§7.1).
//!
//! The face is served by the app's own HTTP listener, beside `/mcp`
//! ([`purview::http::HttpOptions::serve_beside`]), and opens only for the
//! person: with a one-time link the app prints on stderr, whose key the
//! page exchanges for a session credential that the page's own script
//! keeps and sends in a header. It is no cookie, because a browser would
//! send a cookie to every other port of the same host too. An agent's
//! bearer token never opens the face, the person's credential never calls
//! `/mcp`, and every request that changes anything must come from the
//! face's own page (same `Origin`, a JSON body). Secret values appear only
//! as masks. The page is plain HTML, CSS and a small script embedded in
//! this crate: no build step, nothing fetched from elsewhere.
//!
//! Two lines give a headless app a person:
//!
//! ```no_run
//! use purview::prelude::*;
//!
//! #[window(summary = "Counts to {count}")]
//! #[derive(Clone, Default)]
//! struct Counter {
//!     #[block(field)]
//!     count: u32,
//! }
//!
//! #[actions]
//! impl Counter {
//!     /// Count one more.
//!     #[action]
//!     fn increment(&mut self) { self.count += 1; }
//! }
//!
//! # async fn run() -> Result<(), purview::Error> {
//! let app = App::builder().name("counter").build();
//! app.open(Counter::default())?;
//! let face = purview_web::Face::new(app.clone());
//! let server = app.serve_http(face.serve_beside(purview::http::HttpOptions::default())).await?;
//! face.announce(&server); // prints the person's one-time link on stderr
//! server.wait().await;
//! # Ok(()) }
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::too_many_lines)]

mod access;
mod assets;
mod card;
mod cut;
mod events;
#[cfg(test)]
mod fixture;
mod intents;
mod page;
mod routes;
mod scene;

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use purview::{
    App,
    approval::ApprovalQueue,
    http::{HttpOptions, HttpServer},
    serde_json::Value,
};
use purview_person::Seat;
use tokio::sync::{oneshot, watch};

pub use assets::BUDGET_BYTES;
pub use card::CARD_URI;
pub use events::MAX_STREAMS as MAX_EVENT_STREAMS;
pub use page::MAX_PAGES;

/// The weight of the face's embedded script and style sheet together,
/// uncompressed, in bytes; a test holds it to [`BUDGET_BYTES`].
///
/// ```
/// assert!(purview_web::script_and_style_bytes() <= purview_web::BUDGET_BYTES);
/// ```
pub fn script_and_style_bytes() -> usize {
    assets::SCRIPT.len() + assets::STYLE.len()
}

/// The path the face is served under unless [`Face::at`] says otherwise.
pub const DEFAULT_PREFIX: &str = "/person";

/// The person's face of an [`App`] in a browser: mount it beside the MCP
/// endpoint ([`Face::serve_beside`]), then hand the person its one-time
/// link ([`Face::announce`] or [`Face::one_time_link`]).
///
/// Cloning gives another handle to the same face (its links and sessions).
///
/// ```
/// let app = purview::App::builder().build();
/// let face = purview_web::Face::new(app).at("/desk");
/// assert_eq!(face.prefix(), "/desk");
/// ```
#[derive(Clone)]
pub struct Face {
    inner: Arc<Inner>,
}

/// What the routes share.
pub(crate) struct Inner {
    pub app: App,
    pub approvals: Option<ApprovalQueue>,
    pub prefix: String,
    pub title: String,
    pub access: access::Access,
    /// Bumped on every change of the app or of its questions.
    pub changes: watch::Sender<u64>,
    /// The open event streams; dropping a sender ends its stream.
    pub streams: Mutex<Vec<oneshot::Sender<()>>>,
    /// The model of the person's side, kept between changes so a window
    /// the app shares unchanged and an action type's form are made once.
    pub reader: Mutex<purview_person::Reader>,
    /// The last document made, and the change it was made at: every open
    /// stream and the card's reads share one per change.
    pub kept: Mutex<Option<Arc<Made>>>,
    /// What the person holds open in each page and card.
    pub pages: page::Pages,
}

pub(crate) fn calls_lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What the page draws as made at one change: the model, cut for the
/// event streams (each window written once, and only when it changed);
/// and, when first asked for, the whole document (for `/scene` and the
/// card), its JSON text, and the card's text (every question left out,
/// shared by every client's card; each client's own questions go beside
/// it).
pub(crate) struct Made {
    model: Result<purview_person::Model, String>,
    cut: cut::Cut,
    value: OnceLock<Arc<Value>>,
    text: OnceLock<Arc<str>>,
    card: OnceLock<Arc<str>>,
}

impl Made {
    /// The model, or why the app could not be read.
    pub(crate) fn model(&self) -> Result<&purview_person::Model, &str> {
        self.model.as_ref().map_err(String::as_str)
    }

    /// The cut the event streams send from.
    pub(crate) fn cut(&self) -> &cut::Cut {
        &self.cut
    }
}

impl Inner {
    /// The page of `session` named in the request's `x-purview-page`
    /// header (each tab of the person's names itself).
    pub(crate) fn page(
        &self,
        session: &access::Session,
        headers: &axum::http::HeaderMap,
    ) -> Arc<page::Handle> {
        let name = headers.get("x-purview-page").and_then(|v| v.to_str().ok()).unwrap_or("");
        self.pages.of(&format!("person-{}", session.number), name)
    }

    /// What the page draws now, made once per change.
    pub(crate) fn kept(&self) -> Arc<Made> {
        let change = *self.changes.borrow();
        if let Some(kept) = calls_lock(&self.kept).as_ref()
            && kept.cut.change() == change
        {
            return kept.clone();
        }
        // The change is read under the reader's lock, so a later change
        // number always goes with a model read later.
        let (change, model) = {
            let mut reader = calls_lock(&self.reader);
            let change = *self.changes.borrow();
            (change, scene::model(&self.app, self.approvals.as_ref(), &mut reader))
        };
        let mut kept = calls_lock(&self.kept);
        // Cut beside the cut kept now (another read may have kept one
        // since), so what changed is counted from what streams were sent.
        if let Some(newer) = kept.as_ref().filter(|k| !cut::is_later(change, k.cut.change())) {
            return newer.clone();
        }
        let about = (self.app.name(), self.approvals.is_some());
        let cut = cut::Cut::new(&model, about, change, kept.as_ref().map(|k| &k.cut));
        let made = Arc::new(Made {
            model,
            cut,
            value: OnceLock::new(),
            text: OnceLock::new(),
            card: OnceLock::new(),
        });
        *kept = Some(made.clone());
        made
    }

    /// The whole document of `made`, made once.
    fn value(&self, made: &Made) -> Arc<Value> {
        made.value
            .get_or_init(|| {
                Arc::new(scene::document(&made.model, self.app.name(), self.approvals.is_some()))
            })
            .clone()
    }

    /// What the card draws now: the document (to find a client's own
    /// questions in) and its JSON text with every question left out, made
    /// once per change whoever reads it.
    #[cfg(test)]
    pub(crate) fn card_view(&self) -> (Arc<Value>, Arc<str>) {
        self.card_view_of(&self.kept())
    }

    /// [`Inner::card_view`] as `made` has it.
    pub(crate) fn card_view_of(&self, made: &Made) -> (Arc<Value>, Arc<str>) {
        let value = self.value(made);
        let text =
            made.card.get_or_init(|| scene::without_questions(&value).to_string().into()).clone();
        (value, text)
    }

    /// What the page draws now, as one JSON text (`GET /scene`).
    pub(crate) fn document_text(&self) -> Arc<str> {
        let made = self.kept();
        made.text.get_or_init(|| self.value(&made).to_string().into()).clone()
    }
}

impl std::fmt::Debug for Face {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Face")
            .field("app", &self.inner.app)
            .field("prefix", &self.inner.prefix)
            .field("answering", &self.inner.approvals.is_some())
            .finish_non_exhaustive()
    }
}

impl From<Seat> for Face {
    /// The face of the person at `seat`, where the person answers approval
    /// questions if the seat does; a desktop face made from the same seat
    /// answers from the same queue.
    ///
    /// ```
    /// let seat = purview_person::Seat::watching(purview::App::builder().build());
    /// assert!(!purview_web::Face::from(seat).is_answering());
    /// ```
    fn from(seat: Seat) -> Self {
        let (app, approvals) = seat.into_parts();
        Self::with_approvals(app, approvals)
    }
}

impl Face {
    /// A face for `app` that shows no approval prompt
    /// ([`Seat::watching`]): questions go to whoever the app has.
    ///
    /// ```
    /// assert!(!purview_web::Face::new(purview::App::builder().build()).is_answering());
    /// ```
    pub fn new(app: App) -> Self {
        Seat::watching(app).into()
    }

    /// A face for `app` whose person answers the agents' approval
    /// questions through `approvals` ([`Seat::answering`]: the queue
    /// becomes the app's approver).
    ///
    /// ```
    /// use purview::approval::{ApprovalQueue, WhoApproves};
    /// let approvals = ApprovalQueue::new();
    /// let app = purview::App::builder()
    ///     .approver(approvals.clone())
    ///     .who_approves(WhoApproves::InApp)
    ///     .build();
    /// let face = purview_web::Face::answering(app, approvals);
    /// assert!(face.is_answering());
    /// ```
    pub fn answering(app: App, approvals: ApprovalQueue) -> Self {
        Seat::answering(app, approvals).into()
    }

    fn with_approvals(app: App, approvals: Option<ApprovalQueue>) -> Self {
        let (changes, _) = watch::channel(0u64);
        let notify = changes.clone();
        app.on_change(move |_| notify.send_modify(|n| *n = n.wrapping_add(1)));
        if let Some(queue) = &approvals {
            let notify = changes.clone();
            queue.on_change(move || notify.send_modify(|n| *n = n.wrapping_add(1)));
        }
        let title =
            if app.name().is_empty() { "Purview".to_owned() } else { app.name().to_owned() };
        let inner = Inner {
            app,
            approvals,
            prefix: DEFAULT_PREFIX.to_owned(),
            title,
            access: access::Access::default(),
            changes,
            streams: Mutex::default(),
            reader: Mutex::default(),
            kept: Mutex::default(),
            pages: page::Pages::default(),
        };
        Self { inner: Arc::new(inner) }
    }

    /// Serves the face under `prefix` instead of [`DEFAULT_PREFIX`] (it must
    /// start with `/`, name a sub-path and not overlap the MCP path). Call
    /// it before [`Face::serve_beside`]; links and sessions made before are
    /// kept.
    ///
    /// ```
    /// let face = purview_web::Face::new(purview::App::builder().build()).at("/desk");
    /// assert_eq!(face.prefix(), "/desk");
    /// ```
    #[must_use]
    pub fn at(self, prefix: impl Into<String>) -> Self {
        let prefix = prefix.into();
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.prefix = prefix;
                Self { inner: Arc::new(inner) }
            }
            // Shared already: a new face on the same app and questions.
            Err(shared) => {
                let mut face = Self::with_approvals(shared.app.clone(), shared.approvals.clone());
                if let Some(inner) = Arc::get_mut(&mut face.inner) {
                    inner.prefix = prefix;
                }
                face
            }
        }
    }

    /// The path the face is served under.
    ///
    /// ```
    /// let face = purview_web::Face::new(purview::App::builder().build());
    /// assert_eq!(face.prefix(), purview_web::DEFAULT_PREFIX);
    /// ```
    pub fn prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// Whether the person answers approval questions here.
    ///
    /// ```
    /// let face = purview_web::Face::new(purview::App::builder().build());
    /// assert!(!face.is_answering());
    /// ```
    pub fn is_answering(&self) -> bool {
        self.inner.approvals.is_some()
    }

    /// `options` with the face's routes served beside the MCP endpoint,
    /// and its window card shown to MCP Apps hosts ([`Face::card`]).
    ///
    /// ```
    /// let face = purview_web::Face::new(purview::App::builder().build());
    /// let options = face.serve_beside(purview::http::HttpOptions::default());
    /// # let _ = options;
    /// ```
    pub fn serve_beside(&self, options: HttpOptions) -> HttpOptions {
        options.serve_beside(self.inner.prefix.clone(), self.router()).show_card(self.card())
    }

    /// The window card for MCP Apps hosts ([`CARD_URI`]): the face's
    /// renderer as one self-contained document, which a host that renders
    /// cards shows beside the result of `app__read_windows` only (a card
    /// beside every action's result is noise, and some hosts open a new
    /// one per result). It talks to the app only through the host, with
    /// tools only it may call: the scene (marked read-only and idempotent,
    /// so hosts do not ask the person before each read), the person's
    /// intents in the card and a call's outcome (read-only: what the
    /// person holds open in the card is kept for it on the server), and
    /// the call an intent asked for (not marked: it acts, and is made as
    /// the host's own call of the action's tool with every gate, for the
    /// server cannot tell the card's calls from the model's). It never answers an
    /// approval question: it shows its host's own waiting questions and
    /// says where the person answers them. It takes the host's theme, style
    /// variables, fonts, safe area and container size, stops everything on
    /// teardown, and shows the read's last result when the app is gone.
    /// Only clients that declare the `io.modelcontextprotocol/ui` extension
    /// list, read or call any of it.
    /// [`Face::serve_beside`] shows it on the HTTP server already; give it
    /// to a stdio server with [`purview::McpServer::with_card`].
    ///
    /// ```
    /// let face = purview_web::Face::new(purview::App::builder().build());
    /// assert_eq!(face.card().uri(), purview_web::CARD_URI);
    /// assert!(face.card().html().starts_with("<!doctype html>"));
    /// ```
    pub fn card(&self) -> purview::http::mcp_apps::Card {
        card::card(&self.inner)
    }

    /// The face's routes as an axum 0.8 [`Router`](axum::Router), for a
    /// server of the app's own (they need the request's `Host` header to
    /// check `Origin`).
    ///
    /// ```
    /// let face = purview_web::Face::new(purview::App::builder().build());
    /// let routes: axum::Router = face.router();
    /// # let _ = routes;
    /// ```
    pub fn router(&self) -> axum::Router {
        routes::router(self.inner.clone())
    }

    /// A new one-time link to the face on `server`: opened once, in one
    /// browser, it becomes that browser's session; unused, it expires
    /// after 15 minutes. Its key is in the link's fragment (`#key=…`),
    /// which browsers never send to a server: the face's page exchanges it
    /// and then drops it from the address bar. Give it to the person only
    /// (it is the whole credential); `None` if the system has no
    /// randomness to make one.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), purview::Error> {
    /// let app = purview::App::builder().build();
    /// let face = purview_web::Face::new(app.clone());
    /// let server = app.serve_http(face.serve_beside(Default::default())).await?;
    /// let link = face.one_time_link(&server).expect("randomness");
    /// assert!(link.contains("/person/#key="));
    /// # Ok(()) }
    /// ```
    pub fn one_time_link(&self, server: &HttpServer) -> Option<String> {
        let key = self.inner.access.new_link()?;
        Some(format!("http://{}{}/#key={key}", server.local_addr(), self.inner.prefix))
    }

    /// Prints a new one-time link on stderr, for the person at the
    /// terminal (never on stdout, which may be a protocol stream).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), purview::Error> {
    /// let app = purview::App::builder().build();
    /// let face = purview_web::Face::new(app.clone());
    /// let server = app.serve_http(face.serve_beside(Default::default())).await?;
    /// face.announce(&server);
    /// # Ok(()) }
    /// ```
    pub fn announce(&self, server: &HttpServer) {
        match self.one_time_link(server) {
            Some(link) => eprintln!("The person's face (open once, in your browser): {link}"),
            None => eprintln!(
                "The person's face cannot open: the system gave no randomness for its link."
            ),
        }
    }
}

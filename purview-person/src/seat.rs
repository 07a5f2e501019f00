//! Who the person at a face is to the app: someone who sees its windows
//! and uses its actions, and, at a face that answers, the one who answers
//! the agents' approval questions.

use purview::{App, approval::ApprovalQueue};

/// The app a face shows, and the approval queue its person answers from,
/// if any. Every face (the desk, the browser face) is made from one.
///
/// A face made [`Seat::watching`] draws no approval prompt: questions go
/// to whoever the app has (the builder's approver, or the agent's own
/// client). A face made [`Seat::answering`] makes the queue the app's
/// approver, and its person answers there; several faces may answer from
/// one queue, and each question is applied once, whichever answers first.
///
/// ```
/// use purview::{App, approval::{ApprovalQueue, WhoApproves}};
/// use purview_person::Seat;
///
/// let approvals = ApprovalQueue::new();
/// let app = App::builder().approver(approvals.clone()).who_approves(WhoApproves::InApp).build();
/// let seat = Seat::answering(app.clone(), approvals);
/// assert!(seat.approvals().is_some());
/// assert!(Seat::watching(app).approvals().is_none());
/// ```
#[derive(Clone)]
pub struct Seat {
    app: App,
    approvals: Option<ApprovalQueue>,
}

impl Seat {
    /// The person sees and uses `app`, and answers no approval question.
    ///
    /// ```
    /// let seat = purview_person::Seat::watching(purview::App::builder().build());
    /// assert!(seat.approvals().is_none());
    /// ```
    pub fn watching(app: App) -> Self {
        Self { app, approvals: None }
    }

    /// The person sees and uses `app`, and answers the agents' approval
    /// questions through `approvals`, which becomes the app's approver
    /// ([`App::set_approver`]). Pass the queue the app was built with
    /// ([`AppBuilder::approver`](purview::AppBuilder::approver)), so the app
    /// has its approver from the start and says nothing about lacking one.
    ///
    /// ```
    /// use purview::approval::ApprovalQueue;
    /// let approvals = ApprovalQueue::new();
    /// let app = purview::App::builder().approver(approvals.clone()).build();
    /// let seat = purview_person::Seat::answering(app, approvals);
    /// assert!(seat.approvals().unwrap().pending().is_empty());
    /// ```
    pub fn answering(app: App, approvals: ApprovalQueue) -> Self {
        app.set_approver(approvals.clone());
        Self { app, approvals: Some(approvals) }
    }

    /// The app the face shows.
    ///
    /// ```
    /// let seat = purview_person::Seat::watching(purview::App::builder().name("desk").build());
    /// assert_eq!(seat.app().name(), "desk");
    /// ```
    pub fn app(&self) -> &App {
        &self.app
    }

    /// The queue the person answers from, if the face answers.
    ///
    /// ```
    /// let seat = purview_person::Seat::watching(purview::App::builder().build());
    /// assert!(seat.approvals().is_none());
    /// ```
    pub fn approvals(&self) -> Option<&ApprovalQueue> {
        self.approvals.as_ref()
    }

    /// The app and the queue, taken apart.
    ///
    /// ```
    /// let (app, approvals) = purview_person::Seat::watching(purview::App::builder().build()).into_parts();
    /// assert!(approvals.is_none());
    /// # drop(app);
    /// ```
    pub fn into_parts(self) -> (App, Option<ApprovalQueue>) {
        (self.app, self.approvals)
    }
}

impl std::fmt::Debug for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seat")
            .field("app", &self.app)
            .field("answering", &self.approvals.is_some())
            .finish()
    }
}

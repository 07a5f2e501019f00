//! An approval question as the person reads it: the app's own question
//! as written, who asks, and the agent's values beneath.

use purview::{approval::PendingApproval, serde::Serialize};

use crate::words;

/// An approval question waiting for the person.
///
/// ```
/// use purview_person::{Effect, Intent, Model, Person, Question};
///
/// let asked = Question { id: 4, text: "Refund 25.00 on return 17?".into() };
/// let answer = Person::default().intend(&Model::default(), Intent::Decline(asked.id));
/// assert_eq!(answer, Effect::Answer { id: 4, approve: false });
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(crate = "purview::serde")]
pub struct Question {
    /// What to answer with.
    pub id: u64,
    /// What is asked, as the app words approval questions.
    pub text: String,
}

pub(crate) fn questions(pending: &[PendingApproval], window: Option<&str>) -> Vec<Question> {
    pending.iter().filter(|p| p.request.window_id.as_deref() == window).map(question).collect()
}

/// The question as the person reads it. The app's own question is shown
/// as the app wrote it, its quotes as quotes: `describe` quotes and escapes
/// it for the agent's log, where its bounds must be unforgeable, but here
/// it stands on a line of its own. Hidden characters are still shown as
/// escapes, since the app may have written the agent's values into it.
pub(crate) fn question(pending: &PendingApproval) -> Question {
    let request = &pending.request;
    let described = request.describe();
    let text = match request.wording.as_deref().or(request.question.as_deref()) {
        Some(said) => {
            let beneath = described.split_once('\n').map_or("", |(_, rest)| rest);
            words::app_asks(&visible(said), &visible(&request.agent), beneath)
        }
        None => described,
    };
    Question { id: pending.id, text }
}

/// `text` with every character that would hide or reorder what is around
/// it written as an escape (`\u{202E}`), the rule the runtime applies.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = None;
    for c in text.chars() {
        if purview::constraint::is_hidden_after(previous, c) {
            out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
        previous = Some(c);
    }
    out
}

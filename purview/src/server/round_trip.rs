//! The 2026-07-28 approval question on the wire (SEP-2322, multi round
//! trip): the first `tools/call` answers `input_required` with a form
//! elicitation and a sealed `requestState`; the client's retry carries the
//! answer and that state back. What the state binds and how an answer is
//! judged is the application's (`app/consent.rs`); this module seals with
//! rmcp's HMAC codec and translates.

use std::{sync::Arc, time::Duration};

use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest,
    InputRequests, InputRequiredResult, RequestStateCodec, RequestStateError, SealOptions,
};

use crate::{
    App,
    app::consent::{self, Question, Resume, StateSeal, Ticket},
    model::DenialReason,
};

/// How much longer than the approval timeout a sealed state opens.
const SEAL_SLACK: Duration = Duration::from_secs(3600);

/// The key of the one input request an approval question carries.
pub(super) const ANSWER_KEY: &str = "approval";

/// What a client's user fills in (the same form 2025-11-25 elicitation
/// shows).
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(super) struct ApprovalForm {
    /// Let the agent go ahead.
    pub approve: bool,
}

rmcp::elicit_safe!(ApprovalForm);

/// rmcp's codec as the application's [`StateSeal`].
struct Sealed(RequestStateCodec);

impl StateSeal for Sealed {
    fn seal(&self, ticket: &Ticket, bound_to: &[u8], ttl: Duration) -> String {
        let options = SealOptions::new().associated_data(bound_to).ttl(ttl);
        // A ticket is strings and numbers: it always serializes.
        self.0.seal_json_with(ticket, &options).unwrap_or_default()
    }

    fn open(&self, sealed: &str, bound_to: &[u8]) -> Result<Ticket, DenialReason> {
        self.0.open_json_with(sealed, bound_to).map_err(|error| match error {
            RequestStateError::Expired => DenialReason::Expired,
            _ => DenialReason::Invalid,
        })
    }
}

/// The app's seal: made once, from its key or one drawn for this process.
fn seal_of(app: &App) -> Arc<dyn StateSeal> {
    app.state_seal(|key| {
        let key = match key {
            Some(key) => key.to_vec(),
            None => process_key(),
        };
        // The builder refused keys shorter than the codec needs.
        Arc::new(Sealed(RequestStateCodec::new_unchecked(key)))
    })
}

fn process_key() -> Vec<u8> {
    let mut key = vec![0; 32];
    if let Err(error) = getrandom::fill(&mut key) {
        // Hash keys are seeded from the system too; weaker, but no one
        // could forge a state without reading this process's memory.
        tracing::error!(%error, "no system randomness for the approval key; deriving one");
        use std::hash::BuildHasher;
        for (i, chunk) in key.chunks_mut(8).enumerate() {
            let word = std::collections::hash_map::RandomState::new().hash_one(i);
            chunk.copy_from_slice(&word.to_le_bytes());
        }
    }
    key
}

/// What a question is bound to: the tool and its arguments, byte for byte
/// as they will be on retry (keys sorted).
fn bound_to(request: &CallToolRequestParams) -> Vec<u8> {
    let arguments = serde_json::Value::Object(request.arguments.clone().unwrap_or_default());
    let mut bound = request.name.as_bytes().to_vec();
    bound.push(0);
    bound.extend(consent::canonical(&arguments));
    bound
}

/// A retry's answer, if the request carries a `requestState`.
pub(super) fn resume_of(app: &App, request: &CallToolRequestParams) -> Option<Resume> {
    let sealed = request.request_state.as_deref()?;
    Some(match seal_of(app).open(sealed, &bound_to(request)) {
        Ok(ticket) => {
            let answer = request
                .input_responses
                .as_ref()
                .and_then(|responses| responses.get(ANSWER_KEY))
                .map(consent::answer_of);
            Resume::Answered { ticket, answer }
        }
        Err(reason) => Resume::Unusable(reason),
    })
}

/// The `input_required` answer putting `question` to the client's user.
pub(super) fn ask(
    app: &App,
    request: &CallToolRequestParams,
    question: &Question,
) -> InputRequiredResult {
    // Whether the answer came in time is decided by the record of used
    // answers, on the monotonic clock (`app/answers.rs`); the seal's
    // wall-clock lifetime is only an outer bound, long enough that a clock
    // stepped forward cannot expire a question early.
    let lifetime = question.expires_in + SEAL_SLACK;
    let state = seal_of(app).seal(&question.ticket, &bound_to(request), lifetime);
    let form = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.message.clone(),
        requested_schema: ElicitationSchema::from_type::<ApprovalForm>().unwrap_or_else(|_| {
            ElicitationSchema::builder()
                .required_bool("approve")
                .build()
                .unwrap_or_else(|_| ElicitationSchema::new(Default::default()))
        }),
    };
    let mut requests = InputRequests::new();
    requests.insert(ANSWER_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(form)));
    InputRequiredResult::new(Some(requests), Some(state))
}

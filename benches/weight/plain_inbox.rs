//! The README's first window (the inbox of "Start a new app") written as a
//! plain rmcp server, the way rmcp's own docs show: one tool to file a
//! ticket, one to read the inbox, served over stdio with stderr logging.
//! `./scripts/weight start` builds it beside the README's Purview app to
//! show what Purview adds to a first build.

use std::sync::{Arc, Mutex};

use rmcp::{
    ErrorData, ServiceExt,
    handler::server::wrapper::{Json, Parameters},
    schemars, tool, tool_router,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct File {
    /// What is wrong, in a few words.
    subject: String,
    /// How urgent it is.
    priority: Priority,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Tickets {
    open: usize,
    tickets: Vec<String>,
}

#[derive(Clone, Default)]
struct Inbox {
    tickets: Arc<Mutex<Vec<String>>>,
}

impl Inbox {
    fn list(&self) -> Tickets {
        let tickets = self.tickets.lock().expect("not poisoned").clone();
        Tickets { open: tickets.len(), tickets }
    }
}

#[tool_router(server_handler)]
impl Inbox {
    /// File a new ticket.
    #[tool]
    fn file(&self, Parameters(file): Parameters<File>) -> Result<Json<Tickets>, ErrorData> {
        if file.subject.trim().is_empty() {
            return Err(ErrorData::invalid_params("subject: must not be blank", None));
        }
        let ticket = format!("{} ({:?})", file.subject, file.priority);
        self.tickets.lock().expect("not poisoned").push(ticket);
        Ok(Json(self.list()))
    }

    /// The open tickets.
    #[tool]
    fn read_inbox(&self) -> Json<Tickets> {
        Json(self.list())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let service = Inbox::default().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

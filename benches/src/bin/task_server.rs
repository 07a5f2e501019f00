//! The hand-written task server (`purview_benches::task_server`) over
//! stdio with rmcp: order_desk's stories as tools written for them, the
//! floor of the story suite (BENCHMARKS.md, "The story suite").
//!
//! ```text
//! task_server
//! ```

use std::sync::{Arc, Mutex};

use purview_benches::task_server::TaskServer;
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
        PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
};
use serde_json::Value;

#[derive(Clone, Default)]
struct Server(Arc<Mutex<TaskServer>>);

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = TaskServer::tools()
            .into_iter()
            .map(|t| {
                let Value::Object(schema) = t.input_schema else { unreachable!("an object") };
                Tool::new(t.name, t.description, Arc::new(schema))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let answer =
            self.0.lock().unwrap_or_else(|e| e.into_inner()).call(&request.name, &arguments);
        Ok(match answer {
            Ok(result) => CallToolResult::structured(result),
            Err(error) => CallToolResult::structured_error(error),
        }
        .into())
    }
}

#[tokio::main]
async fn main() {
    match Server::default().serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => eprintln!("task_server: {e}"),
    }
}

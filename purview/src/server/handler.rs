//! What the server answers each MCP request with: the rmcp
//! `ServerHandler` of [`McpServer`], translating to the application in
//! `crate::app`. Over HTTP every request's work runs in its client's CPU
//! turns (`turns.rs`).

use std::sync::atomic::Ordering;

use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ListResourcesResult,
        ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
        ServerConfig, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
    },
    service::{NotificationContext, RequestContext, SubscriptionContext},
};

use super::{
    Cancel, McpServer,
    mcp_apps::{Card, CardReply},
    wire::{internal, unknown_resource, windows_contents, windows_resource},
};
use crate::{model::WINDOWS_URI, settings::ToolSurface};

#[allow(deprecated)] // resources/subscribe is legacy-only, and legacy sessions need it.
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut config = self.app.server_config();
        if self.card.is_some() {
            Card::declare(&mut config.capabilities);
        }
        config
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // The client is not waiting for an answer here; a refusal is logged
        // and repeated when it subscribes.
        let _ = self.register(context.peer);
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut resources = vec![windows_resource()];
        resources.extend(self.card_for(&context).map(Card::resource));
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.in_turns((&context.ct, Cancel::Anywhere), async {
            if let Some(card) = self.card_for(&context).filter(|c| c.uri() == request.uri) {
                return Ok(card.read().into());
            }
            if request.uri != WINDOWS_URI {
                return Err(unknown_resource(&request.uri));
            }
            #[cfg(feature = "http")]
            self.note_session(&context);
            let json = self.app.snapshot_json().map_err(internal)?;
            Ok(windows_contents(&json).into())
        })
        .await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if request.uri != WINDOWS_URI {
            return Err(unknown_resource(&request.uri));
        }
        self.register(context.peer).map_err(|reason| {
            McpError::invalid_request(
                format!(
                    "Cannot subscribe: {reason}. Reading {WINDOWS_URI} still works; read it again before each decision."
                ),
                None,
            )
        })?;
        self.session.subscribed.store(true, Ordering::Release);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if request.uri != WINDOWS_URI {
            return Err(unknown_resource(&request.uri));
        }
        self.session.subscribed.store(false, Ordering::Release);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = requested.supported_by(&self.get_info().capabilities);
        if let Some(uris) = &mut accepted.resource_subscriptions {
            uris.retain(|uri| uri == WINDOWS_URI);
        }
        if self.app.tool_surface() == ToolSurface::Dispatcher {
            // The list never changes on this surface.
            accepted.tools_list_changed = None;
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        Box::pin(self.hold_listen(context)).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.in_turns((&context.ct, Cancel::Anywhere), async {
            #[cfg(feature = "http")]
            self.note_session(&context);
            self.app.tools_reply_for(self.card_for(&context)).map_err(internal)
        })
        .await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // The call's work between its awaits is the client's CPU; the
        // future waits behind a pointer (`InTurns` boxes it), for rmcp
        // spawns every request's future, copying it whole, and the call
        // path is a few kilobytes of state. A call cancelled while it
        // waits for its first turn is never made.
        let cancelled = context.ct.clone();
        // The one call the shared reads answer: its session made known.
        #[cfg(feature = "http")]
        if request.name == crate::naming::READ_WINDOWS_TOOL {
            self.note_session(&context);
        }
        self.in_turns((&cancelled, Cancel::BeforeItStarts), async {
            let request = match self.card_reply(&request, &context).await {
                None => request,
                Some(CardReply::Answer(answer)) => {
                    return Ok(CallToolResult::structured(answer).into());
                }
                // The card's call is the client's own: the one call path.
                Some(CardReply::Call { tool, arguments }) => {
                    CallToolRequestParams::new(tool).with_arguments(arguments)
                }
            };
            Box::pin(self.answer_call(request, context)).await
        })
        .await
    }
}

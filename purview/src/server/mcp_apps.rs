//! A view for MCP Apps hosts (the `io.modelcontextprotocol/ui`
//! extension): an HTML resource the host renders beside a tool's result,
//! the tools only that view may call, and the `_meta` that ties them
//! together. rmcp has no typed API for it, so this module writes the
//! capability, the tools' `_meta` and the resource's `_meta` by hand, and
//! only for clients that declared the extension: every other client lists,
//! reads and calls exactly what it would without a card (the card's
//! document and its own tools are unknown to it).
//!
//! Where hosts look (spec 2026-01-26 and its draft): the capability under
//! `extensions`; `_meta.ui.resourceUri` on the tools whose result the card
//! explains (and the flat `ui/resourceUri` key while hosts still read only
//! that one); `_meta.ui` (CSP, border) on the `resources/list` entry and on
//! the read; `visibility: ["app"]` on the card's own tools, and
//! `readOnlyHint`/`idempotentHint` on those that only read, since hosts ask
//! the person to confirm every other call a view makes.

use std::{future::Future, pin::Pin, sync::Arc};

use rmcp::model::{
    ClientCapabilities, ExtensionCapabilities, JsonObject, MetaObject, ReadResourceResult,
    Resource, ResourceContents, ServerCapabilities, Tool, ToolAnnotations,
};
use serde_json::{Value, json};

use crate::app::ClientId;

/// The extension's identifier, as capabilities name it.
///
/// ```
/// assert_eq!(purview::http::mcp_apps::EXTENSION, "io.modelcontextprotocol/ui");
/// ```
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view's HTML, as hosts recognise it.
///
/// ```
/// assert_eq!(purview::http::mcp_apps::MIME_TYPE, "text/html;profile=mcp-app");
/// ```
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// What a card tool answers.
///
/// ```
/// use purview::http::mcp_apps::CardReply;
/// let read = CardReply::Answer(serde_json::json!({"windows": []}));
/// let call = CardReply::Call { tool: "w1__increment".into(), arguments: Default::default() };
/// # let _ = (read, call);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum CardReply {
    /// The structured content the card gets.
    Answer(Value),
    /// A call of the app's tool `tool` with `arguments`, made as the
    /// client's own `tools/call` (the host's, on the card's behalf): the
    /// one call path with the client's session, every gate and approval,
    /// and its fair share. The card gets the call's result.
    Call {
        /// The app's tool to call.
        tool: String,
        /// Its arguments.
        arguments: JsonObject,
    },
}

/// What a card tool's handler returns.
///
/// ```
/// use purview::http::mcp_apps::{CardAnswer, CardReply};
/// let answer: CardAnswer = Box::pin(async { CardReply::Answer(serde_json::json!({"ok": true})) });
/// # let _ = answer;
/// ```
pub type CardAnswer = Pin<Box<dyn Future<Output = CardReply> + Send>>;

type Run = Arc<dyn Fn(JsonObject, ClientId) -> CardAnswer + Send + Sync>;

/// A tool only the card calls (`_meta.ui.visibility: ["app"]`, hidden from
/// the model), listed only to hosts that render cards.
///
/// ```
/// use purview::http::mcp_apps::{CardReply, CardTool};
/// let ping = CardTool::new(
///     "app__card_ping",
///     "Answers pong.",
///     serde_json::json!({"type": "object"}),
///     |_arguments, _caller| Box::pin(async { CardReply::Answer(serde_json::json!({"pong": true})) }),
/// )
/// .read_only();
/// assert_eq!(ping.name(), "app__card_ping");
/// ```
#[derive(Clone)]
pub struct CardTool {
    name: String,
    description: String,
    input_schema: Arc<JsonObject>,
    read_only: bool,
    run: Run,
}

impl std::fmt::Debug for CardTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CardTool").field("name", &self.name).finish_non_exhaustive()
    }
}

impl CardTool {
    /// A tool named `name` taking arguments described by `input_schema`
    /// (a JSON Schema object; anything else is taken as `{"type":
    /// "object"}`), answered by `run` with the arguments and the client
    /// that called (by its credential, as every share counts it).
    ///
    /// ```
    /// use purview::http::mcp_apps::{CardReply, CardTool};
    /// let echo = CardTool::new("app__card_echo", "Echoes.", serde_json::json!({"type": "object"}), |args, _caller| {
    ///     Box::pin(async move { CardReply::Answer(serde_json::Value::Object(args)) })
    /// });
    /// assert_eq!(echo.name(), "app__card_echo");
    /// ```
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        run: impl Fn(JsonObject, ClientId) -> CardAnswer + Send + Sync + 'static,
    ) -> Self {
        let input_schema = match input_schema {
            Value::Object(schema) => schema,
            _ => json!({"type": "object"}).as_object().cloned().unwrap_or_default(),
        };
        Self {
            name: name.into(),
            description: description.into(),
            input_schema: Arc::new(input_schema),
            read_only: false,
            run: Arc::new(run),
        }
    }

    /// Marks the tool as one that only reads (`readOnlyHint` and
    /// `idempotentHint`): hosts then let the card call it without asking
    /// the person each time, as they must for a read the card repeats.
    /// Never for a tool that acts.
    ///
    /// ```
    /// # use purview::http::mcp_apps::{CardReply, CardTool};
    /// let read = CardTool::new("app__card_read", "Reads.", serde_json::json!({}), |_, _| {
    ///     Box::pin(async { CardReply::Answer(serde_json::Value::Null) })
    /// })
    /// .read_only();
    /// # let _ = read;
    /// ```
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// The tool's name.
    ///
    /// ```
    /// # use purview::http::mcp_apps::CardTool;
    /// let tool = CardTool::new("x", "", serde_json::json!({}), |_, _| {
    ///     Box::pin(async { purview::http::mcp_apps::CardReply::Answer(serde_json::Value::Null) })
    /// });
    /// assert_eq!(tool.name(), "x");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// An HTML card an MCP Apps host renders beside the result of the tools it
/// is shown with, served as a `ui://` resource ([`MIME_TYPE`], no network:
/// an empty CSP), with the tools only it calls. Give it to the HTTP server
/// with [`HttpOptions::show_card`](crate::http::HttpOptions::show_card)
/// (`purview_web::Face` does, for its window card).
///
/// The host cannot tell a card's `tools/call` from the model's: whatever a
/// card calls is an agent's call, gated (and asked for approval) as one.
///
/// ```
/// use purview::http::mcp_apps::Card;
/// let card = Card::new("ui://purview/windows", "<!doctype html><p>Hello</p>")
///     .titled("Windows")
///     .shown_with("app__read_windows");
/// assert_eq!(card.uri(), "ui://purview/windows");
/// ```
#[derive(Clone, Debug)]
pub struct Card {
    uri: String,
    title: String,
    html: Arc<str>,
    shown_with: Vec<String>,
    every_tool: bool,
    tools: Vec<CardTool>,
}

impl Card {
    /// A card at `uri` (it should start with `ui://`) whose document is
    /// `html`: self-contained, for the host loads nothing else for it.
    ///
    /// ```
    /// let card = purview::http::mcp_apps::Card::new("ui://demo/hello", "<p>Hello</p>");
    /// assert_eq!(card.uri(), "ui://demo/hello");
    /// ```
    pub fn new(uri: impl Into<String>, html: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            title: String::new(),
            html: Arc::from(html.into()),
            shown_with: Vec::new(),
            every_tool: false,
            tools: Vec::new(),
        }
    }

    /// The card's title in resource lists.
    ///
    /// ```
    /// let card = purview::http::mcp_apps::Card::new("ui://demo/hello", "").titled("Hello");
    /// # let _ = card;
    /// ```
    pub fn titled(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Shows the card with `tool`'s results.
    ///
    /// ```
    /// let card = purview::http::mcp_apps::Card::new("ui://demo/hello", "")
    ///     .shown_with("app__read_windows");
    /// # let _ = card;
    /// ```
    pub fn shown_with(mut self, tool: impl Into<String>) -> Self {
        self.shown_with.push(tool.into());
        self
    }

    /// Shows the card with the results of every tool the app lists (every
    /// window's and the app's actions, and `app__read_windows`). Rarely
    /// what a host's user wants: some hosts open a new card for every
    /// result that names one, so prefer [`Card::shown_with`] on the tools
    /// whose result the card explains.
    ///
    /// ```
    /// let card = purview::http::mcp_apps::Card::new("ui://x/y", "").shown_with_every_tool();
    /// # let _ = card;
    /// ```
    pub fn shown_with_every_tool(mut self) -> Self {
        self.every_tool = true;
        self
    }

    /// Adds a tool only the card calls.
    ///
    /// ```
    /// use purview::http::mcp_apps::{Card, CardReply, CardTool};
    /// let ping = CardTool::new("app__card_ping", "Pong.", serde_json::json!({}), |_, _| {
    ///     Box::pin(async { CardReply::Answer(serde_json::json!({"pong": true})) })
    /// });
    /// let card = Card::new("ui://demo/hello", "").with_tool(ping);
    /// # let _ = card;
    /// ```
    pub fn with_tool(mut self, tool: CardTool) -> Self {
        self.tools.push(tool);
        self
    }

    /// The card's resource URI.
    ///
    /// ```
    /// let card = purview::http::mcp_apps::Card::new("ui://demo/hello", "");
    /// assert_eq!(card.uri(), "ui://demo/hello");
    /// ```
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The card's HTML document.
    ///
    /// ```
    /// let card = purview::http::mcp_apps::Card::new("ui://x/y", "<p>hi</p>");
    /// assert_eq!(card.html(), "<p>hi</p>");
    /// ```
    pub fn html(&self) -> &str {
        &self.html
    }

    /// The card tool named `name`, unless the app lists a tool of that name
    /// itself (the app's own tools come first).
    pub(crate) fn tool(&self, name: &str, app_lists: impl Fn(&str) -> bool) -> Option<&CardTool> {
        self.tools.iter().find(|t| t.name == name).filter(|t| !app_lists(&t.name))
    }

    /// Runs the card tool `tool` on `arguments` for `caller`.
    pub(crate) fn run(tool: &CardTool, arguments: JsonObject, caller: ClientId) -> CardAnswer {
        (tool.run)(arguments, caller)
    }

    /// `capabilities` with the extension declared.
    pub(crate) fn declare(capabilities: &mut ServerCapabilities) {
        let mut settings = JsonObject::new();
        settings.insert("mimeTypes".into(), json!([MIME_TYPE]));
        capabilities
            .extensions
            .get_or_insert_with(ExtensionCapabilities::new)
            .insert(EXTENSION.into(), settings);
    }

    /// The tools as a host that renders cards lists them: `listed` with the
    /// card's URI in the `_meta` of those it is shown with (both the
    /// current key and the flat one some hosts read), then the card's own
    /// tools, visible to the card only.
    pub(crate) fn list(&self, listed: Vec<Tool>) -> Vec<Tool> {
        let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
        let mut tools: Vec<Tool> = listed
            .into_iter()
            .map(|tool| {
                if self.every_tool || self.shown_with.iter().any(|n| *n == tool.name) {
                    let ui = json!({"resourceUri": self.uri});
                    with_meta(tool, ui)
                } else {
                    tool
                }
            })
            .collect();
        for tool in self.tools.iter().filter(|t| !names.contains(&t.name)) {
            let mut annotations = ToolAnnotations::new();
            annotations.open_world_hint = Some(false);
            if tool.read_only {
                annotations.read_only_hint = Some(true);
                annotations.idempotent_hint = Some(true);
            }
            let listed =
                Tool::new(tool.name.clone(), tool.description.clone(), tool.input_schema.clone())
                    .with_annotations(annotations);
            let ui = json!({"resourceUri": self.uri, "visibility": ["app"]});
            tools.push(with_meta(listed, ui));
        }
        tools
    }

    /// The card as `resources/list` names it, with the same `_meta.ui` as
    /// its read (the draft has hosts check both; the read wins).
    pub(crate) fn resource(&self) -> Resource {
        let title = if self.title.is_empty() { "Card" } else { self.title.as_str() };
        Resource::new(self.uri.clone(), "card")
            .with_title(title)
            .with_description("The app's windows as a card a host renders beside the conversation.")
            .with_mime_type(MIME_TYPE)
            .with_meta(resource_meta())
    }

    /// The card's document, as `resources/read` answers it: no network
    /// (empty CSP domains), a border around it.
    pub(crate) fn read(&self) -> ReadResourceResult {
        ReadResourceResult::new(vec![
            ResourceContents::text(self.html.to_string(), self.uri.clone())
                .with_mime_type(MIME_TYPE)
                .with_meta(resource_meta()),
        ])
    }
}

/// The card's `_meta`: no network at all (every CSP list empty) and a
/// border, since the card draws none of its own around the host's page.
fn resource_meta() -> MetaObject {
    let mut meta = MetaObject::new();
    meta.insert(
        "ui".into(),
        json!({
            "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
            "prefersBorder": true
        }),
    );
    meta
}

/// The older flat key for a tool's card. To be removed when the
/// extension's GA drops it (the draft marks it deprecated); until then
/// some hosts (VS Code among them) read only this one.
const FLAT_RESOURCE_URI: &str = "ui/resourceUri";

/// `tool` with `ui` as its `_meta.ui`, and its URI under the flat key too.
fn with_meta(mut tool: Tool, ui: Value) -> Tool {
    let mut meta = tool.meta.take().unwrap_or_default();
    if let Some(uri) = ui.get("resourceUri").cloned() {
        meta.insert(FLAT_RESOURCE_URI.into(), uri);
    }
    meta.insert("ui".into(), ui);
    tool.meta = Some(meta);
    tool
}

/// Whether a client renders cards: it declared the extension with the
/// card's MIME type.
pub(crate) fn renders_cards(capabilities: Option<&ClientCapabilities>) -> bool {
    let Some(settings) = capabilities.and_then(|c| c.extensions.as_ref()?.get(EXTENSION)) else {
        return false;
    };
    settings
        .get("mimeTypes")
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card() -> Card {
        Card::new("ui://purview/windows", "<p>card</p>")
            .shown_with("app__read_windows")
            .with_tool(
                CardTool::new(
                    "app__card_scene",
                    "The scene.",
                    json!({"type": "object"}),
                    |_, _| Box::pin(async { CardReply::Answer(json!({})) }),
                )
                .read_only(),
            )
            .with_tool(CardTool::new(
                "app__card_call",
                "Acts.",
                json!({"type": "object"}),
                |_, _| Box::pin(async { CardReply::Answer(json!({})) }),
            ))
    }

    fn plain(name: &str) -> Tool {
        Tool::new(name.to_owned(), "", Arc::new(JsonObject::new()))
    }

    #[test]
    fn the_tools_it_is_shown_with_carry_both_keys_and_its_own_are_for_the_card_only() {
        let listed = card().list(vec![plain("app__read_windows"), plain("w1__edit")]);
        let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["app__read_windows", "w1__edit", "app__card_scene", "app__card_call"]);
        let read = serde_json::to_value(&listed[0]).unwrap();
        assert_eq!(read["_meta"]["ui"]["resourceUri"], "ui://purview/windows");
        assert_eq!(read["_meta"]["ui/resourceUri"], "ui://purview/windows");
        assert!(serde_json::to_value(&listed[1]).unwrap().get("_meta").is_none());
        let helper = serde_json::to_value(&listed[2]).unwrap();
        assert_eq!(helper["_meta"]["ui"]["visibility"], json!(["app"]));
    }

    #[test]
    fn a_read_the_card_repeats_never_prompts_and_a_call_that_acts_is_not_called_a_read() {
        let listed = card().list(vec![]);
        let scene = serde_json::to_value(&listed[0]).unwrap();
        assert_eq!(scene["annotations"]["readOnlyHint"], true);
        assert_eq!(scene["annotations"]["idempotentHint"], true);
        let call = serde_json::to_value(&listed[1]).unwrap();
        assert_eq!(call["name"], "app__card_call");
        assert!(call["annotations"].get("readOnlyHint").is_none(), "{call}");
        assert!(call["annotations"].get("idempotentHint").is_none(), "{call}");
    }

    #[test]
    fn the_list_entry_and_the_read_carry_the_same_ui_meta() {
        let card = card();
        let listed = serde_json::to_value(card.resource()).unwrap();
        let read = serde_json::to_value(card.read()).unwrap();
        assert_eq!(listed["_meta"]["ui"], read["contents"][0]["_meta"]["ui"]);
        assert_eq!(listed["_meta"]["ui"]["prefersBorder"], true);
        assert_eq!(listed["mimeType"], MIME_TYPE);
    }

    #[test]
    fn an_app_tool_of_the_same_name_wins_over_the_cards() {
        let card = card();
        assert!(card.tool("app__card_scene", |name| name == "app__card_scene").is_none());
        assert!(card.tool("app__card_scene", |_| false).is_some());
        let listed = card.list(vec![plain("app__card_scene")]);
        let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["app__card_scene", "app__card_call"]);
        assert!(listed[0].meta.is_none(), "the app's own tool took the card's _meta");
    }

    #[test]
    fn only_a_client_declaring_the_extension_with_the_mime_type_renders_cards() {
        let declared = |value: Value| {
            let capabilities: ClientCapabilities =
                serde_json::from_value(json!({"extensions": {EXTENSION: value}})).unwrap();
            renders_cards(Some(&capabilities))
        };
        assert!(declared(json!({"mimeTypes": [MIME_TYPE]})));
        assert!(!declared(json!({"mimeTypes": ["text/html"]})));
        assert!(!declared(json!({})));
        assert!(!renders_cards(Some(&ClientCapabilities::default())));
        assert!(!renders_cards(None));
    }

    #[test]
    fn the_resource_is_the_cards_html_with_no_network() {
        let read = serde_json::to_value(card().read()).unwrap();
        let contents = &read["contents"][0];
        assert_eq!(contents["mimeType"], MIME_TYPE);
        assert_eq!(contents["text"], "<p>card</p>");
        assert_eq!(contents["_meta"]["ui"]["csp"]["connectDomains"], json!([]));
    }

    #[test]
    fn the_capability_names_the_mime_type() {
        let mut capabilities = ServerCapabilities::default();
        Card::declare(&mut capabilities);
        let value = serde_json::to_value(&capabilities).unwrap();
        assert_eq!(value["extensions"][EXTENSION]["mimeTypes"], json!([MIME_TYPE]));
    }
}

//! The tools an agent is offered, as transport-neutral definitions: the
//! per-window tools of §5 (from the registry's published tool set) and, on
//! the surfaces that have them, Purview's two always-listed tools.

use std::sync::{Arc, LazyLock};

use serde_json::{Map, Value, json};

use super::{
    actor::CompiledAction,
    builder::{Config, ToolSurface},
    registry::{Entry, State, ToolRef, WindowsRef},
};
use crate::{
    action::JsonObject,
    model::{ToolDefinition, ToolHints},
    naming,
    schema::output_schema,
};

/// Every tool tools/list returns now, Purview's own first.
pub(super) fn tools(state: &State, config: &Config) -> Vec<ToolDefinition> {
    let mut tools = Vec::new();
    if config.surface.lists_dispatcher() {
        tools.push(READ_WINDOWS.clone());
        tools.push(ACT.clone());
    }
    if config.surface.lists_window_tools() {
        tools.extend(state.tools.iter().filter_map(|t| window_tool(state, config, t)));
    }
    tools
}

/// The names tools/list returns now.
pub(super) fn tool_names(state: &State, surface: ToolSurface) -> Vec<String> {
    let mut names = Vec::new();
    if surface.lists_dispatcher() {
        names.push(naming::READ_WINDOWS_TOOL.to_owned());
        names.push(naming::ACT_TOOL.to_owned());
    }
    if surface.lists_window_tools() {
        names.extend(state.tools.iter().map(|t| t.name.clone()));
    }
    names
}

fn window_tool(state: &State, config: &Config, tool: &ToolRef) -> Option<ToolDefinition> {
    let (entry, action) = lookup(state, tool)?;
    let (title, description) = words(config, entry, action);
    Some(ToolDefinition {
        name: tool.name.clone(),
        title,
        description,
        input_schema: action.input_schema.clone(),
        output_schema: action.output_schema.clone(),
        annotations: action.spec.hints,
    })
}

fn lookup<'a>(state: &'a State, tool: &ToolRef) -> Option<(Option<&'a Entry>, &'a CompiledAction)> {
    match tool.window {
        Some(seq) => {
            let entry = state.windows.get(&seq)?;
            Some((Some(entry), entry.actor.spec.actions.get(tool.action)?))
        }
        None => Some((None, state.app.as_ref()?.spec.actions.get(tool.action)?)),
    }
}

/// A tool's title and description: what it does, and where.
fn words(config: &Config, window: Option<&Entry>, action: &CompiledAction) -> (String, String) {
    let mut what = sentence(action.spec.description.as_deref().unwrap_or(&action.tool_title));
    if action.spec.needs_approval() {
        what.push_str(" Waits for the person's approval before it runs, and may be declined.");
    }
    match window {
        Some(w) => (
            format!("{} · {} (window {})", action.tool_title, w.title, w.id),
            format!("{what} Acts on the \"{}\" window ({}).", w.title, w.id),
        ),
        None => (
            format!("{} · {}", action.tool_title, config.name),
            format!("{what} An app-level action of {}.", config.name),
        ),
    }
}

/// Ends a description with a full stop, so a note can follow it.
fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?']) { text.to_owned() } else { format!("{text}.") }
}

/// The structuredContent of `app__read_windows`: the `app://windows`
/// snapshot (narrowed to `only`, when given; `operableWindowIds` stays
/// whole) plus, under `actions`, each operable window's available actions as
/// tools/list would show them, keyed by bare action name.
pub(super) fn read_windows(state: &State, config: &Config, only: Option<&[String]>) -> Value {
    let wanted = |id: &str| only.is_none_or(|ids| ids.iter().any(|w| w == id));
    let windows: Vec<&Entry> = state.windows.values().filter(|e| wanted(&e.id)).collect();
    let mut actions = Map::new();
    for id in state.operable.iter().filter(|id| wanted(id)) {
        let Some(entry) = state.entry_by_id(id) else { continue };
        actions
            .insert(id.to_string(), Value::Array(action_list(config, Some(entry), &entry.actor)));
    }
    if let Some(app) = &state.app
        && !state.app_modal_open()
    {
        actions.insert(naming::APP.to_owned(), Value::Array(action_list(config, None, app)));
    }
    let mut snapshot = Map::new();
    snapshot.insert(
        "operableWindowIds".into(),
        state.operable.iter().map(|id| Value::from(id.as_ref())).collect(),
    );
    snapshot.insert("windows".into(), WindowsRef::from(windows).into());
    snapshot.insert("actions".into(), Value::Object(actions));
    Value::Object(snapshot)
}

fn action_list(config: &Config, window: Option<&Entry>, actor: &super::actor::Actor) -> Vec<Value> {
    actor
        .spec
        .actions
        .iter()
        .zip(&actor.available)
        .filter(|(_, on)| **on)
        .map(|(action, _)| {
            let (title, description) = words(config, window, action);
            json!({
                "name": action.spec.name,
                "title": title,
                "description": description,
                "inputSchema": Value::Object((*action.input_schema).clone()),
                "annotations": action.spec.hints,
            })
        })
        .collect()
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

static READ_WINDOWS: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition {
    name: naming::READ_WINDOWS_TOOL.to_owned(),
    title: "Read the application's windows".to_owned(),
    description: "Read the whole application in one call: every open window (its title, a one-sentence summary, and its content as blocks: text, fields, tables, lists, notices), operableWindowIds (the only windows you may act in right now), and under `actions` what each of them lets you do (name, description, arguments) — call those with app__act. Read again before deciding after any change you did not make yourself or after a failed call: a person may be using the application at the same time. Masked values (sensitive) cannot be read. Pass `windows` to read only some windows.".to_owned(),
    input_schema: object(json!({
        "type": "object",
        "properties": {
            "windows": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Only these window ids (operableWindowIds is always complete). Leave out to read every window."
            }
        }
    })),
    output_schema: object(json!({
        "type": "object",
        "properties": {
            "operableWindowIds": {"type": "array", "items": {"type": "string"}, "description": "The windows you may act in now"},
            "windows": {"type": "array", "items": {"type": "object"}, "description": "Open windows with their content (app://windows)"},
            "actions": {
                "type": "object",
                "description": "For each operable window id (and \"app\"), its available actions",
                "additionalProperties": {"type": "array", "items": {"type": "object"}}
            }
        }
    })),
    annotations: ToolHints {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(false),
    },
}
});

static ACT: LazyLock<ToolDefinition> = LazyLock::new(|| {
    let mut output = output_schema(None);
    if let Some(Value::Object(properties)) = output.get_mut("properties") {
        properties.insert(
            "result".into(),
            json!({"type": "object", "description": "The action's own result, if it has one"}),
        );
    }
    ToolDefinition {
        name: naming::ACT_TOOL.to_owned(),
        title: "Act in a window".to_owned(),
        description: "Do something in the application: call `action` of the window `window` (an id from operableWindowIds, or \"app\" for application-wide actions) with `arguments`, as app__read_windows lists them; this reaches dialogs that opened after your tool list was fetched. Pass expectedVersion, the window's version as you last read it, so a change the person made meanwhile is not overwritten: on stale_state, read again and decide afresh. A failure comes back with a code and says what to do next (validation_failed names each wrong argument; blocked_by_modal names the window to deal with first). The result's `next` lists what can be operated now, including windows this call opened. Some actions are destructive (submitting, deleting): take them only when the user wants them.".to_owned(),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "window": {"type": "string", "description": "The window id, from operableWindowIds; \"app\" for application-wide actions"},
                "action": {"type": "string", "description": "The action's name, as listed under actions in app__read_windows"},
                "arguments": {"type": "object", "description": "The action's own arguments, as its inputSchema describes them"},
                "expectedVersion": {"type": "integer", "minimum": 0, "description": "The window's version as you last read it; if it changed since, nothing happens and stale_state comes back"}
            },
            "required": ["window", "action"]
        })),
        output_schema: Arc::new(output),
        // It can reach any action, destructive ones included.
        annotations: ToolHints {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(false),
            open_world: None,
        },
    }
});

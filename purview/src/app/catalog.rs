//! The tools an agent is offered, as transport-neutral definitions: the
//! per-window tools of §5 (from the registry's published tool set) and, on
//! the surfaces that have them, Purview's two always-listed tools.

use std::sync::{Arc, LazyLock};

use serde_json::{Map, Value, json};

use super::{
    actor::Actor,
    config::Config,
    registry::{Entry, State, ToolRef, WindowsRef},
    spec::CompiledAction,
};
use crate::{
    action::JsonObject,
    model::{ToolDefinition, ToolHints},
    naming,
    schema::output_schema,
    settings::ToolSurface,
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
        names.extend(state.tools.iter().filter_map(|t| state.tool_name(t)));
    }
    names
}

fn window_tool(state: &State, config: &Config, tool: &ToolRef) -> Option<ToolDefinition> {
    let (entry, action) = lookup(state, tool)?;
    let (title, description) = words(config, entry, action);
    Some(ToolDefinition {
        name: state.tool_name(tool)?,
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
            let entry = state.windows.get(&seq.get())?;
            Some((Some(entry), entry.actor.spec.actions.get(tool.action as usize)?))
        }
        None => Some((None, state.app.as_ref()?.spec.actions.get(tool.action as usize)?)),
    }
}

/// A tool's title and description: what it does, and where. The name
/// already says which window (`w1__`) or that it is the app's (`app__`);
/// the description adds the window's title, which only a read shows.
fn words(config: &Config, window: Option<&Entry>, action: &CompiledAction) -> (String, String) {
    let what = what_it_does(action);
    match window {
        Some(w) => (
            naming::joined_title(&[&action.tool_title, &format!("{} ({})", w.title, w.id)]),
            format!("{}: {what}", w.title),
        ),
        None => (naming::joined_title(&[&action.tool_title, &config.name]), what),
    }
}

/// What an action does, in the same words for every window of its type.
fn what_it_does(action: &CompiledAction) -> String {
    let mut what = sentence(action.spec.description.as_deref().unwrap_or(&action.tool_title));
    if action.spec.needs_approval() {
        what.push_str(" Waits for the person's approval before it runs, and may be declined.");
    }
    what
}

/// Ends a description with a full stop, so a note can follow it.
fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?']) { text.to_owned() } else { format!("{text}.") }
}

/// The structuredContent of `app__read_windows`: the `app://windows`
/// snapshot (narrowed to `only`, when given; `operableWindowIds` stays
/// whole) plus, under `actions`, each operable window's available actions
/// as one-line signatures (crate::signature). With `with_schemas`, also
/// `schemas`: each action's title, description, full input schema and
/// annotations, given once per window type — a later window of a type
/// already given names that window instead of repeating it.
pub(super) fn read_windows(state: &State, only: Option<&[String]>, with_schemas: bool) -> Value {
    let wanted = |id: &str| only.is_none_or(|ids| ids.iter().any(|w| w == id));
    let windows: Vec<&Entry> =
        state.windows.values().filter(|e| wanted(&e.id)).map(|e| &**e).collect();
    let mut actions = Map::new();
    let mut schemas = Map::new();
    let mut given: Vec<(&Actor, &str)> = Vec::new();
    for id in state.operable.iter().filter(|id| wanted(id)) {
        let Some(entry) = state.entry_by_id(id) else { continue };
        actions.insert(id.to_string(), signatures(&entry.actor));
        if with_schemas {
            let same_type = given.iter().find(|(earlier, _)| {
                Arc::ptr_eq(&earlier.spec, &entry.actor.spec)
                    && available(&entry.actor).all(|a| earlier_has(earlier, a))
            });
            let schema = match same_type {
                Some((_, earlier)) => Value::from(*earlier),
                None => definitions(&entry.actor),
            };
            if same_type.is_none() {
                given.push((&entry.actor, id.as_ref()));
            }
            schemas.insert(id.to_string(), schema);
        }
    }
    if let Some(app) = &state.app
        && state.app_actions_operable()
    {
        actions.insert(naming::APP.to_owned(), signatures(app));
        if with_schemas {
            schemas.insert(naming::APP.to_owned(), definitions(app));
        }
    }
    let mut snapshot = Map::new();
    snapshot.insert(
        "operableWindowIds".into(),
        state.operable.iter().map(|id| Value::from(id.as_ref())).collect(),
    );
    state.windows_serialized.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    snapshot.insert("windows".into(), WindowsRef::from(windows).into());
    snapshot.insert("actions".into(), Value::Object(actions));
    if with_schemas {
        snapshot.insert("schemas".into(), Value::Object(schemas));
    }
    Value::Object(snapshot)
}

/// The signature of the available action `action` of the window `window`
/// (or `"app"`), for a `validation_failed` answer to `app__act`.
pub(super) fn signature_of(state: &State, window: &str, action: &str) -> Option<Arc<str>> {
    let actor =
        if window == naming::APP { state.app.as_ref()? } else { &state.entry_by_id(window)?.actor };
    let (_, action) = actor.spec.action(action)?;
    Some(action.signature.clone())
}

fn available(actor: &Actor) -> impl Iterator<Item = &CompiledAction> {
    actor.spec.actions.iter().zip(&actor.available).filter(|(_, on)| **on).map(|(a, _)| a)
}

fn earlier_has(earlier: &Actor, action: &CompiledAction) -> bool {
    available(earlier).any(|a| a.spec.name == action.spec.name)
}

fn signatures(actor: &Actor) -> Value {
    available(actor).map(|a| Value::from(&*a.signature)).collect()
}

/// Each available action's words, input schema and annotations, by name.
fn definitions(actor: &Actor) -> Value {
    let mut out = Map::new();
    for action in available(actor) {
        out.insert(
            action.spec.name.to_string(),
            json!({
                "title": action.tool_title,
                "description": what_it_does(action),
                "inputSchema": Value::Object((*action.input_schema).clone()),
                "annotations": action.spec.hints,
            }),
        );
    }
    Value::Object(out)
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

static READ_WINDOWS: LazyLock<ToolDefinition> = LazyLock::new(|| ToolDefinition {
    name: naming::READ_WINDOWS_TOOL.to_owned(),
    title: "Read the application's windows".to_owned(),
    description: READ_WINDOWS_DESCRIPTION.to_owned(),
    input_schema: object(json!({
        "type": "object",
        "properties": {
            "windows": {"type": "array", "items": {"type": "string"}, "description": "Only these ids"},
            "schemas": {"type": "boolean", "description": "Add full JSON Schemas"}
        }
    })),
    output_schema: object(json!({
        "type": "object",
        "properties": {
            "operableWindowIds": {"type": "array", "items": {"type": "string"}, "description": "The windows you may act in now"},
            "windows": {"type": "array", "items": {"type": "object"}, "description": "Open windows with their content (app://windows)"},
            "actions": {
                "type": "object",
                "description": "For each operable window id (and \"app\"), its available actions as signatures",
                "additionalProperties": {"type": "array", "items": {"type": "string"}}
            },
            "schemas": {
                "type": "object",
                "description": "With schemas: true, for each id under actions: its actions' title, description, inputSchema and annotations by name, or the id of an earlier window of the same type whose entry holds them",
                "additionalProperties": {
                    "anyOf": [
                        {"type": "string"},
                        {"type": "object", "additionalProperties": {"type": "object"}}
                    ]
                }
            }
        },
        "required": ["operableWindowIds", "windows", "actions"]
    })),
    annotations: ToolHints {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(false),
    },
});

/// What a model reads before its first read: how to read a signature.
const READ_WINDOWS_DESCRIPTION: &str = "Every window (title, summary, content, version), operableWindowIds (act only in these) and each one's actions as signatures: edit_field(field: 'a'|'b', value: string); x?: optional, = default, rules in (): >=0, 1..9, len<=200, /regex/, secret; [destructive]: only if the user wants it. Call them with app__act.";

static ACT: LazyLock<ToolDefinition> = LazyLock::new(|| {
    let mut output = output_schema(None, true);
    if let Some(Value::Object(properties)) = output.get_mut("properties") {
        properties.insert(
            "result".into(),
            json!({"type": "object", "description": "The action's own result, if it has one"}),
        );
    }
    ToolDefinition {
        name: naming::ACT_TOOL.to_owned(),
        title: "Act in a window".to_owned(),
        description: "Call an action app__read_windows lists: its window id (\"app\" for app-level ones), its name, the arguments its signature gives, and expectedVersion, the window's version as you read it (on stale_state, read again). Errors and results say what to do next.".to_owned(),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "window": {"type": "string"},
                "action": {"type": "string"},
                "arguments": {"type": "object"},
                (naming::EXPECTED_VERSION): {"type": "integer", "minimum": 0}
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

//! `app__read_windows` lists each action as a one-line signature instead of
//! its full input schema. These tests drive the order_desk binary as an
//! agent that knows nothing but what the read shows: tool names composed
//! from the read, arguments built by parsing the signature text, and
//! corrections taken from `validation_failed`. They also hold the read and
//! the whole frugal story to their byte budgets: what a model reads is
//! deterministic, so it is tested, not benchmarked.

use std::process::Stdio;

use anyhow::{Context as _, Result, bail, ensure};
use purview_tests::Agent;
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");

async fn order_desk(surface: &str) -> Result<Agent> {
    let mut command = tokio::process::Command::new(ORDER_DESK);
    command.args(["--tools", surface]);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
    Agent::over(transport).await
}

/// One argument of a signature, as a model would read it.
#[derive(Debug, Clone, PartialEq)]
struct Param {
    name: String,
    required: bool,
    /// The alternatives of its type: `string`, `integer(>=0)`, `'amount'`.
    kinds: Vec<String>,
}

impl Param {
    /// The string literals it may be, if it is an enumeration.
    fn literals(&self) -> Vec<String> {
        self.kinds
            .iter()
            .filter_map(|k| k.strip_prefix('\'')?.strip_suffix('\''))
            .map(|k| k.replace("\\'", "'").replace("\\\\", "\\"))
            .collect()
    }

    fn is(&self, base: &str) -> bool {
        self.kinds.iter().any(|k| k == base || k.starts_with(&format!("{base}(")))
    }
}

/// A parsed signature: `name(a: T, b?: T) [marks]`.
#[derive(Debug)]
struct Signature {
    name: String,
    params: Vec<Param>,
    marks: Vec<String>,
}

/// Splits at `separator` where no bracket or quote is open.
fn split_top(text: &str, separator: char) -> Vec<String> {
    let (mut parts, mut current, mut depth, mut quoted, mut escaped) =
        (Vec::new(), String::new(), 0i32, false, false);
    for c in text.chars() {
        if quoted {
            quoted = escaped || c != '\'';
            escaped = !escaped && c == '\\';
        } else if c == '\'' {
            quoted = true;
        } else if "([{".contains(c) {
            depth += 1;
        } else if ")]}".contains(c) {
            depth -= 1;
        } else if c == separator && depth == 0 {
            parts.push(std::mem::take(&mut current).trim().to_owned());
            continue;
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_owned());
    }
    parts
}

fn parse(signature: &str) -> Result<Signature> {
    let open = signature.find('(').context("no `(`")?;
    let name = signature[..open].to_owned();
    let rest = &signature[open..];
    // The argument list ends at the `)` that closes the first `(`.
    let mut depth = 0;
    let mut close = None;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close.context("no closing `)`")?;
    let mut params = Vec::new();
    for part in split_top(&rest[1..close], ',') {
        let (head, kind) = part.split_once(": ").context("a parameter without a type")?;
        let kind = kind.split(" = ").next().unwrap_or(kind);
        let required = !head.ends_with('?');
        params.push(Param {
            name: head.trim_end_matches('?').to_owned(),
            required,
            kinds: split_top(kind, '|'),
        });
    }
    let tail = rest[close + 1..].trim();
    let marks = match tail.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        Some(inside) => inside.split(", ").map(str::to_owned).collect(),
        None if tail.is_empty() => Vec::new(),
        None => bail!("unexpected text after the arguments: {tail:?}"),
    };
    Ok(Signature { name, params, marks })
}

/// The window's signatures, parsed.
fn signatures(view: &Value, window: &str) -> Result<Vec<Signature>> {
    view["actions"][window]
        .as_array()
        .with_context(|| format!("no actions for {window} in {view}"))?
        .iter()
        .map(|s| parse(s.as_str().context("a signature is a string")?))
        .collect()
}

fn find<'a>(list: &'a [Signature], name: &str) -> Result<&'a Signature> {
    list.iter().find(|s| s.name == name).with_context(|| format!("no `{name}` offered"))
}

/// The window titled `title`.
fn titled<'a>(view: &'a Value, title: &str) -> Result<&'a Value> {
    view["windows"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|w| w["title"] == title)
        .with_context(|| format!("no window titled {title:?}"))
}

/// The labels of a window's empty fields.
fn empty_fields(window: &Value) -> Vec<String> {
    window["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "fields")
        .flat_map(|b| b["items"].as_array().into_iter().flatten())
        .filter(|i| i["value"] == "")
        .filter_map(|i| i["label"].as_str().map(str::to_owned))
        .collect()
}

/// Arguments for a call that takes nothing, from its signature.
fn no_arguments(signature: &Signature) -> Result<Value> {
    ensure!(
        signature.params.iter().all(|p| !p.required),
        "{} needs arguments: {:?}",
        signature.name,
        signature.params
    );
    Ok(json!({}))
}

/// `app__act` the way a model that read `view` writes it.
async fn act(
    agent: &Agent,
    view: &Value,
    window: &str,
    action: &str,
    arguments: Value,
) -> Result<purview_tests::agent::Outcome> {
    let version = view["windows"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|w| w["id"] == window)
        .map(|w| w["version"].clone());
    let mut call = json!({"window": window, "action": action, "arguments": arguments});
    if let Some(version) = version {
        call["expectedVersion"] = version;
    }
    agent.call("app__act", call).await
}

async fn read(agent: &Agent) -> Result<Value> {
    let outcome = agent.call("app__read_windows", json!({})).await?;
    ensure!(!outcome.is_error, "{:?}", outcome.structured);
    // Hosts show either part: both must say the same.
    ensure!(serde_json::from_str::<Value>(&outcome.text)? == outcome.structured);
    Ok(outcome.structured)
}

#[tokio::test]
async fn s5_1_on_the_dispatcher_surface_an_agent_finishes_the_order_story_from_the_compact_read_alone()
-> Result<()> {
    let agent = order_desk("dispatcher").await?;
    let view = read(&agent).await?;
    let editor = titled(&view, "Order Editor")?;
    let w = editor["id"].as_str().context("an id")?.to_owned();
    // Fill in the empty field: the action with an enumeration that names
    // it, and a string for the value.
    let missing = empty_fields(editor);
    let editor_actions = signatures(&view, &w)?;
    let (edit, field, choice) = editor_actions
        .iter()
        .find_map(|s| {
            s.params.iter().find_map(|p| {
                let choice = p
                    .literals()
                    .into_iter()
                    .find(|l| missing.iter().any(|m| m.eq_ignore_ascii_case(l)))?;
                Some((s, p, choice))
            })
        })
        .context("an action that fills an empty field")?;
    let value = edit
        .params
        .iter()
        .find(|p| p.name != field.name && p.is("string"))
        .context("a string for the value")?;
    let mut arguments = Map::new();
    arguments.insert(field.name.clone(), json!(choice));
    arguments.insert(value.name.clone(), json!("Ada Lovelace"));
    ensure!(
        edit.params.iter().filter(|p| p.required).all(|p| arguments.contains_key(&p.name)),
        "every required argument is given"
    );
    let filled = act(&agent, &view, &w, &edit.name, Value::Object(arguments)).await?;
    ensure!(!filled.is_error, "{:?}", filled.structured);

    // Submitting is offered now; the read says it is destructive.
    let view = read(&agent).await?;
    let editor_actions = signatures(&view, &w)?;
    let submit = find(&editor_actions, "submit")?;
    ensure!(submit.marks.contains(&"destructive".to_owned()), "{:?}", submit.marks);
    let submitted = act(&agent, &view, &w, "submit", no_arguments(submit)?).await?;
    ensure!(!submitted.is_error, "{:?}", submitted.structured);

    // The dialog that opened is only in the next read.
    let view = read(&agent).await?;
    let dialog = titled(&view, "Confirm submission")?["id"].as_str().context("an id")?.to_owned();
    ensure!(view["operableWindowIds"].as_array().is_some_and(|ids| ids.contains(&json!(dialog))));
    ensure!(view["actions"].get(&w).is_none(), "the blocked editor offers nothing: {view}");
    let dialog_actions = signatures(&view, &dialog)?;
    let confirm = find(&dialog_actions, "confirm")?;
    let confirmed = act(&agent, &view, &dialog, "confirm", no_arguments(confirm)?).await?;
    ensure!(!confirmed.is_error, "{:?}", confirmed.structured);

    let view = read(&agent).await?;
    ensure!(
        titled(&view, "Order Editor")?["summary"]
            == "Order #12345 has been submitted to Ada Lovelace",
        "{view}"
    );
    agent.close().await
}

#[tokio::test]
async fn s7_3_validation_failed_from_a_signature_call_names_every_bad_field_and_repeats_the_signature()
-> Result<()> {
    let agent = order_desk("dispatcher").await?;
    let view = read(&agent).await?;
    let mut checked = 0;
    for (window, list) in view["actions"].as_object().context("actions")? {
        for text in list.as_array().context("a list")? {
            let text = text.as_str().context("a signature")?;
            let signature = parse(text)?;
            if signature.params.is_empty() {
                continue;
            }
            // Every argument given the wrong type: an enumeration or a
            // string gets a number, anything else a string.
            let mut arguments = Map::new();
            for p in &signature.params {
                let wrong = if p.is("string") || !p.literals().is_empty() {
                    json!(17)
                } else {
                    json!("not this")
                };
                arguments.insert(p.name.clone(), wrong);
            }
            let call = json!({"window": window, "action": signature.name, "arguments": arguments});
            let refused = agent.call("app__act", call).await?;
            let error = &refused.structured;
            ensure!(refused.is_error && error["code"] == "validation_failed", "{text}: {error}");
            let named: Vec<&str> = error["fields"]
                .as_array()
                .context("fields")?
                .iter()
                .filter_map(|f| f["field"].as_str())
                .collect();
            for p in &signature.params {
                ensure!(
                    named.contains(&p.name.as_str()),
                    "{text}: `{}` not named in {error}",
                    p.name
                );
            }
            ensure!(error["signature"] == text, "{text}: the answer repeats it: {error}");
            checked += 1;
        }
    }
    ensure!(checked >= 4, "only {checked} actions with arguments were tried");
    // Missing required arguments are named too.
    let refused = agent.call("app__act", json!({"window": "w1", "action": "set_details"})).await?;
    let mut named: Vec<&str> = refused.structured["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["field"].as_str())
        .collect();
    named.sort_unstable();
    ensure!(named == ["amount", "recipient"], "{:?}", refused.structured);
    agent.close().await
}

#[tokio::test]
async fn s7_3_each_signature_names_exactly_the_arguments_its_schema_takes() -> Result<()> {
    let agent = order_desk("both").await?;
    // Fill in the recipient, so submit is offered too.
    ensure!(
        !agent
            .call("w1__edit_field", json!({"field": "recipient", "value": "Ada"}))
            .await?
            .is_error
    );
    let full = agent.call("app__read_windows", json!({"schemas": true})).await?.structured;
    let mut compared = 0;
    for (window, list) in full["actions"].as_object().context("actions")? {
        let mut definitions = &full["schemas"][window];
        if let Some(same_as) = definitions.as_str() {
            definitions = &full["schemas"][same_as];
        }
        for text in list.as_array().context("a list")? {
            let text = text.as_str().context("a signature")?;
            let signature = parse(text)?;
            let schema = &definitions[&signature.name]["inputSchema"];
            let properties = schema["properties"].as_object().context("properties")?;
            let required: Vec<&Value> =
                schema["required"].as_array().into_iter().flatten().collect();
            let mut names: Vec<&str> =
                properties.keys().map(String::as_str).filter(|k| *k != "expectedVersion").collect();
            let mut listed: Vec<&str> = signature.params.iter().map(|p| p.name.as_str()).collect();
            names.sort_unstable();
            listed.sort_unstable();
            ensure!(names == listed, "{text}: {names:?} in the schema");
            for p in &signature.params {
                ensure!(
                    p.required == required.contains(&&json!(p.name)),
                    "{text}: `{}` required?",
                    p.name
                );
            }
            let destructive =
                definitions[&signature.name]["annotations"]["destructiveHint"] == true;
            ensure!(destructive == signature.marks.contains(&"destructive".to_owned()), "{text}");
            ensure!(!signature.marks.iter().any(|m| m.starts_with("more rules")), "{text}");
            compared += 1;
        }
    }
    ensure!(compared >= 9, "{compared}");
    agent.close().await
}

/// UTF-8 bytes of compact JSON: what a host hands the model.
fn bytes(value: &impl serde::Serialize) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// The part of tools/list a model reads: names, titles, descriptions,
/// input schemas.
async fn tools_bytes(agent: &Agent) -> Result<usize> {
    let tools = agent.tools().await?;
    let visible: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.name, "title": t.title, "description": t.description, "inputSchema": t.input_schema}))
        .collect();
    Ok(bytes(&visible))
}

#[tokio::test]
async fn the_compact_read_costs_at_most_one_and_a_half_times_app_windows() -> Result<()> {
    let agent = order_desk("dispatcher").await?;
    let read = agent.call("app__read_windows", json!({})).await?;
    let resource = agent.read_json().await?;
    let (read, resource) = (bytes(&read.structured), bytes(&resource));
    ensure!(read * 2 <= resource * 3, "a read is {read} B, app://windows {resource} B");
    agent.close().await
}

/// A call whose structuredContent the model reads, added to `total`.
async fn counted(agent: &Agent, total: &mut usize, tool: &str, arguments: Value) -> Result<Value> {
    let outcome = agent.call(tool, arguments).await?;
    ensure!(!outcome.is_error, "{tool}: {:?}", outcome.structured);
    *total += bytes(&outcome.structured);
    Ok(outcome.structured)
}

#[tokio::test]
async fn the_frugal_order_story_on_the_default_surface_reads_at_most_8_kb() -> Result<()> {
    // A host that lists tools once, never reads resources and shows the
    // model structuredContent: read, fill in the recipient, submit,
    // confirm, check.
    let agent = order_desk("both").await?;
    let listed: Vec<String> = agent.tool_names().await?;
    let mut total = tools_bytes(&agent).await?;
    counted(&agent, &mut total, "app__read_windows", json!({})).await?;
    ensure!(listed.contains(&"w1__edit_field".to_owned()));
    let fill = json!({"field": "recipient", "value": "Ada Lovelace"});
    counted(&agent, &mut total, "w1__edit_field", fill).await?;
    let submit = json!({"window": "w1", "action": "submit"});
    let submitted = counted(&agent, &mut total, "app__act", submit).await?;
    let dialog = submitted["openedWindowIds"][0].as_str().context("a dialog")?.to_owned();
    let confirm = json!({"window": dialog, "action": "confirm"});
    counted(&agent, &mut total, "app__act", confirm).await?;
    counted(&agent, &mut total, "app__read_windows", json!({})).await?;
    ensure!(total <= 8_000, "the story reads {total} B");
    agent.close().await
}

#[tokio::test]
async fn full_schemas_come_once_per_window_type_and_only_on_request() -> Result<()> {
    let agent = order_desk("dispatcher").await?;
    let opened = agent.call("app__act", json!({"window": "app", "action": "new_report"})).await?;
    let second = opened.structured["openedWindowIds"][0].as_str().context("a report")?.to_owned();
    let plain = read(&agent).await?;
    ensure!(plain.get("schemas").is_none() && !plain.to_string().contains("inputSchema"));
    let full = agent.call("app__read_windows", json!({"schemas": true})).await?.structured;
    // The second Report Details names the first instead of repeating it.
    let first = titled(&full, "Report Details")?["id"].as_str().context("an id")?.to_owned();
    ensure!(first != second);
    ensure!(full["schemas"][&second] == first.as_str(), "{}", full["schemas"]);
    ensure!(full["schemas"][&first]["load_rows"]["inputSchema"]["properties"]["limit"].is_object());
    ensure!(full["actions"][&second] == full["actions"][&first]);
    agent.close().await
}

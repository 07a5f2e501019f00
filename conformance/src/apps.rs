//! The server requirements of the MCP Apps extension
//! (`io.modelcontextprotocol/ui`, spec 2026-01-26 and its draft), checked
//! as a host would before it renders a view, for a server that declares
//! the extension: each `ui://` resource a tool names exists, is served as
//! `text/html;profile=mcp-app` and is an HTML5 document; its CSP names
//! only the spec's fields; its `_meta.ui` is on the `resources/list` entry
//! as well as on the read; a client that did not declare the extension
//! sees nothing of the views and cannot call the tools only views may
//! call; and every tool with a view keeps meaningful `content` beside it,
//! for the hosts that render none.
//!
//! They run before the walk, on sessions of their own, and only read (or
//! call tools marked read-only that take no arguments), so the walk starts
//! from the same state.

use serde_json::{Map, Value};

use crate::{
    checks::Check,
    tally::{CheckReport, Tally},
    target::{CallOutcome, EXTENSION, Endpoint, MIME_TYPE, Session},
};

/// The CSP fields the spec defines.
const CSP_FIELDS: [&str; 4] =
    ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"];
/// How long a call made by these checks may take.
const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The checks of this module, in report order.
pub(crate) const CHECKS: [Check; 6] = [
    Check::AppsResource,
    Check::AppsDocument,
    Check::AppsCsp,
    Check::AppsHidden,
    Check::AppsContent,
    Check::AppsMetaPlacement,
];

/// Runs every MCP Apps check on `endpoint`, as step 0.
pub(crate) async fn check(endpoint: &Endpoint) -> Tally {
    let mut tally = Tally::default();
    let mut server = endpoint.start();
    let host = match server.session_as(false, None, true).await {
        Ok(session) => session,
        Err(why) => {
            note_all(&mut tally, &format!("no session for a host declaring the extension: {why}"));
            return tally;
        }
    };
    let declared =
        host.info().and_then(|info| info.capabilities.extensions.as_ref()?.get(EXTENSION).cloned());
    let Some(declared) = declared else {
        note_all(&mut tally, "the server does not declare io.modelcontextprotocol/ui");
        host.close().await;
        return tally;
    };
    let offers_mime = declared
        .get("mimeTypes")
        .and_then(Value::as_array)
        .is_none_or(|types| types.iter().any(|t| t == MIME_TYPE));
    tally.judge(
        Check::AppsResource,
        0,
        ok_if(offers_mime, || {
            format!("the extension's mimeTypes leave out {MIME_TYPE}: {declared:?}")
        }),
    );
    let views = views_of(&mut tally, &host).await;
    let listed = host.resources().await.unwrap_or(Value::Null);
    for (uri, tools) in &views {
        check_view(&mut tally, &host, &listed, uri, tools).await;
    }
    check_content(&mut tally, &host, &views).await;
    host.close().await;
    if server.many_sessions() {
        match server.session_as(false, None, false).await {
            Ok(plain) => {
                check_hidden(&mut tally, &plain, &views).await;
                plain.close().await;
            }
            Err(why) => tally.note(Check::AppsHidden, format!("no second session: {why}")),
        }
    } else {
        tally.note(Check::AppsHidden, "a stdio server has one connection, declared as a host");
    }
    tally
}

/// Puts this module's results into `checks`, the walk's report.
pub(crate) fn merge(checks: &mut [CheckReport], apps: &Tally) {
    let ours = apps.reports();
    for report in checks.iter_mut().filter(|c| CHECKS.contains(&c.check)) {
        if let Some(found) = ours.iter().find(|c| c.check == report.check) {
            *report = found.clone();
        }
    }
}

fn note_all(tally: &mut Tally, why: &str) {
    for check in CHECKS {
        tally.note(check, why);
    }
}

fn ok_if(ok: bool, detail: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(detail()) }
}

/// A view's URI, and the tools that name it (with whether each is for the
/// view only).
type Views = Vec<(String, Vec<ViewTool>)>;

struct ViewTool {
    name: String,
    app_only: bool,
    read_only: bool,
    callable_read: bool,
}

/// The views the tools name, each checked for its `ui://` scheme.
async fn views_of(tally: &mut Tally, host: &Session) -> Views {
    let tools = match host.tools().await {
        Ok(tools) => tools,
        Err(why) => {
            tally.fail(Check::AppsResource, 0, format!("tools/list failed: {why}"));
            return Vec::new();
        }
    };
    let mut views: Views = Vec::new();
    for tool in &tools {
        let meta = serde_json::to_value(&tool.meta).unwrap_or(Value::Null);
        let ui = &meta["ui"];
        let uri = ui["resourceUri"].as_str().or_else(|| meta["ui/resourceUri"].as_str());
        let visibility = ui["visibility"].as_array();
        let app_only = visibility.is_some_and(|v| !v.iter().any(|x| x == "model"));
        let Some(uri) = uri else { continue };
        tally.judge(
            Check::AppsResource,
            0,
            ok_if(uri.starts_with("ui://"), || {
                format!("{} names {uri:?}, not a ui:// URI", tool.name)
            }),
        );
        let annotations = serde_json::to_value(&tool.annotations).unwrap_or(Value::Null);
        let no_arguments = tool
            .input_schema
            .get("required")
            .and_then(Value::as_array)
            .is_none_or(|r| r.is_empty());
        let entry = ViewTool {
            name: tool.name.to_string(),
            app_only,
            read_only: annotations["readOnlyHint"] == true,
            callable_read: annotations["readOnlyHint"] == true && no_arguments && !app_only,
        };
        match views.iter_mut().find(|(u, _)| u == uri) {
            Some((_, named)) => named.push(entry),
            None => views.push((uri.to_owned(), vec![entry])),
        }
    }
    if views.is_empty() {
        note_all(tally, "the server declares the extension, but no tool names a view");
    }
    views
}

/// One view: listed, read with its MIME type, a document, its CSP, and its
/// `_meta.ui` in both places.
async fn check_view(
    tally: &mut Tally,
    host: &Session,
    listed: &Value,
    uri: &str,
    tools: &[ViewTool],
) {
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let entry = listed.as_array().and_then(|l| l.iter().find(|r| r["uri"] == uri));
    let Some(entry) = entry else {
        tally.fail(
            Check::AppsResource,
            0,
            format!("{uri} (named by {names:?}) is not in resources/list"),
        );
        return;
    };
    tally.judge(
        Check::AppsResource,
        0,
        ok_if(entry["mimeType"] == MIME_TYPE, || {
            format!("{uri} is listed as {}, not {MIME_TYPE}", entry["mimeType"])
        }),
    );
    let contents = match host.read_uri(uri).await {
        Ok(contents) => contents,
        Err(why) => {
            tally.fail(Check::AppsResource, 0, format!("reading {uri} failed: {why}"));
            return;
        }
    };
    let item = match contents.as_array().map(Vec::as_slice) {
        Some([item]) => item.clone(),
        _ => {
            tally.fail(Check::AppsResource, 0, format!("{uri} reads as {contents}, not one item"));
            return;
        }
    };
    tally.judge(
        Check::AppsResource,
        0,
        ok_if(item["mimeType"] == MIME_TYPE && item["uri"] == uri, || {
            format!(
                "{uri} reads as {} at {}, not {MIME_TYPE} at its own URI",
                item["mimeType"], item["uri"]
            )
        }),
    );
    match item["text"].as_str() {
        Some(html) => {
            tally.judge(Check::AppsDocument, 0, html5(html).map_err(|why| format!("{uri}: {why}")))
        }
        None => tally.fail(
            Check::AppsDocument,
            0,
            format!("{uri} has no text (a view is an HTML text item)"),
        ),
    }
    let read_ui = &item["_meta"]["ui"];
    tally.judge(Check::AppsCsp, 0, csp(&read_ui["csp"]).map_err(|why| format!("{uri}: {why}")));
    if let Some(border) = read_ui.get("prefersBorder") {
        tally.judge(
            Check::AppsCsp,
            0,
            ok_if(border.is_boolean(), || {
                format!("{uri}: prefersBorder is {border}, not a boolean")
            }),
        );
    }
    let list_ui = &entry["_meta"]["ui"];
    tally.judge(
        Check::AppsMetaPlacement,
        0,
        ok_if(read_ui.is_null() || list_ui == read_ui, || {
            format!("{uri}: _meta.ui on the list entry is {list_ui}, on the read {read_ui}")
        }),
    );
}

/// Whether `html` is an HTML5 document: the doctype first, one `html`
/// element holding `head` then `body`, every script and style closed.
fn html5(html: &str) -> Result<(), String> {
    let lower = html.trim_start_matches('\u{feff}').trim().to_ascii_lowercase();
    if !lower.starts_with("<!doctype html>") {
        return Err("it does not start with <!doctype html>".into());
    }
    for name in ["script", "style"] {
        let (open, close) =
            (tags(&lower, name).len(), lower.matches(&format!("</{name}>")).count());
        if open != close {
            return Err(format!("{open} <{name}> but {close} </{name}>"));
        }
    }
    // The markup around the scripts and styles, whatever they hold.
    let markup = without_bodies(&lower);
    let mut at = Vec::new();
    for name in ["html", "head", "body"] {
        let (open, close) = (tags(&markup, name), markup.matches(&format!("</{name}>")).count());
        if open.len() != 1 || close != 1 {
            return Err(format!("it needs exactly one <{name}> and one </{name}>"));
        }
        at.push((open[0], markup.find(&format!("</{name}>")).unwrap_or(usize::MAX)));
    }
    let [(html_at, html_end), (head_at, head_end), (body_at, body_end)] = at[..] else {
        return Err("html, head and body are missing".into());
    };
    if !(html_at < head_at && head_end < body_at && body_end < html_end) {
        return Err("html, head and body are out of order".into());
    }
    if !markup.ends_with("</html>") {
        return Err("something follows </html>".into());
    }
    Ok(())
}

/// Where the start tags `<name>` (not `<name…>` of a longer name) begin.
fn tags(text: &str, name: &str) -> Vec<usize> {
    let open = format!("<{name}");
    text.match_indices(&open)
        .filter(|(at, _)| {
            text[at + open.len()..]
                .chars()
                .next()
                .is_some_and(|c| c == '>' || c == '/' || c.is_whitespace())
        })
        .map(|(at, _)| at)
        .collect()
}

/// `text` with the insides of its scripts and styles left out.
fn without_bodies(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = ["script", "style"]
            .iter()
            .filter_map(|name| tags(rest, name).first().map(|at| (*at, *name)))
            .min();
        let Some((at, name)) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at]);
        let close = format!("</{name}>");
        match rest[at..].find(&close) {
            Some(end) => rest = &rest[at + end + close.len()..],
            None => return out,
        }
    }
}

/// Whether `csp` (absent, or an object) names only the spec's fields, each
/// a list of origins.
fn csp(csp: &Value) -> Result<(), String> {
    let Some(fields) = csp.as_object() else {
        return ok_if(csp.is_null(), || format!("_meta.ui.csp is {csp}, not an object"));
    };
    for (name, value) in fields {
        if !CSP_FIELDS.contains(&name.as_str()) {
            return Err(format!("_meta.ui.csp has {name:?}, not one of {CSP_FIELDS:?}"));
        }
        let Some(domains) = value.as_array() else {
            return Err(format!("_meta.ui.csp.{name} is {value}, not a list"));
        };
        for domain in domains {
            let origin = domain.as_str().unwrap_or_default();
            let (scheme, host) = origin.split_once("://").unwrap_or_default();
            let plausible = !scheme.is_empty()
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !host.is_empty()
                && !origin.chars().any(char::is_whitespace);
            if !plausible {
                return Err(format!("_meta.ui.csp.{name} holds {domain}, not an origin"));
            }
        }
    }
    Ok(())
}

/// Every tool with a view that can be called without side effects (marked
/// read-only, no required argument) answers with text beside its
/// structured content.
async fn check_content(tally: &mut Tally, host: &Session, views: &Views) {
    let callable = views.iter().flat_map(|(_, tools)| tools).filter(|t| t.callable_read);
    let mut called = false;
    for tool in callable {
        called = true;
        let outcome = host.call(&tool.name, &Map::new(), CALL_TIMEOUT).await;
        let verdict = match &outcome {
            CallOutcome::Result { text, has_text, .. } => {
                ok_if(*has_text && !text.trim().is_empty(), || {
                    format!("{} answers no text content beside its view", tool.name)
                })
            }
            other => Err(format!("{} failed: {}", tool.name, other.visible_text())),
        };
        tally.judge(Check::AppsContent, 0, verdict);
    }
    if !called {
        tally.note(
            Check::AppsContent,
            "no tool with a view is marked read-only and takes no arguments",
        );
    }
}

/// A client without the extension lists no view and no view-only tool,
/// and is refused when it reads or calls them anyway.
async fn check_hidden(tally: &mut Tally, plain: &Session, views: &Views) {
    let listed = plain.resources().await.unwrap_or(Value::Null);
    let names: Vec<String> = match plain.tools().await {
        Ok(tools) => tools.iter().map(|t| t.name.to_string()).collect(),
        Err(why) => {
            tally.fail(Check::AppsHidden, 0, format!("tools/list failed: {why}"));
            return;
        }
    };
    for (uri, tools) in views {
        let in_list = listed.as_array().is_some_and(|l| l.iter().any(|r| r["uri"] == uri.as_str()));
        tally.judge(
            Check::AppsHidden,
            0,
            ok_if(!in_list, || format!("{uri} is listed to a client without the extension")),
        );
        let read = plain.read_uri(uri).await;
        tally.judge(
            Check::AppsHidden,
            0,
            ok_if(read.is_err(), || format!("{uri} is read by a client without the extension")),
        );
        for tool in tools.iter().filter(|t| t.app_only) {
            tally.judge(
                Check::AppsHidden,
                0,
                ok_if(!names.contains(&tool.name), || {
                    format!(
                        "{} (for views only) is listed to a client without the extension",
                        tool.name
                    )
                }),
            );
            // Only a read is called, lest a server that lets it through acts.
            if !tool.read_only {
                continue;
            }
            let outcome = plain.call(&tool.name, &Map::new(), CALL_TIMEOUT).await;
            let refused = matches!(
                outcome,
                CallOutcome::Rpc { .. } | CallOutcome::Result { is_error: true, .. }
            );
            tally.judge(
                Check::AppsHidden,
                0,
                ok_if(refused, || {
                    format!("{} (for views only) answers a client without the extension", tool.name)
                }),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_html5_document_passes_and_a_fragment_does_not() {
        let page = "<!doctype html>\n<html><head><style>p{}</style></head><body><script>1</script></body></html>\n";
        assert_eq!(html5(page), Ok(()));
        assert!(html5("<p>Hello</p>").is_err());
        assert!(html5("<!doctype html><html><body></body><head></head></html>").is_err());
        assert!(html5("<!doctype html><html><head></head><body><script></body></html>").is_err());
        // A <header> is not a second <head>, and a script may say anything.
        let card = "<!doctype html><html><head></head><body><header></header><script>'<body></html>'</script></body></html>";
        assert_eq!(html5(card), Ok(()));
    }

    #[test]
    fn a_csp_names_only_the_specs_fields_as_lists_of_origins() {
        assert_eq!(csp(&Value::Null), Ok(()));
        assert_eq!(
            csp(
                &serde_json::json!({"connectDomains": [], "resourceDomains": ["https://cdn.example.com"]})
            ),
            Ok(())
        );
        assert!(csp(&serde_json::json!({"scriptDomains": []})).is_err());
        assert!(csp(&serde_json::json!({"connectDomains": "https://a.example"})).is_err());
        assert!(csp(&serde_json::json!({"connectDomains": ["not an origin"]})).is_err());
    }
}

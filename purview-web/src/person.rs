//! A page's request made into the person's call by the model's rules
//! (`purview_person`): the action as the page showed it, the typed values
//! turned into arguments or per-field errors, a destructive action held
//! until confirmed where the model asks first, and a table's page asked
//! for by offset or row number. A loaded page goes back with its paging,
//! so the page computes none.

use axum::http::StatusCode;
use purview::{
    activity::ActionInfo,
    model::{ErrorCode, JsonObject, ToolError},
    projection::PageRequest,
    serde_json::{Value, json},
};
use purview_person::{Paging, Typed, arguments, cell, failure_said};

use crate::Inner;

/// Why a page's request was not made into a call.
pub(crate) type Refused = Box<(StatusCode, ToolError)>;

fn refused(status: StatusCode, error: ToolError) -> Refused {
    Box::new((status, error))
}

fn not_available() -> Refused {
    let error = ToolError::new(
        ErrorCode::ActionNotAvailable,
        "That action is not available now; the page shows what can be done.",
    );
    refused(StatusCode::CONFLICT, error)
}

/// The action a page's call names (`window`, `action`), with its arguments
/// made from the typed `values` (and a destructive one `confirmed`), or
/// from `page` (`{table, offset}` or `{table, row}`) for a table's loader.
pub(crate) fn prepare(
    inner: &Inner,
    request: &JsonObject,
) -> Result<(ActionInfo, JsonObject), Refused> {
    let window = request.get("window").and_then(Value::as_str);
    let name = request.get("action").and_then(Value::as_str).unwrap_or_default();
    let made = inner.kept();
    let model = made.model().map_err(|why| {
        refused(StatusCode::SERVICE_UNAVAILABLE, ToolError::new(ErrorCode::ActionFailed, why))
    })?;
    let enabled = match window {
        Some(id) => model.window(id).is_some_and(|w| w.operable),
        None => model.app_actions_enabled,
    };
    let action = model.action(window, name).filter(|_| enabled).ok_or_else(not_available)?;
    if let Some(page) = request.get("page").and_then(Value::as_object) {
        let table = page.get("table").and_then(Value::as_str).unwrap_or_default();
        let view = window.and_then(|id| model.window(id)).ok_or_else(not_available)?;
        let table = view
            .tables()
            .find(|t| t.key == table && t.loader.as_deref() == Some(name))
            .ok_or_else(not_available)?;
        let limit = table.rows.len().max(1);
        let offset = match (page.get("offset").and_then(Value::as_u64), page.get("row")) {
            (Some(offset), _) => usize::try_from(offset).unwrap_or(usize::MAX),
            (None, row) => {
                let total = table.total.unwrap_or(table.rows.len());
                let typed = row.map(text_of).unwrap_or_default();
                let at = Paging::new(table.offset, table.rows.len(), total, limit);
                at.go_to(&typed).map_err(|why| {
                    refused(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        ToolError::new(ErrorCode::ActionFailed, why),
                    )
                })?
            }
        };
        return Ok((action.info.clone(), PageRequest::new(offset, limit).arguments()));
    }
    let values = request.get("values").and_then(Value::as_object).cloned().unwrap_or_default();
    let typed: Typed = values.iter().map(|(name, value)| (name.clone(), text_of(value))).collect();
    let arguments = arguments(&action.fields, &typed).map_err(|problems| {
        refused(StatusCode::UNPROCESSABLE_ENTITY, ToolError::validation(problems))
    })?;
    let confirmed = request.get("confirmed").and_then(Value::as_bool) == Some(true);
    if action.asks_first && !confirmed {
        let error = ToolError::new(ErrorCode::ActionFailed, "Confirm this action first.");
        return Err(refused(StatusCode::CONFLICT, error));
    }
    Ok((action.info.clone(), arguments))
}

/// A typed value as text: a checkbox's boolean as `"true"`/`"false"`.
fn text_of(value: &Value) -> String {
    match value {
        Value::Bool(on) => on.to_string(),
        other => cell(other),
    }
}

/// A loader's answer as the page shows it: the rows as text, and where
/// they stand (`limit` rows a page).
pub(crate) fn page(value: Option<&Value>, limit: usize) -> Option<Value> {
    let value = value?;
    let offset = usize::try_from(value.get("offset")?.as_u64()?).ok()?;
    let total = usize::try_from(value.get("total")?.as_u64()?).ok()?;
    let rows: Vec<Vec<String>> = value
        .get("rows")?
        .as_array()?
        .iter()
        .map(|row| row.as_array().map(|cells| cells.iter().map(cell).collect()))
        .collect::<Option<_>>()?;
    let paging = Paging::new(offset, rows.len(), total, limit);
    Some(json!({"offset": offset, "rows": rows, "paging": paging}))
}

/// What the person reads of a failed call the page asked for (`request`:
/// its `window`, `action` and, for a table's loader, `page`), by the
/// model's rule ([`failure_said`]): nothing where the open form's fields
/// say it, never the runtime's sentence for agents.
pub(crate) fn said(inner: &Inner, request: &JsonObject, error: &ToolError) -> Option<String> {
    let made = inner.kept();
    let model = made.model().ok();
    let window = request.get("window").and_then(Value::as_str);
    let name = request.get("action").and_then(Value::as_str).unwrap_or_default();
    // A loader's call comes from a pager, never from a form.
    let from_form = request.get("page").is_none_or(Value::is_null);
    let form = model.as_ref().filter(|_| from_form).and_then(|m| m.action(window, name));
    failure_said(error, form)
}

/// A table's rows as its loader returned them (`value`), made a page for
/// the table `request["page"]["table"]` of `request["window"]`: as many
/// rows a page as the table shows.
pub(crate) fn page_for(
    inner: &Inner,
    request: &JsonObject,
    value: Option<&Value>,
) -> Option<Value> {
    let made = inner.kept();
    let model = made.model().ok()?;
    let window = model.window(request.get("window")?.as_str()?)?;
    let key = request.get("page")?.get("table")?.as_str()?;
    let table = window.tables().find(|t| t.key == key)?;
    page(value, table.rows.len().max(1))
}

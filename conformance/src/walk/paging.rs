//! §9 once more, for what Purview's signatures declare: an action marked
//! `[pages table rows]` is the load action of that table, so a page it
//! answers with must agree with the table the window shows.

use serde_json::{Map, Value};

use crate::checks::Check;

use super::{Obs, Prepared, Walk};

impl Walk<'_> {
    /// A successful call of an action that says it pages a table: the page
    /// (`{offset, total, rows}` under `result`) counts the same rows as the
    /// table's `total`, and holds no more rows than the `limit` asked for.
    /// Not judged for a call sent together with others (another may have
    /// changed the table first).
    pub(super) fn judge_page(&mut self, n: usize, p: &Prepared, result: &Value, before: &Obs) {
        if p.together {
            return;
        }
        let pages: &[String] = match (&p.target, &p.info) {
            (Some(target), _) => &target.pages,
            // A window's own tool: the same action, as app__read_windows
            // offered it.
            (None, Some(info)) => before.dispatch.get(&info.name).map_or(&[], |d| &d.pages),
            (None, None) => &[],
        };
        let Some(window) = p.window.as_deref().and_then(|id| before.windows.by_id.get(id)) else {
            return;
        };
        let tool = &p.call.tool;
        for table in pages {
            let block = window.blocks.iter().find(|b| {
                b.get("type").and_then(Value::as_str) == Some("table")
                    && b.get("id").and_then(Value::as_str) == Some(table.as_str())
            });
            let Some(block) = block else {
                self.tally.fail(
                    Check::LargeData,
                    n,
                    format!(
                        "{tool} says it pages table {table}, but its window has no table {table}"
                    ),
                );
                continue;
            };
            let shown = block.get("rows").and_then(Value::as_array).map_or(0, Vec::len) as u64;
            let total = block.get("total").and_then(Value::as_u64).unwrap_or(shown);
            let arguments = inner_arguments(&p.arguments);
            let limit = arguments.get("limit").and_then(Value::as_u64);
            self.tally.judge(Check::LargeData, n, page_finding(tool, table, total, limit, result));
        }
    }
}

/// The action's own arguments: `app__act` carries them under `arguments`.
fn inner_arguments(arguments: &Map<String, Value>) -> &Map<String, Value> {
    match arguments.get("arguments").and_then(Value::as_object) {
        Some(inner) if arguments.contains_key("action") => inner,
        _ => arguments,
    }
}

fn page_finding(
    tool: &str,
    table: &str,
    total: u64,
    limit: Option<u64>,
    result: &Value,
) -> Result<(), String> {
    let page = result.get("result");
    let answered = page.and_then(|p| p.get("total")).and_then(Value::as_u64);
    let rows = page.and_then(|p| p.get("rows")).and_then(Value::as_array);
    let (Some(answered), Some(rows)) = (answered, rows) else {
        return Err(format!(
            "{tool} says it pages table {table}, but its result has no page (total and rows)"
        ));
    };
    if answered != total {
        return Err(format!(
            "{tool} says it pages table {table}, which has {total} rows, but its page counts {answered}"
        ));
    }
    match limit {
        Some(limit) if rows.len() as u64 > limit => Err(format!(
            "{tool} was asked for at most {limit} rows of table {table} and answered {}",
            rows.len()
        )),
        _ => Ok(()),
    }
}

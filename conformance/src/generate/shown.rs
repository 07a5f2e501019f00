//! Values the app itself showed: the cells, fields and list items of its
//! windows and the values of its answers. An agent fills a parameter from
//! what is on screen (a book's id from the catalogue's Id column, a window
//! id an action opened) before it makes one up; so does the walk.

use rand::RngExt as _;
use serde_json::Value;

use super::{Rand, fits, types_of};

/// At most this many values are kept from answers (the latest).
const FROM_ANSWERS: usize = 64;
/// At most this many values are kept from one snapshot of the windows.
const FROM_WINDOWS: usize = 4096;

/// One value shown, with the label it was shown under.
#[derive(Debug, Clone)]
struct Entry {
    /// The window it was shown in; `None` for a value of an answer.
    window: Option<String>,
    /// The column title, field label or result key, folded by [`fold`].
    label: String,
    /// For a table cell: the table block's id and the column's place.
    cell_of: Option<(String, usize)>,
    value: Value,
}

/// The values the app showed lately, in a stable order (windows by id,
/// blocks in order; answers oldest first), so the same walk picks the same.
#[derive(Debug, Default, Clone)]
pub(crate) struct Shown {
    windows: Vec<Entry>,
    answers: Vec<Entry>,
}

/// A label or parameter name folded for comparing: lower case, letters and
/// digits only (`Book Id`, `book_id` and `bookId` are all `bookid`).
fn fold(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Whether a value shown under `label` may be what a parameter `name` wants:
/// the same words, or one ends with the other (`book_id` and `Id`,
/// `recipient` and `Recipient name`).
fn names_match(label: &str, name: &str) -> bool {
    !label.is_empty()
        && !name.is_empty()
        && (label == name || name.ends_with(label) || label.starts_with(name))
}

impl Shown {
    /// Replaces what the windows show with the blocks of `windows` (id and
    /// blocks; masked values are left out).
    pub fn read_windows<'a>(&mut self, windows: impl IntoIterator<Item = (&'a str, &'a [Value])>) {
        self.windows.clear();
        for (id, blocks) in windows {
            for block in blocks {
                self.read_block(id, block);
            }
        }
        self.windows.truncate(FROM_WINDOWS);
    }

    fn read_block(&mut self, window: &str, block: &Value) {
        let block_id = block.get("id").and_then(Value::as_str).unwrap_or("");
        let mut push = |label: &str, value: &Value, column: Option<usize>| {
            // A blank value says nothing an agent would send back.
            let blank = value.as_str().is_some_and(|s| s.trim().is_empty());
            if !blank && !matches!(value, Value::Null | Value::Array(_) | Value::Object(_)) {
                let entry = Entry {
                    window: Some(window.to_owned()),
                    label: fold(label),
                    cell_of: column.map(|c| (block_id.to_owned(), c)),
                    value: value.clone(),
                };
                self.windows.push(entry);
            }
        };
        match block.get("type").and_then(Value::as_str) {
            Some("fields") => {
                for item in block.get("items").and_then(Value::as_array).into_iter().flatten() {
                    if item.get("sensitive").and_then(Value::as_bool) != Some(true) {
                        let label = item.get("label").and_then(Value::as_str).unwrap_or("");
                        push(label, item.get("value").unwrap_or(&Value::Null), None);
                    }
                }
            }
            Some("table") => {
                let columns: Vec<&str> = block
                    .get("columns")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|c| c.as_str().unwrap_or(""))
                    .collect();
                for row in block.get("rows").and_then(Value::as_array).into_iter().flatten() {
                    for (i, cell) in row.as_array().into_iter().flatten().enumerate() {
                        push(columns.get(i).copied().unwrap_or(""), cell, Some(i));
                    }
                }
            }
            Some("list") => {
                for item in block.get("items").and_then(Value::as_array).into_iter().flatten() {
                    push("", item, None);
                }
            }
            _ => {}
        }
    }

    /// Keeps the plain values of an answer's structured content, under
    /// their keys (a `windowId` an action opened, an `orderId` it made).
    pub fn read_answer(&mut self, structured: &Value) {
        fn walk(shown: &mut Shown, key: &str, value: &Value, depth: usize) {
            match value {
                Value::Object(map) if depth < 4 => {
                    for (k, v) in map {
                        walk(shown, k, v, depth + 1);
                    }
                }
                Value::Array(items) if depth < 4 => {
                    for v in items.iter().take(16) {
                        walk(shown, key, v, depth + 1);
                    }
                }
                Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                    let entry = Entry {
                        window: None,
                        label: fold(key),
                        cell_of: None,
                        value: value.clone(),
                    };
                    shown.answers.push(entry);
                }
                _ => {}
            }
        }
        walk(self, "", structured, 0);
        let over = self.answers.len().saturating_sub(FROM_ANSWERS);
        self.answers.drain(..over);
    }

    /// A value from the table column a parameter's description names as
    /// its source (Purview's `#[arg(from = table.column)]` ends it with
    /// "Take it from the `column` column of this window's `table` table"),
    /// in `window`: what an agent reading the description sends, and the
    /// only values an app whose records each have their own references
    /// accepts. `None` when the description names no source or the table
    /// shows no rows.
    pub fn cell_of_source(
        &self,
        rng: &mut Rand,
        schema: &Value,
        window: Option<&str>,
    ) -> Option<Value> {
        let description = schema.get("description").and_then(Value::as_str)?;
        let (column, table) = source_named(description)?;
        let types = types_of(schema);
        let place = column.parse::<usize>().ok();
        let column = fold(column);
        let cells: Vec<Value> = self
            .windows
            .iter()
            .filter(|e| window.is_none() || e.window.as_deref() == window)
            .filter(|e| {
                e.cell_of.as_ref().is_some_and(|(block, at)| {
                    block == table && (e.label == column || place == Some(*at))
                })
            })
            .filter_map(|e| match &e.value {
                v if fits(&types, v) => Some(v.clone()),
                Value::Number(n) if fits(&types, &Value::String(String::new())) => {
                    Some(Value::String(n.to_string()))
                }
                Value::String(s) => s
                    .parse::<serde_json::Number>()
                    .ok()
                    .map(Value::Number)
                    .filter(|v| fits(&types, v)),
                _ => None,
            })
            .collect();
        (!cells.is_empty()).then(|| cells[rng.random_range(0..cells.len())].clone())
    }

    /// A value shown that a parameter `name` with `schema` might take, or
    /// `None` to make one up: often one shown under a matching label (in
    /// the tool's `window` first), sometimes any value of the right type
    /// shown in that window; nearly always one of them once the app has
    /// `refused` made-up values for it. Never for a schema with `enum` or
    /// `const`, whose values the schema itself lists.
    pub fn pick(
        &self,
        rng: &mut Rand,
        schema: &Value,
        name: Option<&str>,
        window: Option<&str>,
        refused: bool,
    ) -> Option<Value> {
        if schema.get("enum").is_some() || schema.get("const").is_some() {
            return None;
        }
        let types = types_of(schema);
        let fits = |v: &Value| fits(&types, v);
        let name = name.map(fold).unwrap_or_default();
        let all = || self.windows.iter().chain(&self.answers).filter(|e| fits(&e.value));
        let named: Vec<&Entry> = all().filter(|e| names_match(&e.label, &name)).collect();
        let here: Vec<&Entry> = named
            .iter()
            .copied()
            .filter(|e| e.window.is_none() || e.window.as_deref() == window)
            .collect();
        let (here_chance, named_chance, typed_chance) =
            if refused { (0.9, 0.9, 0.85) } else { (0.5, 0.4, 0.15) };
        for (pool, chance) in [(here, here_chance), (named, named_chance)] {
            if !pool.is_empty() && rng.random_bool(chance) {
                return Some(pool[rng.random_range(0..pool.len())].value.clone());
            }
        }
        let typed: Vec<&Entry> =
            all().filter(|e| window.is_some() && e.window.as_deref() == window).collect();
        if !typed.is_empty() && rng.random_bool(typed_chance) {
            return Some(typed[rng.random_range(0..typed.len())].value.clone());
        }
        None
    }
}

/// The column and table of "Take it from the `column` column of this
/// window's `table` table" in a parameter's description.
fn source_named(description: &str) -> Option<(&str, &str)> {
    let rest = description.split("Take it from the `").nth(1)?;
    let (column, rest) = rest.split_once("` column of this window's `")?;
    let (table, _) = rest.split_once("` table")?;
    Some((column, table))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng as _;
    use serde_json::json;

    use super::*;

    fn catalogue() -> Shown {
        let mut shown = Shown::default();
        let blocks = vec![
            json!({"type": "table", "id": "b1", "columns": ["Id", "Title"],
                   "rows": [[101, "Dune"], [102, "Emma"]]}),
            json!({"type": "fields", "id": "b2", "items": [
                {"label": "Member PIN", "value": "••••", "sensitive": true},
                {"label": "Member", "value": "Ada"}]}),
        ];
        shown.read_windows([("w1", blocks.as_slice())]);
        shown
    }

    #[test]
    fn an_id_parameter_takes_the_ids_the_table_shows() {
        let shown = catalogue();
        let mut rng = Rand::seed_from_u64(1);
        let schema = json!({"type": "integer"});
        let picked: Vec<Value> = (0..200)
            .filter_map(|_| shown.pick(&mut rng, &schema, Some("book_id"), Some("w1"), false))
            .collect();
        assert!(picked.len() > 100, "{}", picked.len());
        assert!(picked.iter().all(|v| *v == json!(101) || *v == json!(102)), "{picked:?}");
    }

    #[test]
    fn masked_values_and_values_of_another_type_are_never_picked() {
        let shown = catalogue();
        let mut rng = Rand::seed_from_u64(2);
        let schema = json!({"type": "string"});
        for _ in 0..200 {
            if let Some(v) = shown.pick(&mut rng, &schema, Some("member_pin"), Some("w1"), true) {
                assert!(v.is_string() && v != json!("••••"), "{v}");
            }
        }
        let choices = json!({"enum": ["a", "b"]});
        assert!(
            (0..50).all(|_| shown
                .pick(&mut rng, &choices, Some("member"), Some("w1"), true)
                .is_none())
        );
    }

    #[test]
    fn an_argument_from_a_table_takes_that_columns_cells_only() {
        let mut shown = Shown::default();
        let blocks = vec![
            json!({"type": "table", "id": "payments", "columns": ["Reference", "Amount"],
                   "rows": [["PAY-1", 10], ["PAY-2", 20]]}),
            json!({"type": "table", "id": "returns", "columns": ["Reference"],
                   "rows": [["RMA-9"]]}),
        ];
        shown.read_windows([("w3", blocks.as_slice())]);
        let mut rng = Rand::seed_from_u64(4);
        let said = "Which payment. Take it from the `reference` column of this window's \
                    `payments` table (its rows are in app://windows).";
        let schema = json!({"type": "string", "description": said});
        let picked: Vec<Value> =
            (0..50).filter_map(|_| shown.cell_of_source(&mut rng, &schema, Some("w3"))).collect();
        assert_eq!(picked.len(), 50);
        assert!(picked.iter().all(|v| *v == json!("PAY-1") || *v == json!("PAY-2")), "{picked:?}");
        // By place, and as the type the schema asks for.
        let by_place = json!({"type": "string",
            "description": "Take it from the `1` column of this window's `payments` table."});
        let amount = shown.cell_of_source(&mut rng, &by_place, Some("w3")).unwrap();
        assert!(amount == json!("10") || amount == json!("20"), "{amount}");
        // Another window's table, or no source named: nothing.
        assert!(shown.cell_of_source(&mut rng, &schema, Some("w4")).is_none());
        assert!(shown.cell_of_source(&mut rng, &json!({"type": "string"}), Some("w3")).is_none());
    }

    #[test]
    fn an_answers_values_are_kept_under_their_keys() {
        let mut shown = Shown::default();
        shown.read_answer(&json!({"message": "Opened", "windowId": "w7"}));
        let mut rng = Rand::seed_from_u64(3);
        let schema = json!({"type": "string"});
        let picked =
            (0..100).filter_map(|_| shown.pick(&mut rng, &schema, Some("window_id"), None, false));
        assert!(picked.filter(|v| *v == json!("w7")).count() > 40);
    }
}

//! Names: what an action may be called, and how identifiers read to a person.

use proc_macro2::Span;
use syn::Ident;

/// Kept equal to `purview::action::MAX_ACTION_NAME_LEN`; the runtime checks
/// again when a type is first used, so a drift would still be caught.
pub const MAX_ACTION_NAME_LEN: usize = 26;

/// The identifier as written, without a `r#` prefix.
pub fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// `payment_password` → `Payment password`; `OrderEditor` → `Order editor`.
pub fn humanize(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    let sentence = words
        .iter()
        .enumerate()
        .map(|(i, w)| if i == 0 { w.clone() } else { lower_unless_acronym(w) })
        .collect::<Vec<_>>()
        .join(" ");
    let mut chars = sentence.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => sentence,
    }
}

fn lower_unless_acronym(word: &str) -> String {
    if word.len() > 1 && word.chars().all(|c| c.is_uppercase() || c.is_ascii_digit()) {
        word.to_owned()
    } else {
        word.to_lowercase()
    }
}

/// The rules a tool name's action part must follow, checked where the user
/// wrote the name.
pub fn check_action_name(name: &str, span: Span) -> darling::Result<()> {
    let problem = if name.is_empty() {
        Some("an action name cannot be empty".to_owned())
    } else if name.len() > MAX_ACTION_NAME_LEN {
        Some(format!(
            "action name `{name}` is {} characters long; the limit is {MAX_ACTION_NAME_LEN} so that `{{windowId}}__{name}` fits the 64-character tool-name limit of MCP hosts together with their prefixes",
            name.len()
        ))
    } else if !name.is_ascii() {
        Some(format!(
            "action name `{name}` must be ASCII: MCP hosts accept only [A-Za-z0-9_-] in tool names"
        ))
    } else if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Some(format!(
            "action name `{name}` must start with a letter (some MCP hosts reject anything else)"
        ))
    } else if name.contains("__") {
        Some(format!(
            "action name `{name}` must not contain `__`: it separates the window id from the action in tool names"
        ))
    } else if name.ends_with('_') {
        Some(format!(
            "action name `{name}` must not end with `_`: the tool name would be ambiguous"
        ))
    } else if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Some(format!("action name `{name}` may contain only A-Z, a-z, 0-9 and `_`"))
    } else {
        None
    };
    match problem {
        Some(message) => Err(darling::Error::custom(message).with_span(&span)),
        None => Ok(()),
    }
}

/// The closest of `options` to `given`, if it is close enough to suggest.
pub fn did_you_mean<'a>(
    given: &str,
    options: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    options
        .into_iter()
        .map(|o| (edit_distance(given, o), o))
        .filter(|(d, o)| *d <= 2.max(o.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev + usize::from(ca != *cb));
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The first paragraph of an item's doc comments, joined into one line.
pub fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value
        {
            lines.push(s.value().trim().to_owned());
        }
    }
    let paragraph: Vec<String> =
        lines.into_iter().skip_while(String::is_empty).take_while(|l| !l.is_empty()).collect();
    (!paragraph.is_empty()).then(|| paragraph.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn humanizes_snake_and_camel_case() {
        assert_eq!(humanize("payment_password"), "Payment password");
        assert_eq!(humanize("OrderEditor"), "Order editor");
        assert_eq!(humanize("load_URL"), "Load URL");
    }

    #[test]
    fn suggests_close_names() {
        assert_eq!(did_you_mean("destructve", ["destructive", "idempotent"]), Some("destructive"));
        assert_eq!(did_you_mean("zzz", ["destructive"]), None);
    }
}

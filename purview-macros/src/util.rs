//! Small helpers the macros share. The naming rules themselves live in
//! `purview-naming`, shared with the runtime.

use proc_macro2::Span;
use syn::Ident;

/// The identifier as written, without a `r#` prefix.
pub fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
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

/// Where the `purview` crate is: `crate = "path"` when renamed.
pub fn krate(given: Option<syn::Path>) -> syn::Path {
    given.unwrap_or_else(|| syn::parse_quote!(::purview))
}

/// A naming rule from `purview-naming`, as a compile error at `span`.
pub fn name_rule(check: Result<(), String>, span: Span) -> darling::Result<()> {
    check.map_err(|message| darling::Error::custom(message).with_span(&span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names() {
        assert_eq!(did_you_mean("destructve", ["destructive", "idempotent"]), Some("destructive"));
        assert_eq!(did_you_mean("zzz", ["destructive"]), None);
    }
}

//! The page, its style and its script, embedded in the binary: no build
//! step, nothing fetched from anywhere but the face itself.

/// The script (plain JavaScript, no framework).
pub(crate) const SCRIPT: &str = include_str!("../assets/face.js");
/// The style sheet.
pub(crate) const STYLE: &str = include_str!("../assets/face.css");
/// The page around them.
const PAGE: &str = include_str!("../assets/face.html");

/// The most the face's script and style sheet may weigh together,
/// uncompressed, in bytes: 60 KB. A test holds the embedded files to it.
///
/// ```
/// assert_eq!(purview_web::BUDGET_BYTES, 60 * 1024);
/// ```
pub const BUDGET_BYTES: usize = 60 * 1024;

/// Only the face's own script, style and data: no inline script, no other
/// origin, no frames, no form posts anywhere.
pub(crate) const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/// Text made safe inside HTML text and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page: its title and where the face is served.
pub(crate) fn page(title: &str, prefix: &str) -> String {
    PAGE.replace("{{TITLE}}", &escape(title)).replace("{{PREFIX}}", &escape(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_and_style_fit_the_budget() {
        let weight = SCRIPT.len() + STYLE.len();
        assert!(
            weight <= BUDGET_BYTES,
            "script and style weigh {weight} bytes, over {BUDGET_BYTES}"
        );
    }

    #[test]
    fn the_page_names_nothing_from_elsewhere() {
        let page = page("Shop", "/person");
        for text in [page.as_str(), SCRIPT, STYLE] {
            assert!(!text.contains("http://") && !text.contains("https://"), "a URL in {text:.80}");
        }
        assert!(!page.contains("<script>"), "an inline script, which the CSP refuses");
    }

    #[test]
    fn the_title_is_escaped_into_the_page() {
        let page = page("<b>\"x\"</b>", "/person");
        assert!(page.contains("&lt;b&gt;&quot;x&quot;&lt;/b&gt;"), "{page}");
    }
}

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

/// Only the face's own script and style, which the page carries inline,
/// each named by its SHA-256 (so no other script runs, whatever the page
/// were made to hold), and the face's own data: no other origin, no
/// frames, no form posts anywhere.
///
/// The script and style are in the page rather than fetched after it: a
/// fetch of them carries no credential, so under a crowd of token-less
/// local connections it counted as the crowd's and could be cut, leaving
/// the person a page that never started (`s12_the_persons_browser_…`).
pub(crate) fn csp() -> &'static str {
    static CSP: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "default-src 'none'; script-src '{}'; style-src '{}'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
            digest(SCRIPT),
            digest(STYLE)
        )
    });
    &CSP
}

/// `text`'s SHA-256 as a Content Security Policy names it.
fn digest(text: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let sum = sha2::Sha256::digest(text.as_bytes());
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(sum))
}

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

/// The page: its title and where the face is served, its style and its
/// script inline (after the app's text is in, so nothing of it is read as
/// a placeholder).
pub(crate) fn page(title: &str, prefix: &str) -> String {
    PAGE.replace("{{TITLE}}", &escape(title))
        .replace("{{PREFIX}}", &escape(prefix))
        .replace("{{STYLE}}", STYLE)
        .replace("{{SCRIPT}}", SCRIPT)
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
        assert_eq!(page.matches("</script>").count(), 1, "a script ends early");
        assert_eq!(page.matches("</style>").count(), 1, "a style sheet ends early");
    }

    #[test]
    fn the_policy_lets_run_only_the_pages_own_script_and_style() {
        use base64::Engine as _;
        use sha2::Digest as _;
        let page = page("Shop", "/person");
        let inline = |open: &str, close: &str| -> String {
            let start = page.find(open).expect("opened") + open.len();
            let end = page[start..].find(close).expect("closed") + start;
            let sum = sha2::Sha256::digest(&page.as_bytes()[start..end]);
            format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(sum))
        };
        let policy = csp();
        assert!(
            policy.contains(&format!("script-src {};", inline("<script>", "</script>"))),
            "{policy}"
        );
        assert!(
            policy.contains(&format!("style-src {};", inline("<style>", "</style>"))),
            "{policy}"
        );
        assert!(!policy.contains("unsafe-inline") && !policy.contains("'self'; style"), "{policy}");
    }

    #[test]
    fn the_title_is_escaped_into_the_page() {
        let page = page("<b>\"x\"</b>", "/person");
        assert!(page.contains("&lt;b&gt;&quot;x&quot;&lt;/b&gt;"), "{page}");
    }
}

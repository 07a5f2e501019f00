//! An argument's `pattern`, checked at compile time the way the runtime
//! will run it, so a rule the runtime cannot compile is the developer's
//! error at the attribute rather than an agent's surprise.

/// Whether the runtime's pattern check can compile `pattern`: it gives
/// the pattern its ECMA-262 meaning in the `regex` crate's syntax
/// ([`purview_pattern::ecma_to_regex`]) and runs it there, with no
/// look-around or back-references. Errors point at the pattern as written.
pub(super) fn check_pattern(pattern: &str) -> Result<(), String> {
    use regex_syntax::ast::{ErrorKind, parse::Parser};
    let translated = purview_pattern::ecma_to_regex(pattern);
    // The character (from 1) of `pattern` as written that a parser's error
    // at `offset` of the translation comes from.
    let at = |offset: usize| {
        let byte = purview_pattern::ecma_source_offset(pattern, offset);
        pattern.get(..byte).map_or(byte, |before| before.chars().count()) + 1
    };
    let invalid = |what: String| format!("this pattern is not a valid regular expression: {what}");
    match Parser::new().parse(&translated) {
        Ok(_) => {}
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::UnsupportedLookAround | ErrorKind::UnsupportedBackreference
            ) =>
        {
            let what = if *e.kind() == ErrorKind::UnsupportedLookAround {
                "a look-around"
            } else {
                "a back-reference"
            };
            return Err(format!(
                "this pattern uses {what} (at character {}), which argument patterns cannot \
                 hold; check that rule in the action and refuse with `cx.invalid(..)`",
                at(e.span().start.offset)
            ));
        }
        Err(e) => {
            return Err(invalid(format!(
                "{} (at character {})",
                e.kind(),
                at(e.span().start.offset)
            )));
        }
    }
    regex_syntax::Parser::new().parse(&translated).map(drop).map_err(|e| {
        invalid(match e {
            regex_syntax::Error::Translate(e) => {
                format!("{} (at character {})", e.kind(), at(e.span().start.offset))
            }
            other => other.to_string(),
        })
    })
}

//! The approval question's unit tests: what a person reads.

use super::*;

/// A character of each kind a person cannot see for what it is: blanks
/// other than U+0020, a tab, and default-ignorable code points.
const UNSEEN: [char; 12] = [
    '\u{3000}',
    '\u{2003}',
    '\u{00A0}',
    '\u{1680}',
    '\u{202F}',
    '\u{205F}',
    '\t',
    '\u{00AD}',
    '\u{034F}',
    '\u{3164}',
    '\u{FE0F}',
    '\u{E0100}',
];

/// Every Unicode default-ignorable code point (DerivedCoreProperties)
/// and every blank (White_Space) but U+0020.
fn all_unseen() -> impl Iterator<Item = char> {
    let ranges: [(u32, u32); 26] = [
        (0x00AD, 0x00AD),
        (0x034F, 0x034F),
        (0x061C, 0x061C),
        (0x115F, 0x1160),
        (0x17B4, 0x17B5),
        (0x180B, 0x180F),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x206F),
        (0x3164, 0x3164),
        (0xFE00, 0xFE0F),
        (0xFEFF, 0xFEFF),
        (0xFFA0, 0xFFA0),
        (0xFFF0, 0xFFF8),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0000, 0xE0FFF),
        (0x0009, 0x000D),
        (0x0085, 0x0085),
        (0x00A0, 0x00A0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
    ];
    ranges.into_iter().flat_map(|(a, b)| (a..=b).filter_map(char::from_u32))
}

/// RELIABILITY.md "A hostile agent": a run of U+3000 in a recipient pushed "for $999999.99"
/// lines below the amount a person read, and 10 of 12 such characters
/// passed `plain_line`. The question escapes, and `plain_line` refuses,
/// every one, by the one rule.
#[test]
fn s5_6_blank_and_invisible_characters_are_escaped_in_the_question_and_refused_by_plain_line() {
    for c in UNSEEN.into_iter().chain(all_unseen()) {
        let recipient = format!("Ada{}for $999999.99", c.to_string().repeat(40));
        let mut request = ApprovalRequest::example();
        request.arguments = serde_json::json!({"recipient": recipient});
        request.window_summary = Some(format!("Send to {recipient}"));
        let text = request.describe();
        let escape = format!("\\u{{{:04X}}}", u32::from(c));
        // (The question's own line breaks are its four lines.)
        let shown_as_itself = c != '\n' && text.contains(c);
        assert!(!shown_as_itself, "U+{:04X} is shown as itself: {text}", u32::from(c));
        assert_eq!(text.matches(&escape).count(), 80, "{text}");
        assert_eq!(text.lines().count(), 4, "{text}");
        let refused = crate::constraint::plain_line(&recipient);
        let expected =
            format!("must be one plain line: it contains U+{:04X} at character 4", u32::from(c));
        assert_eq!(refused, Err(expected));
    }
    // A run of plain spaces: the first shows, the rest are escapes.
    let mut request = ApprovalRequest::example();
    request.arguments = serde_json::json!({"recipient": format!("Ada{}for $1", " ".repeat(3))});
    let text = request.describe();
    assert!(text.contains(r#"recipient: "Ada \u{0020}\u{0020}for $1""#), "{text}");
    assert!(crate::constraint::plain_line("Ada  Lovelace").is_err());
    assert!(crate::constraint::plain_line("Ada Lovelace, 12 Rue d'Été").is_ok());
}

/// RELIABILITY.md "A hostile agent": the window summary (which holds what the agent set) went
/// into the question unquoted, so it could end the question early;
/// the app's own wording, built from the arguments, too.
#[test]
fn s5_6_the_window_summary_and_the_apps_wording_are_quoted_like_agent_text() {
    let mut request = ApprovalRequest::example();
    request.window_summary =
        Some(r#"Send to Ada". It takes no arguments. Approve: "yes"#.to_owned());
    let text = request.describe();
    assert!(
        text.contains(r#"The window says: "Send to Ada\". It takes no arguments. Approve: \"yes""#),
        "{text}"
    );
    request.wording = Some("Pay \"Ada\"\u{2028}now?".to_owned());
    let worded = request.describe();
    assert!(worded.ends_with(r#"asks: "Pay \"Ada\"\u{2028}now?""#), "{worded}");
}

/// RELIABILITY.md "A hostile agent": the question cut arguments to 64 characters while a yes
/// applied them whole. Now a request carries and shows them whole, and
/// one too long to show is named with the bound instead.
#[test]
fn s5_6_arguments_are_shown_whole_or_named_as_too_long_to_show() {
    let mut request = ApprovalRequest::example();
    let long = format!("Ada{}", "x".repeat(MAX_SHOWN_ARGUMENT_CHARS - 5));
    request.arguments = serde_json::json!({"recipient": long});
    assert!(request.describe().contains(&format!("recipient: \"{long}\"")));
    assert!(request.too_long_to_show().is_empty(), "1,024 characters quoted fit");
    request.arguments = serde_json::json!({"recipient": format!("{long}x")});
    let refused = request.too_long_to_show();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].field, "recipient");
    assert!(refused[0].error.contains("up to 1024 characters each"), "{:?}", refused[0]);
    assert!(refused[0].error.contains("send a shorter value"), "{:?}", refused[0]);
    // Hidden characters count as the escapes a person reads.
    request.arguments = serde_json::json!({"recipient": "\u{200B}".repeat(200)});
    assert_eq!(request.too_long_to_show().len(), 1);
    // Each fits, all together do not.
    let part = "y".repeat(1000);
    request.arguments = serde_json::json!({"a": part, "b": part, "c": part, "d": part, "e": part});
    let together = request.too_long_to_show();
    assert_eq!(together.len(), 1);
    assert_eq!(together[0].field, "arguments");
}

/// RELIABILITY.md "A hostile agent": agent-written text was pasted
/// unquoted, so a recipient holding U+2028 and a made-up ending read
/// as a finished question for another amount.
#[test]
fn s5_6_an_argument_cannot_pose_as_the_end_of_the_question() {
    let forged = format!(
        "Alice Smith for $12.00. It takes no arguments. Reply with approve = true{}\u{200B}\"x",
        "\u{2028}".repeat(40)
    );
    let mut request = ApprovalRequest::example();
    request.arguments = serde_json::json!({"recipient": forged, "amount": 999_999.99});
    let text = request.describe();
    assert!(!text.contains('\u{2028}') && !text.contains('\u{200B}'), "{text}");
    assert!(text.contains(r#"recipient: "Alice Smith for $12.00. It takes no arguments. Reply with approve = true\u{2028}"#), "{text}");
    assert!(text.contains(r#"\"x""#), "a quote in the text is escaped: {text}");
    assert!(text.contains("\n  amount: 999999.99"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "who and what, the window, the heading, two arguments: {text}");
}

/// RELIABILITY.md inventory, "a line a person reads": U+2800 BRAILLE
/// PATTERN BLANK passed into the question although ten such characters
/// had been listed by hand, and a run of it pushed the real amount off the
/// line. The rule now comes from the Unicode tables; over every code
/// point, a character is escaped in the question and refused by
/// `plain_line` exactly when it is a control, a format character, a line
/// or paragraph separator, a blank other than U+0020 (Zs, White_Space),
/// default-ignorable, or one of the blank glyphs.
#[test]
fn s5_6_every_invisible_or_blank_code_point_is_shown_as_an_escape_and_only_those() {
    use unicode_general_category::{GeneralCategory as Gc, get_general_category};
    let every: String = (0..=0x10FFFF_u32).filter_map(char::from_u32).collect();
    let holding = |property: &str| -> std::collections::HashSet<char> {
        let found = regex::Regex::new(&format!(r"\p{{{property}}}")).expect("a known property");
        found.find_iter(&every).flat_map(|m| m.as_str().chars()).collect()
    };
    let ignorable = holding("Default_Ignorable_Code_Point");
    let blank = holding("White_Space");
    assert!(ignorable.contains(&'\u{E0041}') && blank.contains(&'\u{3000}'));
    let mut escaped = 0;
    for c in every.chars() {
        let category = get_general_category(c);
        let expected = c != ' '
            && (matches!(category, Gc::Control | Gc::Format | Gc::LineSeparator)
                || matches!(category, Gc::ParagraphSeparator | Gc::SpaceSeparator)
                || ignorable.contains(&c)
                || blank.contains(&c)
                || crate::constraint::BLANK_GLYPHS.contains(&c));
        let hidden = crate::constraint::is_hidden(c);
        assert_eq!(hidden, expected, "U+{:04X} ({category:?})", u32::from(c));
        if !expected {
            continue;
        }
        escaped += 1;
        let escape = format!("\\u{{{:04X}}}", u32::from(c));
        assert_eq!(visible(&format!("Ada{c}")), format!("Ada{escape}"));
        assert_eq!(quoted(&c.to_string()), format!("\"{escape}\""));
        let refused = crate::constraint::plain_line(&format!("Ada{c}for $999999.99"));
        assert!(refused.is_err_and(|why| why.contains(&format!("U+{:04X}", u32::from(c)))));
    }
    assert!(escaped > 4_000, "{escaped} code points escaped");
    // The braille blank, in a question: shown as escapes, on its line.
    let mut request = ApprovalRequest::example();
    let recipient = format!("Ada{}for $999999.99", "\u{2800}".repeat(40));
    request.arguments = serde_json::json!({"recipient": recipient});
    let text = request.describe();
    assert!(!text.contains('\u{2800}') && text.matches("\\u{2800}").count() == 40, "{text}");
}

/// RELIABILITY.md inventory, "who asks": the question named the client by
/// the name it gave itself and a session number. It names the client its
/// credential proves, however it is known, the name it gives itself only
/// quoted beside it, and only when that says something else.
#[test]
fn s5_6_the_asker_is_the_credentials_client_and_its_own_name_an_aside() {
    use crate::app::ClientId;
    let remote: std::net::IpAddr = "10.0.0.5".parse().expect("an address");
    let cases = [
        (
            ClientId::named("hostile"),
            Some("claude-code"),
            r#"hostile, calling itself "claude-code","#,
        ),
        (ClientId::named("claude-code"), Some("claude-code"), "claude-code"),
        (ClientId::named("claude-code"), None, "claude-code"),
        (
            ClientId::local(),
            Some("x"),
            r#"A local client (127.0.0.1, no token), calling itself "x","#,
        ),
        (ClientId::address(remote), None, "The client at 10.0.0.5 (no token)"),
        (
            ClientId::connection(3),
            Some("host"),
            r#"The client on connection 3, calling itself "host","#,
        ),
        // Its own text is quoted, escapes and all.
        (ClientId::named("a"), Some("b\"\u{2028}c"), r#"a, calling itself "b\"\u{2028}c","#),
    ];
    for (client, calls_itself, expected) in cases {
        assert_eq!(asker(&client, calls_itself), expected);
    }
    let mut request = ApprovalRequest::example();
    request.agent = asker(&ClientId::named("hostile"), Some("claude-code"));
    let text = request.describe();
    assert!(
        text.starts_with(r#"hostile, calling itself "claude-code", asks to confirm in"#),
        "{text}"
    );
}

//! What in a pattern is not ECMA-262: the `regex` crate's own syntax a
//! Rust developer may write from habit, which hosts that check arguments
//! in JavaScript could not compile, and what to write instead.

/// What `\p{..}` may name alone in ECMA-262: the values of
/// General_Category and the binary properties, each with its aliases,
/// spelled exactly.
#[rustfmt::skip]
const LONE_PROPERTIES: [&str; 178] = [
    // General_Category.
    "L", "Letter", "LC", "Cased_Letter", "Lu", "Uppercase_Letter", "Ll", "Lowercase_Letter", "Lt",
    "Titlecase_Letter", "Lm", "Modifier_Letter", "Lo", "Other_Letter", "M", "Mark",
    "Combining_Mark", "Mn", "Nonspacing_Mark", "Mc", "Spacing_Mark", "Me", "Enclosing_Mark", "N",
    "Number", "Nd", "Decimal_Number", "digit", "Nl", "Letter_Number", "No", "Other_Number", "P",
    "Punctuation", "punct", "Pc", "Connector_Punctuation", "Pd", "Dash_Punctuation", "Ps",
    "Open_Punctuation", "Pe", "Close_Punctuation", "Pi", "Initial_Punctuation", "Pf",
    "Final_Punctuation", "Po", "Other_Punctuation", "S", "Symbol", "Sm", "Math_Symbol", "Sc",
    "Currency_Symbol", "Sk", "Modifier_Symbol", "So", "Other_Symbol", "Z", "Separator", "Zs",
    "Space_Separator", "Zl", "Line_Separator", "Zp", "Paragraph_Separator", "C", "Other", "Cc",
    "Control", "cntrl", "Cf", "Format", "Cs", "Surrogate", "Co", "Private_Use", "Cn", "Unassigned",
    // Binary properties.
    "ASCII", "ASCII_Hex_Digit", "AHex", "Alphabetic", "Alpha", "Any", "Assigned", "Bidi_Control",
    "Bidi_C", "Bidi_Mirrored", "Bidi_M", "Case_Ignorable", "CI", "Cased",
    "Changes_When_Casefolded", "CWCF", "Changes_When_Casemapped", "CWCM",
    "Changes_When_Lowercased", "CWL", "Changes_When_NFKC_Casefolded", "CWKCF",
    "Changes_When_Titlecased", "CWT", "Changes_When_Uppercased", "CWU", "Dash",
    "Default_Ignorable_Code_Point", "DI", "Deprecated", "Dep", "Diacritic", "Dia", "Emoji",
    "Emoji_Component", "EComp", "Emoji_Modifier", "EMod", "Emoji_Modifier_Base", "EBase",
    "Emoji_Presentation", "EPres", "Extended_Pictographic", "ExtPict", "Extender", "Ext",
    "Grapheme_Base", "Gr_Base", "Grapheme_Extend", "Gr_Ext", "Hex_Digit", "Hex",
    "IDS_Binary_Operator", "IDSB", "IDS_Trinary_Operator", "IDST", "ID_Continue", "IDC",
    "ID_Start", "IDS", "Ideographic", "Ideo", "Join_Control", "Join_C", "Logical_Order_Exception",
    "LOE", "Lowercase", "Lower", "Math", "Noncharacter_Code_Point", "NChar", "Pattern_Syntax",
    "Pat_Syn", "Pattern_White_Space", "Pat_WS", "Quotation_Mark", "QMark", "Radical",
    "Regional_Indicator", "RI", "Sentence_Terminal", "STerm", "Soft_Dotted", "SD",
    "Terminal_Punctuation", "Term", "Unified_Ideograph", "UIdeo", "Uppercase", "Upper",
    "Variation_Selector", "VS", "White_Space", "space", "XID_Continue", "XIDC", "XID_Start",
    "XIDS",
];

/// The keys of `\p{key=value}` in ECMA-262.
const PROPERTY_KEYS: [&str; 6] =
    ["General_Category", "gc", "Script", "sc", "Script_Extensions", "scx"];

/// A piece of `regex` syntax that is not ECMA-262.
pub(crate) enum Foreign {
    /// `(?` and what follows it (nothing at the pattern's end): inline
    /// flags, `(?P<..>`, ...
    Group(Option<char>),
    /// `\` and a letter ECMA has no escape for, or a digit after `\0`.
    Escape(char),
    /// `\pL`: a property without braces (`p` or `P`, and what follows).
    Property(char, Option<char>),
    /// `\p{..}` with a name ECMA does not give a property by alone, such
    /// as a script's (`\p{Greek}`), or a key it does not know.
    PropertyName(String),
    /// `\x` without exactly two hex digits.
    Hex,
    /// `\u` without four hex digits or braces.
    Unicode,
    /// `\` and a character that needs no escape.
    NeedlessEscape(char),
    /// A class that held a `[` and closed before it was meant to, as the
    /// lone `]` after it shows (`[[:alpha:]]`, `[a-z[0-9]]`).
    NestedClass,
    /// A `]` or `}` that closes nothing.
    Lone(char),
    /// A range with a class escape at one end, as in `[\w-.]`.
    SetInRange,
}

impl Foreign {
    /// What is foreign in the escape `\{escaped}`, followed by `rest`.
    pub(crate) fn of_escape(
        escaped: char,
        in_class: bool,
        mut rest: std::iter::Peekable<std::str::CharIndices<'_>>,
    ) -> Option<Self> {
        let braced = rest.peek().is_some_and(|&(_, b)| b == '{');
        let mut hex =
            |n: usize| (0..n).all(|_| rest.next().is_some_and(|(_, h)| h.is_ascii_hexdigit()));
        match escaped {
            // What translate leaves for the parser: look-around and
            // back-references, refused there.
            '1'..='9' | 'k' => None,
            'f' | 'n' | 'r' | 't' | 'v' => None,
            'p' | 'P' if braced => {
                let name: String = rest.skip(1).map(|(_, c)| c).take_while(|&c| c != '}').collect();
                let known = match name.split_once('=') {
                    Some((key, _)) => PROPERTY_KEYS.contains(&key),
                    None => LONE_PROPERTIES.contains(&name.as_str()),
                };
                (!known).then_some(Foreign::PropertyName(name))
            }
            'p' | 'P' => Some(Foreign::Property(escaped, rest.peek().map(|&(_, l)| l))),
            'x' => (!hex(2)).then_some(Foreign::Hex),
            'u' => (!braced && !hex(4)).then_some(Foreign::Unicode),
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' => None,
            '-' if in_class => None,
            letter if letter.is_ascii_alphanumeric() => Some(Foreign::Escape(letter)),
            other => Some(Foreign::NeedlessEscape(other)),
        }
    }

    /// What to write instead.
    pub(crate) fn advice(self) -> String {
        match self {
            Foreign::Group(Some('P')) => "`(?P<name>..)` is written `(?<name>..)`".into(),
            Foreign::Group(Some('i' | 'm' | 's' | 'x' | 'u' | 'U' | 'R' | '-')) => {
                "inline flags such as `(?i)` do not exist there (`(?i:..)` only in the newest \
                 engines); spell the cases out, as in `[Aa]` or `[A-Za-z]`"
                    .into()
            }
            Foreign::Group(Some(other)) => format!("`(?{other}` is not a group there"),
            Foreign::Group(None) => "a `(?` must begin a group there".into(),
            Foreign::Escape('0') => {
                "`\\0` may not be followed by a digit there (there are no octal escapes); \
                 write `\\x00` or `\\u{..}`"
                    .into()
            }
            Foreign::Escape('A' | 'z' | 'Z') => {
                "`\\A`, `\\z` and `\\Z` do not exist there; anchor with `^` and `$`".into()
            }
            Foreign::Escape(letter) => format!("`\\{letter}` is not an escape there"),
            Foreign::Property(p, name) => {
                let name = name.filter(char::is_ascii_alphabetic).unwrap_or('L');
                format!("a property takes braces: `\\{p}{{{name}}}`, not `\\{p}{name}`")
            }
            Foreign::PropertyName(name) => match name.split_once('=') {
                Some((key, _)) => format!(
                    "`{key}` is not a property there; the keys are `General_Category` (`gc`), \
                     `Script` (`sc`) and `Script_Extensions` (`scx`), spelled as written here"
                ),
                None => format!(
                    "`{name}` is not a property alone there; write a script as \
                     `\\p{{Script={name}}}`, and a category or a binary property by its exact \
                     name, such as `\\p{{L}}`, `\\p{{Letter}}` or `\\p{{Alphabetic}}`"
                ),
            },
            Foreign::Hex => "`\\x` takes exactly two hex digits; write `\\u{..}` for more".into(),
            Foreign::Unicode => {
                "`\\u` takes four hex digits or braces, as in `\\u00e9` or `\\u{e9}`".into()
            }
            Foreign::NeedlessEscape(c) => {
                format!(
                    "`\\{c}` escapes a character that needs none, which is an error there; write `{c}`"
                )
            }
            Foreign::NestedClass => "a class cannot hold a class there, and POSIX classes \
                                     (`[[:alpha:]]`) do not exist: the first `]` closes the class, \
                                     so its `[` is a plain bracket and the next `]` closes \
                                     nothing; spell the class out, as in `[A-Za-z]`, and write \
                                     `\\[` for a bracket"
                .into(),
            Foreign::Lone(c) => {
                format!("this `{c}` closes nothing, which is an error there; write `\\{c}`")
            }
            Foreign::SetInRange => "a range cannot begin or end with a class such as `\\w` or \
                                    `\\d` there; put the `-` last, as in `[\\w.-]`, or write `\\-`"
                .into(),
        }
    }
}

//! Every sentence the person reads that no app wrote: cues, hints, button
//! words, the form's own refusals, paging. The faces draw these strings and
//! write none of their own, so the desk, the browser and the card say the
//! same thing; `tests/words.rs` keeps every sentence here.
//!
//! What an app wrote (titles, summaries, descriptions, notices, approval
//! questions) is shown as written and never passes through this file.
//!
//! A face reads its fixed words here rather than writing its own:
//!
//! ```
//! use purview_person::words;
//!
//! let pager = [words::FIRST_ROWS, words::PREVIOUS_ROWS, words::NEXT_ROWS, words::LAST_ROWS];
//! assert_eq!(pager, ["First rows", "Previous rows", "Next rows", "Last rows"]);
//! assert_eq!(words::field_problem("Amount", words::REQUIRED), "Amount: is required");
//! ```

use purview::naming::humanize;

/// The cue of a window an agent is waiting in for the person's answer.
pub const WAITING_FOR_YOU: &str = "Agent is waiting for your approval";
/// The cue of the window the agent last acted in.
pub const AGENT_HERE: &str = "Agent is working here";
/// Beside a window's name in the list of open windows.
pub const AGENT_HERE_SHORT: &str = "· agent here";
/// Beside a blocked window's name in the list of open windows.
pub const BLOCKED_SHORT: &str = "(blocked)";
/// A button that opens a form: the action's title and this.
pub const OPENS_FORM: &str = "…";
/// The button closing a form without running it.
pub const CANCEL: &str = "Cancel";
/// Approve an agent's request.
pub const APPROVE: &str = "Approve";
/// Decline an agent's request.
pub const DECLINE: &str = "Decline";
/// Said beside a form's buttons when a field takes typing.
pub const ENTER_SUBMITS: &str = "Enter submits";
/// A choice not made yet.
pub const CHOOSE_PLACEHOLDER: &str = "Choose…";
/// A row's button that fills a form's argument.
pub const CHOOSE: &str = "Choose";
/// The row whose value the form holds now.
pub const CHOSEN: &str = "Chosen";
/// A custom block's payload, folded.
pub const DETAILS: &str = "Details";
/// Paging: the first page.
pub const FIRST_ROWS: &str = "First rows";
/// Paging: the page before.
pub const PREVIOUS_ROWS: &str = "Previous rows";
/// Paging: the page after.
pub const NEXT_ROWS: &str = "Next rows";
/// Paging: the last page.
pub const LAST_ROWS: &str = "Last rows";
/// Paging: the label of the row-number field.
pub const GO_TO_ROW: &str = "Go to row";
/// Paging: the button beside it.
pub const GO: &str = "Go";
/// A form's field left empty that the action needs.
pub const REQUIRED: &str = "is required";
/// A whole number was asked for.
pub const WHOLE_NUMBER: &str = "must be a whole number";
/// A number was asked for.
pub const NUMBER: &str = "must be a number";
/// JSON was asked for.
pub const JSON: &str = "must be JSON";
/// A call is under way.
pub const WORKING: &str = "Working…";
/// Where a face that cannot answer approval questions says they are answered.
pub const ANSWER_ELSEWHERE: &str = "Answer it where the app asks the person.";
/// The accessible names of the page's regions.
pub const REGIONS: [&str; 4] = ["The app", "Open windows", "Actions", "Approval question"];
/// The app could not be read for this frame.
pub const UNREADABLE: &str = "The app could not be read";
/// A call the face could not deliver.
pub const UNREACHABLE: &str = "The app could not be reached.";
/// A call a card asked its host to make, which the host did not make.
pub const NOT_MADE: &str = "The host did not make the call.";
/// A call a card made whose outcome never came back to it.
pub const OUTCOME_UNKNOWN: &str =
    "What came of the last call was not heard back; the window shows what it did.";

/// "Blocked by Confirm Delete": the window that holds this one.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::blocked_by(Some("Confirm Delete")), "Blocked by Confirm Delete");
/// assert_eq!(words::blocked_by(None), "Blocked by a dialog");
/// ```
pub fn blocked_by(blocker: Option<&str>) -> String {
    format!("Blocked by {}", blocker.unwrap_or("a dialog"))
}

/// An approval question the app wrote: its words first, as written, then
/// who asks and, `beneath`, the action and the agent's values.
///
/// ```
/// use purview_person::words;
///
/// let text = words::app_asks("Refund \"Max\"?", "clinic-bot", "Its arguments:\n  id: 7");
/// assert_eq!(text, "Refund \"Max\"?\nAsked by clinic-bot.\nIts arguments:\n  id: 7");
/// // An asker the runtime describes ("An agent", "A local client …")
/// // reads on inside the sentence.
/// assert_eq!(words::app_asks("Refund?", "An agent", ""), "Refund?\nAsked by an agent.");
/// ```
pub fn app_asks(said: &str, agent: &str, beneath: &str) -> String {
    let agent = match agent.strip_prefix("An ").or_else(|| agent.strip_prefix("A ")) {
        Some(rest) => format!("{} {rest}", if agent.starts_with("An ") { "an" } else { "a" }),
        None => agent.to_owned(),
    };
    if beneath.is_empty() {
        format!("{said}\nAsked by {agent}.")
    } else {
        format!("{said}\nAsked by {agent}.\n{beneath}")
    }
}

/// "Dialog of Order Editor": a modal's owner.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::dialog_of("Order Editor"), "Dialog of Order Editor");
/// ```
pub fn dialog_of(owner: &str) -> String {
    format!("Dialog of {owner}")
}

/// "Agent last: submit in Order Editor", naming the window by its title.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::agent_last("submit", Some("Order Editor")), "Agent last: submit in Order Editor");
/// assert_eq!(words::agent_last("open_order", None), "Agent last: open_order");
/// ```
pub fn agent_last(action: &str, window: Option<&str>) -> String {
    match window {
        Some(window) => format!("Agent last: {action} in {window}"),
        None => format!("Agent last: {action}"),
    }
}

/// A choice outside the list.
///
/// ```
/// use purview_person::words;
///
/// let choices = ["cash".to_owned(), "card".to_owned()];
/// assert_eq!(words::one_of(&choices), "must be one of: cash, card");
/// ```
pub fn one_of(choices: &[String]) -> String {
    format!("must be one of: {}", choices.join(", "))
}

/// A field's error under it: "Amount: must be a number".
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::field_problem("Amount", words::NUMBER), "Amount: must be a number");
/// ```
pub fn field_problem(label: &str, problem: &str) -> String {
    format!("{label}: {problem}")
}

/// The hint under an argument the person fills by choosing a row.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::choose_row_hint("orders"), "Choose a row in Orders to fill this in.");
/// ```
pub fn choose_row_hint(table: &str) -> String {
    format!("Choose a row in {} to fill this in.", humanize(table))
}

/// The note above a table whose rows fill an open form's argument.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::choose_row_for("Order", "Pay"), "Choose a row to fill “Order” of “Pay”.");
/// ```
pub fn choose_row_for(label: &str, action_title: &str) -> String {
    format!("Choose a row to fill \u{201c}{label}\u{201d} of \u{201c}{action_title}\u{201d}.")
}

/// A row's button, named for those who cannot see which row it sits in.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::choose_value("A-17", "Order", "Pay"), "Choose A-17 as Order for Pay");
/// ```
pub fn choose_value(value: &str, label: &str, action_title: &str) -> String {
    format!("Choose {value} as {label} for {action_title}")
}

/// The close button's accessible name.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::close_form("Refund"), "Close the Refund form");
/// ```
pub fn close_form(action_title: &str) -> String {
    format!("Close the {action_title} form")
}

/// The question a destructive action asks before it runs.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::confirm_question("Delete order"), "Delete order? This cannot be undone.");
/// ```
pub fn confirm_question(action_title: &str) -> String {
    format!("{action_title}? This cannot be undone.")
}

/// The confirming answer.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::confirm_yes("Delete Order"), "Yes, delete order");
/// ```
pub fn confirm_yes(action_title: &str) -> String {
    format!("Yes, {}", action_title.to_lowercase())
}

/// The declining answer.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::confirm_no("Delete Order"), "Do not delete order");
/// ```
pub fn confirm_no(action_title: &str) -> String {
    format!("Do not {}", action_title.to_lowercase())
}

/// A table's load action that answered with no page of rows.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::no_page("load"), "The table's load action `load` returned no page of rows.");
/// ```
pub fn no_page(action: &str) -> String {
    format!("The table's load action `{action}` returned no page of rows.")
}

/// "Rows 21–40 of 300".
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::rows_of(21, 40, 300), "Rows 21–40 of 300");
/// ```
pub fn rows_of(from: usize, to: usize, total: usize) -> String {
    format!("Rows {from}–{to} of {total}")
}

/// "1 row", "12 rows".
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::rows_count(1), "1 row");
/// assert_eq!(words::rows_count(12), "12 rows");
/// ```
pub fn rows_count(n: usize) -> String {
    if n == 1 { "1 row".to_owned() } else { format!("{n} rows") }
}

/// "12 of 40 items shown".
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::items_shown(12, 40), "12 of 40 items shown");
/// ```
pub fn items_shown(shown: usize, total: u64) -> String {
    format!("{shown} of {total} items shown")
}

/// The hint of the row-number field, and what it says when refused.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::row_range(300), "1–300");
/// ```
pub fn row_range(total: usize) -> String {
    format!("1–{total}")
}

/// A row number outside the table.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::row_refused(300), "A row from 1 to 300");
/// ```
pub fn row_refused(total: usize) -> String {
    format!("A row from 1 to {total}")
}

/// "3 more windows open; choose one to show it".
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::more_windows(3), "3 more windows open; choose one to show it");
/// ```
pub fn more_windows(hidden: usize) -> String {
    format!("{hidden} more windows open; choose one to show it")
}

/// A media block without a description.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::undescribed("image/png"), "(image/png without a description)");
/// ```
pub fn undescribed(mime_type: &str) -> String {
    format!("({mime_type} without a description)")
}

/// The word a notice's severity reads as, for those who do not see colour.
///
/// ```
/// use purview_person::words;
///
/// use purview::model::Severity;
/// assert_eq!(words::severity(Severity::Warn), "Warning");
/// assert_eq!(words::severity(Severity::Success), "Done");
/// ```
pub fn severity(severity: purview::model::Severity) -> &'static str {
    use purview::model::Severity;
    match severity {
        Severity::Warn => "Warning",
        Severity::Error => "Error",
        Severity::Success => "Done",
        _ => "Info",
    }
}

/// A number's bounds as the person reads them beside the field.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::number_bounds(Some("0.01"), Some("500")).as_deref(), Some("From 0.01 to 500"));
/// assert_eq!(words::number_bounds(None, Some("9")).as_deref(), Some("At most 9"));
/// assert_eq!(words::number_bounds(None, None), None);
/// ```
pub fn number_bounds(min: Option<&str>, max: Option<&str>) -> Option<String> {
    match (min, max) {
        (Some(min), Some(max)) => Some(format!("From {min} to {max}")),
        (Some(min), None) => Some(format!("At least {min}")),
        (None, Some(max)) => Some(format!("At most {max}")),
        (None, None) => None,
    }
}

/// A text's length bounds as the person reads them beside the field.
///
/// ```
/// use purview_person::words;
///
/// assert_eq!(words::length_bounds(Some(4), Some(4)).as_deref(), Some("Exactly 4 characters"));
/// assert_eq!(words::length_bounds(Some(1), None), None, "“required” already says it");
/// ```
pub fn length_bounds(min: Option<u64>, max: Option<u64>) -> Option<String> {
    match (min, max) {
        (Some(min), Some(max)) if min == max => Some(format!("Exactly {min} characters")),
        (Some(min), Some(max)) => Some(format!("From {min} to {max} characters")),
        (Some(min), None) if min > 1 => Some(format!("At least {min} characters")),
        (None, Some(max)) => Some(format!("At most {max} characters")),
        _ => None,
    }
}

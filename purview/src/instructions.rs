//! The guidance sent in `initialize` (§3, §8.1), in Purview's own words, for
//! each tool surface. Claude Code keeps only the first 2 KB, so each text
//! opens with the sentence that matters most and stays well under that,
//! leaving room for the app's own notes.

use crate::settings::ToolSurface;

const LEAD: &str = "This is a desktop application with several windows, shared with a person who may be using it right now. Act only in the windows listed in operableWindowIds, and pass expectedVersion (the window's version as you last read it) with every call that changes something.";

const READING: &str = "Reading: the one resource app://windows holds everything: operableWindowIds (the only authority on where you may act; a dialog blocks the window it belongs to) and windows[], each with title, modal, ownerId, version, a one-sentence summary and blocks (text, fields, tables, lists, notices, media). Read the summary first. Sensitive values are masked.";

const WINDOW_TOOLS: &str = "Acting: tools are named {windowId}__{action} (app__{action} for the whole application); tools/list offers only what can be called now. Where a window has a focus action, call it before working there so the person sees where you are.";

const DISPATCHER: &str = "Without resources, call app__read_windows: the same snapshot plus each operable window's actions as signatures, name(arg: type, opt?: type). app__act calls any of them by window id and action name, also where a window's tool is missing from your list (a dialog that opened after your list was fetched).";

const DISPATCHER_ONLY: &str = "Acting: app__read_windows returns the app://windows snapshot plus, under actions, what each operable window lets you do as signatures, e.g. edit_field(field: 'recipient'|'amount', value: string): x? is optional, = its default, rules follow in parentheses (>=0, len<=200, /regex/), [destructive] only when the user wants it; schemas: true adds each action's full JSON Schema. app__act calls one by window id (\"app\" for the whole application), action name and those arguments. Where a window has a focus action, call it before working there so the person sees where you are.";

const SYNC: &str = "Keeping up: after a change notification or a failed call, read app://windows again before deciding. The person's edits win: on stale_state, read again and decide afresh.";

const SYNC_DISPATCHER: &str = "Keeping up: after a change you did not make or a failed call, call app__read_windows again before deciding. The person's edits win: on stale_state, read again and decide afresh.";

const ERRORS: &str = "Errors carry isError and a code (stale_state, validation_failed, blocked_by_modal, window_not_found, action_not_available, action_timeout, action_failed, approval_denied with a reason, limit_reached) and say what to do next; validation_failed lists each wrong argument under fields. Results and errors carry next: what is operable now.";

const BIG_DATA: &str = "Big data: blocks show an overview (a table's first rows and its total); the window's own action fetches the rest into its result.";

/// The protocol guidance every Purview server gives agents on `surface`. App
/// notes given to [`AppBuilder::instructions`](crate::AppBuilder::instructions)
/// follow it.
pub(crate) fn instructions(surface: ToolSurface) -> String {
    let parts: &[&str] = match surface {
        ToolSurface::Windows => &[LEAD, READING, WINDOW_TOOLS, SYNC, ERRORS, BIG_DATA],
        ToolSurface::Both => &[LEAD, READING, WINDOW_TOOLS, DISPATCHER, SYNC, ERRORS, BIG_DATA],
        ToolSurface::Dispatcher => &[LEAD, DISPATCHER_ONLY, SYNC_DISPATCHER, ERRORS, BIG_DATA],
    };
    parts.join("\n\n")
}

/// How much of the instructions some hosts keep (Claude Code: the first
/// 2 KB).
pub(crate) const HOST_BUDGET: usize = 2048;

/// The whole text sent in `initialize`: the guidance for `surface`, then the
/// app's own notes.
pub(crate) fn with_notes(surface: ToolSurface, notes: Option<&str>) -> String {
    let guidance = instructions(surface);
    match notes {
        Some(notes) => format!("{guidance}\n\nAbout this application: {notes}"),
        None => guidance,
    }
}

#[cfg(test)]
mod surface_tests {
    use super::*;

    #[test]
    fn s8_1_every_surface_names_expected_version_and_stays_short() {
        for surface in [ToolSurface::Windows, ToolSurface::Both, ToolSurface::Dispatcher] {
            assert!(instructions(surface).len() < 1800);
            assert!(instructions(surface).contains("expectedVersion"));
        }
        assert!(instructions(ToolSurface::Both).contains("app__act"));
    }
}

//! The guidance sent in `initialize` (§3, §8.1), in Purview's own words.

/// The protocol guidance every Purview server gives agents. App notes given to
/// [`AppBuilder::instructions`](crate::AppBuilder::instructions) follow it.
pub const PROTOCOL_INSTRUCTIONS: &str = "\
This server is a desktop application with several windows, shared with a person who may be using it right now. You read what its windows show and act in them on the user's behalf.

Reading: everything lives in one resource, app://windows; a single read returns the whole picture. Its operableWindowIds lists the windows you may act in at this moment — it is the only authority on that, so act only in those. Each entry of windows[] has a title, modal and ownerId (which dialog belongs to which window), a version, a one-sentence summary and blocks (text, fields, tables, lists, notices, media). Start with a window's summary, then look at its blocks for detail. Masked values (sensitive: true) cannot be read.

Acting: every tool acts on one window and is named {windowId}__{action}; app-wide ones are named app__{action}. tools/list offers only what can be called now, on windows that are operable now — if a tool is listed, you may call it. Where a window offers a focus action, call it before working there so the person can see where you are.

Keeping up: when you are told app://windows was updated or the tool list changed, read app://windows again before your next decision.

Working beside a person: you are not the only one operating this application. Pass expectedVersion — the version of the window as you last read it — with each call that changes something. If the answer is stale_state, the window changed under you: read it again and decide afresh. The person's edits win.

Errors: a failed call comes back with isError and a structured error holding a code (stale_state, validation_failed, blocked_by_modal, window_not_found, action_not_available, action_timeout, action_failed) and a message saying what to do next. validation_failed lists each wrong argument under fields; correct those and call again.

Big data: a window's blocks hold an overview (for example the first rows of a large table and the total count). To get the full data, call that window's tool for it; the data comes back in the tool's result.";

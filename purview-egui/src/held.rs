//! What the person holds open between frames: the forms and what is typed
//! in them, the destructive action waiting for a "yes", and the pages of
//! rows loaded. Plain data; the files that draw them decide what they mean
//! (form.rs, confirm.rs, pages.rs), and [`Core`](crate::calls::Core) keeps
//! them for every window's drawing.

use std::collections::HashMap;

use purview::{model::JsonObject, projection::Page, serde_json::Value};

use crate::{
    outcomes::Scope,
    schema::{ActionDef, FormValues},
};

/// Open action forms, by scope and action name, and what is typed in them.
pub(crate) type Forms = HashMap<(Scope, String), FormValues>;

/// Pages loaded through a table's own loader, by window id and block id;
/// each row its cells in column order (the desk knows no row type).
pub(crate) type Pages = HashMap<(String, String), Page<Vec<Value>>>;

/// A destructive action waiting for the person's "yes", with its arguments.
#[derive(Debug, Clone)]
pub(crate) struct Confirming {
    pub scope: Scope,
    pub action: String,
    pub arguments: JsonObject,
}

impl Confirming {
    pub(crate) fn new(scope: &Scope, action: &ActionDef, arguments: JsonObject) -> Self {
        Self { scope: scope.clone(), action: action.info.name.clone(), arguments }
    }
}

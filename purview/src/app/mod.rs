//! The application: windows, topology, versions, and the serialized path that
//! agent calls and the person's edits share. Nothing here knows about MCP or
//! any transport; `server/` reads it through [`App`]'s methods and the
//! [`Subscriber`](broadcast::Subscriber) trait.
//!
//! Which file decides what, and the phases of a call, are in the
//! repository's `ARCHITECTURE.md` (its table of `purview/src/app/` and the
//! section on an agent's `tools/call`); this module keeps no copy of them.

mod activity;
mod actor;
mod advice;
mod answers;
pub(crate) mod approval;
pub(crate) mod broadcast;
mod catalog;
mod changes;
mod client;
mod commit;
mod config;
pub(crate) mod consent;
mod error;
mod facade;
mod gates;
mod kept;
mod lookup;
mod phases;
pub(crate) mod progress;
mod reads;
mod registry;
mod route;
mod run;
mod scene;
mod seen;
mod shared;
pub(crate) mod spec;
mod ticket;
pub(crate) mod topology;

pub use activity::{AgentActivity, WindowInfo};
pub use approval::{
    Approval, ApprovalQueue, ApprovalRequest, Approver, MAX_SHOWN_ARGUMENT_CHARS,
    MAX_SHOWN_ARGUMENTS_CHARS, PendingApproval, WhoApproves,
};
pub use changes::Change;
pub use client::ClientId;
pub use error::Error;
pub use facade::App;
pub use facade::builder::AppBuilder;
#[doc(hidden)]
pub use facade::call::CallTarget;
pub use facade::call::{Call, Performed};
pub use facade::handle::WindowHandle;
#[doc(hidden)]
pub use facade::typed::DeclaredAppActions;
pub use facade::typed::{AppActions, TypedCalls, VariantHandle, WindowKind};
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub use kept::BuildCounts;
pub(crate) use phases::{Answer, Caller, Settled};
pub use scene::{ActionInfo, Scene, SceneWindow};

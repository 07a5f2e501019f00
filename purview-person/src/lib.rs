//! # purview-person
//!
//! The person's side of a [Purview](purview) application as plain data,
//! made once per change, that every face draws and none decides: the
//! desk (purview-egui), the browser face and the card (purview-web).
//!
//! A [`Reader`] turns the app's scene into a [`Model`]: every window's
//! title and name, summary, cues, blocker, approval questions, blocks in
//! the person's words ([`Shown`]), tables with their paging ([`Paging`]),
//! and actions with their forms ([`Field`], read from each action type's
//! input schema once). A [`Person`] holds what the person has open between
//! changes, and [`Person::intend`] is the one way an [`Intent`] becomes an
//! [`Effect`]: the person's own state changed, a call to make, or an
//! approval answer. A [`Seat`] says whether the person at a face answers
//! the agents' approval questions. Every sentence the person reads that no app wrote is
//! in [`words`].
//!
//! ```
//! use purview::prelude::*;
//! use purview_person::{Around, Effect, Intent, Person, Reader};
//!
//! #[window(summary = "Counts to {count}")]
//! #[derive(Clone, Default)]
//! struct Counter { #[block(field)] count: u32 }
//!
//! #[actions]
//! impl Counter {
//!     /// Count one more.
//!     #[action]
//!     fn increment(&mut self) { self.count += 1; }
//! }
//!
//! let app = App::builder().build();
//! let id = app.open(Counter::default()).unwrap().id().to_owned();
//! let model = Reader::default().read(&app.scene().unwrap(), Around::default());
//! let mut person = Person::default();
//! let press = Intent::Press { scope: Some(id), action: "increment".into() };
//! let Effect::Call(call) = person.intend(&model, press) else { panic!("a call") };
//! assert_eq!(call.action, "increment");
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::too_many_lines)]

mod action;
mod blocks;
mod form;
mod held;
mod intend;
mod paging;
mod person;
mod question;
mod seat;
mod view;
pub mod words;

pub use blocks::{Fill, Shown, Table, cell};
pub use form::{Field, FieldKind, RowSource, Typed, arguments, fields, forget_secrets};
pub use intend::MAX_TYPED;
pub use paging::Paging;
pub use person::{Effect, Failure, Intent, Person, PersonCall, Picker, Rows, Scope, failure_said};
pub use seat::Seat;
pub use view::{Action, Around, Confirmation, Model, Question, Reader, Window, asks_first};

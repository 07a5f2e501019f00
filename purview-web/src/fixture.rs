//! A window for the crate's own tests: a counter whose summary says its
//! count.

use purview::prelude::*;

#[window(summary = "Counts to {count}")]
#[derive(Clone, Default)]
pub(crate) struct Counter {
    #[block(field)]
    pub count: u32,
}

#[actions]
impl Counter {
    /// Count one more.
    #[action]
    fn increment(&mut self) {
        self.count += 1;
    }
}

//! Who may be operated: the one place that computes `operableWindowIds` (§2,
//! §10.2) from the topology (`modal` + `ownerId`).
//!
//! Rules:
//! - Each top-level window heads a chain of window-level modals; only the
//!   chain's tail (its *top*) is operable. Purview keeps every chain a chain:
//!   a modal opened on a window that already has one is stacked on the top.
//! - While any app-level modal is open, operability collapses to the top of
//!   the most recently opened app-level modal's own chain, and the app's
//!   own actions are withdrawn.

use std::{collections::HashMap, sync::Arc};

/// Where a new window goes in the topology.
#[derive(Debug, Clone)]
pub(crate) enum Placement {
    TopLevel,
    Modal { owner: Arc<str> },
    AppModal,
}

/// What topology needs to know about one window.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node<'a> {
    pub id: &'a str,
    pub seq: u64,
    pub modal: bool,
    pub owner: Option<&'a str>,
}

impl Node<'_> {
    /// An app-level modal: a modal no window owns (§10.2).
    pub fn is_app_modal(&self) -> bool {
        self.modal && self.owner.is_none()
    }
}

/// §10.2: the app's own actions are offered only while no app-level modal
/// is open (it blocks the whole app, the app included).
pub(crate) fn app_actions_operable<'a>(mut nodes: impl Iterator<Item = Node<'a>>) -> bool {
    !nodes.any(|n| n.is_app_modal())
}

/// What closing `id` takes with it: `id` and every window it owns, and
/// theirs in turn, `id` first; empty when `id` is not among `windows`
/// (each open window's id and owner). A close never leaves a modal
/// without its owner.
pub(crate) fn closed_with<'a, I>(id: &str, windows: I) -> Vec<&'a str>
where
    I: Iterator<Item = (&'a str, Option<&'a str>)> + Clone,
{
    let Some(first) = windows.clone().map(|(w, _)| w).find(|w| *w == id) else {
        return Vec::new();
    };
    let mut gone = vec![first];
    let mut next = 0;
    while let Some(&owner) = gone.get(next) {
        next += 1;
        let owned = windows.clone().filter(|(w, o)| *o == Some(owner) && !gone.contains(w));
        let owned: Vec<&str> = owned.map(|(w, _)| w).collect();
        gone.extend(owned);
    }
    gone
}

/// The topology of the open windows, indexed for chain walks.
pub(crate) struct Topology<'a> {
    nodes: Vec<Node<'a>>,
    /// Owner id → the newest modal it owns.
    newest_child: HashMap<&'a str, Node<'a>>,
}

impl<'a> Topology<'a> {
    pub fn new(nodes: impl IntoIterator<Item = Node<'a>>) -> Self {
        let mut nodes: Vec<Node<'a>> = nodes.into_iter().collect();
        nodes.sort_by_key(|n| n.seq);
        let mut newest_child: HashMap<&'a str, Node<'a>> = HashMap::new();
        for node in &nodes {
            if let (true, Some(owner)) = (node.modal, node.owner) {
                newest_child.insert(owner, *node);
            }
        }
        Self { nodes, newest_child }
    }

    /// The top of the chain that starts at `id`: follow the newest modal
    /// child until there is none.
    pub fn top_of(&self, id: &'a str) -> &'a str {
        let mut current = id;
        // Bounded by the number of windows: ownership never forms a cycle
        // (owners exist before their modals), but a bound costs nothing.
        for _ in 0..=self.nodes.len() {
            match self.newest_child.get(current) {
                Some(child) => current = child.id,
                None => break,
            }
        }
        current
    }

    /// The newest open app-level modal, if any.
    pub fn app_modal(&self) -> Option<&'a str> {
        self.nodes.iter().rev().find(|n| n.is_app_modal()).map(|n| n.id)
    }

    /// The root of the chain `id` belongs to (a top-level window or an app modal).
    pub fn root_of(&self, id: &'a str) -> &'a str {
        let by_id: HashMap<&str, &Node<'a>> = self.nodes.iter().map(|n| (n.id, n)).collect();
        let mut current = id;
        for _ in 0..=self.nodes.len() {
            match by_id.get(current).and_then(|n| n.owner) {
                Some(owner) => current = owner,
                None => break,
            }
        }
        current
    }

    /// `operableWindowIds`, ordered by when each chain's root was opened.
    pub fn operable(&self) -> Vec<&'a str> {
        if let Some(app_modal) = self.app_modal() {
            return vec![self.top_of(app_modal)];
        }
        self.nodes
            .iter()
            .filter(|n| !n.modal && n.owner.is_none())
            .map(|n| self.top_of(n.id))
            .collect()
    }

    /// For a window that is not operable: the window operable in its place.
    pub fn blocker_of(&self, id: &'a str) -> &'a str {
        match self.app_modal() {
            Some(app_modal) if self.root_of(id) != app_modal => self.top_of(app_modal),
            _ => self.top_of(id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n<'a>(id: &'a str, seq: u64, modal: bool, owner: Option<&'a str>) -> Node<'a> {
        Node { id, seq, modal, owner }
    }

    #[test]
    fn s2_only_the_tail_of_a_chain_is_operable() {
        let t = Topology::new([
            n("A", 1, false, None),
            n("B", 2, false, None),
            n("C", 3, false, None),
            n("D1", 4, true, Some("B")),
            n("D2", 5, true, Some("D1")),
        ]);
        assert_eq!(t.operable(), ["A", "D2", "C"]);
        assert_eq!(t.blocker_of("B"), "D2");
        assert_eq!(t.blocker_of("D1"), "D2");
    }

    #[test]
    fn s10_2_app_modal_collapses_to_its_own_tree() {
        let t = Topology::new([
            n("A", 1, false, None),
            n("M1", 2, true, None),
            n("M2", 3, true, None),
            n("D", 4, true, Some("M2")),
        ]);
        assert_eq!(t.operable(), ["D"]);
        assert_eq!(t.blocker_of("A"), "D");
        assert_eq!(t.blocker_of("M1"), "D");
        assert_eq!(t.blocker_of("M2"), "D");
    }

    #[test]
    fn s2_a_close_takes_every_window_stacked_on_it() {
        let windows = [("w1", None), ("w2", Some("w1")), ("w3", Some("w2")), ("w4", None)];
        let closed = closed_with("w1", windows.iter().copied());
        assert_eq!(closed, ["w1", "w2", "w3"]);
        assert_eq!(closed_with("w2", windows.iter().copied()), ["w2", "w3"]);
        assert!(closed_with("w9", windows.iter().copied()).is_empty());
    }

    #[test]
    fn s12_5_empty_operable_set_is_legal() {
        assert!(Topology::new([]).operable().is_empty());
    }
}

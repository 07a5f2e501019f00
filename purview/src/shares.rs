//! Fair shares: the one rule every scarce thing a client can hold is
//! shared by — HTTP connections (`server/fair.rs`) and the approval
//! questions waiting for an answer (`app/approval.rs`). Below both: it
//! uses nothing of Purview's own but the lock helper.
//!
//! Each place is charged to a **client** (a key the caller chooses: an
//! HTTP session, else a source address) and has a **rank**: how cheaply it
//! can be taken back (a connection still sending its headers ranks below
//! one running a handler; a [`Young`] place counts as a higher rank for a
//! moment, so a connection is not cut before it could have sent them).
//! The rule, in order:
//!
//! 1. a client may hold at most `per_client` places; beyond that it is
//!    refused ([`Refused::OverShare`]), unless it may recycle its own
//!    (rule 4);
//! 2. while there is room, everyone under that bound gets a place;
//! 3. when the pool is full, the newcomer takes the place of the client
//!    holding the most — if that client holds more than the newcomer would
//!    after admission (so a client under its fair share always gets in, and
//!    no one loses a place to a client that would then hold as many). Of
//!    that client's places, the lowest rank goes first, then the oldest;
//! 4. otherwise, where the pool allows it ([`Pool::recycle_below`]), the
//!    newcomer takes its own client's cheapest place (a client recycles its
//!    own share: a new connection replaces its oldest half-open one);
//! 5. otherwise the newcomer is refused ([`Refused::Full`]).
//!
//! The place taken back is *cut*: its [`CancellationToken`] is cancelled,
//! and whoever holds it ends what it was doing with an answer that says so.
//! Check, cut and insert happen under one lock, so a burst cannot overshoot.

use std::{
    collections::{BTreeMap, HashMap},
    hash::Hash,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use tokio_util::sync::CancellationToken;

/// Why a place was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The client already holds `per_client` places.
    OverShare(usize),
    /// The pool is full and no one holds more than this client would.
    Full(usize),
}

struct Place<K> {
    client: K,
    rank: u8,
    /// When it was taken, for [`Young`].
    since: Instant,
    cut: CancellationToken,
}

/// Places of one rank that count as another while they are young: a
/// connection that has not yet sent its headers is the cheapest to take
/// back, but not in the milliseconds before it could have (or a crowd
/// connecting from the same address would cut every newcomer first).
#[derive(Clone, Copy)]
pub(crate) struct Young {
    /// The rank this applies to.
    pub rank: u8,
    /// For how long.
    pub for_: Duration,
    /// The rank such places count as meanwhile.
    pub counts_as: u8,
}

struct Table<K> {
    /// Every place, oldest first (ids only grow).
    places: BTreeMap<u64, Place<K>>,
    held: HashMap<K, usize>,
    next: u64,
}

/// A bounded pool of places shared by the rule in the module doc.
pub(crate) struct Pool<K> {
    total: usize,
    per_client: usize,
    /// A newcomer may take back its own client's place of a rank below
    /// this (rule 4); `0` never.
    recycle_below: u8,
    young: Option<Young>,
    table: Mutex<Table<K>>,
}

/// One place in a [`Pool`]; dropping it gives the place back.
pub(crate) struct Share<K: Eq + Hash + Clone> {
    pool: Arc<Pool<K>>,
    id: u64,
    /// Cancelled when the place is taken back for another client.
    pub cut: CancellationToken,
    /// Whether admitting it took another place back.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub took_back: bool,
}

impl<K: Eq + Hash + Clone> Pool<K> {
    /// A pool of `total` places, at most `per_client` for one client (both
    /// at least 1).
    pub fn new(total: usize, per_client: usize) -> Arc<Self> {
        Self::recycling(total, per_client, 0, None)
    }

    /// As [`Pool::new`], where a full pool lets a newcomer take its own
    /// client's cheapest place when that ranks below `below`, and `young`
    /// places count as another rank for a while.
    pub fn recycling(
        total: usize,
        per_client: usize,
        below: u8,
        young: Option<Young>,
    ) -> Arc<Self> {
        let total = total.max(1);
        Arc::new(Self {
            total,
            per_client: per_client.clamp(1, total),
            recycle_below: below,
            young,
            table: Mutex::new(Table { places: BTreeMap::new(), held: HashMap::new(), next: 1 }),
        })
    }

    /// A place for `client` at `rank`, taking one back from another client
    /// if the rule says so.
    pub fn admit(self: &Arc<Self>, client: K, rank: u8) -> Result<Share<K>, Refused> {
        let mut table = crate::lock::lock_unpoisoned(&self.table);
        let mine = table.held.get(&client).copied().unwrap_or(0);
        let over_share = mine >= self.per_client;
        let took_back = over_share || table.places.len() >= self.total;
        if took_back {
            let victim = if over_share {
                table.own(&client, self.recycle_below, self.young)
            } else {
                table.victim(&client, mine, self.recycle_below, self.young)
            };
            let Some(victim) = victim else {
                return Err(if over_share {
                    Refused::OverShare(self.per_client)
                } else {
                    Refused::Full(self.total)
                });
            };
            table.remove(victim).cut.cancel();
        }
        let id = table.next;
        table.next += 1;
        let cut = CancellationToken::new();
        let since = Instant::now();
        table.places.insert(id, Place { client: client.clone(), rank, since, cut: cut.clone() });
        *table.held.entry(client).or_default() += 1;
        Ok(Share { pool: self.clone(), id, cut, took_back })
    }

    /// Places held, in all and by `client`.
    #[cfg(test)]
    pub fn held(&self, client: &K) -> (usize, usize) {
        let table = crate::lock::lock_unpoisoned(&self.table);
        (table.places.len(), table.held.get(client).copied().unwrap_or(0))
    }
}

impl<K: Eq + Hash + Clone> Table<K> {
    /// Which place a newcomer of `client` (holding `mine`) takes, if any.
    fn victim(
        &self,
        client: &K,
        mine: usize,
        recycle_below: u8,
        young: Option<Young>,
    ) -> Option<u64> {
        let most = self.held.values().copied().max().unwrap_or(0);
        if most > mine + 1 {
            let top = |k: &K| self.held.get(k).copied() == Some(most);
            return self.cheapest(&top, young).map(|(id, _)| id);
        }
        self.own(client, recycle_below, young)
    }

    /// `client`'s own cheapest place, if it ranks below `below` (rule 4).
    fn own(&self, client: &K, below: u8, young: Option<Young>) -> Option<u64> {
        let (id, rank) = self.cheapest(&|k: &K| k == client, young)?;
        (rank < below).then_some(id)
    }

    /// The lowest-ranked, then oldest, place of the clients `of` accepts.
    fn cheapest(&self, of: &dyn Fn(&K) -> bool, young: Option<Young>) -> Option<(u64, u8)> {
        let now = Instant::now();
        let rank_of = |place: &Place<K>| match young {
            Some(y) if place.rank == y.rank && now.duration_since(place.since) < y.for_ => {
                y.counts_as
            }
            _ => place.rank,
        };
        self.places
            .iter()
            .filter(|(_, place)| of(&place.client))
            .map(|(id, place)| (*id, rank_of(place)))
            .min_by_key(|(id, rank)| (*rank, *id))
    }

    fn remove(&mut self, id: u64) -> Place<K> {
        // Only called with an id just found in `places`.
        let place = self.places.remove(&id).expect("the victim is in the table");
        if let Some(n) = self.held.get_mut(&place.client) {
            *n -= 1;
            if *n == 0 {
                self.held.remove(&place.client);
            }
        }
        place
    }
}

// Connections (an HTTP server's) change hands and ranks; approval
// questions do neither.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
impl<K: Eq + Hash + Clone> Share<K> {
    /// Charges the place to another client (a connection's first request
    /// named its session), keeping its age.
    pub fn charge_to(&self, client: K) {
        let mut table = crate::lock::lock_unpoisoned(&self.pool.table);
        let Some(place) = table.places.get_mut(&self.id) else { return };
        if place.client == client {
            return;
        }
        let before = std::mem::replace(&mut place.client, client.clone());
        if let Some(n) = table.held.get_mut(&before) {
            *n -= 1;
            if *n == 0 {
                table.held.remove(&before);
            }
        }
        *table.held.entry(client).or_default() += 1;
    }

    /// Sets how cheaply the place can be taken back.
    pub fn rank(&self, rank: u8) {
        let mut table = crate::lock::lock_unpoisoned(&self.pool.table);
        if let Some(place) = table.places.get_mut(&self.id) {
            place.rank = rank;
        }
    }
}

impl<K: Eq + Hash + Clone> Share<K> {
    /// Gives the place back now, while the share may still be referred to
    /// (a closed connection whose marks outlive it); dropping it later does
    /// nothing more.
    pub fn release(&self) {
        let mut table = crate::lock::lock_unpoisoned(&self.pool.table);
        if table.places.contains_key(&self.id) {
            table.remove(self.id);
        }
    }
}

impl<K: Eq + Hash + Clone> Drop for Share<K> {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_under_its_fair_share_always_gets_in() {
        let pool = Pool::new(8, 8);
        let hog: Vec<_> = (0..8).map(|_| pool.admit("hog", 0).expect("room")).collect();
        let mine = pool.admit("me", 0).expect("the hog holds the most");
        assert_eq!(hog.iter().filter(|s| s.cut.is_cancelled()).count(), 1);
        assert!(!mine.cut.is_cancelled());
        assert_eq!(pool.held(&"hog"), (8, 7));
    }

    #[test]
    fn no_one_loses_a_place_to_a_client_that_would_then_hold_as_many() {
        let pool = Pool::new(4, 4);
        let a: Vec<_> = (0..2).map(|_| pool.admit("a", 0).expect("room")).collect();
        let b: Vec<_> = (0..2).map(|_| pool.admit("b", 0).expect("room")).collect();
        assert_eq!(pool.admit("b", 0).err(), Some(Refused::Full(4)));
        assert!(a.iter().chain(&b).all(|s| !s.cut.is_cancelled()));
        let c = pool.admit("c", 0).expect("a and b hold two each, c none");
        assert!(!c.cut.is_cancelled());
    }

    #[test]
    fn the_cheapest_place_goes_first_then_the_oldest() {
        let pool = Pool::new(3, 3);
        let busy = pool.admit("hog", 3).expect("room");
        let idle_old = pool.admit("hog", 2).expect("room");
        let idle_new = pool.admit("hog", 2).expect("room");
        let _me = pool.admit("me", 0).expect("in");
        assert!(idle_old.cut.is_cancelled());
        assert!(!busy.cut.is_cancelled() && !idle_new.cut.is_cancelled());
    }

    #[test]
    fn a_client_recycles_its_own_share_only_where_the_pool_allows() {
        let pool = Pool::recycling(2, 2, 1, None);
        let half_open = pool.admit("a", 0).expect("room");
        let working = pool.admit("a", 3).expect("room");
        let again = pool.admit("a", 0).expect("recycles the half-open one");
        assert!(half_open.cut.is_cancelled() && !working.cut.is_cancelled());
        drop(again);
        let _again = pool.admit("a", 3).expect("room");
        assert_eq!(pool.admit("a", 0).err(), Some(Refused::OverShare(2)), "nothing cheap left");
        let strict = Pool::new(1, 1);
        let _one = strict.admit("a", 0).expect("room");
        assert_eq!(strict.admit("a", 0).err(), Some(Refused::OverShare(1)));
    }

    #[test]
    fn a_young_place_counts_as_its_other_rank_until_it_is_old() {
        let young = Young { rank: 0, for_: Duration::from_millis(100), counts_as: 2 };
        let pool = Pool::recycling(3, 3, 3, Some(young));
        let old = pool.admit("crowd", 1).expect("room");
        let newcomer = pool.admit("crowd", 0).expect("room");
        let _third = pool.admit("crowd", 1).expect("room");
        let _next = pool.admit("crowd", 0).expect("recycles");
        assert!(old.cut.is_cancelled() && !newcomer.cut.is_cancelled(), "the young one stays");
        std::thread::sleep(Duration::from_millis(150));
        let _later = pool.admit("crowd", 0).expect("recycles");
        assert!(newcomer.cut.is_cancelled(), "grown old, it goes first");
    }

    #[test]
    fn a_place_charged_to_another_client_counts_for_it() {
        let pool = Pool::new(3, 3);
        let moved = pool.admit("address", 0).expect("room");
        let _other = pool.admit("address", 0).expect("room");
        moved.charge_to("session");
        assert_eq!(pool.held(&"address"), (2, 1));
        assert_eq!(pool.held(&"session"), (2, 1));
        drop(moved);
        assert_eq!(pool.held(&"session"), (1, 0));
    }

    proptest::proptest! {
        /// Whatever the order of arrivals and departures, the pool never
        /// overshoots, no client exceeds its bound, and a client that holds
        /// fewer places than some other client minus one is never refused.
        #[test]
        fn the_rule_holds_for_any_sequence(ops in proptest::collection::vec((0u8..4, proptest::bool::ANY, 0u8..4), 1..200)) {
            let pool = Pool::new(6, 4);
            let mut held: Vec<Share<u8>> = Vec::new();
            for (client, arrive, rank) in ops {
                held.retain(|s| !s.cut.is_cancelled());
                if arrive {
                    let counts: Vec<usize> = (0..4).map(|c| held.iter().filter(|s| pool_client(&pool, s) == c).count()).collect();
                    let mine = counts[client as usize];
                    let most = counts.iter().copied().max().unwrap_or(0);
                    match pool.admit(client, rank) {
                        Ok(share) => held.push(share),
                        Err(Refused::OverShare(_)) => proptest::prop_assert!(mine >= 4),
                        Err(Refused::Full(_)) => proptest::prop_assert!(held.len() >= 6 && most <= mine + 1),
                    }
                } else if let Some(i) = held.iter().position(|s| pool_client(&pool, s) == client) {
                    held.swap_remove(i);
                }
                held.retain(|s| !s.cut.is_cancelled());
                proptest::prop_assert!(held.len() <= 6);
                proptest::prop_assert_eq!(pool.held(&client).0, held.len());
            }
        }
    }

    fn pool_client(pool: &Pool<u8>, share: &Share<u8>) -> u8 {
        crate::lock::lock_unpoisoned(&pool.table).places[&share.id].client
    }
}

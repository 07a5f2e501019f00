//! Which 2026-07-28 approval answers have been used, so that a yes applies
//! once — recorded so that no client can fill the record for others.
//!
//! Every question gets the next number of a counter (its nonce is the
//! process's random prefix and that number). The record is a sliding window
//! over the numbers handed out within the last approval timeout: one bit
//! each, set when a yes is used; nothing is stored for a decline (a
//! declined question may be answered again, and a yes then still applies
//! once). A number older than the window has expired, by the record's own
//! clock — the monotonic one — whatever the wall clock says. Asking costs a
//! client a full request per number, so the window grows with the server's
//! speed, not with a table a client can fill: about 16 KiB for 1,000
//! questions a second over a two-minute timeout. It holds at most
//! [`MAX_WINDOW`] numbers; past that the oldest expire early.
//!
//! A question asked by another process sharing the app's key (a replica)
//! has another prefix: its used yeses go to a small table of their own
//! ([`MAX_FOREIGN`], each kept for one approval timeout). Only a yes that
//! applied is kept there, and filling it refuses only other replicas'
//! answers, never this process's own.

use std::{
    collections::VecDeque,
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::lock::lock_unpoisoned;

/// Numbers the window holds at most (2 MiB of bits).
pub(crate) const MAX_WINDOW: u64 = 1 << 24;

/// Used yeses to other processes' questions kept at most.
pub(crate) const MAX_FOREIGN: usize = 4096;

/// How finely issue times are kept: the window's span in this many steps,
/// so a question may expire up to 1/64 of its timeout early.
const STEPS: u32 = 64;

/// Why an answer cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotUsable {
    /// A yes to this question was used before.
    Used,
    /// The question is older than the approval timeout.
    Expired,
    /// Not a question this process, or one sharing its key, asked.
    Foreign,
    /// Another process's question, and the table of those is full.
    Crowded,
}

struct Window {
    /// The next number to hand out.
    next: u64,
    /// The oldest number still in the window.
    base: u64,
    /// One bit per number from `bits_from` (a multiple of 64) on.
    bits: VecDeque<u64>,
    bits_from: u64,
    /// `(first number, when)` for each step in which numbers were handed out.
    steps: VecDeque<(u64, Instant)>,
}

/// The record, and the nonces of new questions.
pub(crate) struct UsedAnswers {
    /// Random per process, so two processes sharing a key (replicas, a
    /// restart) do not hand out the same nonce.
    prefix: u64,
    timeout: Duration,
    window: Mutex<Window>,
    /// Used yeses to questions of other processes sharing the key, and
    /// until when each is kept.
    foreign: Mutex<std::collections::HashMap<String, Instant>>,
}

impl UsedAnswers {
    /// A record for questions that expire after `timeout`.
    pub fn new(timeout: Duration) -> Self {
        let prefix = getrandom::u64().unwrap_or_else(|_| {
            use std::hash::BuildHasher;
            std::collections::hash_map::RandomState::new().hash_one(std::process::id())
        });
        let window = Window {
            next: 0,
            base: 0,
            bits: VecDeque::new(),
            bits_from: 0,
            steps: VecDeque::new(),
        };
        Self {
            prefix,
            timeout: timeout.max(Duration::from_millis(1)),
            window: Mutex::new(window),
            foreign: Mutex::default(),
        }
    }

    /// A nonce for a new question.
    pub fn nonce(&self) -> String {
        let now = Instant::now();
        let mut window = lock_unpoisoned(&self.window);
        self.slide(&mut window, now);
        let number = window.next;
        window.next += 1;
        let step = self.timeout / STEPS;
        if window.steps.back().is_none_or(|(_, at)| now.duration_since(*at) >= step) {
            window.steps.push_back((number, now));
        }
        if number >= window.bits_from + 64 * window.bits.len() as u64 {
            window.bits.push_back(0);
        }
        format!("{:016x}{number:016x}", self.prefix)
    }

    /// Whether `nonce`'s answer can still be used, without using it.
    pub fn check(&self, nonce: &str) -> Result<(), NotUsable> {
        let Some(number) = self.ours(nonce, false)? else { return Ok(()) };
        let mut window = lock_unpoisoned(&self.window);
        self.slide(&mut window, Instant::now());
        window.usable(number)
    }

    /// Uses `nonce`'s yes; refuses one used before. Check and mark happen
    /// under one lock, so two retries racing apply once.
    pub fn use_yes(&self, nonce: &str) -> Result<(), NotUsable> {
        let Some(number) = self.ours(nonce, true)? else { return Ok(()) };
        let mut window = lock_unpoisoned(&self.window);
        self.slide(&mut window, Instant::now());
        window.usable(number)?;
        let at = number - window.bits_from;
        let Some(word) = window.bits.get_mut((at / 64) as usize) else {
            return Err(NotUsable::Expired);
        };
        *word |= 1 << (at % 64);
        Ok(())
    }

    /// This process's number for `nonce`, or `None` when another process
    /// asked the question and its table of used yeses let the answer
    /// through (`use_it` marks it used there).
    fn ours(&self, nonce: &str, use_it: bool) -> Result<Option<u64>, NotUsable> {
        match self.number(nonce) {
            Err(NotUsable::Crowded) => self.foreign(nonce, use_it).map(|()| None),
            number => number.map(Some),
        }
    }

    fn number(&self, nonce: &str) -> Result<u64, NotUsable> {
        let (prefix, number) = nonce.split_at_checked(16).ok_or(NotUsable::Foreign)?;
        let parse =
            |hex: &str| (hex.len() == 16).then(|| u64::from_str_radix(hex, 16).ok()).flatten();
        match (parse(prefix), parse(number)) {
            (Some(prefix), Some(number)) if prefix == self.prefix => Ok(number),
            // Well formed, from another process: the sealed state opened,
            // so it shares the key. (`Crowded` only routes it here.)
            (Some(_), Some(_)) => Err(NotUsable::Crowded),
            _ => Err(NotUsable::Foreign),
        }
    }

    /// Another process's question: `use_it` marks its yes used.
    fn foreign(&self, nonce: &str, use_it: bool) -> Result<(), NotUsable> {
        let now = Instant::now();
        let mut used = lock_unpoisoned(&self.foreign);
        if used.get(nonce).is_some_and(|until| *until > now) {
            return Err(NotUsable::Used);
        }
        if !use_it {
            return Ok(());
        }
        if used.len() >= MAX_FOREIGN {
            used.retain(|_, until| *until > now);
            if used.len() >= MAX_FOREIGN {
                return Err(NotUsable::Crowded);
            }
        }
        used.insert(nonce.to_owned(), now + self.timeout);
        Ok(())
    }

    /// Moves the window past the numbers whose questions have expired.
    fn slide(&self, window: &mut Window, now: Instant) {
        // A step expires once the next one began a timeout ago: every
        // number in it was handed out before that.
        while let Some(&(_, began)) = window.steps.get(1) {
            let too_many = window.next - window.base > MAX_WINDOW;
            if now.duration_since(began) < self.timeout && !too_many {
                break;
            }
            window.steps.pop_front();
            window.base = window.steps.front().map_or(window.next, |(first, _)| *first);
        }
        if window.steps.len() == 1
            && window.steps.front().is_some_and(|(_, at)| now.duration_since(*at) >= self.timeout)
        {
            window.steps.clear();
            window.base = window.next;
        }
        while window.bits_from + 64 <= window.base && !window.bits.is_empty() {
            window.bits.pop_front();
            window.bits_from += 64;
        }
        if window.bits.is_empty() {
            window.bits_from = window.base - window.base % 64;
        }
    }
}

impl Window {
    fn usable(&self, number: u64) -> Result<(), NotUsable> {
        if number >= self.next {
            return Err(NotUsable::Foreign);
        }
        if number < self.base {
            return Err(NotUsable::Expired);
        }
        let at = number - self.bits_from;
        let word = self.bits.get((at / 64) as usize).copied().unwrap_or(0);
        if word & (1 << (at % 64)) != 0 {
            return Err(NotUsable::Used);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yes_is_used_once_and_a_decline_stores_nothing() {
        let answers = UsedAnswers::new(Duration::from_secs(60));
        let asked = answers.nonce();
        assert_eq!(answers.check(&asked), Ok(()), "declined: nothing recorded");
        assert_eq!(answers.use_yes(&asked), Ok(()));
        assert_eq!(answers.use_yes(&asked), Err(NotUsable::Used));
        assert_eq!(answers.check(&asked), Err(NotUsable::Used));
    }

    #[test]
    fn one_client_asking_and_declining_without_end_never_refuses_anothers_yes() {
        let answers = UsedAnswers::new(Duration::from_secs(60));
        let honest = answers.nonce();
        // Far more than the old table of 4,096 held, each used.
        for _ in 0..100_000 {
            let flood = answers.nonce();
            answers.use_yes(&flood).expect("usable");
        }
        assert_eq!(answers.use_yes(&honest), Ok(()));
    }

    #[test]
    fn questions_expire_by_the_records_own_clock() {
        let answers = UsedAnswers::new(Duration::from_millis(50));
        let old = answers.nonce();
        std::thread::sleep(Duration::from_millis(120));
        let fresh = answers.nonce();
        assert_eq!(answers.use_yes(&old), Err(NotUsable::Expired));
        assert_eq!(answers.use_yes(&fresh), Ok(()));
    }

    #[test]
    fn a_replicas_yes_is_used_once_too() {
        let answers = UsedAnswers::new(Duration::from_secs(60));
        let replica = UsedAnswers::new(Duration::from_secs(60));
        let theirs = replica.nonce();
        assert_eq!(answers.check(&theirs), Ok(()));
        assert_eq!(answers.use_yes(&theirs), Ok(()));
        assert_eq!(answers.use_yes(&theirs), Err(NotUsable::Used));
        for _ in 0..MAX_FOREIGN {
            let _ = answers.use_yes(&replica.nonce());
        }
        assert_eq!(answers.use_yes(&replica.nonce()), Err(NotUsable::Crowded));
        let ours = answers.nonce();
        assert_eq!(answers.use_yes(&ours), Ok(()), "its own questions are untouched");
    }

    #[test]
    fn nonces_not_yet_issued_or_malformed_are_foreign() {
        let answers = UsedAnswers::new(Duration::from_secs(60));
        let ours = answers.nonce();
        let ahead = format!("{}{:016x}", &ours[..16], 99);
        assert_eq!(answers.check(&ahead), Err(NotUsable::Foreign));
        assert_eq!(answers.check("short"), Err(NotUsable::Foreign));
        assert_eq!(answers.check(&"é".repeat(20)), Err(NotUsable::Foreign));
    }
}

//! A generic set-associative tag store with LRU or tree-PLRU replacement.
//!
//! This is the one associative structure of the functional layer: the data and
//! instruction caches store line addresses in it, the TLBs store page numbers and
//! the BTB stores branch addresses (with its targets kept in a parallel array
//! indexed by [`Access::slot`]). It holds keys only, never data.
//!
//! Everything is allocated in [`SetAssoc::new`]; lookups and fills do not
//! allocate. Keys are full `u64` values (no tag/index split is needed when the
//! whole key is stored), `u64::MAX` marks an empty way.
//!
//! Fast path: each set remembers its most recently used key. Re-accessing it
//! is a hit that changes no replacement state (under LRU it already is the
//! most recent; under PLRU its path bits already point away from it), so
//! [`SetAssoc::access`] answers it with one compare, exactly. Callers on hot
//! paths can test [`SetAssoc::is_mru`] inline before calling out.
//!
//! Replacement:
//! * **LRU** keeps one 64-bit timestamp per way; the victim is the way with the
//!   oldest stamp (empty ways first).
//! * **PLRU** is the classic binary-tree pseudo-LRU: one bit per internal node of
//!   a tree over the ways, kept in one `u64` per set (so up to 64 ways; wider
//!   sets fall back to LRU). Every access sets the bits on its path to point
//!   *away* from the accessed way (one AND and one OR with per-way masks
//!   precomputed at construction); the victim is found by following the bits
//!   from the root. Way counts that are not a power of two use the next power of
//!   two as the tree width and never descend into a subtree with no real way.

use bottlenose_machine::Replacement;

/// Marker of an empty way.
pub const INVALID: u64 = u64::MAX;

/// Result of [`SetAssoc::access`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub hit: bool,
    /// The key that was evicted to make room (only on a miss into a full set).
    pub evicted: Option<u64>,
    /// Flat index (`set * ways + way`) of the entry now holding the key; callers
    /// keep per-entry payloads (e.g. BTB targets) in arrays indexed by it.
    pub slot: usize,
}

/// A set-associative tag store.
#[derive(Debug, Clone)]
pub struct SetAssoc {
    ways: usize,
    sets: usize,
    /// `sets - 1` when `sets` is a power of two (fast path), unused otherwise.
    set_mask: u64,
    sets_pow2: bool,
    policy: Replacement,
    tags: Vec<u64>,
    /// LRU timestamps, one per way (empty under PLRU).
    stamps: Vec<u64>,
    clock: u64,
    /// PLRU tree bits, one word per set (empty under LRU). Node n (heap order,
    /// root 1) is bit n; 1 means "the victim is in the right subtree".
    plru: Vec<u64>,
    /// Per way: the bits of its path (`plru_path`) and their values after an
    /// access to it (`plru_value`).
    plru_path: Vec<u64>,
    plru_value: Vec<u64>,
    /// Tree width: next power of two of `ways`.
    leaves: usize,
    /// Per set: most recently used key (`INVALID` if none) and its way.
    mru: Vec<u64>,
    mru_way: Vec<u32>,
}

impl SetAssoc {
    /// A store of `sets` × `ways` entries (each at least 1). PLRU with more than
    /// 64 ways is done as LRU.
    pub fn new(sets: usize, ways: usize, policy: Replacement) -> Self {
        let sets = sets.max(1);
        let ways = ways.max(1);
        let leaves = ways.next_power_of_two();
        let policy = if policy == Replacement::Plru && leaves > 64 { Replacement::Lru } else { policy };
        let n = sets * ways;
        let mut plru_path = Vec::new();
        let mut plru_value = Vec::new();
        if policy == Replacement::Plru {
            for way in 0..ways {
                let (mut path, mut value) = (0u64, 0u64);
                let (mut node, mut lo, mut span) = (1usize, 0usize, leaves);
                while span > 1 {
                    let half = span / 2;
                    path |= 1 << node;
                    if way < lo + half {
                        value |= 1 << node; // accessed left: point right
                        node *= 2;
                    } else {
                        node = node * 2 + 1; // accessed right: point left (bit 0)
                        lo += half;
                    }
                    span = half;
                }
                plru_path.push(path);
                plru_value.push(value);
            }
        }
        Self {
            ways,
            sets,
            set_mask: (sets as u64).wrapping_sub(1),
            sets_pow2: sets.is_power_of_two(),
            policy,
            tags: vec![INVALID; n],
            stamps: if policy == Replacement::Lru { vec![0; n] } else { Vec::new() },
            clock: 0,
            plru: if policy == Replacement::Plru { vec![0; sets] } else { Vec::new() },
            plru_path,
            plru_value,
            leaves,
            mru: vec![INVALID; sets],
            mru_way: vec![0; sets],
        }
    }

    /// A store of `entries` total entries, `ways` per set.
    pub fn with_entries(entries: usize, ways: usize, policy: Replacement) -> Self {
        let ways = ways.max(1).min(entries.max(1));
        Self::new(entries.max(1) / ways, ways, policy)
    }

    pub fn sets(&self) -> usize {
        self.sets
    }
    pub fn ways(&self) -> usize {
        self.ways
    }
    /// The replacement policy actually in use.
    pub fn policy(&self) -> Replacement {
        self.policy
    }

    #[inline(always)]
    pub fn set_of(&self, key: u64) -> usize {
        if self.sets_pow2 {
            (key & self.set_mask) as usize
        } else {
            (key % self.sets as u64) as usize
        }
    }

    /// Way of `set` holding `key`. Sets of up to 64 ways are compared without
    /// early exit (a bit mask of matches): the host's branch predictor cannot
    /// guess which way hits, and a data-dependent loop exit would mispredict on
    /// almost every lookup.
    #[inline(always)]
    fn way_of(&self, set: usize, key: u64) -> Option<usize> {
        let base = set * self.ways;
        let row = &self.tags[base..base + self.ways];
        let m = match self.ways {
            4 => match_mask::<4>(row, key),
            8 => match_mask::<8>(row, key),
            12 => match_mask::<12>(row, key),
            16 => match_mask::<16>(row, key),
            w if w <= 64 => {
                let mut m = 0u64;
                for (w, &t) in row.iter().enumerate() {
                    m |= ((t == key) as u64) << w;
                }
                m
            }
            _ => return row.iter().position(|&t| t == key),
        };
        if m == 0 {
            None
        } else {
            Some(m.trailing_zeros() as usize)
        }
    }

    /// Slot holding `key`, without touching replacement state.
    #[inline(always)]
    pub fn find(&self, key: u64) -> Option<usize> {
        let set = self.set_of(key);
        self.way_of(set, key).map(|w| set * self.ways + w)
    }

    pub fn contains(&self, key: u64) -> bool {
        self.find(key).is_some()
    }

    /// Key stored in a slot (`INVALID` if empty).
    pub fn key_at(&self, slot: usize) -> u64 {
        self.tags[slot]
    }

    /// Whether `key` is the most recently used key of its set (then an access
    /// to it is a hit that would change nothing).
    #[inline(always)]
    pub fn is_mru(&self, key: u64) -> bool {
        self.mru[self.set_of(key)] == key
    }

    /// The slot of `key` when it is the most recently used key of its set.
    #[inline(always)]
    pub fn mru_slot(&self, key: u64) -> Option<usize> {
        let set = self.set_of(key);
        (self.mru[set] == key).then(|| set * self.ways + self.mru_way[set] as usize)
    }

    /// Mark a slot most recently used.
    pub fn touch(&mut self, slot: usize) {
        let set = slot / self.ways;
        self.touch_way(set, slot - set * self.ways);
    }

    #[inline(always)]
    fn touch_way(&mut self, set: usize, way: usize) {
        self.mru[set] = self.tags[set * self.ways + way];
        self.mru_way[set] = way as u32;
        match self.policy {
            Replacement::Lru => {
                self.clock += 1;
                self.stamps[set * self.ways + way] = self.clock;
            }
            Replacement::Plru => {
                let bits = &mut self.plru[set];
                *bits = (*bits & !self.plru_path[way]) | self.plru_value[way];
            }
        }
    }

    /// Find `key` and, if present, make it most recently used.
    #[inline]
    pub fn lookup(&mut self, key: u64) -> Option<usize> {
        let set = self.set_of(key);
        if self.mru[set] == key {
            return Some(set * self.ways + self.mru_way[set] as usize);
        }
        let way = self.way_of(set, key)?;
        self.touch_way(set, way);
        Some(set * self.ways + way)
    }

    /// Way of `set` to replace next (an empty way if there is one).
    #[inline]
    fn victim(&self, set: usize) -> usize {
        let base = set * self.ways;
        let row = &self.tags[base..base + self.ways];
        if let Some(w) = row.iter().position(|&t| t == INVALID) {
            return w;
        }
        match self.policy {
            Replacement::Lru => {
                let st = &self.stamps[base..base + self.ways];
                let mut best = 0;
                for w in 1..self.ways {
                    if st[w] < st[best] {
                        best = w;
                    }
                }
                best
            }
            Replacement::Plru => {
                let bits = self.plru[set];
                let (mut node, mut lo, mut span) = (1usize, 0usize, self.leaves);
                while span > 1 {
                    let half = span / 2;
                    // Go right if the bit says so and the right subtree has a real way.
                    if (bits >> node) & 1 == 1 && lo + half < self.ways {
                        node = node * 2 + 1;
                        lo += half;
                    } else {
                        node *= 2;
                    }
                    span = half;
                }
                lo
            }
        }
    }

    /// Insert a key that is not present, evicting if the set is full. Returns the
    /// slot and the evicted key. The new entry becomes most recently used.
    #[inline]
    pub fn fill(&mut self, key: u64) -> (usize, Option<u64>) {
        let set = self.set_of(key);
        self.fill_in(set, key)
    }

    #[inline]
    fn fill_in(&mut self, set: usize, key: u64) -> (usize, Option<u64>) {
        debug_assert!(key != INVALID, "u64::MAX is the empty-way marker");
        let way = self.victim(set);
        let slot = set * self.ways + way;
        let old = self.tags[slot];
        self.tags[slot] = key;
        self.touch_way(set, way); // also makes it the set's MRU
        (slot, if old == INVALID { None } else { Some(old) })
    }

    /// Look a key up; a hit makes it most recently used, a miss fills it.
    #[inline]
    pub fn access(&mut self, key: u64) -> Access {
        let set = self.set_of(key);
        if self.mru[set] == key {
            return Access { hit: true, evicted: None, slot: set * self.ways + self.mru_way[set] as usize };
        }
        if let Some(way) = self.way_of(set, key) {
            self.touch_way(set, way);
            Access { hit: true, evicted: None, slot: set * self.ways + way }
        } else {
            let (slot, evicted) = self.fill_in(set, key);
            Access { hit: false, evicted, slot }
        }
    }

    /// Remove a key if present; returns whether it was.
    pub fn invalidate(&mut self, key: u64) -> bool {
        match self.find(key) {
            Some(slot) => {
                let set = slot / self.ways;
                if self.mru[set] == key {
                    self.mru[set] = INVALID;
                }
                self.tags[slot] = INVALID;
                if self.policy == Replacement::Lru {
                    self.stamps[slot] = 0;
                }
                true
            }
            None => false,
        }
    }

    /// Empty every way.
    pub fn clear(&mut self) {
        self.tags.fill(INVALID);
        self.stamps.fill(0);
        self.plru.fill(0);
        self.mru.fill(INVALID);
        self.clock = 0;
    }
}

/// Bit w set when `row[w] == key`, for a fixed way count (unrolled, branch-free).
#[inline(always)]
fn match_mask<const W: usize>(row: &[u64], key: u64) -> u64 {
    let row: &[u64; W] = row.try_into().unwrap();
    let mut m = 0u64;
    for (w, &t) in row.iter().enumerate() {
        m |= ((t == key) as u64) << w;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys that all map to set 0 of a store with `sets` sets.
    fn same_set(sets: usize, n: usize) -> Vec<u64> {
        (0..n as u64).map(|i| i * sets as u64).collect()
    }

    #[test]
    fn lru_evicts_exactly_the_least_recent() {
        let mut c = SetAssoc::new(16, 4, Replacement::Lru);
        let k = same_set(16, 5);
        for &x in &k[..4] {
            assert!(!c.access(x).hit);
        }
        // Order of use now (old→new): 0 1 2 3. Touch 0 and 2: LRU is 1.
        assert!(c.access(k[0]).hit);
        assert!(c.access(k[2]).hit);
        let a = c.access(k[4]);
        assert!(!a.hit);
        assert_eq!(a.evicted, Some(k[1]));
        // Next victim is 3, then 0.
        assert_eq!(c.access(k[1]).evicted, Some(k[3]));
        assert_eq!(c.access(k[3]).evicted, Some(k[0]));
    }

    #[test]
    fn lru_thrashes_with_ways_plus_one_lines_in_one_set() {
        let mut c = SetAssoc::new(64, 8, Replacement::Lru);
        let k = same_set(64, 9);
        let mut hits = 0;
        for _ in 0..100 {
            for &x in &k {
                hits += c.access(x).hit as u32;
            }
        }
        assert_eq!(hits, 0, "a cyclic sweep of ways+1 lines never hits under LRU");
        // With exactly `ways` lines everything hits after the first pass.
        let mut c = SetAssoc::new(64, 8, Replacement::Lru);
        let mut misses = 0;
        for _ in 0..100 {
            for &x in &k[..8] {
                misses += !c.access(x).hit as u32;
            }
        }
        assert_eq!(misses, 8);
    }

    #[test]
    fn plru_differs_from_lru_on_a_crafted_sequence() {
        // 4 ways, one set: A B C D fill ways 0..3, then A B C are touched again.
        // True LRU order (old→new) is D A B C, so LRU evicts D. Tree PLRU only
        // remembers, per node, which half was used last: the root points away
        // from C (→ left half {A,B}) and the left node away from B (→ A), so PLRU
        // evicts A although A is more recent than D.
        let keys = same_set(8, 5);
        let (a, b, cc, d, e) = (keys[0], keys[1], keys[2], keys[3], keys[4]);
        let run = |policy| {
            let mut c = SetAssoc::new(8, 4, policy);
            for &x in &[a, b, cc, d, a, b, cc] {
                c.access(x);
            }
            c.access(e).evicted
        };
        assert_eq!(run(Replacement::Lru), Some(d));
        assert_eq!(run(Replacement::Plru), Some(a));
    }

    #[test]
    fn plru_never_evicts_the_most_recent_and_handles_odd_ways() {
        for ways in [1usize, 2, 3, 5, 8, 12, 16, 24, 64, 72] {
            let mut c = SetAssoc::new(4, ways, Replacement::Plru);
            let mut seed = 12345u64;
            let mut last = INVALID;
            for _ in 0..5000 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let key = (seed >> 33) % (ways as u64 * 2 + 1) * 4; // all in set 0
                let a = c.access(key);
                if ways > 1 {
                    assert_ne!(a.evicted, Some(last), "ways={ways}");
                }
                last = key;
                assert!(c.find(key).is_some());
            }
            // All ways are usable: `ways` distinct keys fit.
            let mut c = SetAssoc::new(4, ways, Replacement::Plru);
            for i in 0..ways as u64 {
                c.access(i * 4);
            }
            for i in 0..ways as u64 {
                assert!(c.contains(i * 4), "ways={ways} key {i}");
            }
        }
    }

    #[test]
    fn mru_shortcut_is_exact() {
        // Same random stream with and without repeated accesses to the set's
        // MRU key: the repeats must not change what gets evicted.
        for policy in [Replacement::Lru, Replacement::Plru] {
            let mut a = SetAssoc::new(4, 4, policy);
            let mut b = SetAssoc::new(4, 4, policy);
            let mut seed = 99u64;
            for _ in 0..20_000 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let key = (seed >> 40) % 40;
                let ra = a.access(key);
                let rb = b.access(key);
                assert_eq!(ra, rb);
                assert!(b.is_mru(key));
                // Repeat on b only.
                let again = b.access(key);
                assert!(again.hit && again.slot == rb.slot);
            }
        }
    }

    #[test]
    fn non_power_of_two_sets() {
        let mut c = SetAssoc::new(3, 2, Replacement::Lru);
        for k in 0..6 {
            assert!(!c.access(k).hit);
        }
        for k in 0..6 {
            assert!(c.access(k).hit);
        }
        assert!(c.invalidate(4));
        assert!(!c.contains(4));
    }
}

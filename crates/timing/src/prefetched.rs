//! Lines the prefetcher is bringing into L1: when each arrives and from which
//! level. The functional layer puts a prefetched line in the caches at once; the
//! timing model books its transfer on the fill calendars (bandwidth) and makes a
//! load of the line that comes before the line does wait for it (a late
//! prefetch), as a miss at the level the line came from.
//!
//! Direct-mapped: a prefetched line matters only until it arrives, a few hundred
//! cycles, so few are in flight at once.

const BITS: u32 = 10;

#[derive(Clone, Copy)]
struct Entry {
    line: u64,
    ready: f64,
    level: u8,
}

#[derive(Clone)]
pub struct PrefetchedLines {
    entries: Vec<Entry>,
}

impl Default for PrefetchedLines {
    fn default() -> Self {
        Self::new()
    }
}

impl PrefetchedLines {
    pub fn new() -> Self {
        // line u64::MAX is no line (line numbers are addresses shifted right)
        Self { entries: vec![Entry { line: u64::MAX, ready: 0.0, level: 0 }; 1 << BITS] }
    }

    /// Becomes a copy of `src`, in the memory it already has.
    pub(crate) fn copy_from(&mut self, src: &PrefetchedLines) {
        self.entries.clone_from(&src.entries);
    }

    #[inline(always)]
    fn slot(line: u64) -> usize {
        ((line ^ (line >> BITS)) & ((1 << BITS) - 1)) as usize
    }

    /// Line `line` arrives in L1 at `ready`, from `level` (1 = L2 .. 3 = DRAM).
    #[inline]
    pub fn insert(&mut self, line: u64, ready: f64, level: u8) {
        self.entries[Self::slot(line)] = Entry { line, ready, level };
    }

    /// When line `line` arrives and from which level, if it is a prefetched line still tracked.
    #[inline]
    pub fn arrival(&self, line: u64) -> Option<(f64, u8)> {
        let e = self.entries[Self::slot(line)];
        (e.line == line).then_some((e.ready, e.level))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_found_until_another_takes_its_slot() {
        let mut p = PrefetchedLines::new();
        assert_eq!(p.arrival(0x1234), None);
        p.insert(0x1234, 250.0, 3);
        assert_eq!(p.arrival(0x1234), Some((250.0, 3)));
        assert_eq!(p.arrival(0x1235), None);
        let clash = 0x1234 + (1 << (2 * BITS));
        assert_eq!(PrefetchedLines::slot(clash), PrefetchedLines::slot(0x1234));
        p.insert(clash, 9.0, 1);
        assert_eq!(p.arrival(0x1234), None);
    }
}

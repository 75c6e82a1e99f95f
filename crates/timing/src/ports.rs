//! The port groups' calendars, and which groups are full in each cycle.
//!
//! A uop on a group also books every group that contains it (a uop on p01 books
//! p015 and p0156 as well), so finding its cycle means agreeing on one where all
//! of them have room. Most uops find it at once; asking each calendar costs a
//! lookup per group, twice (find, then book). A ring of per-cycle masks of the
//! full groups answers "all open at this cycle?" in one lookup, and only when
//! the answer is no do the calendars search, as before.

use crate::calendar::{Calendar, Filled};
use bottlenose_machine::GroupId;

/// One cycle's full groups (bit g: group g has no room left in cycle `tag`).
#[derive(Debug, Clone, Copy)]
struct Row {
    tag: i64,
    full: u64,
}

const EMPTY: Row = Row { tag: i64::MIN, full: 0 };

/// Groups the masks can name: more and the masks are off (every use searches).
pub const MASK_GROUPS: usize = 64;

/// The groups of a use as a bit mask (0: not representable, search instead).
pub fn group_mask(groups: &[GroupId]) -> u64 {
    if groups.iter().any(|&g| g as usize >= MASK_GROUPS) {
        return 0;
    }
    groups.iter().fold(0, |m, &g| m | 1 << g)
}

#[derive(Debug, Clone)]
pub(crate) struct PortCalendars {
    groups: Vec<Calendar>,
    /// Ring by cycle, as long as the calendars' (every cycle from the current
    /// base on that any calendar holds has its own row).
    rows: Vec<Row>,
    mask: usize,
}

impl PortCalendars {
    pub(crate) fn new(capacities: &[f64]) -> Self {
        let len = 256;
        Self { groups: capacities.iter().map(|&c| Calendar::new(c)).collect(), rows: vec![EMPTY; len], mask: len - 1 }
    }

    /// Becomes a copy of `src`, in the memory it already has.
    pub(crate) fn copy_from(&mut self, src: &PortCalendars) {
        let PortCalendars { groups, rows, mask } = src;
        self.groups.truncate(groups.len());
        for (d, s) in self.groups.iter_mut().zip(groups) {
            d.copy_from(s);
        }
        let have = self.groups.len();
        self.groups.extend(groups[have..].iter().cloned());
        self.rows.clone_from(rows);
        self.mask = *mask;
    }

    /// The same bookings under other capacities (a forked variant): what is full changes.
    pub(crate) fn set_capacities(&mut self, capacities: &[f64], base: i64) {
        for (cal, &cap) in self.groups.iter_mut().zip(capacities) {
            cal.set_capacity(cap);
        }
        let Self { groups, rows, mask } = self;
        rows.iter_mut().for_each(|r| *r = EMPTY);
        for (g, cal) in groups.iter().enumerate() {
            for c in cal.full_cycles(base) {
                note(rows, mask, c, bit(g as GroupId), base);
            }
        }
    }

    /// Every group of `mask` has room in cycle `c` (0 < `mask`).
    #[inline(always)]
    pub(crate) fn all_open(&self, c: i64, mask: u64) -> bool {
        debug_assert_eq!(self.mask + 1, self.rows.len());
        // SAFETY: `mask` is `rows.len() - 1` (a power of two), set with `rows` in `new` and `grow`
        let r = unsafe { *self.rows.get_unchecked(c as usize & self.mask) };
        r.tag != c || r.full & mask == 0
    }

    #[inline]
    pub(crate) fn earliest(&self, g: GroupId, t: f64, base: i64) -> f64 {
        self.groups[g as usize].earliest(t, base)
    }

    /// Books `amount` of group `g` in the cycle containing `t` (tests).
    #[cfg(test)]
    pub(crate) fn take(&mut self, g: GroupId, t: f64, amount: f64, base: i64) {
        self.take_in(g, crate::calendar::cycle_of(t).max(base), amount, base);
    }

    /// Books `amount` of group `g` in cycle `c` (>= `base`).
    #[inline(always)]
    pub(crate) fn take_in(&mut self, g: GroupId, c: i64, amount: f64, base: i64) {
        let filled = self.groups[g as usize].take_filling(c, amount, base);
        self.note_filled(g, filled, base);
    }

    /// The earliest time from `t` at which group `g` has room, booked there.
    #[inline(always)]
    pub(crate) fn book_earliest(&mut self, g: GroupId, t: f64, amount: f64, base: i64) -> f64 {
        let (at, filled) = self.groups[g as usize].book_earliest_filling(t, amount, base);
        self.note_filled(g, filled, base);
        at
    }

    #[inline(always)]
    fn note_filled(&mut self, g: GroupId, filled: Filled, base: i64) {
        for c in filled {
            note(&mut self.rows, &mut self.mask, c, bit(g), base);
        }
    }

    /// Usage booked on group `g` in cycle `c` (tests).
    #[cfg(test)]
    pub(crate) fn used_in(&self, g: GroupId, c: i64) -> f64 {
        self.groups[g as usize].used_in(c)
    }
}

#[inline(always)]
fn bit(g: GroupId) -> u64 {
    if (g as usize) < MASK_GROUPS {
        1 << g
    } else {
        0
    }
}

/// Group `bit` is full in cycle `c` (>= `base`): its row, grown like a calendar.
#[inline]
fn note(rows: &mut Vec<Row>, mask: &mut usize, c: i64, bit: u64, base: i64) {
    if c - base >= rows.len() as i64 {
        grow(rows, mask, c, base);
    }
    debug_assert_eq!(*mask + 1, rows.len());
    // SAFETY: as in `all_open`
    let r = unsafe { rows.get_unchecked_mut(c as usize & *mask) };
    if r.tag != c {
        *r = Row { tag: c, full: 0 };
    }
    r.full |= bit;
}

#[cold]
fn grow(rows: &mut Vec<Row>, mask: &mut usize, c: i64, base: i64) {
    let new_len = (((c - base + 1) as usize) * 2).next_power_of_two();
    let mut grown = vec![EMPTY; new_len];
    for r in rows.iter().filter(|r| r.tag >= base) {
        grown[r.tag as usize & (new_len - 1)] = *r;
    }
    *rows = grown;
    *mask = new_len - 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups 0 = p0 (1 unit) and 1 = p01 (2 units): filling p0 in cycle 3 marks it
    /// full there only; p01 is full once two uops are in a cycle.
    #[test]
    fn the_masks_follow_the_calendars() {
        let mut p = PortCalendars::new(&[1.0, 2.0]);
        let both = group_mask(&[0, 1]);
        assert_eq!(both, 0b11);
        assert!(p.all_open(3, both));
        p.take(0, 3.0, 1.0, 0);
        assert!(!p.all_open(3, both));
        assert!(!p.all_open(3, 0b01));
        assert!(p.all_open(3, 0b10));
        assert!(p.all_open(4, both));
        p.take(1, 4.2, 1.0, 0);
        assert!(p.all_open(4, 0b10));
        p.take(1, 4.7, 1.0, 0);
        assert!(!p.all_open(4, 0b10));
        assert_eq!(p.used_in(1, 4), 2.0);
        // an overdraft carries into the next cycle, which fills too
        let mut q = PortCalendars::new(&[0.5]);
        q.take(0, 10.0, 1.0, 0);
        assert!(!q.all_open(10, 1) && !q.all_open(11, 1) && q.used_in(0, 11) == 0.5 && q.all_open(12, 1));
        // a far booking grows the ring and keeps what is full
        p.take(0, 5000.0, 1.0, 0);
        assert!(!p.all_open(5000, 1) && !p.all_open(3, 1));
    }

    /// A fork at a higher capacity: what was full is no longer.
    #[test]
    fn new_capacities_recompute_what_is_full() {
        let mut p = PortCalendars::new(&[1.0]);
        p.take(0, 7.0, 1.0, 0);
        assert!(!p.all_open(7, 1));
        p.set_capacities(&[2.0], 0);
        assert!(p.all_open(7, 1));
        p.set_capacities(&[1.0], 0);
        assert!(!p.all_open(7, 1));
    }

    /// Random bookings (fractional capacities and amounts, overdrafts, moving base, a
    /// fork): the masks say "open" exactly where the calendars do.
    #[test]
    fn the_masks_agree_with_the_calendars_on_random_bookings() {
        let caps = [1.0, 2.0, 3.0, 1.15, 0.5];
        let mut p = PortCalendars::new(&caps);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut base = 0;
        for step in 0..20_000 {
            if step % 50 == 0 {
                base += next(3) as i64;
            }
            let g = next(caps.len() as u64) as GroupId;
            let t = (base + next(40) as i64) as f64 + next(4) as f64 * 0.25;
            let amount = [1.0, 0.5, 1.0, 2.0][next(4) as usize];
            if next(2) == 0 {
                p.take(g, t, amount, base);
            } else {
                p.book_earliest(g, t, amount, base);
            }
            if step == 10_000 {
                p.set_capacities(&[2.0, 2.0, 3.3, 1.0, 0.75], base);
            }
            if step % 97 == 0 {
                for c in base..base + 64 {
                    for g in 0..caps.len() as GroupId {
                        let open = p.earliest(g, c as f64, base) == c as f64;
                        assert_eq!(p.all_open(c, 1 << g), open, "step {step}, group {g}, cycle {c}");
                    }
                }
            }
        }
    }
}

//! Per-cycle usage calendars for throughput resources.
//!
//! Gus advances one `t_avail` per resource, which forces a resource to be used in
//! program order. Out-of-order issue needs the opposite: an older uop may take a
//! port in a cycle *before* one already booked by a younger uop. A calendar keeps
//! the usage of each future cycle in a ring buffer, so "the earliest cycle >= t
//! with spare capacity" is a short scan (shortened further by `first_open`).
//!
//! Capacities are real numbers so that resources can be accelerated by 1 %:
//! a uop is admitted in any cycle whose usage is still below capacity, and the
//! overdraft carries into the next cycle (credit accounting). With integer
//! capacities this is exactly "at most `cap` uops per cycle".

const EPS: f64 = 1e-9;

/// `floor` for the non-negative times of the model: one `roundsd` with
/// SSE4.1 (`.cargo/config.toml` builds for x86-64-v2), a libm call without.
#[inline(always)]
pub(crate) fn floor_pos(x: f64) -> f64 {
    x.floor()
}

/// The cycle containing the time `t` (finite, >= 0): `t as i64` without the
/// checks Rust adds for NaN and out-of-range values, which model times never are.
/// On x86-64 that is one `cvttsd2si` where `as` took six instructions, about ten
/// times per simulated instruction.
#[inline(always)]
pub(crate) fn cycle_of(t: f64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_cvttsd_si64, _mm_set_sd};
        // SAFETY: SSE2 is in every x86-64 CPU, and the conversion is defined for any
        // input (NaN or out of range gives i64::MIN, not undefined behaviour)
        unsafe { _mm_cvttsd_si64(_mm_set_sd(t)) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        t as i64
    }
}

/// `ceil` for non-negative times.
#[inline(always)]
pub(crate) fn ceil_pos(x: f64) -> f64 {
    x.ceil()
}

/// The usage booked in one cycle of the ring. The tag is the cycle the slot
/// currently describes; a slot whose tag is not the cycle asked about is empty.
/// Tags below the current base are dead, so the ring never needs clearing as
/// time advances.
#[derive(Debug, Clone, Copy)]
struct Slot {
    tag: i64,
    used: f64,
}

const EMPTY: Slot = Slot { tag: i64::MIN, used: 0.0 };

/// The cycles a booking filled (from one on, consecutive; empty: none).
pub(crate) type Filled = std::ops::Range<i64>;

#[derive(Debug, Clone)]
pub struct Calendar {
    cap: f64,
    /// `cap - EPS`: a cycle used this much is full. With `fits`, kept beside `cap`
    /// rather than computed on every booking (the same values, so the same answers).
    full_at: f64,
    /// `cap + EPS`: a cycle used up to this much is within capacity.
    fits: f64,
    /// One slot per cycle of a ring (tag and usage side by side: one cache line
    /// per lookup).
    slots: Vec<Slot>,
    mask: usize,
    /// Every cycle in `[base, first_open)` is full (for whatever base the caller passes).
    first_open: i64,
}

impl Calendar {
    pub fn new(cap: f64) -> Self {
        let len = 256;
        Self { cap, full_at: cap - EPS, fits: cap + EPS, slots: vec![EMPTY; len], mask: len - 1, first_open: 0 }
    }

    pub fn capacity(&self) -> f64 {
        self.cap
    }

    /// Becomes a copy of `src`, in the memory this calendar already has (a fork
    /// into a kept core allocates nothing).
    pub(crate) fn copy_from(&mut self, src: &Calendar) {
        let Calendar { cap, full_at, fits, slots, mask, first_open } = src;
        (self.cap, self.full_at, self.fits, self.mask, self.first_open) = (*cap, *full_at, *fits, *mask, *first_open);
        self.slots.clone_from(slots);
    }

    /// The same bookings under another capacity (a forked timing variant).
    pub fn set_capacity(&mut self, cap: f64) {
        self.cap = cap;
        self.full_at = cap - EPS;
        self.fits = cap + EPS;
        self.first_open = 0; // "full up to here" was about the old capacity
    }

    /// The slot of cycle `c` in the ring.
    #[inline(always)]
    fn slot(&self, c: i64) -> &Slot {
        debug_assert_eq!(self.mask + 1, self.slots.len());
        // SAFETY: `mask` is `slots.len() - 1` (a power of two), set with `slots` in `new` and `ensure`
        unsafe { self.slots.get_unchecked(c as usize & self.mask) }
    }

    #[inline(always)]
    fn slot_mut(&mut self, c: i64) -> &mut Slot {
        debug_assert_eq!(self.mask + 1, self.slots.len());
        // SAFETY: as in `slot`
        unsafe { self.slots.get_unchecked_mut(c as usize & self.mask) }
    }

    #[inline(always)]
    fn usage(&self, c: i64) -> f64 {
        let s = *self.slot(c);
        if s.tag == c {
            s.used
        } else {
            0.0
        }
    }

    #[inline(always)]
    fn is_open(&self, c: i64) -> bool {
        self.usage(c) < self.full_at
    }

    /// Earliest time >= `t` at which one more uop fits. `base` is the current
    /// dispatch cycle: no uop can be booked before it.
    #[inline]
    pub fn earliest(&self, t: f64, base: i64) -> f64 {
        let c0 = cycle_of(t);
        let mut c = c0.max(self.first_open).max(base);
        while !self.is_open(c) {
            c += 1;
        }
        if c == c0 {
            t
        } else {
            c as f64
        }
    }

    /// [`Calendar::earliest`] from `t`, then [`Calendar::take`] of `amount` there, with one
    /// lookup of the slot found instead of two: the single-group uses of the hot path.
    #[inline]
    pub fn book_earliest(&mut self, t: f64, amount: f64, base: i64) -> f64 {
        self.book_earliest_filling(t, amount, base).0
    }

    /// [`Calendar::book_earliest`], and the cycles the booking filled.
    #[inline(always)]
    pub(crate) fn book_earliest_filling(&mut self, t: f64, amount: f64, base: i64) -> (f64, Filled) {
        let c0 = cycle_of(t);
        let mut c = c0.max(self.first_open).max(base);
        loop {
            let used = self.usage(c);
            if used < self.full_at {
                let u = used + amount;
                // inside the ring and no overdraft: book here; else as `take` would
                let filled = if c - base < self.slots.len() as i64 && u <= self.fits {
                    self.book_in_slot(c, u, base)
                } else {
                    self.take_with_carry(c, amount, base)
                };
                return (if c == c0 { t } else { c as f64 }, filled);
            }
            c += 1;
        }
    }

    /// Books `amount` (usually 1 uop) in the cycle containing `t`, carrying any
    /// overdraft into the following cycles.
    #[inline]
    pub fn take(&mut self, t: f64, amount: f64, base: i64) {
        self.take_filling(cycle_of(t).max(base), amount, base);
    }

    /// [`Calendar::take`] in cycle `c` (>= `base`), and the cycles the booking filled.
    #[inline(always)]
    pub(crate) fn take_filling(&mut self, c: i64, amount: f64, base: i64) -> Filled {
        // fast path: the cycle is inside the ring and the booking fits
        if c - base < self.slots.len() as i64 {
            let u = self.usage(c) + amount;
            if u <= self.fits {
                return self.book_in_slot(c, u, base);
            }
        }
        self.take_with_carry(c, amount, base)
    }

    /// Cycle `c` (in the ring) now holds usage `u` (within capacity). A cycle that fills
    /// moves `first_open` on if it was the first open one.
    #[inline(always)]
    fn book_in_slot(&mut self, c: i64, u: f64, base: i64) -> Filled {
        *self.slot_mut(c) = Slot { tag: c, used: u };
        if u >= self.full_at {
            if c == self.first_open.max(base) {
                self.advance_first_open(base);
            }
            c..c + 1
        } else {
            c..c
        }
    }

    /// A booking that overdraws cycle `c` (or lies past the ring): each full cycle
    /// passes its overdraft to the next, so the cycles it fills are consecutive.
    #[cold]
    fn take_with_carry(&mut self, first: i64, mut amount: f64, base: i64) -> Filled {
        let mut c = first;
        let end = loop {
            self.ensure(c, base);
            let cap = self.cap;
            let s = self.slot_mut(c);
            if s.tag != c {
                *s = Slot { tag: c, used: 0.0 };
            }
            s.used += amount;
            if s.used <= cap + EPS {
                break if s.used >= cap - EPS { c + 1 } else { c };
            }
            amount = s.used - cap;
            s.used = cap;
            c += 1;
        };
        self.advance_first_open(base);
        first..end
    }

    /// The cycles from `base` on that are full, in no particular order.
    pub(crate) fn full_cycles(&self, base: i64) -> impl Iterator<Item = i64> + '_ {
        let cap = self.cap;
        self.slots.iter().filter(move |s| s.tag >= base && s.used >= cap - EPS).map(|s| s.tag)
    }

    #[inline]
    fn advance_first_open(&mut self, base: i64) {
        if self.first_open < base {
            self.first_open = base;
        }
        while !self.is_open(self.first_open) {
            self.first_open += 1;
        }
    }

    #[inline(always)]
    fn ensure(&mut self, c: i64, base: i64) {
        if c - base < self.slots.len() as i64 {
            return;
        }
        let new_len = (((c - base + 1) as usize) * 2).next_power_of_two();
        let mut slots = vec![EMPTY; new_len];
        for s in &self.slots {
            if s.tag >= base {
                slots[s.tag as usize & (new_len - 1)] = *s;
            }
        }
        self.slots = slots;
        self.mask = new_len - 1;
    }

    /// Usage booked in cycle `c` (for tests and views).
    pub fn used_in(&self, c: i64) -> f64 {
        self.usage(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cycle of a time is its integer part, as `as i64` gives it, up to the far future.
    #[test]
    fn a_time_lies_in_the_cycle_of_its_integer_part() {
        for t in [0.0, 0.999_999, 1.0, 3.7, 255.5, 4096.000_001, 1.0e12 + 0.5] {
            assert_eq!(cycle_of(t), t as i64, "time {t}");
        }
    }

    #[test]
    fn integer_capacity_is_uops_per_cycle() {
        let mut c = Calendar::new(2.0);
        for _ in 0..5 {
            let t = c.earliest(0.0, 0);
            c.take(t, 1.0, 0);
        }
        assert_eq!(c.used_in(0), 2.0);
        assert_eq!(c.used_in(1), 2.0);
        assert_eq!(c.used_in(2), 1.0);
        assert_eq!(c.earliest(0.0, 0), 2.0);
    }

    #[test]
    fn older_uop_can_fill_an_earlier_cycle() {
        let mut c = Calendar::new(1.0);
        c.take(5.0, 1.0, 0); // a younger uop booked cycle 5
        assert_eq!(c.earliest(3.0, 0), 3.0);
        c.take(3.0, 1.0, 0);
        assert_eq!(c.earliest(5.0, 0), 6.0);
    }

    #[test]
    fn fractional_capacity_gives_fractional_throughput() {
        let mut c = Calendar::new(1.15);
        let mut last = 0.0;
        for _ in 0..1150 {
            let t = c.earliest(0.0, 0);
            c.take(t, 1.0, 0);
            last = t;
        }
        // 1150 uops at 1.15 per cycle take ~1000 cycles
        assert!((last - 999.0).abs() <= 2.0, "last cycle {last}");
    }

    #[test]
    fn slow_resource_blocks_several_cycles() {
        let mut c = Calendar::new(0.5);
        c.take(0.0, 1.0, 0);
        assert_eq!(c.earliest(0.0, 0), 2.0);
    }

    #[test]
    fn grows_for_far_future_and_retires() {
        let mut c = Calendar::new(1.0);
        c.take(10_000.0, 1.0, 0);
        c.take(3.0, 1.0, 0);
        assert_eq!(c.earliest(10_000.0, 0), 10_001.0);
        assert_eq!(c.earliest(3.0, 0), 4.0);
        // once the base passes a cycle, its booking no longer matters
        assert_eq!(c.earliest(0.0, 10_000), 10_001.0);
        assert_eq!(c.earliest(0.0, 10_001), 10_001.0);
        assert_eq!(c.used_in(10_000), 1.0);
    }
}

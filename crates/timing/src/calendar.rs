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

#[derive(Debug, Clone)]
pub struct Calendar {
    cap: f64,
    used: Vec<f64>,
    mask: usize,
    /// Cycles before `base` can no longer be booked (all uops dispatch at or after it).
    base: i64,
    /// Every cycle in `[base, first_open)` is full.
    first_open: i64,
}

impl Calendar {
    pub fn new(cap: f64) -> Self {
        let len = 256;
        Self { cap, used: vec![0.0; len], mask: len - 1, base: 0, first_open: 0 }
    }

    pub fn capacity(&self) -> f64 {
        self.cap
    }

    #[inline]
    fn is_open(&self, c: i64) -> bool {
        c - self.base >= self.used.len() as i64 || self.used[c as usize & self.mask] < self.cap - EPS
    }

    /// Earliest time >= `t` at which one more uop fits.
    #[inline]
    pub fn earliest(&self, t: f64) -> f64 {
        let c0 = t.floor() as i64;
        let mut c = c0.max(self.first_open).max(self.base);
        while !self.is_open(c) {
            c += 1;
        }
        if c == c0 {
            t
        } else {
            c as f64
        }
    }

    /// Books `amount` (usually 1 uop) in the cycle containing `t`, which must be open.
    #[inline]
    pub fn take(&mut self, t: f64, amount: f64) {
        let mut c = (t.floor() as i64).max(self.base);
        self.ensure(c);
        let mut slot = c as usize & self.mask;
        self.used[slot] += amount;
        while self.used[slot] > self.cap + EPS {
            let excess = self.used[slot] - self.cap;
            self.used[slot] = self.cap;
            c += 1;
            self.ensure(c);
            slot = c as usize & self.mask;
            self.used[slot] += excess;
        }
        while !self.is_open(self.first_open) {
            self.first_open += 1;
        }
    }

    /// Forgets every cycle before `c` (no uop can issue before the current dispatch cycle).
    #[inline]
    pub fn retire_before(&mut self, c: i64) {
        if c <= self.base {
            return;
        }
        let end = c.min(self.base + self.used.len() as i64);
        for k in self.base..end {
            self.used[k as usize & self.mask] = 0.0;
        }
        self.base = c;
        self.first_open = self.first_open.max(c);
    }

    fn ensure(&mut self, c: i64) {
        let need = (c - self.base + 1) as usize;
        if need <= self.used.len() {
            return;
        }
        let new_len = (need * 2).next_power_of_two();
        let mut grown = vec![0.0; new_len];
        for k in self.base..self.base + self.used.len() as i64 {
            grown[k as usize & (new_len - 1)] = self.used[k as usize & self.mask];
        }
        self.used = grown;
        self.mask = new_len - 1;
    }

    /// Usage booked in cycle `c` (for tests and views).
    pub fn used_in(&self, c: i64) -> f64 {
        if c < self.base || c - self.base >= self.used.len() as i64 {
            0.0
        } else {
            self.used[c as usize & self.mask]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_capacity_is_uops_per_cycle() {
        let mut c = Calendar::new(2.0);
        for _ in 0..5 {
            let t = c.earliest(0.0);
            c.take(t, 1.0);
        }
        assert_eq!(c.used_in(0), 2.0);
        assert_eq!(c.used_in(1), 2.0);
        assert_eq!(c.used_in(2), 1.0);
        assert_eq!(c.earliest(0.0), 2.0);
    }

    #[test]
    fn older_uop_can_fill_an_earlier_cycle() {
        let mut c = Calendar::new(1.0);
        c.take(5.0, 1.0); // a younger uop booked cycle 5
        assert_eq!(c.earliest(3.0), 3.0);
        c.take(3.0, 1.0);
        assert_eq!(c.earliest(5.0), 6.0);
    }

    #[test]
    fn fractional_capacity_gives_fractional_throughput() {
        let mut c = Calendar::new(1.15);
        let mut last = 0.0;
        for _ in 0..1150 {
            let t = c.earliest(0.0);
            c.take(t, 1.0);
            last = t;
        }
        // 1150 uops at 1.15 per cycle take ~1000 cycles
        assert!((last - 999.0).abs() <= 2.0, "last cycle {last}");
    }

    #[test]
    fn slow_resource_blocks_several_cycles() {
        let mut c = Calendar::new(0.5);
        c.take(0.0, 1.0);
        assert_eq!(c.earliest(0.0), 2.0);
    }

    #[test]
    fn grows_for_far_future_and_retires() {
        let mut c = Calendar::new(1.0);
        c.take(10_000.0, 1.0);
        assert_eq!(c.earliest(10_000.0), 10_001.0);
        c.retire_before(10_000);
        assert_eq!(c.used_in(10_000), 1.0);
        c.retire_before(10_001);
        assert_eq!(c.earliest(0.0), 10_001.0);
    }
}

//! Finite structures that hold instructions between stages: the ROB and the
//! load/store buffers (freed in order at retirement) and the scheduler (freed
//! out of order as uops issue).

use crate::calendar::cycle_of;

/// In-order window: entries are freed oldest first.
///
/// The entries (time they free, how many) sit in a power-of-two ring with
/// running head and tail counters: every push holds at least one entry of the
/// window, so the ring never holds more than `size` pushes.
#[derive(Debug, Clone)]
pub struct FifoWindow {
    size: u32,
    occupied: u32,
    ring: Vec<(f64, u32)>,
    head: usize,
    tail: usize,
}

impl FifoWindow {
    pub fn new(size: u32) -> Self {
        let len = (size.max(1) as usize).next_power_of_two();
        Self { size, occupied: 0, ring: vec![(0.0, 0); len], head: 0, tail: 0 }
    }

    /// Becomes a copy of `src`, in the memory it already has.
    pub(crate) fn copy_from(&mut self, src: &FifoWindow) {
        let FifoWindow { size, occupied, ring, head, tail } = src;
        (self.size, self.occupied, self.head, self.tail) = (*size, *occupied, *head, *tail);
        self.ring.clone_from(ring);
    }

    /// The same contents in a window of another size (a forked timing variant).
    pub fn set_size(&mut self, size: u32) {
        self.size = size;
        let len = (size.max(1) as usize).next_power_of_two();
        if len > self.ring.len() {
            let mut ring = vec![(0.0, 0); len];
            for k in self.head..self.tail {
                ring[k & (len - 1)] = self.ring[k & (self.ring.len() - 1)];
            }
            self.ring = ring;
        }
    }

    /// Earliest time >= `t` at which `n` more entries fit; frees what is gone by then.
    #[inline]
    pub fn earliest(&mut self, mut t: f64, n: u32) -> f64 {
        let n = n.min(self.size);
        if self.occupied + n <= self.size {
            // room without freeing anything (freeing only adds room): the frees wait
            // until the window is full, then go in one run (times asked for only grow)
            return t;
        }
        loop {
            self.free_until(t);
            if self.occupied + n <= self.size {
                return t;
            }
            // full: wait for the oldest (the ring is not empty, or n would fit)
            t = self.at(self.head & (self.ring.len() - 1)).0;
        }
    }

    /// Ring entry `k` (an index already masked by the ring's length minus one).
    #[inline(always)]
    fn at(&self, k: usize) -> (f64, u32) {
        debug_assert!(k < self.ring.len());
        // SAFETY: every caller masks `k` with `ring.len() - 1`, the ring's length a power of two
        unsafe { *self.ring.get_unchecked(k) }
    }

    /// Frees the entries that are free by `t`.
    #[inline]
    pub fn free_until(&mut self, t: f64) {
        let m = self.ring.len() - 1;
        while self.head < self.tail {
            let (free, k) = self.at(self.head & m);
            if free > t {
                break;
            }
            self.head += 1;
            self.occupied -= k;
        }
    }

    /// Entries held, as of the last [`FifoWindow::free_until`] (or a call of
    /// [`FifoWindow::earliest`] that found the window full).
    pub fn occupied(&self) -> u32 {
        self.occupied
    }

    /// The pushes still held, oldest first: (time their entries free, how many).
    pub fn held(&self) -> impl Iterator<Item = (f64, u32)> + '_ {
        let m = self.ring.len() - 1;
        (self.head..self.tail).map(move |k| self.ring[k & m])
    }

    #[inline]
    pub fn push(&mut self, free_at: f64, n: u32) {
        let n = n.min(self.size);
        if n > 0 {
            if self.tail - self.head == self.ring.len() {
                // the ring is full of pushes not yet freed: after a shrink (a forked
                // variant), or for an owner that frees lazily and sized the window
                // well above what can be live; the oldest goes
                let (_, k) = self.at(self.head & (self.ring.len() - 1));
                self.head += 1;
                self.occupied -= k;
            }
            self.occupied += n;
            let m = self.ring.len() - 1;
            // SAFETY: masked by `len - 1` of a power-of-two length
            unsafe { *self.ring.get_unchecked_mut(self.tail & m) = (free_at, n) };
            self.tail += 1;
        }
    }
}

/// Out-of-order window: entries are freed when their uop issues.
///
/// Entries free at whole cycles (the cycle after issue), so instead of a heap
/// the scheduler keeps how many entries free in each future cycle, in a ring
/// that starts at a cursor which only moves forward (dispatch is in order).
#[derive(Debug, Clone)]
pub struct Scheduler {
    size: u32,
    occupied: u32,
    /// First cycle whose frees have not been applied yet.
    cursor: i64,
    frees: Vec<u32>,
    mask: usize,
}

impl Scheduler {
    pub fn new(size: u32) -> Self {
        let len = 256;
        Self { size, occupied: 0, cursor: 0, frees: vec![0; len], mask: len - 1 }
    }

    #[inline(always)]
    fn advance_to(&mut self, c: i64) {
        while self.cursor <= c {
            let s = self.cursor as usize & self.mask;
            debug_assert_eq!(self.mask + 1, self.frees.len());
            // SAFETY: `mask` is `frees.len() - 1` (a power of two), set with `frees` in `new` and `grow`
            let f = unsafe { self.frees.get_unchecked_mut(s) };
            self.occupied -= *f;
            *f = 0;
            self.cursor += 1;
        }
    }

    /// Becomes a copy of `src`, in the memory it already has.
    pub(crate) fn copy_from(&mut self, src: &Scheduler) {
        let Scheduler { size, occupied, cursor, frees, mask } = src;
        (self.size, self.occupied, self.cursor, self.mask) = (*size, *occupied, *cursor, *mask);
        self.frees.clone_from(frees);
    }

    /// The same contents in a scheduler of another size (a forked timing variant).
    pub fn set_size(&mut self, size: u32) {
        self.size = size;
    }

    /// Earliest time >= `t` at which `n` more entries fit.
    #[inline]
    pub fn earliest(&mut self, t: f64, n: u32) -> f64 {
        let n = n.min(self.size);
        self.advance_to(cycle_of(t));
        if self.occupied + n <= self.size {
            return t;
        }
        loop {
            let c = self.cursor;
            self.advance_to(c);
            if self.occupied + n <= self.size {
                return c as f64;
            }
        }
    }

    /// Books one entry that frees in cycle `free_at` (after the current one).
    #[inline]
    pub fn push(&mut self, free_at: i64) {
        if self.occupied >= self.size {
            return;
        }
        let c = free_at.max(self.cursor);
        if c - self.cursor >= self.frees.len() as i64 {
            self.grow(c);
        }
        debug_assert_eq!(self.mask + 1, self.frees.len());
        // SAFETY: as in `advance_to`
        unsafe { *self.frees.get_unchecked_mut(c as usize & self.mask) += 1 };
        self.occupied += 1;
    }

    fn grow(&mut self, c: i64) {
        let new_len = (((c - self.cursor + 1) as usize) * 2).next_power_of_two();
        let mut frees = vec![0; new_len];
        for k in self.cursor..self.cursor + self.frees.len() as i64 {
            frees[k as usize & (new_len - 1)] = self.frees[k as usize & self.mask];
        }
        self.frees = frees;
        self.mask = new_len - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_waits_for_oldest() {
        let mut w = FifoWindow::new(4);
        w.push(3.0, 4);
        assert_eq!(w.earliest(0.0, 1), 3.0);
        w.push(5.0, 3);
        assert_eq!(w.earliest(3.0, 1), 3.0);
        assert_eq!(w.earliest(3.0, 2), 5.0);
    }

    #[test]
    fn scheduler_frees_out_of_order() {
        let mut s = Scheduler::new(2);
        s.push(9);
        s.push(2);
        assert_eq!(s.earliest(0.0, 1), 2.0);
        s.push(5000);
        assert_eq!(s.earliest(2.0, 1), 9.0);
        assert_eq!(s.earliest(9.0, 2), 5000.0);
    }
}

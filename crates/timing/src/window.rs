//! Finite structures that hold instructions between stages: the ROB and the
//! load/store buffers (freed in order at retirement) and the scheduler (freed
//! out of order as uops issue).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// In-order window: entries are freed oldest first.
#[derive(Debug, Clone)]
pub struct FifoWindow {
    size: u32,
    occupied: u32,
    /// (time the entries become free, how many)
    entries: VecDeque<(f64, u32)>,
}

impl FifoWindow {
    pub fn new(size: u32) -> Self {
        Self { size, occupied: 0, entries: VecDeque::with_capacity(size as usize) }
    }

    /// Earliest time >= `t` at which `n` more entries fit; frees what is gone by then.
    #[inline]
    pub fn earliest(&mut self, mut t: f64, n: u32) -> f64 {
        let n = n.min(self.size);
        loop {
            while let Some(&(free, k)) = self.entries.front() {
                if free <= t {
                    self.entries.pop_front();
                    self.occupied -= k;
                } else {
                    break;
                }
            }
            if self.occupied + n <= self.size {
                return t;
            }
            t = self.entries.front().map(|e| e.0).unwrap_or(t);
        }
    }

    #[inline]
    pub fn push(&mut self, free_at: f64, n: u32) {
        let n = n.min(self.size);
        if n > 0 {
            self.occupied += n;
            self.entries.push_back((free_at, n));
        }
    }
}

/// Out-of-order window: entries are freed when their uop issues.
#[derive(Debug, Clone)]
pub struct Scheduler {
    size: u32,
    /// Times entries become free, as ordered bit patterns of non-negative f64.
    free_at: BinaryHeap<Reverse<u64>>,
}

impl Scheduler {
    pub fn new(size: u32) -> Self {
        Self { size, free_at: BinaryHeap::with_capacity(size as usize + 8) }
    }

    #[inline]
    pub fn earliest(&mut self, mut t: f64, n: u32) -> f64 {
        let n = n.min(self.size) as usize;
        loop {
            while let Some(&Reverse(bits)) = self.free_at.peek() {
                if f64::from_bits(bits) <= t {
                    self.free_at.pop();
                } else {
                    break;
                }
            }
            if self.free_at.len() + n <= self.size as usize {
                return t;
            }
            t = self.free_at.peek().map(|r| f64::from_bits(r.0)).unwrap_or(t);
        }
    }

    #[inline]
    pub fn push(&mut self, free_at: f64) {
        if self.free_at.len() < self.size as usize {
            self.free_at.push(Reverse(free_at.max(0.0).to_bits()));
        }
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
        s.push(9.0);
        s.push(2.0);
        assert_eq!(s.earliest(0.0, 1), 2.0);
    }
}

//! Return address stack.
//!
//! Calls push their fall-through address, returns pop it. The stack is a
//! circular buffer of `ras_entries`: a call beyond the capacity overwrites the
//! oldest entry (wraparound), so after a deep recursion the innermost
//! `ras_entries` returns are still predicted and only the overflowed (outermost)
//! ones mispredict. Popping an empty stack predicts nothing.

#[derive(Debug, Clone)]
pub struct Ras {
    buf: Vec<u64>,
    /// Index of the top entry.
    top: usize,
    /// Valid entries (≤ capacity).
    len: usize,
}

impl Ras {
    pub fn new(entries: u32) -> Self {
        Self { buf: vec![0; entries as usize], top: 0, len: 0 }
    }

    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn push(&mut self, ret: u64) {
        let n = self.buf.len();
        if n == 0 {
            return;
        }
        self.top = if self.top + 1 == n { 0 } else { self.top + 1 };
        self.buf[self.top] = ret;
        self.len = (self.len + 1).min(n);
    }

    #[inline]
    pub fn pop(&mut self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.top];
        self.top = if self.top == 0 { self.buf.len() - 1 } else { self.top - 1 };
        self.len -= 1;
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifo_and_wraparound() {
        let mut r = Ras::new(4);
        assert_eq!(r.pop(), None);
        for i in 1..=6 {
            r.push(i);
        }
        assert_eq!(r.len(), 4);
        assert_eq!(r.pop(), Some(6));
        assert_eq!(r.pop(), Some(5));
        assert_eq!(r.pop(), Some(4));
        assert_eq!(r.pop(), Some(3));
        assert_eq!(r.pop(), None, "1 and 2 were overwritten");
        let mut z = Ras::new(0);
        z.push(1);
        assert_eq!(z.pop(), None);
    }
}

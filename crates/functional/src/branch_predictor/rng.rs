//! The pseudo-random choices of the TAGE-family predictors (which of two
//! candidate tables to allocate in): xorshift64, deterministic per predictor.

#[derive(Debug, Clone)]
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    #[inline(always)]
    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

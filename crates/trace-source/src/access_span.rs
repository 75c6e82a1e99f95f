//! Telling a line split from QEMU's memory reports: QEMU reports a wide access in
//! pieces (a ymm load as 8-byte reads), so a split is judged on the bytes one
//! instruction's loads (or stores) covered together.

/// The bytes one instruction's loads (or its stores) covered.
#[derive(Default, Clone, Copy)]
pub(crate) struct AccessSpan {
    lo: u64,
    hi: u64,
    bytes: u64,
}

impl AccessSpan {
    #[inline]
    pub(crate) fn add(&mut self, addr: u64, size: u64) {
        if self.bytes == 0 {
            (self.lo, self.hi) = (addr, addr + size);
        } else {
            (self.lo, self.hi) = (self.lo.min(addr), self.hi.max(addr + size));
        }
        self.bytes += size;
    }

    /// One contiguous access (not a gather's scattered elements) that crosses a line boundary.
    #[inline]
    pub(crate) fn spans_two_lines(&self, line_shift: u32) -> bool {
        self.bytes > 0 && self.hi - self.lo == self.bytes && (self.lo ^ (self.hi - 1)) >> line_shift != 0
    }
}

#[cfg(test)]
mod tests {
    use super::AccessSpan;

    fn span(pieces: &[(u64, u64)]) -> AccessSpan {
        let mut s = AccessSpan::default();
        for &(a, n) in pieces {
            s.add(a, n);
        }
        s
    }

    #[test]
    fn a_wide_access_reported_in_pieces_is_split_when_its_bytes_cross_a_line() {
        // a 32-byte load at offset 48 of a 64-byte line, as four 8-byte reports: bytes 48..80
        assert!(span(&[(0x1030, 8), (0x1038, 8), (0x1040, 8), (0x1048, 8)]).spans_two_lines(6));
        // the same at offset 32 ends at byte 63: one line
        assert!(!span(&[(0x1020, 8), (0x1028, 8), (0x1030, 8), (0x1038, 8)]).spans_two_lines(6));
        // one 8-byte report at offset 60 crosses by itself
        assert!(span(&[(0x103c, 8)]).spans_two_lines(6));
    }

    #[test]
    fn scattered_elements_and_no_access_are_not_splits() {
        // a gather's elements in different lines: not contiguous, so not a split
        assert!(!span(&[(0x1000, 4), (0x1040, 4), (0x1080, 4)]).spans_two_lines(6));
        assert!(!AccessSpan::default().spans_two_lines(6));
    }
}

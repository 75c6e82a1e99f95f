//! The ring of future cycles: what booking an instruction puts into the cycles
//! it touches (counts, difference arrays, change-points of blame), until the
//! sweep reads and clears them. One cell is 16 bytes; all zero = nothing booked.

use crate::cpi_stacks::Component;
use crate::flops_stack::IdleFp;

/// A change-point in a cell: from this cycle on, a timeline of the picture
/// (oldest waiting instruction, dispatch-stall reason, oldest waiting FP
/// instruction) holds a new value. Zero: no change in this cycle.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Mark(u8);

impl Mark {
    const SET: u8 = 0x80;
    /// The oldest waiting instruction waits for a load's data (Top-Down's load
    /// stalls; the component alone says dependence for an L1 hit).
    const ON_LOAD: u8 = 0x40;
    const VALUE: u8 = 0x3f;
    /// The value bits of "nobody" (no component has this index).
    const NOBODY: u8 = Self::VALUE;

    /// From here on, `blame` (nobody: `None`).
    #[inline(always)]
    pub(crate) fn blame(blame: Option<Component>) -> Mark {
        Mark(Self::SET | blame.map_or(Self::NOBODY, |c| c as u8))
    }

    /// From here on, the oldest waiting instruction waits because of `blame`, for a load's data or not.
    #[inline(always)]
    pub(crate) fn waiting(blame: Component, on_load: bool) -> Mark {
        Mark(Self::SET | blame as u8 | if on_load { Self::ON_LOAD } else { 0 })
    }

    /// From here on, the FP units are idle because of `why`.
    #[inline(always)]
    pub(crate) fn idle_fp(why: IdleFp) -> Mark {
        Mark(Self::SET | why as u8)
    }

    #[inline(always)]
    pub(crate) fn is_change(self) -> bool {
        self.0 != 0
    }

    /// The blame of a change-point made by [`Mark::blame`] or [`Mark::waiting`].
    #[inline(always)]
    pub(crate) fn component(self) -> Option<Component> {
        Component::ALL.get((self.0 & Self::VALUE) as usize).copied()
    }

    #[inline(always)]
    pub(crate) fn on_load(self) -> bool {
        self.0 & Self::ON_LOAD != 0
    }

    /// The cause of a change-point made by [`Mark::idle_fp`].
    #[inline(always)]
    pub(crate) fn idle_cause(self) -> IdleFp {
        IdleFp::ALL.get((self.0 & Self::VALUE) as usize).copied().unwrap_or(IdleFp::NonFp)
    }
}

/// Loads in flight are counted in four 16-bit lanes of one integer: any, missed
/// L1, missed L2, missed L3. A load served by level k adds `LOAD_LANES[k]`.
pub(crate) const LOAD_LANES: [i64; 5] = [0x1, 0x1_0001, 0x1_0001_0001, 0x1_0001_0001_0001, 0];

/// Loads in flight in a cycle, in the lanes of [`LOAD_LANES`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LoadsInFlight(pub(crate) u64);

impl LoadsInFlight {
    #[inline(always)]
    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }
    /// Some load is in flight (an L1 hit or not).
    #[inline(always)]
    pub(crate) fn some(self) -> bool {
        self.0 & 0xffff != 0
    }
    #[inline(always)]
    pub(crate) fn missed_l1(self) -> bool {
        self.0 & 0xffff_0000 != 0
    }
    #[inline(always)]
    pub(crate) fn missed_l2(self) -> bool {
        self.0 & 0xffff_0000_0000 != 0
    }
    /// Loads in flight served by DRAM.
    #[inline(always)]
    pub(crate) fn from_dram(self) -> u64 {
        self.0 >> 48
    }
}

/// One future cycle: what was booked into it.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Cell {
    /// Difference array of the loads in flight (packed lanes, see [`LOAD_LANES`]).
    pub(crate) d_loads: i64,
    /// Counts packed so that one add books an instruction's issue (see
    /// [`Lanes`]): uops executed (started on a port), FP instructions issued,
    /// fused uops issued (the slot unit of the issue stack).
    pub(crate) counts: u32,
    /// Change-points: oldest waiting instruction in the scheduler,
    /// dispatch-stall reason, oldest waiting FP instruction.
    pub(crate) waiting: Mark,
    pub(crate) dispatch_stall: Mark,
    pub(crate) fp_waiting: Mark,
    /// Difference array: divides keeping their unit busy.
    pub(crate) d_divider: i8,
}

impl Cell {
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        let marks = u32::from_le_bytes([self.waiting.0, self.dispatch_stall.0, self.fp_waiting.0, self.d_divider as u8]);
        let rest = self.counts as u64 | (marks as u64) << 32;
        (self.d_loads as u64 | rest) == 0
    }
}

/// The lanes of [`Cell::counts`]. Uops executed per cycle are bounded by the
/// ports (each started uop holds one in that cycle), far below 256, so the
/// byte lanes never carry into each other; fused uops issued (a microcoded
/// instruction issues all of its own in one cycle) get 16 bits.
pub(crate) struct Lanes;

impl Lanes {
    pub(crate) const OPS: u32 = 1;
    pub(crate) const FP: u32 = 1 << 8;
    pub(crate) const ISSUED: u32 = 1 << 16;

    #[inline(always)]
    pub(crate) fn ops(c: u32) -> u8 {
        c as u8
    }
    #[inline(always)]
    pub(crate) fn fp(c: u32) -> u8 {
        (c >> 8) as u8
    }
    #[inline(always)]
    pub(crate) fn issued(c: u32) -> u32 {
        c >> 16
    }
}

/// The cells of the cycles from the first unswept one on, indexed by cycle
/// modulo a power of two.
pub(crate) struct Ring {
    pub(crate) cells: Vec<Cell>,
    pub(crate) mask: usize,
}

impl Ring {
    pub(crate) fn new(len: usize) -> Self {
        debug_assert!(len.is_power_of_two());
        Ring { cells: vec![Cell::default(); len], mask: len - 1 }
    }

    #[inline(always)]
    pub(crate) fn cell(&mut self, c: i64) -> &mut Cell {
        let k = c as usize & self.mask;
        debug_assert_eq!(self.cells.len(), self.mask + 1);
        // SAFETY: the ring's length is always `mask + 1` (a power of two; `new`
        // and `grow` keep them together), so `k <= mask` is in bounds. Several
        // bookings per instruction: the bounds checks showed.
        unsafe { self.cells.get_unchecked_mut(k) }
    }

    /// Makes room for cycles up to `c` (`fin`: the first unswept cycle).
    #[inline(always)]
    pub(crate) fn reserve(&mut self, fin: i64, c: i64) {
        if c - fin >= self.cells.len() as i64 {
            self.grow(fin, c);
        }
    }

    #[cold]
    fn grow(&mut self, fin: i64, c: i64) {
        let new_len = (((c - fin + 1) as usize) * 2).next_power_of_two();
        let mut cells = vec![Cell::default(); new_len];
        for k in fin..fin + self.cells.len() as i64 {
            cells[k as usize & (new_len - 1)] = self.cells[k as usize & self.mask];
        }
        self.cells = cells;
        self.mask = new_len - 1;
    }

    pub(crate) fn clear(&mut self) {
        self.cells.iter_mut().for_each(|c| *c = Cell::default());
    }
}

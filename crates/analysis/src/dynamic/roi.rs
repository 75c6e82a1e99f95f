//! Regions of interest of a dynamic run: the whole program, an address range,
//! the dynamic extent of a function (entry to its return, callees included), or
//! the code between start/stop marker instructions.

use bottlenose_decode::{BranchKind, DecodedInst};
use serde::Serialize;

/// `xchg rbx, rbx`: starts the region (a no-op the compiler never emits).
pub const MARKER_BEGIN: [u8; 3] = [0x48, 0x87, 0xdb];
/// `xchg rcx, rcx`: ends the region.
pub const MARKER_END: [u8; 3] = [0x48, 0x87, 0xc9];

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Roi {
    Whole,
    /// Instructions whose address is in [start, end) (runtime addresses).
    Range { start: u64, end: u64 },
    /// From entering the function at `start` until it returns; [start, end) is its code.
    Function { name: String, start: u64, end: u64 },
    /// Between `xchg rbx, rbx` and `xchg rcx, rcx` markers.
    Markers,
}

impl Roi {
    pub fn describe(&self) -> String {
        match self {
            Roi::Whole => "whole program".into(),
            Roi::Range { start, end } => format!("addresses 0x{start:x}..0x{end:x}"),
            Roi::Function { name, start, .. } => format!("function {name} (0x{start:x}) and its callees"),
            Roi::Markers => "between xchg rbx,rbx and xchg rcx,rcx markers".into(),
        }
    }
}

/// Follows the program and says whether each executed instruction is in the
/// region. Each guest thread (vCPU) has its own state: one thread inside the
/// function does not put the others in it.
pub struct RoiTracker {
    roi: Roi,
    threads: Vec<ThreadState>,
    pub entries: u64,
}

#[derive(Clone, Copy, Default)]
struct ThreadState {
    active: bool,
    /// Call depth inside the function region (calls made by the function itself).
    depth: u32,
}

impl RoiTracker {
    pub fn new(roi: Roi) -> Self {
        Self { roi, threads: Vec::new(), entries: 0 }
    }

    pub fn roi(&self) -> &Roi {
        &self.roi
    }

    /// Moves a function region by the load bias of a position-independent executable.
    pub fn relocate(&mut self, bias: u64) {
        if let Roi::Function { start, end, .. } | Roi::Range { start, end } = &mut self.roi {
            *start += bias;
            *end += bias;
        }
    }

    /// Whether `inst` (about to execute on guest thread `vcpu`) belongs to the region.
    #[inline]
    pub fn step(&mut self, inst: &DecodedInst, vcpu: u16) -> bool {
        if matches!(self.roi, Roi::Whole) {
            return true;
        }
        let v = vcpu as usize;
        if v >= self.threads.len() {
            self.threads.resize(v + 1, ThreadState::default());
        }
        let st = &mut self.threads[v];
        match &self.roi {
            Roi::Whole => true,
            Roi::Range { start, end } => (*start..*end).contains(&inst.address),
            Roi::Function { start, .. } => {
                if !st.active {
                    if inst.address != *start {
                        return false;
                    }
                    st.active = true;
                    st.depth = 0;
                    self.entries += 1;
                }
                match inst.branch {
                    BranchKind::DirectCall | BranchKind::IndirectCall => st.depth += 1,
                    BranchKind::Return => {
                        if st.depth == 0 {
                            st.active = false; // this ret leaves the function; it still counts
                        } else {
                            st.depth -= 1;
                        }
                    }
                    _ => {}
                }
                true
            }
            Roi::Markers => {
                if inst.bytes == MARKER_BEGIN {
                    if !st.active {
                        self.entries += 1;
                    }
                    st.active = true;
                    false
                } else if inst.bytes == MARKER_END {
                    st.active = false;
                    false
                } else {
                    st.active
                }
            }
        }
    }
}

//! Regions of interest of a dynamic run: the whole program, an address range,
//! the dynamic extent of a function (entry to its return, callees included), or
//! the code between start/stop marker instructions.

use bottlenose_decode::{BranchKind, DecodedInst};
pub use bottlenose_report_model::run::Roi;

/// `xchg rbx, rbx`: starts the region (a no-op the compiler never emits).
pub const MARKER_BEGIN: [u8; 3] = [0x48, 0x87, 0xdb];
/// `xchg rcx, rcx`: ends the region.
pub const MARKER_END: [u8; 3] = [0x48, 0x87, 0xc9];

/// Where the file of a range or function region is: the run finds the
/// guest's mapping of `file` (its canonical path, as the mappings name it)
/// that holds `file_offset`, and the region's `file_address` (at that offset)
/// then gives the load bias.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoiPlacement {
    pub file: std::path::PathBuf,
    pub file_offset: u64,
    pub file_address: u64,
}

impl RoiPlacement {
    /// The load bias if mapping `[start, end)` of `path` from `offset` holds the region.
    pub fn bias_in(&self, start: u64, end: u64, offset: u64, path: &str) -> Option<u64> {
        let inside = self.file_offset.checked_sub(offset).filter(|&d| d < end - start)?;
        (self.file.as_os_str() == path).then(|| (start + inside).wrapping_sub(self.file_address))
    }
}

/// Follows the program and says whether each executed instruction is in the
/// region. Each guest thread (vCPU) has its own state: one thread inside the
/// function does not put the others in it.
pub struct RoiTracker {
    roi: Roi,
    /// Runtime address minus file address of the region's file.
    bias: u64,
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
        Self { roi, bias: 0, threads: Vec::new(), entries: 0 }
    }

    pub fn roi(&self) -> &Roi {
        &self.roi
    }

    /// Sets the load bias of the region's file (see [`RoiPlacement`]).
    pub fn relocate(&mut self, bias: u64) {
        self.bias = bias;
    }

    /// Whether `inst` (about to execute on guest thread `vcpu`) belongs to the region.
    /// The whole run's answer inline (it was a call per instruction), the others not.
    #[inline(always)]
    pub fn step(&mut self, inst: &DecodedInst, vcpu: u16) -> bool {
        matches!(self.roi, Roi::Whole) || self.step_in_region(inst, vcpu)
    }

    #[inline(never)]
    fn step_in_region(&mut self, inst: &DecodedInst, vcpu: u16) -> bool {
        let v = vcpu as usize;
        if v >= self.threads.len() {
            self.threads.resize(v + 1, ThreadState::default());
        }
        let st = &mut self.threads[v];
        match &self.roi {
            Roi::Whole => true,
            Roi::Range { start, end } => (*start..*end).contains(&inst.address.wrapping_sub(self.bias)),
            Roi::Function { start, .. } => {
                if !st.active {
                    if inst.address.wrapping_sub(self.bias) != *start {
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

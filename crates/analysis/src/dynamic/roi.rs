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

/// Follows the program and says whether each executed instruction is in the region.
pub struct RoiTracker {
    roi: Roi,
    active: bool,
    /// Call depth inside the function region (calls made by the function itself).
    depth: u32,
    pub entries: u64,
}

impl RoiTracker {
    pub fn new(roi: Roi) -> Self {
        let active = matches!(roi, Roi::Whole);
        Self { roi, active, depth: 0, entries: 0 }
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

    /// Whether `inst` (about to execute) belongs to the region.
    #[inline]
    pub fn step(&mut self, inst: &DecodedInst) -> bool {
        match &self.roi {
            Roi::Whole => true,
            Roi::Range { start, end } => (*start..*end).contains(&inst.address),
            Roi::Function { start, .. } => {
                if !self.active {
                    if inst.address != *start {
                        return false;
                    }
                    self.active = true;
                    self.depth = 0;
                    self.entries += 1;
                }
                match inst.branch {
                    BranchKind::DirectCall | BranchKind::IndirectCall => self.depth += 1,
                    BranchKind::Return => {
                        if self.depth == 0 {
                            self.active = false; // this ret leaves the function; it still counts
                        } else {
                            self.depth -= 1;
                        }
                    }
                    _ => {}
                }
                true
            }
            Roi::Markers => {
                if inst.bytes == MARKER_BEGIN {
                    if !self.active {
                        self.entries += 1;
                    }
                    self.active = true;
                    false
                } else if inst.bytes == MARKER_END {
                    self.active = false;
                    false
                } else {
                    self.active
                }
            }
        }
    }
}

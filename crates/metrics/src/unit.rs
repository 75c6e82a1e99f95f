//! What a Top-Down node's value is a fraction of: Intel's `CountDomain`.
//!
//! In Intel's TMA some nodes are fractions of pipeline slots and their children
//! fractions of clock cycles (or of retired uops), so a child can exceed its
//! parent by design: Backend_Bound is 45 % of slots while L1_Bound, a fraction
//! of cycles, may be 49 % under Memory_Bound. Toplev prints the unit beside each
//! value (`% Slots`, `% Clocks`); so do we. The units below are the ones the
//! Intel tables use for tree nodes (the metrics JSON's `CountDomain`, the
//! spreadsheet's `Count Domain` column); AMD's pipeline metrics are all
//! fractions of dispatch slots, and the built-in tables name theirs.
//!
//! [`Basis`] groups the units by the total they divide by; the normalized value
//! of [`crate::tree`] converts between bases.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The unit of a Top-Down node's value (Intel's spelling in JSON and tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Unit {
    /// Fraction of pipeline slots (issue width × cycles).
    Slots,
    /// Fraction of slots, estimated from events that are not slot counts.
    #[serde(rename = "Slots_Estimated")]
    SlotsEstimated,
    /// Fraction of retired uops (of the slots that retired).
    Uops,
    /// Fraction of the thread's unhalted clock cycles.
    Clocks,
    /// Fraction of cycles, estimated (event count × an assumed latency).
    #[serde(rename = "Clocks_Estimated")]
    ClocksEstimated,
    /// Fraction of cycles, calculated from other nodes.
    #[serde(rename = "Clocks_Calculated")]
    ClocksCalculated,
    /// Fraction of cycles, from retired-instruction (precise) events.
    #[serde(rename = "Clocks_Retired")]
    ClocksRetired,
    /// Fraction of cycles in which execution stalled.
    Stalls,
    /// Fraction of the core's cycles (both SMT threads).
    #[serde(rename = "Core_Clocks")]
    CoreClocks,
    /// Per-core-cycle rate of an event.
    #[serde(rename = "Core_Utilization")]
    CoreUtilization,
    /// Fraction of the core's execution-port capacity.
    #[serde(rename = "Core_Execution")]
    CoreExecution,
}

/// The total a unit divides by, which decides how a value converts to a share
/// of all slots (see [`crate::tree`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Basis {
    /// Pipeline slots: already a share of all slots.
    Slots,
    /// Retired uops: a share of the retired slots (Retiring).
    RetiredUops,
    /// Cycles (thread or core) or per-cycle capacity: a cycle holds W slots,
    /// so a fraction of cycles is the share of all slots in those cycles.
    Clocks,
}

impl Unit {
    /// Every unit.
    pub const ALL: [Unit; 11] = [
        Unit::Slots,
        Unit::SlotsEstimated,
        Unit::Uops,
        Unit::Clocks,
        Unit::ClocksEstimated,
        Unit::ClocksCalculated,
        Unit::ClocksRetired,
        Unit::Stalls,
        Unit::CoreClocks,
        Unit::CoreUtilization,
        Unit::CoreExecution,
    ];

    /// Intel's spelling (`Slots`, `Clocks_Estimated`), as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Slots => "Slots",
            Unit::SlotsEstimated => "Slots_Estimated",
            Unit::Uops => "Uops",
            Unit::Clocks => "Clocks",
            Unit::ClocksEstimated => "Clocks_Estimated",
            Unit::ClocksCalculated => "Clocks_Calculated",
            Unit::ClocksRetired => "Clocks_Retired",
            Unit::Stalls => "Stalls",
            Unit::CoreClocks => "Core_Clocks",
            Unit::CoreUtilization => "Core_Utilization",
            Unit::CoreExecution => "Core_Execution",
        }
    }

    /// The unit with Intel's spelling, if it is one of ours.
    pub fn from_name(name: &str) -> Option<Unit> {
        Unit::ALL.into_iter().find(|u| u.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Toplev's short form (`Slots_est`, `Clocks_calc`) for text columns.
    pub fn short(self) -> &'static str {
        match self {
            Unit::SlotsEstimated => "Slots_est",
            Unit::ClocksEstimated => "Clocks_est",
            Unit::ClocksCalculated => "Clocks_calc",
            other => other.name(),
        }
    }

    /// The total the unit divides by.
    pub fn basis(self) -> Basis {
        match self {
            Unit::Slots | Unit::SlotsEstimated => Basis::Slots,
            Unit::Uops => Basis::RetiredUops,
            _ => Basis::Clocks,
        }
    }
}

impl fmt::Display for Unit {
    /// The text form of a value's unit: `% Slots`, `% Clocks_est`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "% {}", self.short())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_text_and_serde() {
        for u in Unit::ALL {
            assert_eq!(Unit::from_name(u.name()), Some(u));
            let json = serde_json::to_string(&u).unwrap();
            assert_eq!(json, format!("\"{}\"", u.name()));
            assert_eq!(serde_json::from_str::<Unit>(&json).unwrap(), u);
        }
        assert_eq!(Unit::from_name("Scaled_Slots"), None);
        assert_eq!(Unit::ClocksEstimated.to_string(), "% Clocks_est");
        assert_eq!(Unit::Uops.basis(), Basis::RetiredUops);
        assert_eq!(Unit::Stalls.basis(), Basis::Clocks);
    }
}

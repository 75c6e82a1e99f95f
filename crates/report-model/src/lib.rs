//! The typed report models: every result type a report renders (text, JSON,
//! CSV, HTML), as plain data. The crates that compute them (`views`,
//! `simulate`, `functional`, `timing`, `analysis`) build these types and
//! re-export them; `report` renders them without depending on any of those.
//!
//! | module | holds |
//! | --- | --- |
//! | `block` | a static analysis (`analyze`): [`BlockReport`], its rows, [`LoopAnalysis`] |
//! | `run` | a dynamic run (`run`): [`DynamicReport`], its rows, the [`Roi`], the processes |
//! | `sampling` | a sampled run's estimates and intervals ([`SamplingSummary`]) |
//! | `verdict` | the ranked causes and their evidence ([`Verdict`]) |
//! | `accounting` | Top-Down trees, stacks, cycle accounting, idealization rows ([`AccountingReport`]) |
//! | `views` | the views' results ([`CpiStacks`], [`FlopsStack`], [`StallCauses`]...) |
//! | `sensitivity` | sensitivity points and ranked bottlenecks |
//! | `functional` | the functional layer's counters ([`FunctionalStats`]) |

pub mod accounting;
pub mod block;
pub mod functional;
pub mod run;
pub mod sampling;
pub mod sensitivity;
pub mod verdict;
pub mod views;

pub use accounting::{find_node, AccountingReport, IdealizationRow, StageComponents, TopDownNode, VendorTopDown};
pub use block::{Assumption, BlockReport, InstructionRow, LoopAnalysis, ResourceUsage, UnknownForm, UnsupportedSummary, ASSUMED_ITERATIONS_PER_ENTRY};
pub use functional::{BranchStats, CacheStats, FunctionalStats, Idealization, KindCounters, LevelStats, TlbLevelStats, TlbStats};
pub use run::{AppliedAcceleration, DynamicReport, FileShare, HotInstruction, HotspotRow, LoopReport, LoopTableRow, ProcessRow, ProcessTotal, Roi, RoiReport, SamplingReport};
pub use sampling::{Interval, SamplingSummary, ShareInterval};
pub use sensitivity::{Bottleneck, SensitivityPoint, SlowerWhenFaster};
pub use verdict::Verdict;
pub use views::{CpiStacks, CycleAccounting, FlopsStack, PenaltyTerm, SlotAccounting, StallCauses, TimelineRow, ViewsSampling, COMPONENTS as CPI_COMPONENTS, FLOPS_COMPONENTS};

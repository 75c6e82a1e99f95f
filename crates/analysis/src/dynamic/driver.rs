//! `bottlenose run`: a real program under QEMU, every executed instruction
//! decoded once, simulated once by the functional layer, and timed by the
//! baseline core plus every sensitivity variant in one pass.

use super::engine::{Batch, DynRecord, Sampling, VariantEngine, VariantOutcome};
use crate::accounting::{AccountingReport, Ideal};
use super::roi::{Roi, RoiPlacement, RoiTracker};
use super::sampling::{self, unit_costs::UnitCosts, LiveEstimate, Sampler, SamplingOptions};
use super::symbolize::{attribute_run, dso_name, objdump_address, objdump_asm, MappingLog, WithMappings};
use super::strings::{Fed, StringCollapser, StringRun, StringSpan};
use crate::bottleneck::{rank, Bottleneck};
use crate::knobs::Knob;
use crate::sensitivity::SensitivityPoint;
use crate::static_loop::UnsupportedSummary;
use bottlenose_decode::{decode_one_for, BranchKind, DecodedInst, Isa};
use bottlenose_functional::{FunctionalCounts, FunctionalLayer, FunctionalStats, Idealization, MemLevel, Prefetcher};
use bottlenose_listeners::{AccountingViews, InstructionCost, SharedFacts, StallCauseCounter, StallCauses, StaticFacts, ViewParams};
use bottlenose_machine::Machine;
use bottlenose_sources::qemu::{read_stream, trace_run, ExecutedInsn, GuestExit, InstructionStream, ProcessEvents, QemuError, QemuRun, StreamSummary, TraceStream};
use super::access_span::AccessSpan;
use bottlenose_timing::{resolve, Acceleration, BatchPart, CoreConfig, CoreKnob, DynInfo, InstrTiming, StringWork, UnknownForm};
use serde::Serialize;
use std::num::NonZeroU64;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const BATCH: usize = 1 << 12;

/// Cycles a taken branch loses when its target was not in the BTB (decode-time resteer).
const BTB_MISS_PENALTY: f64 = 6.0;

pub struct DynamicOptions {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub roi: Roi,
    /// Keep caches and predictors warm outside the region of interest.
    pub warm: bool,
    pub weights: Vec<f64>,
    /// Resources accelerated one at a time (`None`: every port group and core/memory knob).
    pub resources: Option<Vec<String>>,
    pub combine: Vec<Vec<String>>,
    pub sensitivity: bool,
    pub max_instructions: Option<NonZeroU64>,
    pub threads: usize,
    pub prefetcher: Prefetcher,
    pub idealization: Idealization,
    /// Set by a Ctrl-C handler: stop QEMU and report what was simulated.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Called about every million simulated instructions with (executed, simulated).
    pub progress: Option<Box<dyn FnMut(u64, u64) + Send>>,
    /// Where the file of a range or function region is: the region moves to
    /// where the guest maps that file (`None` for whole-program and marker regions).
    pub roi_placement: Option<RoiPlacement>,
    /// Resources accelerated in the baseline itself (a what-if run): (name, weight).
    pub baseline: Vec<(String, f64)>,
    /// Idealization experiments run beside the baseline (Eyerman §IV).
    pub idealize: IdealizeLevel,
    /// Time the sensitivity variants on one window of [`SAMPLE_WINDOW_INSTRUCTIONS`] in
    /// every `n` (`None`: on the whole stream, exactly).
    pub sample_every: Option<u32>,
    /// Run the accounting views (Top-Down, stacks, cycle accounting) on the
    /// baseline (`run --no-views` turns them off: the report's views are then empty).
    pub accounting_views: bool,
    /// After the first [`EXACT_VIEW_BATCHES`] batches, count the views on one
    /// batch in every `n` (after a warm-up on the instructions before it) instead of on every
    /// instruction (`None`: exactly throughout).
    pub sample_views: Option<u32>,
    /// Trace the processes the program starts (forks, execs), as `perf stat`
    /// does; false (`run --no-inherit`) stays with the first.
    pub follow_children: bool,
    /// Sampled simulation (SMARTS) past a threshold (`None`: every instruction timed).
    pub sampling: Option<SamplingOptions>,
    /// Called with the progress calls while a sampled run has an estimate: (simulated, estimate).
    pub on_estimate: Option<Box<dyn FnMut(u64, LiveEstimate) + Send>>,
}

/// Where a process's trace comes from.
pub(super) enum Source {
    /// The program bottlenose started: QEMU is our child, stopped by SIGKILL
    /// when the run stops it.
    Root(QemuRun),
    /// A process that connected to the hub; when the run stops simulating it,
    /// it runs on untraced.
    Child(TraceStream),
}

/// Length of one sampling window of a sampled sensitivity sweep.
pub const SAMPLE_WINDOW_INSTRUCTIONS: u64 = 16 * BATCH as u64;

/// Sampled views count the first 1 Mi instructions exactly: a run that ends
/// within them is an exact run, and a long one starts from an exact picture of
/// its start-up.
pub const EXACT_VIEW_BATCHES: u64 = (1 << 20) / BATCH as u64;

/// How a run's sensitivity was sampled.
#[derive(Debug, Clone, Serialize)]
pub struct SamplingReport {
    pub every: u32,
    pub window_instructions: u64,
}

/// Which idealizations a run simulates beside the baseline. Each one that
/// changes the functional layer (perfect icache, dcache, branch prediction)
/// runs its own functional layer on the same QEMU stream and its own timing
/// core; the 1-cycle ALU is one more timing variant of the baseline stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdealizeLevel {
    Off,
    /// The four single idealizations (3 extra functional layers, 4 extra timing cores).
    #[default]
    Singles,
    /// The singles and the six pairs (6 extra functional layers, 10 extra timing cores).
    Pairs,
}

/// One row of the hottest instructions.
#[derive(Debug, Clone, Serialize)]
pub struct HotInstruction {
    /// The address objdump shows in `dso` (hex), or the guest address of JIT code.
    pub address: String,
    /// The file the instruction is in (`None`: JIT or unmapped code).
    pub dso: Option<String>,
    pub asm: String,
    pub executions: u64,
    pub cycles: f64,
    pub share: f64,
    pub mispredicts: u64,
}

/// Where the cycles went, by source line (DWARF) or function.
pub type HotspotRow = bottlenose_attribution::Hotspot;

/// Gus Table 1 for one loop: per-instruction share of each resource's capacity
/// over the cycles the loop took.
#[derive(Debug, Clone, Serialize)]
pub struct LoopTableRow {
    pub address: String,
    pub asm: String,
    pub executions: u64,
    /// Cycles charged to the instruction at retirement, and their fraction of the loop's.
    pub cycles: f64,
    pub share: f64,
    pub uops: u32,
    pub latency: f64,
    pub usage: std::collections::BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LoopReport {
    /// The header's address as objdump shows it in `dso` (hex).
    pub head: String,
    pub dso: Option<String>,
    pub function: Option<String>,
    pub iterations: u64,
    pub cycles: f64,
    pub share: f64,
    pub depth: u32,
}

/// One resource of a what-if run and the weight its capacity was multiplied by.
#[derive(Debug, Clone, Serialize)]
pub struct AppliedAcceleration {
    pub resource: String,
    pub weight: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RoiReport {
    #[serde(flatten)]
    pub roi: Roi,
    pub description: String,
    pub entries: u64,
    pub instructions: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DynamicReport {
    /// The ranked causes of the run's time with every view's evidence, and the
    /// same for its hottest functions and loops (see `verdict`).
    pub verdict: crate::verdict::Verdict,
    pub machine: String,
    pub program: String,
    pub args: Vec<String>,
    /// "exited with code 0", "killed by signal 11 (SIGSEGV)", ...
    pub exit: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// False when the run was cut short (crash, interrupt, instruction limit): the report covers what ran.
    pub complete: bool,
    pub interrupted: bool,
    /// Why the report is partial: "instruction limit", "interrupted", "killed by signal N (..)",
    /// "trace ended early (exec or QEMU died)"; `None` for a complete run.
    pub stop_reason: Option<String>,
    pub instructions_executed: u64,
    pub instructions_simulated: u64,
    pub cycles: f64,
    pub ipc: f64,
    pub roi: RoiReport,
    pub sensitivity: Vec<SensitivityPoint>,
    /// Present when the sensitivity variants were timed on sampled windows only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitivity_sampling: Option<SamplingReport>,
    pub bottlenecks: Vec<Bottleneck>,
    pub stall_causes: StallCauses,
    pub functional: FunctionalStats,
    pub prefetcher: String,
    /// Resources accelerated in the baseline itself (`run --accelerate`): every
    /// number of the report is for this faster (or slower) core. Empty for the machine as described.
    pub acceleration: Vec<AppliedAcceleration>,
    pub hot_instructions: Vec<HotInstruction>,
    /// Source lines (or functions without line information) by cycles.
    pub hotspots: Vec<HotspotRow>,
    pub functions: Vec<HotspotRow>,
    pub loops: Vec<LoopReport>,
    /// The per-instruction resource table of the hottest loop (Gus Table 1).
    pub hottest_loop: Vec<LoopTableRow>,
    /// Head address of that loop (one of `loops`).
    pub hottest_loop_head: Option<String>,
    pub unsupported_instructions: UnsupportedSummary,
    /// Static instructions seen (decoded once each).
    pub static_instructions: usize,
    #[serde(skip)]
    pub statics: Vec<StaticInstruction>,
    #[serde(skip)]
    pub cost: InstructionCost,
    /// Top-Down tree and events, CPI and FLOPS stacks, cycle accounting, idealization.
    #[serde(flatten)]
    pub accounting: AccountingReport,
    /// Every process traced: the program, then the processes it started (forks
    /// and execs) in the order they began. The rest of the report details the
    /// one marked `detailed` (the most cycles); `exit` is the first one's.
    pub processes: Vec<super::processes::ProcessRow>,
    /// Instructions and cycles of all the processes together.
    pub total: super::processes::ProcessTotal,
    /// What was not traced, and why (one line each).
    pub untraced: Vec<String>,
    /// A sampled run: its design, and every estimate's confidence interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<sampling::report::SamplingSummary>,
}

/// A static instruction of the run with its per-instruction totals.
#[derive(Debug, Clone)]
pub struct StaticInstruction {
    pub inst: DecodedInst,
    pub timing: InstrTiming,
}

#[derive(Debug, thiserror::Error)]
pub enum DynamicError {
    #[error(transparent)]
    Qemu(#[from] QemuError),
    #[error(transparent)]
    Analysis(#[from] crate::AnalysisError),
}

/// The knob sets of a dynamic run: the user's list, or every group and core/memory knob.
fn knob_sets(machine: &Machine, opts: &DynamicOptions) -> Result<Vec<Vec<Knob>>, crate::AnalysisError> {
    crate::knobs::knob_sets(machine, opts.resources.as_deref(), &opts.combine, || {
        let mut v: Vec<Vec<Knob>> = (0..machine.groups.len() as u16).map(|g| vec![Knob::of_group(machine, g)]).collect();
        v.extend(crate::knobs::core_knobs(true).map(|k| vec![k]));
        // Balanced code speeds up only when co-limiting resources grow together. Static
        // analysis picks the saturated set from the block's usage; a dynamic run must fix
        // its variants before the stream starts, so it tries the sets that co-limit most
        // often: the in-order width (dispatch and retire) and the execution ports, each
        // also with latency (a recurrence as long as the throughput bound hides behind it).
        let width = vec![Knob::Core(CoreKnob::Frontend), Knob::Core(CoreKnob::Commit)];
        let ports: Vec<Knob> = (0..machine.units.len() as u16).map(Knob::Unit).collect();
        for set in [width, ports] {
            let mut with_latency = set.clone();
            with_latency.push(Knob::Core(CoreKnob::Latency));
            v.push(set);
            v.push(with_latency);
        }
        v
    })
}

type Views = ((StallCauseCounter, InstructionCost), (AccountingViews, UnitCosts));

/// The functional side of one stream: caches, TLBs, predictors and the fetch state.
struct Front {
    functional: FunctionalLayer,
    last_fetch_line: u64,
    /// The last fetched line missed L1I (a next-line miss then continues a stream).
    last_line_missed: bool,
    pending_fetch_stall: f64,
    /// Fetch bubble of the taken branch just executed, charged to its target.
    pending_bubble: f64,
    l1_fetch: f64,
    last_window: u64,
    prev_taken: bool,
    bubbles: TakenBubbles,
}

/// Frontend bubbles of correctly predicted taken branches (machine `[branch]`).
struct TakenBubbles {
    taken: f64,
    ret: f64,
    indirect: f64,
}

impl Front {
    fn new(machine: &Machine, idealization: Idealization, prefetcher: Prefetcher) -> Self {
        let functional = FunctionalLayer::with_prefetcher(&machine.params, idealization, prefetcher);
        let l1_fetch = functional.fetch_latency(MemLevel::L1);
        Front {
            functional,
            last_fetch_line: u64::MAX,
            last_line_missed: false,
            pending_fetch_stall: 0.0,
            pending_bubble: 0.0,
            l1_fetch,
            last_window: u64::MAX,
            prev_taken: true,
            bubbles: TakenBubbles {
                taken: machine.params.branch.taken_bubble,
                ret: machine.params.branch.return_bubble,
                indirect: machine.params.branch.indirect_bubble,
            },
        }
    }

    /// Resets `info` for a new instruction at `vaddr` and fills in its frontend facts:
    /// the stall and bubble left by the instruction before, the fetch of its line (once
    /// per line) and whether it starts a fetch block.
    #[inline(always)]
    fn fetch(&mut self, vaddr: u64, stat: &StaticInstruction, info: &mut DynInfo) {
        *info = DynInfo {
            fetch_stall: self.pending_fetch_stall as f32,
            btb_stall: self.pending_fetch_stall as f32,
            fetch_bubble: self.pending_bubble as f32,
            ..Default::default()
        };
        self.pending_fetch_stall = 0.0;
        self.pending_bubble = 0.0;
        // instruction fetch, once per line
        let line = vaddr >> 6;
        if line != self.last_fetch_line {
            let sequential = line == self.last_fetch_line.wrapping_add(1);
            self.last_fetch_line = line;
            let f = self.functional.inst_fetch(vaddr);
            let missed = f.level != MemLevel::L1;
            if missed || f.tlb_cycles > 0.0 {
                info.fetch_stall += ((self.functional.fetch_latency(f.level) - self.l1_fetch).max(0.0) + f.tlb_cycles) as f32;
                info.fetch_stream = missed && sequential && self.last_line_missed;
            }
            self.last_line_missed = missed;
        }
        // fetch blocks end at taken branches and at the machine's window boundaries
        let window = stat.timing.fetch_window;
        info.new_fetch_block = self.prev_taken || window != self.last_window;
        self.last_window = window;
        self.prev_taken = false;
    }

    #[inline(always)]
    fn fill_executed(&mut self, executed: &Executed<'_, '_>, stat: &StaticInstruction, info: &mut DynInfo) {
        match executed {
            Executed::Plain(insn) => self.fill(insn, stat, info),
            Executed::String(run) => self.fill_string(run, stat, info),
        }
    }

    /// The dynamic facts of one execution of a string instruction: its frontend as for
    /// any instruction, then each line its memory streams covered, once, in the order it
    /// touched them (the streams interleaved, as its loads and stores are); the line
    /// transfers that took, its prefetches' included, go into `info.string`. Only the first
    /// page's translation delays it: the walks for the pages after it find their page-table
    /// entries in lines the walk before brought in, and overlap with the transfers.
    #[inline(never)]
    fn fill_string(&mut self, run: &StringRun, stat: &StaticInstruction, info: &mut DynInfo) {
        self.fetch(run.vaddr, stat, info);
        let shift = self.functional.caches.data_line_shift();
        let mut fills = [0u32; 3];
        let count = |fills: &mut [u32; 3], level: MemLevel| {
            for f in &mut fills[..level_index(level) as usize] {
                *f = f.saturating_add(1);
            }
        };
        let lines = |s: &StringSpan| {
            let (lo, hi) = s.bytes();
            (lo >> shift, hi >> shift)
        };
        let longest = run.spans().iter().map(|s| lines(s).1 - lines(s).0 + 1).max().unwrap_or(0);
        let mut tlb = 0.0;
        for k in 0..longest {
            for s in run.spans() {
                let (first, last) = lines(s);
                if k > last - first {
                    continue;
                }
                let line = if s.descending() { last - k } else { first + k };
                let o = self.functional.data_access(line << shift, 1, s.is_store);
                count(&mut fills, o.level);
                if k == 0 {
                    tlb = o.tlb_cycles.max(tlb);
                }
                for &(_, from) in self.functional.caches.take_prefetches().as_slice() {
                    count(&mut fills, from);
                }
            }
        }
        // dirty lines the string's fills pushed out take the same links
        for (f, wb) in fills.iter_mut().zip(self.functional.caches.take_writebacks()) {
            *f = f.saturating_add(wb as u32);
        }
        info.load_extra_latency = tlb as f32;
        info.string = StringWork { elements: run.elements, fills };
    }

    /// The dynamic facts of one executed instruction (and the functional layer's update),
    /// written in place: into the batch's next record on the hot path (a returned
    /// `DynInfo` copied into the batch made the copy's loads wait for the
    /// field-by-field stores that built it, the hottest spot of the producer).
    #[inline]
    fn fill(&mut self, insn: &ExecutedInsn<'_>, stat: &StaticInstruction, info: &mut DynInfo) {
        let inst = &stat.inst;
        self.fetch(insn.vaddr, stat, info);
        // QEMU reports a wide access in pieces (a ymm load as 8-byte reads), so a line split
        // is judged on the instruction's contiguous span of loads and of stores
        let (mut loads, mut stores) = (AccessSpan::default(), AccessSpan::default());
        for m in insn.mem() {
            if m.is_store { &mut stores } else { &mut loads }.add(m.vaddr, m.size as u64);
            let o = self.functional.data_access(m.vaddr, m.size as u32, m.is_store);
            let level = level_index(o.level);
            if m.is_store {
                info.store_level = info.store_level.max(level);
                if info.store_addr.is_none() {
                    info.store_addr = NonZeroU64::new(m.vaddr);
                }
            } else {
                info.load_level = info.load_level.max(level);
                if info.load_addr.is_none() {
                    info.load_addr = NonZeroU64::new(m.vaddr);
                }
                info.load_extra_latency += o.tlb_cycles as f32;
            }
        }
        info.lines.set_writebacks(self.functional.caches.take_writebacks());
        let line_shift = self.functional.caches.data_line_shift();
        if loads.spans_two_lines(line_shift) {
            info.lines.set_load_split();
        }
        if stores.spans_two_lines(line_shift) {
            info.lines.set_store_split();
        }
        let started = self.functional.caches.take_prefetches();
        if let Some(&(line, from)) = started.as_slice().first() {
            info.prefetch_line = NonZeroU64::new(line);
            info.prefetch_level = level_index(from);
            // a second line rides along as a delta (DynInfo stays small); more are not timed
            if let Some(&(second, from2)) = started.as_slice().get(1) {
                let lines = (second.wrapping_sub(line) as i64) >> self.functional.caches.data_line_shift();
                if let Ok(d) = i8::try_from(lines) {
                    info.prefetch_next_lines = d;
                    info.prefetch_level = info.prefetch_level.max(level_index(from2));
                }
            }
        }
        if inst.branch != BranchKind::None && inst.branch != BranchKind::Other {
            let fallthrough = insn.vaddr + inst.len as u64;
            let next = insn.next_vaddr.unwrap_or(fallthrough);
            let taken = next != fallthrough;
            self.prev_taken = taken;
            let o = self.functional.branch(insn.vaddr, inst.branch, taken, next, fallthrough);
            info.mispredicted = o.mispredicted;
            if o.btb_miss && taken && !o.mispredicted {
                self.pending_fetch_stall += BTB_MISS_PENALTY;
            }
            if taken && !o.mispredicted {
                self.pending_bubble += match inst.branch {
                    BranchKind::Return => self.bubbles.ret,
                    BranchKind::IndirectJump | BranchKind::IndirectCall => self.bubbles.indirect,
                    _ => 0.0,
                } + self.bubbles.taken;
            }
        }
    }
}

/// What executed: one report of QEMU's, or a string instruction collapsed from its reports.
enum Executed<'a, 'b> {
    Plain(&'a ExecutedInsn<'b>),
    String(&'a StringRun),
}

/// Entering the region of interest puts back its counters; leaving it keeps
/// them, so that the report counts the region only, warm or cold.
#[cold]
fn roi_boundary(functional: &mut FunctionalLayer, roi_counts: &mut FunctionalCounts, entering: bool) {
    if entering {
        functional.restore_counts(*roi_counts);
    } else {
        *roi_counts = functional.counts();
    }
}

/// An idealized stream: its own functional layer and timing core(s) on the same instructions.
struct IdealStream {
    /// The idealizations of each timing variant of the stream (variant 1, if any, adds the 1-cycle ALU).
    sets: Vec<Vec<Ideal>>,
    front: Front,
    engine: VariantEngine<()>,
    batch: Batch,
}

struct Pipeline<'m> {
    machine: &'m Machine,
    engine: VariantEngine<Views>,
    front: Front,
    ideal: Vec<IdealStream>,
    facts: SharedFacts,
    roi: RoiTracker,
    warm: bool,
    /// Whether the previous instruction was in the region of interest.
    was_in_roi: bool,
    /// The functional layer's counters of the region so far, kept while the code
    /// around the region warms the caches and predictors without being counted.
    roi_counts: FunctionalCounts,
    /// static id (QEMU) -> index into `statics` (u32::MAX: not decoded yet)
    by_static_id: Vec<u32>,
    statics: Vec<StaticInstruction>,
    unknown: Vec<UnknownForm>,
    /// Repeated string instructions collapsed into one execution each.
    strings: StringCollapser,
    batch: Batch,
    executed: u64,
    simulated: u64,
    limit: u64,
    stopped: bool,
    /// The static instruction QEMU reported last (the faulting one when the guest dies of SIGILL).
    last_index: u32,
    /// The guest's mappings so far, and how many of them were looked at.
    maps: MappingLog,
    maps_seen: usize,
    roi_placement: Option<RoiPlacement>,
    /// Per static instruction: how many mappings were known when it was first seen.
    maps_known: Vec<u32>,
    /// A sampled run's schedule; the batch being filled is timed as `part`, or
    /// not at all (fast-forward: `None`), `fast_forwarded` instructions into it.
    sampler: Option<Sampler>,
    part: Option<BatchPart>,
    fast_forwarded: usize,
    /// Executions and mispredictions the timing model did not see, by static index.
    untimed: Vec<(u64, u64)>,
}

impl Pipeline<'_> {
    fn statics_index(&mut self, insn: &ExecutedInsn<'_>) -> usize {
        let sid = insn.static_id as usize;
        if sid >= self.by_static_id.len() {
            self.by_static_id.resize((sid + 1).next_power_of_two(), u32::MAX);
        }
        let known = self.by_static_id[sid];
        if known != u32::MAX {
            return known as usize;
        }
        let isa = self.machine.isa;
        let inst = decode_one_for(isa, insn.bytes, insn.vaddr)
            .or_else(|e| if isa == Isa::X86_64 { decode_padded(insn) } else { Err(e) })
            .unwrap_or_else(|_| undecodable(isa, insn));
        let prev = if insn.index_in_tb > 0 {
            self.by_static_id.get(sid - 1).filter(|&&i| i != u32::MAX).map(|&i| &self.statics[i as usize].inst)
        } else {
            None
        };
        let timing = resolve(self.machine, &inst, prev);
        if timing.unknown_form {
            self.unknown.push(UnknownForm { form: inst.form.clone(), asm: inst.asm.clone(), address: inst.address });
        }
        let known = self.maps.borrow().len();
        if known != self.maps_seen {
            self.new_mappings(known);
        }
        self.maps_known.push(known as u32);
        let index = self.statics.len();
        self.facts.push(index, StaticFacts::new(self.machine, &inst, &timing));
        for st in &mut self.ideal {
            st.batch.new_instructions.push(timing.clone());
        }
        self.batch.new_instructions.push(timing.clone());
        self.statics.push(StaticInstruction { inst, timing });
        self.by_static_id[sid] = index as u32;
        index
    }

    /// Mappings `maps_seen..known` arrived: the region of interest moves to its file's.
    #[cold]
    fn new_mappings(&mut self, known: usize) {
        if let Some(p) = &self.roi_placement {
            let maps = self.maps.borrow();
            if let Some(bias) = maps[self.maps_seen..known].iter().find_map(|m| p.bias_in(m.start, m.end, m.offset, &m.path)) {
                self.roi.relocate(bias);
                self.roi_placement = None;
            }
        }
        self.maps_seen = known;
    }

    #[inline]
    fn on_insn(&mut self, insn: &ExecutedInsn<'_>) {
        if self.stopped {
            return;
        }
        if let Some(run) = self.strings.interrupted(insn) {
            self.step(run.index, run.vcpu, Executed::String(&run));
        }
        let index = self.statics_index(insn);
        self.last_index = index as u32;
        if let Some(op) = self.statics[index].inst.string_op {
            // QEMU reports every element: time the instruction once, when it is done
            if let Fed::Done(run) = self.strings.feed(insn, index, op.repeats()) {
                self.step(index, run.vcpu, Executed::String(&run));
            }
            return;
        }
        self.step(index, insn.vcpu, Executed::Plain(insn));
    }

    /// One executed instruction through the region of interest, the functional layers
    /// and into the batch.
    #[inline(always)]
    fn step(&mut self, index: usize, vcpu: u16, executed: Executed<'_, '_>) {
        if self.stopped {
            return;
        }
        self.executed += 1;
        let stat = &self.statics[index];
        let inst = &stat.inst;
        let in_roi = self.roi.step(inst, vcpu);
        if in_roi != self.was_in_roi {
            roi_boundary(&mut self.front.functional, &mut self.roi_counts, in_roi);
            self.was_in_roi = in_roi;
        }
        if !in_roi && !self.warm {
            return;
        }
        if !in_roi {
            // warming only: update the functional layers, time nothing
            let mut scratch = DynInfo::default();
            self.front.fill_executed(&executed, stat, &mut scratch);
            for st in &mut self.ideal {
                st.front.fill_executed(&executed, stat, &mut scratch);
            }
            return;
        }
        if self.part.is_none() && self.sampler.is_some() {
            self.fast_forward(index, executed);
            return;
        }
        self.front.fill_executed(&executed, stat, &mut next_record(&mut self.batch.records, index).info);
        for st in &mut self.ideal {
            st.front.fill_executed(&executed, stat, &mut next_record(&mut st.batch.records, index).info);
        }
        self.simulated += 1;
        if self.batch.records.len() >= BATCH {
            self.flush();
        }
        if self.simulated >= self.limit {
            self.stopped = true;
        }
    }

    fn flush(&mut self) {
        if self.sampler.is_some() && self.batch.records.is_empty() {
            return; // the end of a sampled run between windows: nothing to time
        }
        let part = self.part.unwrap_or_default();
        let len = self.batch.records.len() as u64;
        // the next batch starts at full size: no regrowth per batch on the hot path
        let mut b = std::mem::replace(&mut self.batch, Batch { new_instructions: Vec::new(), records: self.engine.buffer(BATCH), part: BatchPart::Whole });
        b.part = part;
        self.engine.feed(b);
        for st in &mut self.ideal {
            let mut b = std::mem::replace(&mut st.batch, Batch { new_instructions: Vec::new(), records: st.engine.buffer(BATCH), part: BatchPart::Whole });
            b.part = part;
            st.engine.feed(b);
        }
        if self.sampler.is_some() {
            self.end_batch(len);
        }
    }

    /// The batch being filled is over (timed or fast-forwarded): plan the next one.
    fn end_batch(&mut self, len: u64) {
        let Some(s) = &mut self.sampler else { return };
        s.end_batch(len, self.part);
        self.engine.take_feedback(|b| s.on_cycles(b.part, b.cycles));
        self.part = s.next_batch(self.simulated);
    }

    /// One instruction between windows: the functional layers only, and its
    /// execution (and misprediction) counted for the report.
    #[inline(always)]
    fn fast_forward(&mut self, index: usize, executed: Executed<'_, '_>) {
        let stat = &self.statics[index];
        let mut scratch = DynInfo::default();
        self.front.fill_executed(&executed, stat, &mut scratch);
        let mispredicted = scratch.mispredicted as u64;
        for st in &mut self.ideal {
            st.front.fill_executed(&executed, stat, &mut scratch);
        }
        if index >= self.untimed.len() {
            self.untimed.resize((index + 1).next_power_of_two(), (0, 0));
        }
        let u = &mut self.untimed[index];
        u.0 += 1;
        u.1 += mispredicted;
        self.simulated += 1;
        self.fast_forwarded += 1;
        if self.fast_forwarded == BATCH {
            self.fast_forwarded = 0;
            self.end_batch(BATCH as u64);
        }
        if self.simulated >= self.limit {
            self.stopped = true;
        }
    }
}

/// Appends a record for static instruction `index` and returns it to be filled.
#[inline(always)]
fn next_record(records: &mut Vec<DynRecord>, index: usize) -> &mut DynRecord {
    records.push(DynRecord { id: index as u32, info: DynInfo::default() });
    records.last_mut().expect("just pushed")
}

fn level_index(l: MemLevel) -> u8 {
    match l {
        MemLevel::L1 => 0,
        MemLevel::L2 => 1,
        MemLevel::L3 => 2,
        MemLevel::Dram => 3,
    }
}

/// QEMU 7.2 sometimes reports an instruction's bytes without its trailing
/// immediate or displacement. Timing depends on prefixes, opcode and ModRM
/// only, so decode with the missing tail zero-filled.
fn decode_padded(insn: &ExecutedInsn<'_>) -> Result<DecodedInst, bottlenose_decode::DecodeError> {
    let mut bytes = [0u8; 15];
    let n = insn.bytes.len().min(15);
    bytes[..n].copy_from_slice(&insn.bytes[..n]);
    let d = decode_one_for(Isa::X86_64, &bytes, insn.vaddr)?;
    if (d.len as usize) < n {
        return Err(bottlenose_decode::DecodeError::Truncated { address: insn.vaddr });
    }
    Ok(d)
}

/// Bytes the decoder cannot decode (QEMU executed them, so they are valid somewhere;
/// on AArch64, SVE): time them as the machine's default form and report them.
fn undecodable(isa: Isa, insn: &ExecutedInsn<'_>) -> DecodedInst {
    let nop: &[u8] = match isa {
        Isa::X86_64 => &[0x90],
        Isa::Aarch64 => &[0x1f, 0x20, 0x03, 0xd5],
    };
    let mut d = decode_one_for(isa, nop, insn.vaddr).expect("nop decodes");
    d.len = insn.bytes.len() as u8;
    d.bytes = insn.bytes.to_vec();
    d.mnemonic = "(undecodable)".into();
    d.asm = format!("(undecodable: {})", insn.bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" "));
    d.form = "(undecodable)".into();
    d.is_nop = false;
    d
}

/// Simulates one process of a run from `source` and returns its report
/// (partial if it crashed or was stopped) and what its stream said about it.
/// `opts.program` and `opts.args` name what it runs; its code is named from the
/// guest's mappings.
pub(super) fn simulate(machine: &Machine, opts: &mut DynamicOptions, source: Source) -> Result<(DynamicReport, ProcessEvents), DynamicError> {
    let sets = if opts.sensitivity { knob_sets(machine, opts)? } else { vec![] };
    for &w in &opts.weights {
        crate::knobs::check_weight(w)?;
    }
    let mut baseline = Acceleration::nominal(machine);
    let mut acceleration: Vec<AppliedAcceleration> = Vec::new();
    for (name, w) in &opts.baseline {
        crate::knobs::check_weight(*w)?;
        let k = Knob::parse_or_error(machine, name)?;
        let resource = k.name(machine);
        if acceleration.iter().any(|a| a.resource == resource) {
            return Err(crate::AnalysisError::RepeatedAcceleration(resource).into());
        }
        k.apply(&mut baseline, *w);
        acceleration.push(AppliedAcceleration { resource, weight: *w });
    }
    let mut configs = vec![CoreConfig::new(machine, &baseline)];
    let mut labels = Vec::new();
    for set in &sets {
        for &w in &opts.weights {
            let mut acc = baseline.clone();
            for k in set {
                k.apply(&mut acc, w);
            }
            configs.push(CoreConfig::new(machine, &acc));
            labels.push((set.iter().map(|k| k.name(machine)).collect::<Vec<_>>(), w));
        }
    }
    // the 1-cycle ALU is a timing variant of the baseline stream
    let alu1_variant = (opts.idealize != IdealizeLevel::Off).then(|| {
        let mut c = configs[0].clone();
        c.unit_alu_latency = true;
        configs.push(c);
        configs.len() - 1
    });
    let with_views = opts.accounting_views;
    let view_params = ViewParams::new(machine, &configs[0]);
    let facts = SharedFacts::new();
    let views = AccountingViews::with_shared(view_params.clone(), facts.clone());
    let smarts = opts.sampling.clone();
    let listeners = (
        (StallCauseCounter::new(machine), InstructionCost::new()),
        (
            match (with_views, opts.sample_views) {
                (false, _) => views.disabled(),
                (true, Some(n)) => views.sampled(n as u64, EXACT_VIEW_BATCHES),
                // a sampled run counts the views on its units: exact before them
                (true, None) if smarts.is_some() => views.sampled(8, u64::MAX),
                (true, None) => views,
            },
            UnitCosts::new(smarts.is_some()),
        ),
    );
    let base_config = configs[0].clone();
    let sampling = opts.sample_every.filter(|&n| n >= 2 && configs.len() > 1 && smarts.is_none());
    let engine = match (sampling, &smarts) {
        (Some(n), _) => VariantEngine::sampled(configs, listeners, Sampling { window: 16, period: 16 * n as u64 }),
        (None, Some(_)) => VariantEngine::with_feedback(configs, listeners, opts.threads),
        (None, None) => VariantEngine::new(configs, listeners, opts.threads),
    };
    let ideal = ideal_streams(machine, opts, &base_config);
    let front = Front::new(machine, opts.idealization, opts.prefetcher);
    // what ran, not the option's name: `machine` reads as `next-line + stream 63 lines ahead`
    let prefetcher = front.functional.caches.prefetcher_description();
    let mut pipe = Pipeline {
        machine,
        engine,
        front,
        ideal,
        facts,
        roi: RoiTracker::new(opts.roi.clone()),
        warm: opts.warm,
        was_in_roi: false,
        roi_counts: FunctionalCounts::default(),
        by_static_id: Vec::new(),
        statics: Vec::new(),
        unknown: Vec::new(),
        strings: StringCollapser::new(),
        batch: Batch::default(),
        executed: 0,
        simulated: 0,
        limit: opts.max_instructions.map_or(u64::MAX, NonZeroU64::get),
        stopped: false,
        last_index: u32::MAX,
        maps: MappingLog::default(),
        maps_seen: 0,
        roi_placement: opts.roi_placement.take(),
        maps_known: Vec::new(),
        sampler: smarts.map(|o| Sampler::new(o, BATCH as u64)),
        part: Some(BatchPart::Whole),
        fast_forwarded: 0,
        untimed: Vec::new(),
    };
    let maps = pipe.maps.clone();
    if let Some(s) = &mut pipe.sampler {
        pipe.part = s.next_batch(0);
    }

    let pid = match &source {
        Source::Root(run) => Some(run.id() as libc::pid_t),
        Source::Child(_) => None,
    };
    let interrupt = opts.interrupt.clone();
    let mut progress = opts.progress.take();
    let mut on_estimate = opts.on_estimate.take();
    let mut next_progress = 1u64 << 20;
    let mut killed = false;
    let mut interrupted = false;
    let stream = InstructionStream::new(|insn: &ExecutedInsn<'_>| {
        pipe.on_insn(insn);
        if pipe.executed >= next_progress {
            next_progress += 1 << 20;
            if let Some(p) = &mut progress {
                p(pipe.executed, pipe.simulated);
            }
            if let (Some(f), Some(live)) = (&mut on_estimate, pipe.sampler.as_ref().and_then(|s| s.live(pipe.simulated))) {
                f(pipe.simulated, live);
            }
            if interrupt.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
                interrupted = true;
                pipe.stopped = true;
            }
        }
        if pipe.stopped && !killed {
            killed = true;
            if let Some(pid) = pid {
                // SAFETY: plain kill(2) of our own child process.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    });
    let mut stream = WithMappings { inner: stream, log: maps.clone() };
    let (exit, summary) = match source {
        Source::Root(run) => trace_run(run, &mut stream)?,
        Source::Child(trace) => {
            // a child's trace ends with END, an exec, or its death (mid-record when killed)
            let summary = match read_stream(trace, &mut stream) {
                Ok(s) => s,
                Err(QemuError::Truncated { .. }) => StreamSummary { started: true, ..Default::default() },
                Err(e) => return Err(e.into()),
            };
            let exit = match stream.inner.events().exit_code {
                Some(c) => GuestExit::Code(c),
                None => GuestExit::Signal { signal: 0, core_dumped: false },
            };
            (exit, summary)
        }
    };
    if !summary.complete {
        stream.inner.finish();
    }
    let events = stream.inner.events().clone();
    drop(stream);
    if interrupt.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
        interrupted = true;
    }
    // a string instruction cut off by the end of the trace ran that far
    for run in pipe.strings.finish() {
        pipe.step(run.index, run.vcpu, Executed::String(&run));
    }
    if pipe.part.is_none() && pipe.fast_forwarded > 0 {
        if let Some(s) = &mut pipe.sampler {
            s.end_batch(pipe.fast_forwarded as u64, None); // cut off between windows
        }
    }
    pipe.flush();

    let limit_hit = pipe.simulated >= pipe.limit;
    let executed = pipe.executed;
    let simulated = pipe.simulated;
    let complete = summary.complete && !killed;
    let stop_reason = if complete {
        None
    } else if interrupted {
        Some("interrupted".to_string())
    } else if limit_hit {
        Some("instruction limit".to_string())
    } else if let Some(program) = &events.exec {
        Some(format!("exec'd {program} (traced as a process of its own)"))
    } else if exit.signal().is_some_and(|s| s > 0) {
        Some(exit.to_string())
    } else if pid.is_none() {
        Some("trace ended early (killed, or still running when the first process ended)".to_string())
    } else {
        Some("trace ended early (the program called exec, or QEMU died)".to_string())
    };
    // a program we stopped ourselves did not fail: don't report our SIGKILL as its status
    let (exit_text, exit_code, signal) = if killed {
        (format!("stopped by bottlenose ({})", stop_reason.as_deref().unwrap_or("")), None, None)
    } else if exit.signal() == Some(0) {
        (stop_reason.clone().unwrap_or_default(), None, None)
    } else {
        (exit.to_string(), exit.code(), exit.signal())
    };
    if !pipe.was_in_roi {
        let counts = pipe.roi_counts;
        pipe.front.functional.restore_counts(counts); // after the region: not counted
    }
    let Pipeline { engine, front, ideal, roi, statics, unknown, last_index, maps_known, sampler, untimed, .. } = pipe;
    let functional = front.functional;
    let (mut outcomes, ((causes, mut cost), (views, unit_costs))) = engine.finish();
    let mut ideal_outcomes: Vec<(Vec<Vec<Ideal>>, Vec<VariantOutcome>)> = ideal.into_iter().map(|st| (st.sets, st.engine.finish().0)).collect();
    // a sampled run: every total becomes the estimate from its units
    let sampled = sampler.and_then(|s| {
        let all = outcomes.iter_mut().chain(ideal_outcomes.iter_mut().flat_map(|(_, o)| o.iter_mut()));
        sampling::finish::estimate(s, all, &mut cost, &untimed)
    });
    let mappings = std::mem::take(&mut *maps.borrow_mut());
    let space = bottlenose_attribution::AddressSpace::new(
        mappings,
        statics.iter().zip(&maps_known).enumerate().filter(|(i, _)| cost.get(*i).executions > 0).map(|(_, (s, &k))| (s.inst.address, k as usize)),
    );
    // unsupported forms are reported where objdump shows them
    let mut unknown = unknown;
    for u in &mut unknown {
        use bottlenose_attribution::Symbolize;
        u.address = space.dso_address(u.address).map_or(u.address, |(_, a)| a);
    }
    let base = outcomes[0].cycles.max(0.0);
    // without the views there is nothing to report (they booked nothing)
    let views_result = with_views.then(|| views.finish(base, &cost));
    let windows = views_result.as_ref().map(|r| r.windows.clone()).unwrap_or_default();
    let mut accounting = match views_result {
        Some(r) => AccountingReport::new(r, &view_params),
        None => AccountingReport::default(),
    };
    let mut ideal_results: Vec<(Vec<Ideal>, f64)> = Vec::new();
    let mut ideal_units: Vec<(String, &VariantOutcome)> = Vec::new();
    for (sets, o) in &ideal_outcomes {
        for (set, out) in sets.iter().zip(o) {
            ideal_results.push((set.clone(), out.cycles));
            ideal_units.push((set.iter().map(|i| i.name()).collect::<Vec<_>>().join("+"), out));
        }
    }
    if let Some(i) = alu1_variant {
        ideal_results.push((vec![Ideal::Alu1], outcomes[i].cycles));
        ideal_units.push((Ideal::Alu1.name().to_string(), &outcomes[i]));
    }
    ideal_results.sort_by_key(|(set, _)| (set.len(), set.iter().map(|i| Ideal::ALL.iter().position(|x| x == i).unwrap_or(9)).collect::<Vec<_>>()));
    if !ideal_results.is_empty() {
        accounting.add_idealizations(base, &ideal_results);
    }
    let sensitivity: Vec<SensitivityPoint> = labels
        .iter()
        .zip(&outcomes[1..])
        .map(|((resources, w), o)| SensitivityPoint {
            resources: resources.clone(),
            weight: *w,
            cycles_per_iteration: o.cycles,
            speedup: if o.cycles > 0.0 { base / o.cycles - 1.0 } else { 0.0 },
            // a run is not repeatable per instruction as a block is: not explained here
            anomaly: None,
        })
        .collect();
    let bottlenecks = rank(&sensitivity, &opts.weights);
    let total: f64 = cost.total_cycles().max(1e-9);
    // the 40 hottest, named and decoded at their file addresses once chosen
    let mut hottest: Vec<(usize, f64)> = (0..statics.len()).map(|i| (i, cost.get(i).cycles)).filter(|&(i, _)| cost.get(i).executions > 0).collect();
    hottest.sort_by(|a, b| b.1.total_cmp(&a.1));
    hottest.truncate(40);
    let hot: Vec<HotInstruction> = hottest
        .into_iter()
        .map(|(i, _)| (cost.get(i), &statics[i]))
        .map(|(c, s)| HotInstruction {
            address: objdump_address(&space, s.inst.address),
            dso: dso_name(&space, s.inst.address),
            asm: objdump_asm(&space, &s.inst),
            executions: c.executions,
            cycles: c.cycles,
            share: c.cycles / total,
            mispredicts: c.mispredicts,
        })
        .collect();
    let ((hotspots, functions, loops, hottest_loop, hottest_loop_head, hottest_loop_at), all_loops) = attribute_run(machine, &space, &statics, &cost);
    let sampling_summary = sampled.map(|run| {
        let shown: Vec<String> = functions.iter().take(sampling::report::FUNCTIONS_SHOWN).map(|f| f.function.clone()).collect();
        let function_of = |i: usize| statics.get(i).map(|s| bottlenose_attribution::function_label(Some(&space), s.inst.address)).unwrap_or_default();
        run.summary(&labels, &outcomes, &ideal_units, &windows, simulated, unit_costs, function_of, &shown)
    });

    let mut report = DynamicReport {
        verdict: Default::default(),
        machine: machine.name.clone(),
        program: opts.program.display().to_string(),
        args: opts.args.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
        exit: exit_text,
        exit_code,
        signal,
        complete,
        interrupted,
        stop_reason,
        instructions_executed: executed,
        instructions_simulated: simulated,
        cycles: base,
        ipc: if base > 0.0 { simulated as f64 / base } else { 0.0 },
        roi: RoiReport { description: roi.roi().describe(), roi: roi.roi().clone(), entries: roi.entries, instructions: simulated },
        sensitivity,
        sensitivity_sampling: sampling.map(|every| SamplingReport { every, window_instructions: SAMPLE_WINDOW_INSTRUCTIONS }),
        bottlenecks,
        stall_causes: causes.finish(machine),
        functional: functional.stats(),
        prefetcher,
        acceleration,
        hot_instructions: hot,
        hotspots,
        functions,
        loops,
        hottest_loop,
        hottest_loop_head,
        unsupported_instructions: UnsupportedSummary { count: unknown.len(), forms: unknown },
        static_instructions: statics.len(),
        statics,
        cost,
        accounting,
        processes: Vec::new(),
        total: Default::default(),
        untraced: Vec::new(),
        sampling: sampling_summary,
    };
    if exit.signal() == Some(libc::SIGILL) && !killed {
        if let Some(last) = report.statics.get(last_index as usize) {
            let why = super::illegal::explain_illegal(&last.inst, &space);
            report.stop_reason = Some(format!("{exit}: {why}"));
        }
    }
    let locate = |a: u64| {
        use bottlenose_attribution::Symbolize;
        (Some(space.label(a)), space.line_at(a).map(|(f, l)| format!("{f}:{l}")))
    };
    let objdump = |a: u64| {
        use bottlenose_attribution::Symbolize;
        space.dso_address(a).map_or((a, None), |(d, at)| (at, Some(d.to_string())))
    };
    report.verdict = crate::verdict::of_run(
        machine,
        &report,
        &crate::verdict::RunContext { loops: &all_loops, locate: &locate, objdump: &objdump, hottest_loop: hottest_loop_at },
    );
    Ok((report, events))
}

/// The idealized streams of a run: one functional layer (and timing engine) per
/// idealization of the functional layer; with pairs, each single also times the
/// 1-cycle ALU on top, and the three pairs of functional idealizations get their own.
fn ideal_streams(machine: &Machine, opts: &DynamicOptions, base: &CoreConfig) -> Vec<IdealStream> {
    let functional: &[&[Ideal]] = match opts.idealize {
        IdealizeLevel::Off => &[],
        IdealizeLevel::Singles => &[&[Ideal::Icache], &[Ideal::Dcache], &[Ideal::Branch]],
        IdealizeLevel::Pairs => &[
            &[Ideal::Icache],
            &[Ideal::Dcache],
            &[Ideal::Branch],
            &[Ideal::Icache, Ideal::Dcache],
            &[Ideal::Icache, Ideal::Branch],
            &[Ideal::Dcache, Ideal::Branch],
        ],
    };
    functional
        .iter()
        .map(|set| {
            let mut id = opts.idealization;
            for i in *set {
                match i {
                    Ideal::Icache => id.perfect_icache = true,
                    Ideal::Dcache => id.perfect_dcache = true,
                    Ideal::Branch => id.perfect_branch = true,
                    Ideal::Alu1 => {}
                }
            }
            let mut configs = vec![base.clone()];
            let mut sets = vec![set.to_vec()];
            if opts.idealize == IdealizeLevel::Pairs && set.len() == 1 {
                let mut c = base.clone();
                c.unit_alu_latency = true;
                configs.push(c);
                let mut s = set.to_vec();
                s.push(Ideal::Alu1);
                sets.push(s);
            }
            IdealStream { sets, front: Front::new(machine, id, opts.prefetcher), engine: VariantEngine::new(configs, (), 1), batch: Batch::default() }
        })
        .collect()
}

//! What to try for each cause, naming the loop, line or instruction where the
//! report knows it.

use super::body::Body;
use super::judge::Judged;
use super::{CacheLevel, Cause};
use bottlenose_machine::Machine;

/// A branch that mispredicted, where it is.
#[derive(Debug, Clone)]
pub struct BranchSite {
    /// Guest address (identifies the instruction in the run).
    pub address: u64,
    /// Where objdump shows it: `0x4330 in gzip`.
    pub shown: String,
    pub asm: String,
    pub executions: u64,
    pub mispredicts: u64,
    /// `file:line`.
    pub source: Option<String>,
}

/// What the actions may name.
pub(crate) struct Place<'a> {
    pub machine: &'a Machine,
    /// The loop the verdict is about (a block, the run's hottest loop, a hotspot's loop).
    pub body: Option<&'a Body>,
    /// Mispredicting branches, most mispredictions first.
    pub branches: &'a [BranchSite],
}

impl Place<'_> {
    fn in_place(&self) -> String {
        self.body.map(|b| format!(" in {}", b.place)).unwrap_or_default()
    }
}

/// Whether a bandwidth knob helps more than the rate and latency knobs.
fn bandwidth_bound(j: &Judged) -> bool {
    let best = |bw: bool| {
        j.evidence
            .sensitivity
            .iter()
            .filter(|s| s.resources.len() == 1 && s.resources[0].ends_with("_bw") == bw)
            .map(|s| s.max_speedup)
            .fold(0.0, f64::max)
    };
    best(true) > best(false)
}

pub(crate) fn action(j: &Judged, p: &Place) -> String {
    let fix = fix(j, p);
    match &j.co_limited {
        Some(set) => format!("{fix} (co-limited with {}: only improving them together helps)", set.resources.iter().filter(|k| !rule_knob(j, k)).cloned().collect::<Vec<_>>().join("+")),
        None => fix,
    }
}

/// Whether `knob` is one of the cause's own knobs (its single-knob evidence).
fn rule_knob(j: &Judged, knob: &str) -> bool {
    j.evidence.sensitivity.iter().any(|s| s.resources.len() == 1 && s.resources[0] == knob)
}

fn fix(j: &Judged, p: &Place) -> String {
    let here = p.in_place();
    let chain = p.body.and_then(|b| b.recurrence.as_ref());
    // a recurrence explains the chain when it takes at least half of an
    // iteration; a 1-cycle one is a counter or a pointer bump, not a chain to break
    let binding = chain.filter(|r| r.cycles >= 2.0 && p.body.and_then(|b| b.cycles_per_iteration).is_none_or(|c| r.cycles >= 0.5 * c));
    match &j.cause {
        Cause::DependencyChain => match binding {
            Some(r) if r.through_load => format!(
                "break the chain of dependent loads{here}: each address comes from the previous load ({}: {:.0} cycles per iteration): walk several independent chains at once, or lay the data out in an array",
                r.steps.join(" -> "),
                r.cycles
            ),
            Some(r) => format!(
                "break the dependency chain through {}{here}: {} take{} {:.0} cycle{} per iteration{}: use several accumulators (or reassociate) so that iterations overlap",
                r.register,
                r.steps.join(" -> "),
                if r.steps.len() == 1 { "s" } else { "" },
                r.cycles,
                if r.cycles == 1.0 { "" } else { "s" },
                p.body.and_then(|b| b.cycles_per_iteration).map(|c| format!(" of its {c:.2}")).unwrap_or_default()
            ),
            None => format!(
                "shorten the dependency chains{here}: use several accumulators, reassociate, or interleave independent work{}",
                match (chain, p.body.and_then(|b| b.cycles_per_iteration)) {
                    (Some(r), Some(c)) if r.cycles >= 0.5 * c => format!(
                        " (each iteration waits for a chain of 1-cycle operations through {}: {}; unroll with independent accumulators or induction variables)",
                        r.register,
                        r.steps.join(" -> ")
                    ),
                    (Some(r), Some(c)) => format!(
                        " (no register recurrence explains it: the longest, through {}, takes {:.0} of the {c:.2} cycles per iteration; the chains run through an iteration, not across)",
                        r.register, r.cycles
                    ),
                    _ => String::new(),
                }
            ),
        },
        Cause::PortPressure { ports } => {
            let detail = p.body.zip(p.machine.group_id(ports)).map(|(b, g)| {
                let users: Vec<String> = b.top_users(g, 3).iter().map(|i| i.asm.clone()).collect();
                format!(": {:.1} uops per iteration need it, mostly {}", b.uops_on(g), users.join("; "))
            });
            format!(
                "take work off {ports}{here}{}: use instructions that run on other ports, or fewer of them (vectorize, strength-reduce, hoist invariant work)",
                detail.unwrap_or_default()
            )
        }
        Cause::Divider => {
            let divs: Vec<String> = p.body.map(|b| b.divides().iter().take(3).map(|i| format!("{} at {:#x}", i.asm, i.address)).collect()).unwrap_or_default();
            format!(
                "the divisions{here}{} occupy the divider: multiply by a precomputed reciprocal, or hoist the division out of the loop",
                if divs.is_empty() { String::new() } else { format!(" ({})", divs.join("; ")) }
            )
        }
        Cause::PipelineWidth => format!(
            "the code{here} issues at the core's full width: only fewer instructions help (vectorize, unroll to cut the loop overhead, fold loads into operations)"
        ),
        Cause::InstructionWindow => format!(
            "the reorder window fills{here} while old instructions wait: put independent work closer together (fewer instructions between independent misses), or shorten the chains that hold the window"
        ),
        Cause::Frontend => "the hot code misses the instruction cache or the BTB: make the hot path smaller (less inlining and unrolling, hot/cold splitting, profile-guided code layout)".into(),
        Cause::BranchMispredictions => match p.branches.first() {
            // under 5 %: a loop exit or a rare case, not a coin toss
            Some(b) if b.mispredicts * 20 < b.executions => format!(
                "the branch `{}` at {}{} mispredicts in {:.1} % of its executions ({} times): loop exits and rare cases; run longer loops (fewer exits), or make the rare case branch-free",
                b.asm,
                b.shown,
                b.source.as_deref().map(|s| format!(" ({})", s.rsplit('/').next().unwrap_or(s))).unwrap_or_default(),
                b.mispredicts as f64 * 100.0 / b.executions.max(1) as f64,
                b.mispredicts
            ),
            Some(b) => format!(
                "the branch `{}` at {}{} is unpredictable ({} mispredictions in {} executions, {:.0} %): make it branch-free (cmov, arithmetic, masks), or sort or partition the data so that it becomes predictable",
                b.asm,
                b.shown,
                b.source.as_deref().map(|s| format!(" ({})", s.rsplit('/').next().unwrap_or(s))).unwrap_or_default(),
                b.mispredicts,
                b.executions,
                b.mispredicts as f64 * 100.0 / b.executions.max(1) as f64
            ),
            None => format!("the branches{here} are unpredictable: make them branch-free (cmov, arithmetic, masks), or sort the data"),
        },
        Cause::CacheMisses { level } => {
            if chain.is_some_and(|r| r.through_load) && !bandwidth_bound(j) {
                return format!(
                    "the loads{here} miss {} and each address comes from the previous load (pointer chasing), so the misses cannot overlap: prefetch ahead, walk several chains at once, or use an array that fits {}",
                    level.above(),
                    level.above()
                );
            }
            match (level, bandwidth_bound(j)) {
                (CacheLevel::Dram, true) => format!(
                    "the data{here} streams from DRAM at its bandwidth: move fewer bytes (smaller types, fuse the passes over the data, block for reuse in the caches)"
                ),
                (CacheLevel::Dram, false) => format!(
                    "the data{here} does not fit the L3 (loads go to DRAM): block it, make the accesses sequential so that the prefetchers cover them, or shrink it"
                ),
                (l, true) => format!(
                    "the data{here} does not fit {} and streams from {} at its bandwidth: block (tile) the loop so that its working set fits {}",
                    l.above(),
                    l.name(),
                    l.above()
                ),
                (l, false) => format!(
                    "the data{here} does not fit {} (loads served by {}): block it for {} (tile the loop nest), or make the accesses unit-stride so that the prefetchers cover them",
                    l.above(),
                    l.name(),
                    l.above()
                ),
            }
        }
        Cause::TlbMisses => format!("the data{here} spans more pages than the TLBs hold: use huge pages (transparent huge pages, madvise), or improve locality"),
        Cause::StoreBuffer => format!(
            "the stores{here} come faster than the cache takes them: fewer or narrower stores, keep the stored data in cache (block), or non-temporal stores for large streams"
        ),
    }
}

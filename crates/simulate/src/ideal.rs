//! Idealizations (Eyerman et al. §IV): "this component perfect, everything else
//! exactly as the baseline saw it". An idealized stream is the baseline's stream
//! of dynamic facts with one component's effects removed by [`Ideal::apply`]; the
//! functional layer runs once, for the baseline. (A stream re-simulated with a
//! perfect component would also change what the other components see, e.g. a
//! perfect D-cache leaves the unified L2 to instruction fetch; trace-driven
//! idealization studies mask instead, and so does this.)

use bottlenose_timing::DynInfo;

/// An idealization of the functional layer or of the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ideal {
    Icache,
    Dcache,
    Branch,
    /// Every non-load operation takes one cycle: a timing variant, not a mask.
    Alu1,
}

impl Ideal {
    pub const ALL: [Ideal; 4] = [Ideal::Icache, Ideal::Dcache, Ideal::Branch, Ideal::Alu1];

    pub fn name(self) -> &'static str {
        match self {
            Ideal::Icache => "perfect_icache",
            Ideal::Dcache => "perfect_dcache",
            Ideal::Branch => "perfect_branch",
            Ideal::Alu1 => "alu_1cycle",
        }
    }

    /// The CPI-stack component the idealization removes.
    pub fn component(self) -> &'static str {
        match self {
            Ideal::Icache => "icache",
            Ideal::Dcache => "dcache",
            Ideal::Branch => "bpred",
            Ideal::Alu1 => "alu_latency",
        }
    }

    /// Removes this idealization's component from one instruction's baseline facts.
    /// `bubble_if_predicted` is the taken-branch bubble the instruction would have
    /// waited for had the branch before it, taken but mispredicted, been predicted
    /// (the frontend charges none after a misprediction: the resteer covers it).
    /// The masks commute: a set of idealizations applies each in any order.
    #[inline]
    pub fn apply(self, info: &mut DynInfo, bubble_if_predicted: f32) {
        match self {
            Ideal::Icache => {
                // the icache and ITLB part of the fetch stall goes; the BTB part is the predictor's
                info.fetch_stall = info.btb_stall;
                info.fetch_stream = false;
                // kept: new_fetch_block and fetch_bubble (taken branches and fetch windows
                // end blocks whatever the icache does)
            }
            Ideal::Dcache => {
                // every access hits L1 and the DTLB
                info.load_level = 0;
                info.store_level = 0;
                // the DTLB walks (of a string instruction: its first page's)
                info.load_extra_latency = 0.0;
                // nothing misses, so the prefetcher neither trains nor fetches, and no line
                // is filled, so none is evicted dirty
                info.prefetch_line = None;
                info.prefetch_level = 0;
                info.prefetch_next_lines = 0;
                info.lines.set_writebacks([0; 3]);
                info.string.fills = [0; 3];
                // kept: the addresses (memory dependencies, store forwarding), the
                // line-split flags (a split access takes two L1 accesses even when both
                // hit) and a string's element count
            }
            Ideal::Branch => {
                info.mispredicted = false;
                // no BTB miss: its resteer goes from the fetch stall
                info.fetch_stall = (info.fetch_stall - info.btb_stall).max(0.0);
                info.btb_stall = 0.0;
                // a predicted taken branch still costs its fetch bubble
                info.fetch_bubble += bubble_if_predicted;
            }
            Ideal::Alu1 => {}
        }
    }
}

/// Which idealizations a run times beside the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdealizeLevel {
    Off,
    /// The four single idealizations (3 masked streams, 4 extra timing cores).
    #[default]
    Singles,
    /// The singles and the six pairs (6 masked streams, 10 extra timing cores).
    Pairs,
}

/// One idealized stream: the baseline's facts masked by `masks`, timed on one
/// core per entry of `variants` (the idealizations each core's result stands for;
/// a core whose set includes [`Ideal::Alu1`] has the 1-cycle ALU).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdealStream {
    pub masks: Vec<Ideal>,
    pub variants: Vec<Vec<Ideal>>,
}

/// The idealized streams of `level`: one per set of functional idealizations;
/// with pairs, each single also times the 1-cycle ALU on top, and the three
/// pairs of functional idealizations get a stream each. (The 1-cycle ALU alone
/// is a variant of the baseline stream: [`crate::Plan::variants`].)
pub(crate) fn ideal_streams(level: IdealizeLevel) -> Vec<IdealStream> {
    let sets: &[&[Ideal]] = match level {
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
    sets.iter()
        .map(|set| {
            let mut variants = vec![set.to_vec()];
            if level == IdealizeLevel::Pairs && set.len() == 1 {
                variants.push(vec![set[0], Ideal::Alu1]);
            }
            IdealStream { masks: set.to_vec(), variants }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_timing::{LineEvents, StringWork};
    use std::num::NonZeroU64;

    /// An instruction that met every component's penalty: an icache miss streamed
    /// after the previous one (4 cycles) on top of a BTB resteer (6), a bubble (1),
    /// a load from DRAM behind a DTLB walk (9), a store to a line in L2, two
    /// prefetches from L3, dirty write-backs, split accesses, a string's fills and
    /// a misprediction.
    fn everything() -> DynInfo {
        let mut lines = LineEvents::default();
        lines.set_writebacks([1, 2, 0]);
        lines.set_load_split();
        lines.set_store_split();
        DynInfo {
            load_addr: NonZeroU64::new(0x1000),
            store_addr: NonZeroU64::new(0x2000),
            load_extra_latency: 9.0,
            fetch_stall: 10.0,
            btb_stall: 6.0,
            fetch_bubble: 1.0,
            prefetch_line: NonZeroU64::new(0x40),
            prefetch_level: 2,
            prefetch_next_lines: 1,
            load_level: 3,
            store_level: 1,
            mispredicted: true,
            new_fetch_block: true,
            fetch_stream: true,
            lines,
            string: StringWork { elements: 100, fills: [7, 3, 1] },
        }
    }

    /// Every field by name, in a form that compares (DynInfo has float fields and no
    /// PartialEq); destructured, so that a new field does not go unnoticed here.
    fn fields(d: &DynInfo) -> Vec<(&'static str, String)> {
        let DynInfo {
            load_addr,
            store_addr,
            load_extra_latency,
            fetch_stall,
            btb_stall,
            fetch_bubble,
            prefetch_line,
            prefetch_level,
            prefetch_next_lines,
            load_level,
            store_level,
            mispredicted,
            new_fetch_block,
            fetch_stream,
            lines,
            string,
        } = d;
        vec![
            ("load_addr", format!("{load_addr:?}")),
            ("store_addr", format!("{store_addr:?}")),
            ("load_extra_latency", format!("{load_extra_latency:?}")),
            ("fetch_stall", format!("{fetch_stall:?}")),
            ("btb_stall", format!("{btb_stall:?}")),
            ("fetch_bubble", format!("{fetch_bubble:?}")),
            ("prefetch_line", format!("{prefetch_line:?}")),
            ("prefetch_level", format!("{prefetch_level:?}")),
            ("prefetch_next_lines", format!("{prefetch_next_lines:?}")),
            ("load_level", format!("{load_level:?}")),
            ("store_level", format!("{store_level:?}")),
            ("mispredicted", format!("{mispredicted:?}")),
            ("new_fetch_block", format!("{new_fetch_block:?}")),
            ("fetch_stream", format!("{fetch_stream:?}")),
            ("lines", format!("{lines:?}")),
            ("string", format!("{string:?}")),
        ]
    }

    /// The fields `ideal` changed, as `name: value` after the change.
    fn changed(ideal: Ideal, bubble: f32) -> Vec<String> {
        let before = everything();
        let mut after = before;
        ideal.apply(&mut after, bubble);
        fields(&before).into_iter().zip(fields(&after)).filter(|(x, y)| x != y).map(|(_, (name, v))| format!("{name}: {v}")).collect()
    }

    #[test]
    fn perfect_icache_removes_the_icache_part_of_the_fetch_stall_only() {
        // 10 cycles of stall, 6 of them the BTB's: 6 remain
        assert_eq!(changed(Ideal::Icache, 2.0), ["fetch_stall: 6.0", "fetch_stream: false"]);
    }

    #[test]
    fn perfect_dcache_serves_every_access_from_l1_and_keeps_addresses_and_splits() {
        let mut d = everything();
        Ideal::Dcache.apply(&mut d, 2.0);
        assert_eq!((d.load_level, d.store_level, d.load_extra_latency), (0, 0, 0.0));
        assert_eq!((d.prefetch_line, d.prefetch_level, d.prefetch_next_lines), (None, 0, 0));
        assert!(!d.lines.has_writebacks() && d.lines.load_split() && d.lines.store_split());
        assert_eq!(d.string, StringWork { elements: 100, fills: [0; 3] });
        let c = changed(Ideal::Dcache, 2.0);
        let names: Vec<&str> = c.iter().map(|f| f.split(':').next().unwrap()).collect();
        assert_eq!(
            names,
            ["load_extra_latency", "prefetch_line", "prefetch_level", "prefetch_next_lines", "load_level", "store_level", "lines", "string"]
        );
    }

    #[test]
    fn perfect_branch_removes_mispredictions_and_btb_resteers_and_adds_the_bubble_back() {
        // 10 - 6 (BTB) = 4 cycles of icache stall left; bubble 1 + 2 the mispredicted taken branch before would have cost
        assert_eq!(changed(Ideal::Branch, 2.0), ["fetch_stall: 4.0", "btb_stall: 0.0", "fetch_bubble: 3.0", "mispredicted: false"]);
        assert_eq!(changed(Ideal::Branch, 0.0), ["fetch_stall: 4.0", "btb_stall: 0.0", "mispredicted: false"]);
    }

    #[test]
    fn alu1_masks_nothing_and_the_masks_commute() {
        assert!(changed(Ideal::Alu1, 2.0).is_empty());
        let functional = [Ideal::Icache, Ideal::Dcache, Ideal::Branch];
        for a in functional {
            for b in functional {
                let (mut ab, mut ba) = (everything(), everything());
                a.apply(&mut ab, 2.0);
                b.apply(&mut ab, 2.0);
                b.apply(&mut ba, 2.0);
                a.apply(&mut ba, 2.0);
                assert_eq!(fields(&ab), fields(&ba), "{a:?} then {b:?}");
            }
        }
        // icache and branch together: no fetch stall at all
        let mut d = everything();
        Ideal::Icache.apply(&mut d, 0.0);
        Ideal::Branch.apply(&mut d, 0.0);
        assert_eq!((d.fetch_stall, d.btb_stall, d.fetch_stream), (0.0, 0.0, false));
    }

    #[test]
    fn streams_of_each_level() {
        assert!(ideal_streams(IdealizeLevel::Off).is_empty());
        let singles = ideal_streams(IdealizeLevel::Singles);
        assert_eq!(singles.iter().map(|s| s.masks.clone()).collect::<Vec<_>>(), [vec![Ideal::Icache], vec![Ideal::Dcache], vec![Ideal::Branch]]);
        assert!(singles.iter().all(|s| s.variants == [s.masks.clone()]));
        let pairs = ideal_streams(IdealizeLevel::Pairs);
        // 3 singles (each also with the 1-cycle ALU) + 3 pairs: 6 streams, 9 cores
        assert_eq!(pairs.len(), 6);
        assert_eq!(pairs.iter().map(|s| s.variants.len()).sum::<usize>(), 9);
        assert_eq!(pairs[1].variants[1], [Ideal::Dcache, Ideal::Alu1]);
        assert_eq!(pairs[5].masks, [Ideal::Dcache, Ideal::Branch]);
    }
}

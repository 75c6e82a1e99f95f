//! The baseline's cycles per static instruction, unit by unit: what the
//! intervals of the per-function attribution are computed from.
//!
//! A function's cycles in a sampled run are the sum over its instructions of
//! their weighted unit cycles ([`bottlenose_listeners::InstructionCost`]); their
//! spread is the spread of the function's cycles from unit to unit, which the
//! per-instruction totals do not keep. This listener keeps each unit's cycles
//! per instruction (sparse: a unit of 4 Ki instructions touches a few hundred
//! static instructions at most) and the exact prefix's per instruction; at the
//! end they are summed per function and estimated like the total cycles.

use super::code_mix::{self, CodeMix, ColdCode, UnitEntry, COLD_EXECUTIONS};
use super::estimator::{Design, Interval, Series};
use super::report::ShareInterval;
use bottlenose_timing::{BatchPart, Details, Listener, StageTimes};

/// Which part of the run the current batch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Timed in full (the exact prefix).
    Prefix,
    /// A measured unit.
    Unit,
    /// A warm-up: timed, not measured.
    WarmUp,
}

/// Per-unit cycles and executions by static instruction (only in sampled
/// runs; an exact run leaves it off and it costs one branch per instruction).
pub struct UnitCosts {
    on: bool,
    part: Part,
    last_commit: f64,
    /// The exact prefix's cycles and executions by static index.
    prefix: Vec<f64>,
    prefix_count: Vec<u32>,
    /// The unit being measured: cycles and executions by static index, and the indices it touched.
    current: Vec<f64>,
    current_count: Vec<u32>,
    touched: Vec<u32>,
    /// Executions in the warm-ups by static index (the code-mix estimator's
    /// exact counts: warm-ups, units and fast-forward make up the sampled part).
    warm_up: Vec<u64>,
    /// Every measured unit, in stream order.
    units: Vec<Vec<UnitEntry>>,
}

impl UnitCosts {
    pub fn new(on: bool) -> Self {
        UnitCosts {
            on,
            part: Part::Prefix,
            last_commit: -1.0,
            prefix: Vec::new(),
            prefix_count: Vec::new(),
            current: Vec::new(),
            current_count: Vec::new(),
            touched: Vec::new(),
            warm_up: Vec::new(),
            units: Vec::new(),
        }
    }

    fn close_unit(&mut self) {
        if self.part != Part::Unit {
            return;
        }
        let mut unit = Vec::with_capacity(self.touched.len());
        for &i in &self.touched {
            let cycles = std::mem::take(&mut self.current[i as usize]) as f32;
            let count = std::mem::take(&mut self.current_count[i as usize]);
            unit.push(UnitEntry { index: i, count, cycles });
        }
        self.touched.clear();
        self.units.push(unit);
    }

    /// An instruction of static index `index` committed at `commit`: the cycles
    /// since the commit before are its own (as [`bottlenose_listeners::InstructionCost`] counts them).
    /// Out of line: an exact run leaves the listener off, and its check is then all it costs.
    #[inline(never)]
    pub(super) fn record(&mut self, index: usize, commit: f64) {
        let cycles = if commit > self.last_commit { commit - std::mem::replace(&mut self.last_commit, commit) } else { 0.0 };
        match self.part {
            Part::WarmUp => {
                if index >= self.warm_up.len() {
                    self.warm_up.resize((index + 1).next_power_of_two(), 0);
                }
                self.warm_up[index] += 1;
            }
            Part::Prefix => {
                if index >= self.prefix.len() {
                    self.prefix.resize((index + 1).next_power_of_two(), 0.0);
                    self.prefix_count.resize(self.prefix.len(), 0);
                }
                self.prefix[index] += cycles;
                self.prefix_count[index] += 1;
            }
            Part::Unit => {
                if index >= self.current.len() {
                    self.current.resize((index + 1).next_power_of_two(), 0.0);
                    self.current_count.resize(self.current.len(), 0);
                }
                if self.current_count[index] == 0 {
                    self.touched.push(index as u32);
                }
                self.current[index] += cycles;
                self.current_count[index] += 1;
            }
        }
    }

    /// The code-mix estimate of the sampled part's cycles ([`code_mix`]): the
    /// measured units (a unit cut off by the end of the run is not one of
    /// `design`'s and is left out) and every static instruction's executions in
    /// the sampled part, the units' and warm-ups' counted here, the
    /// fast-forwarded ones in `untimed`.
    pub fn code_mix(&mut self, design: &Design, untimed: &[(u64, u64)], z: f64) -> Option<CodeMix> {
        self.close_unit();
        self.part = Part::WarmUp;
        let units = self.measured_units(design);
        let len = untimed.len().max(self.warm_up.len()).max(self.current.len());
        let mut executions = vec![0u64; len];
        for (i, u) in untimed.iter().enumerate() {
            executions[i] += u.0;
        }
        for (i, &w) in self.warm_up.iter().enumerate() {
            executions[i] += w;
        }
        for e in self.units.iter().flatten() {
            executions[e.index as usize] += e.count as u64;
        }
        code_mix::estimate(design, units, &executions, self.prefix_cold(), z)
    }

    /// The exact prefix's cold code: its instructions that ran at most
    /// [`COLD_EXECUTIONS`] times there (the loader, the program's set-up).
    pub fn prefix_cold(&self) -> ColdCode {
        self.prefix_cold_on(&self.prefix)
    }

    /// The same cold code of the prefix, its cycles as another core timed them
    /// (`by_instruction`: a variant's cycles over the whole prefix by static index).
    pub fn prefix_cold_on(&self, by_instruction: &[f64]) -> ColdCode {
        let mut cold = ColdCode::default();
        for (i, &n) in self.prefix_count.iter().enumerate().filter(|(_, &n)| n > 0 && n as u64 <= COLD_EXECUTIONS) {
            cold.cycles += by_instruction.get(i).copied().unwrap_or(0.0);
            cold.executions += n as f64;
        }
        cold
    }

    /// The exact prefix's cycles of static instruction `index`.
    pub fn prefix_cycles(&self, index: usize) -> f64 {
        self.prefix.get(index).copied().unwrap_or(0.0)
    }

    /// The units of `design` (measured in full), in stream order.
    pub fn measured_units(&self, design: &Design) -> &[Vec<UnitEntry>] {
        &self.units[..design.measured_units().min(self.units.len())]
    }

    /// The units measured (the last one possibly cut off by the end of the run).
    pub fn units(&self) -> usize {
        self.units.len() + (self.part == Part::Unit) as usize
    }

    /// Each group's share of the baseline's cycles with its interval: `groups_of`
    /// puts into its vector the groups (functions, loops: a nested loop's
    /// instructions are also its outer loops') a static index belongs to, asked
    /// once per index. With `mix` (the code-mix estimate and the estimated total
    /// cycles it is part of), the share and interval of that estimator
    /// ([`super::groups::mix_shares`]); without, the windows' ratio of the group's
    /// cycles to `base`, the baseline's (prefix and units). Groups in `wanted`
    /// order. Can be asked again for other groups.
    pub fn group_shares(&mut self, design: &Design, base: Series<'_>, z: f64, mut groups_of: impl FnMut(usize, &mut Vec<usize>), wanted: &[String], mix: Option<(&CodeMix, f64)>) -> Vec<ShareInterval> {
        self.close_unit();
        self.part = Part::WarmUp; // (closed: a second call adds no unit)
        let groups = wanted.len();
        let mut known: Vec<Option<Vec<usize>>> = Vec::new();
        fn of<'k>(known: &'k mut Vec<Option<Vec<usize>>>, i: usize, groups_of: &mut impl FnMut(usize, &mut Vec<usize>)) -> &'k [usize] {
            if i >= known.len() {
                known.resize(i + 1, None);
            }
            known[i].get_or_insert_with(|| {
                let mut g = Vec::new();
                groups_of(i, &mut g);
                g
            })
        }
        let mut prefix = vec![0.0; groups];
        // (the per-instruction vectors grow in powers of two: past the last static
        // instruction, and before it where one never ran, they hold zeros)
        for (i, &c) in self.prefix.iter().enumerate().filter(|(_, &c)| c != 0.0) {
            for &g in of(&mut known, i, &mut groups_of) {
                prefix[g] += c;
            }
        }
        // per group, per unit (dense: groups are the few the report shows)
        let mut per_unit = vec![vec![0.0; self.units.len()]; groups];
        for (u, unit) in self.units.iter().enumerate() {
            for e in unit {
                for &g in of(&mut known, e.index as usize, &mut groups_of) {
                    per_unit[g][u] += e.cycles as f64;
                }
            }
        }
        let shares: Vec<Interval> = match mix {
            Some((mix, total)) => {
                for (i, _) in mix.by_instruction.iter().enumerate().filter(|(_, &y)| y != 0.0) {
                    of(&mut known, i, &mut groups_of);
                }
                super::groups::mix_shares(design, mix, self.measured_units(design), &known, &prefix, total, z)
            }
            None => (0..groups)
                .map(|g| if base.units.len() == per_unit[g].len() { design.ratio_interval(Series { prefix: prefix[g], units: &per_unit[g] }, base, z) } else { Interval::default() })
                .collect(),
        };
        wanted.iter().zip(shares).map(|(name, share)| ShareInterval { name: name.clone(), share }).collect()
    }
}

impl Listener for UnitCosts {
    const DETAILS: bool = false;

    #[inline(always)]
    fn on_instruction(&mut self, index: usize, t: &StageTimes) {
        if self.on {
            self.record(index, t.commit);
        }
    }

    fn begin_batch(&mut self, len: usize) -> Details {
        self.begin_part(len, BatchPart::Whole)
    }

    fn begin_part(&mut self, _len: usize, part: BatchPart) -> Details {
        if !self.on {
            return Details::None;
        }
        self.close_unit();
        self.part = match part {
            BatchPart::Whole => Part::Prefix,
            BatchPart::WarmUp => Part::WarmUp,
            BatchPart::Unit { .. } => Part::Unit,
        };
        Details::None
    }

    fn samples(&self) -> bool {
        self.on
    }

    fn wants_details(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::sampling::estimator::Stratum;

    /// Two functions (static 0 in f, 1 in g) over four units of a 40-unit run:
    /// the shares are the ratio of their unit sums, and they add up to one.
    #[test]
    fn shares_are_ratios_of_the_unit_sums() {
        let mut u = UnitCosts::new(true);
        let mut t = 0.0;
        let mut base = Vec::new();
        for k in 0..4 {
            u.begin_part(2, BatchPart::WarmUp);
            t += 5.0;
            u.record(0, t); // not measured
            u.begin_part(2, BatchPart::Unit { weight: 10.0 });
            let (f, g) = (1.0 + k as f64, 3.0);
            t += f;
            u.record(0, t);
            t += g;
            u.record(1, t);
            base.push(f + g);
        }
        let design = Design { unit_instructions: 1, prefix_instructions: 0, strata: vec![Stratum { instructions: 40, first_unit: 0, units: 4 }] };
        let s = u.group_shares(&design, Series { prefix: 0.0, units: &base }, 3.0, |i, g| g.push(i), &["f".into(), "g".into()], None);
        // f: 1+2+3+4 = 10 of 22; g: 12 of 22
        assert!((s[0].share.value - 10.0 / 22.0).abs() < 1e-9, "{:?}", s[0]);
        assert!((s[1].share.value - 12.0 / 22.0).abs() < 1e-9, "{:?}", s[1]);
        // f's cycles vary from unit to unit while the total follows them: an interval
        assert!(s[0].share.half_width > 0.0 && s[1].share.half_width > 0.0);
    }

    /// Nested groups (an inner loop inside an outer one): an instruction of
    /// both counts in both, and the outer group's share is the sum of its own
    /// and the inner one's; asked a second time, the same units.
    #[test]
    fn an_instruction_counts_in_every_group_it_belongs_to() {
        let mut u = UnitCosts::new(true);
        let mut t = -1.0; // (the listener's clock starts at -1: the first commit at 1 costs 2 cycles)
        let mut base = Vec::new();
        for k in 0..3 {
            u.begin_part(2, BatchPart::Unit { weight: 10.0 });
            let (inner, outer_only) = (2.0 + k as f64, 1.0);
            t += inner;
            u.record(0, t);
            t += outer_only;
            u.record(1, t);
            base.push(inner + outer_only);
        }
        let design = Design { unit_instructions: 1, prefix_instructions: 0, strata: vec![Stratum { instructions: 30, first_unit: 0, units: 3 }] };
        let series = Series { prefix: 0.0, units: &base };
        // group 0: the outer loop (statics 0 and 1); group 1: the inner loop (static 0)
        let nested = |i: usize, g: &mut Vec<usize>| {
            g.push(0);
            if i == 0 {
                g.push(1);
            }
        };
        let s = u.group_shares(&design, series, 3.0, nested, &["outer".into(), "inner".into()], None);
        // inner: 2+3+4 = 9 of 12
        assert!((s[0].share.value - 1.0).abs() < 1e-9, "{:?}", s[0]);
        assert!((s[1].share.value - 0.75).abs() < 1e-9, "{:?}", s[1]);
        let again = u.group_shares(&design, series, 3.0, |i, g| g.push(i), &["a".into(), "b".into()], None);
        // static 0: 9 of 12, static 1: 3 of 12 (still three units: none added)
        assert!((again[0].share.value - 0.75).abs() < 1e-9 && (again[1].share.value - 0.25).abs() < 1e-9, "{again:?}");
    }

    /// The exact prefix counts as it is: f's 100 prefix cycles plus its
    /// estimate from two units (10 and 20 cycles, each standing for 5 units).
    #[test]
    fn the_prefix_counts_in_full() {
        let mut u = UnitCosts::new(true);
        u.begin_part(1, BatchPart::Whole);
        u.record(0, 99.0); // from -1: 100 cycles
        u.begin_part(1, BatchPart::Unit { weight: 5.0 });
        u.record(0, 109.0);
        u.begin_part(1, BatchPart::Unit { weight: 5.0 });
        u.record(1, 129.0);
        let design = Design { unit_instructions: 1, prefix_instructions: 1, strata: vec![Stratum { instructions: 10, first_unit: 0, units: 2 }] };
        u.begin_part(1, BatchPart::Whole);
        u.record(5, 130.0); // a prefix again (as after a cut-off unit): grows the vector to 8
        u.begin_part(1, BatchPart::WarmUp);
        let base = [10.0, 20.0];
        let known = |i: usize, g: &mut Vec<usize>| {
            assert!(i < 2 || i == 5, "static {i} never ran");
            g.extend((i < 2).then_some(i));
        };
        let s = u.group_shares(&design, Series { prefix: 100.0, units: &base }, 3.0, known, &["f".into(), "g".into()], None);
        // f: 100 + 10/2 · 10 = 150 of 100 + 10 · 15 = 250; g: 100 of 250 (and the
        // prefix's vector, grown past instruction 1, is not looked up there)
        assert!((s[0].share.value - 0.6).abs() < 1e-9, "{:?}", s[0]);
        assert!((s[1].share.value - 0.4).abs() < 1e-9, "{:?}", s[1]);
    }

    /// The prefix's cold code: static 1 ran twice (30 cycles), static 0 ran
    /// 17 times, once more than cold code does; static 2 only in a unit.
    #[test]
    fn the_prefixs_cold_code_is_what_ran_at_most_16_times_in_it() {
        let mut u = UnitCosts::new(true);
        u.begin_part(1, BatchPart::Whole);
        let mut t = -1.0;
        for _ in 0..17 {
            t += 1.0;
            u.record(0, t);
        }
        for c in [10.0, 20.0] {
            t += c;
            u.record(1, t);
        }
        u.begin_part(1, BatchPart::Unit { weight: 5.0 });
        t += 100.0;
        u.record(2, t);
        assert_eq!(u.prefix_cold(), ColdCode { cycles: 30.0, executions: 2.0 });
        // the same instructions as another core timed them: static 1's 3 cycles, not 0's or 2's
        assert_eq!(u.prefix_cold_on(&[17.0, 3.0, 500.0]), ColdCode { cycles: 3.0, executions: 2.0 });
    }
}

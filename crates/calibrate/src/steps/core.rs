//! Branch costs, dispatch width, and window sizes (Wong's method).

use crate::analysis as an;
use crate::engine::*;
use crate::*;

impl Engine<'_> {
    pub(crate) fn branches(&mut self) -> Result<(), CalibrateError> {
        (self.progress)("branches", 0, 3);
        let random = self.try_measure(&Bench::Branch { random: true })?;
        (self.progress)("branches", 1, 3);
        let periodic = self.try_measure(&Bench::Branch { random: false })?;
        (self.progress)("branches", 2, 3);
        let load = self.cal.value("memory.integer_load_latency").unwrap_or(4.0);
        if let (Some(r), Some(p)) = (random, periodic) {
            let resolution = load + 1.0;
            let (per_miss, penalty) = an::mispredict_penalty(r.cycles, p.cycles, 0.5, resolution);
            let m = format!(
                "`movzx eax, [p+k]; test; jz` over {} random bytes ({:.2} cycles/branch) vs a period-8 pattern with the same taken ratio ({:.2}): {per_miss:.1} cycles per mispredict (half of the random branches), minus the correct path's resolution of the next branch (load {load:.1} + test/jz 1)",
                bench::BRANCH_ARRAY,
                r.cycles,
                p.cycles
            );
            self.push("branch.mispredict_penalty", penalty, m, &[r, p]);
            self.push("info.mispredict_cycles", per_miss, "cycles per mispredicted branch, resolution included (see branch.mispredict_penalty)".into(), &[r, p]);
        }
        if let Some(t) = self.try_measure(&Bench::Taken)? {
            let fb = self.base.params.core.fetch_blocks_per_cycle;
            let floor = if fb > 0.0 { 1.0 / fb } else { 1.0 / self.base.params.core.dispatch_width.max(1.0) };
            let m = format!(
                "{} taken `jmp` in a row (the last the loop branch): {:.3} cycles per taken branch, minus the model's {floor:.2} per fetch block (core.fetch_blocks_per_cycle)",
                bench::TAKEN_BODY,
                t.cycles
            );
            // The bubble is the model's extra cost per taken branch on top of one fetch block
            // per cycle: a model without a fetch-block frontend would read it differently, so
            // it gets no value. A residual under a quarter cycle is the chain of 64 jumps, not
            // a bubble (Zen 4: 1.08 here, but 1 + taken/iteration exactly in loops).
            let excess = t.cycles - floor;
            if fb > 0.0 {
                let value = if excess < 0.25 { 0.0 } else { excess };
                let m = if excess < 0.25 { format!("{m}; a residual of {excess:.2} (< 0.25) is taken as no bubble") } else { m };
                self.push("branch.taken_bubble", value, m, &[t]);
            }
            self.push("info.taken_branch_cycles", t.cycles, "cycles per taken jmp, back to back".into(), &[t]);
        }
        (self.progress)("branches", 3, 3);
        Ok(())
    }

    pub(crate) fn dispatch(&mut self) -> Result<(), CalibrateError> {
        let total = Mix::ALL.len();
        let mut best: Option<(f64, Mix, Sample)> = None;
        let mut all = Vec::new();
        for (i, mix) in Mix::ALL.into_iter().enumerate() {
            (self.progress)("dispatch", i, total);
            if let Some(s) = self.try_measure(&Bench::Dispatch { mix })? {
                let ipc = 1.0 / s.cycles;
                self.push(&format!("info.ipc.{}", mix.name()), ipc, format!("{} independent instructions + dec/jnz", bench::DISPATCH_BODY), &[s]);
                all.push(format!("{} {ipc:.2}", mix.name()));
                if mix.counts() && best.as_ref().is_none_or(|b| ipc > b.0) {
                    best = Some((ipc, mix, s));
                }
            }
        }
        if let Some((ipc, mix, s)) = best {
            let m = format!("peak IPC of independent 1-cycle instructions, best of the mixes ({}; nops not counted): {} at {ipc:.2}", all.join(", "), mix.name());
            let width = an::snap_width(ipc);
            self.push("core.dispatch_width", width, m, &[s]);
            // a core that sustains this IPC retires at least as much: a narrower retirement
            // in the base model would cap it below the measurement
            let commit = self.base.params.core.commit_width;
            if commit < width {
                let m = format!("at least the peak IPC measured for core.dispatch_width ({width}): the base's {commit} per cycle would hold the model below it");
                self.push("core.commit_width", width, m, &[s]);
                if let Some(e) = self.cal.entries.last_mut() {
                    e.depends_on.push("core.dispatch_width".into());
                }
            }
        }
        (self.progress)("dispatch", total, total);
        Ok(())
    }

    /// Wong's tests: time per iteration against the number of fillers between two
    /// independent DRAM misses; a coarse sweep, then a fine one around the step. The ROB is
    /// swept with two fillers (nops, eliminated moves): one that meets another limit first
    /// (registers for moves that are not eliminated) steps earlier, so the larger step is
    /// the ROB, unless it is about twice the other (nops packed two per entry). On the Zen 4
    /// host nops show no step up to 2.7 x the ROB (they hold no entry of their own), so
    /// the moves give the ROB there.
    pub(crate) fn windows(&mut self) -> Result<(), CalibrateError> {
        let kinds = WongKind::ALL;
        let mut rob: Vec<Measured> = Vec::new();
        for (ki, kind) in kinds.into_iter().enumerate() {
            (self.progress)("window sizes", ki, kinds.len());
            match self.wong(kind)? {
                Some(m) if kind.key() == "core.rob" => rob.push(m),
                Some(m) => self.cal.entries.push(m),
                None => {}
            }
        }
        // Two steps: nops that pack two per entry would step at twice the ROB, so a step
        // about twice the other is that and the smaller is the ROB; otherwise the larger is
        // (the smaller met another limit first, e.g. registers for moves that are not eliminated)
        if !rob.is_empty() {
            rob.sort_by(|a, b| a.value.total_cmp(&b.value));
            let pick = if rob.len() == 2 && (1.8..=2.2).contains(&(rob[1].value / rob[0].value)) { 0 } else { rob.len() - 1 };
            let mut best = rob[pick].clone();
            if rob.len() == 2 {
                let other = &rob[1 - pick];
                best.method += &format!(" (the other filler stepped at {:.0}{})", other.value, if pick == 0 { ": nops pack two per entry" } else { "" });
            }
            self.cal.entries.push(best);
        }
        (self.progress)("window sizes", kinds.len(), kinds.len());
        Ok(())
    }

    /// One point of a Wong sweep: time at N fillers over time at none, timed beside it
    /// (DRAM latency on a shared host moves over seconds; the ratio does not).
    ///
    /// With both SMT threads of a physical core active (under KVM: our other vCPU or
    /// another guest's), Zen 4 splits the ROB and the store queue between them, and a sweep
    /// finds the halves while the sibling is busy; the two passes keep the smaller ratio
    /// per point, so a step seen with the core alone in either pass wins.
    /// The reference is timed before and after the point; when the two differ by more than
    /// 5 % the memory system changed under the point, which is timed again (three tries).
    pub(crate) fn wong_point(&mut self, kind: WongKind, n: u32) -> Result<Option<(f64, Sample)>, CalibrateError> {
        let reference = Bench::Wong { kind, fillers: 0 };
        let Some(mut r1) = self.try_measure(&reference)? else { return Ok(None) };
        let mut out = None;
        for _ in 0..3 {
            let Some(s) = self.try_measure(&Bench::Wong { kind, fillers: n })? else { return Ok(None) };
            let Some(r2) = self.try_measure(&reference)? else { return Ok(None) };
            let steady = (r1.cycles - r2.cycles).abs() <= 0.05 * r1.cycles.min(r2.cycles);
            let r = (r1.cycles + r2.cycles) / 2.0;
            let spread = r1.spread_pct.max(r2.spread_pct).max(s.spread_pct);
            out = Some((s.cycles / r, Sample { cycles: r, spread_pct: spread, unstable: r1.unstable || r2.unstable || s.unstable || !steady }));
            if steady {
                break;
            }
            r1 = r2;
        }
        Ok(out)
    }

    pub(crate) fn second_pass(&mut self, kind: WongKind, pts: &mut [(f64, f64)], samples: &mut Vec<Sample>) -> Result<(), CalibrateError> {
        for p in pts.iter_mut().rev() {
            if let Some((r, s)) = self.wong_point(kind, p.0 as u32)? {
                p.1 = p.1.min(r);
                samples.push(s);
            }
        }
        Ok(())
    }

    pub(crate) fn wong(&mut self, kind: WongKind) -> Result<Option<Measured>, CalibrateError> {
        let hint = self.base_value(kind.key()).unwrap_or(128.0);
        let n_max = ((2.0 * hint + 64.0) as u32).clamp(128, 1400);
        let coarse = (n_max / 40).max(4);
        let mut pts: Vec<(f64, f64)> = Vec::new();
        let mut samples = Vec::new();
        let mut above = 0;
        let mut n = 0;
        while n <= n_max {
            let Some((r, s)) = self.wong_point(kind, n)? else { break };
            pts.push((n as f64, r));
            samples.push(s);
            // stop the sweep once the curve has clearly doubled for a while
            above = if pts.len() > 3 && r > 1.6 { above + 1 } else { 0 };
            if above >= 4 {
                break;
            }
            n += coarse;
        }
        // a second pass, backwards, keeps the smaller ratio per point: a burst of DRAM
        // traffic from a neighbour that fakes a step must then hit the same points twice
        self.second_pass(kind, &mut pts, &mut samples)?;
        let Some(step) = an::find_step(&pts, 1.3) else {
            let m = format!("no step found up to N = {} with `{}` fillers", pts.last().map_or(0.0, |p| p.0), kind.filler());
            self.cal.notes.push(format!("{}: {m}", kind.key()));
            return Ok(None);
        };
        let fine = (coarse / 8).max(1);
        let lo = (step.crossing as u32).saturating_sub(coarse * 3 / 2);
        let hi = step.crossing as u32 + coarse * 3 / 2;
        let mut fine_pts = Vec::new();
        let mut x = lo;
        while x <= hi {
            if !pts.iter().any(|p| p.0 == x as f64) {
                if let Some((r, s)) = self.wong_point(kind, x)? {
                    fine_pts.push((x as f64, r));
                    samples.push(s);
                }
            }
            x += fine;
        }
        self.second_pass(kind, &mut fine_pts, &mut samples)?;
        pts.extend(fine_pts);
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let Some(step) = an::find_step(&pts, 1.3) else { return Ok(None) };
        let size = an::wong_size(&step, kind.extra_entries());
        // the median point's spread: single points are noisy on a shared host, and the
        // two passes (smaller ratio wins) are what keeps them from faking a step
        let spread = an::median(&samples.iter().map(|s| s.spread_pct).collect::<Vec<_>>());
        // the step must be sharp: more than 6 points between 25 % and 75 % of the rise are a
        // ramp (or noise that both passes saw): unstable
        let rise = step.high - step.low;
        let ramp = pts.iter().filter(|p| p.1 > step.low + 0.25 * rise && p.1 < step.low + 0.75 * rise).count();
        let unstable = ramp > 6;
        let m = format!(
            "Wong: two independent DRAM misses (huge pages) with N `{}` between them; time per iteration relative to N = 0 (timed beside each point, so changes in DRAM latency cancel) {:.2} -> {:.2} ({:.0} cycles at N = 0), crossing half-way at N = {:.1}; size = last N below the step + {} (sweep step {coarse}, then {fine}; {ramp} points on the ramp)",
            kind.filler(),
            step.low,
            step.high,
            samples.first().map_or(0.0, |s| s.cycles),
            step.crossing,
            kind.extra_entries()
        );
        let curve: Vec<String> = pts.iter().map(|p| format!("{:.0}:{:.2}", p.0, p.1)).collect();
        let m = format!("{m}; curve N:ratio {}", curve.join(" "));
        let base = self.base_value(kind.key());
        Ok(Some(Measured { key: kind.key().into(), value: size, base, method: m, spread_pct: spread, unstable, depends_on: vec![] }))
    }
}

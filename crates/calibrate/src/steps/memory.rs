//! Load-to-use latency per level and DRAM (pointer chases), translation cost, and bandwidth per level.

use crate::analysis as an;
use crate::engine::*;
use crate::*;

impl Engine<'_> {
    /// L1 integer and vector load-to-use (for forms-only plans, which need them).
    pub(crate) fn l1_latencies(&mut self, plan: &Plan) -> Result<(), CalibrateError> {
        let (l1, _, _) = self.geometry(plan);
        let size = round_size(l1.unwrap_or(32 << 10) / 2);
        let total = 3;
        (self.progress)("latency", 0, total);
        if let Some(s) = self.try_measure(&Bench::Chase { bytes: size, load: ChaseLoad::Int, huge: false })? {
            let m = format!("pointer chase `mov rax, [rax]` over a random cycle of 64-byte nodes in {}", bench::human_bytes(size));
            self.push("memory.integer_load_latency", s.cycles, m, &[s]);
        }
        (self.progress)("latency", 1, total);
        let vec = self.try_measure(&Bench::Chase { bytes: size, load: ChaseLoad::Vector, huge: false })?;
        (self.progress)("latency", 2, total);
        let rt = self.try_measure(&Bench::MovqRoundTrip)?;
        if let (Some(v), Some(r)) = (vec, rt) {
            let m = format!(
                "chase `movq xmm0, [rax]; movq rax, xmm0` over {} ({:.2} cycles) minus half a `movq xmm0, rax; movq rax, xmm0` round trip ({:.2})",
                bench::human_bytes(size),
                v.cycles,
                r.cycles
            );
            self.push("memory.load_latency", an::vector_load_latency(v.cycles, r.cycles), m, &[v, r]);
        }
        (self.progress)("latency", 3, total);
        Ok(())
    }

    /// Load-to-use per level. The chase is one cycle through every node of the buffer, so a
    /// node comes back only after all the others: an (LRU-like) inner level smaller than
    /// the buffer holds none of it any more, and the time per load is the level's own.
    pub(crate) fn latencies(&mut self, plan: &Plan) -> Result<(), CalibrateError> {
        let (_, l2, l3) = self.geometry(plan);
        self.l1_latencies(plan)?;
        let l1_name = self.cache_name(1);
        if let Some(v) = self.cal.get("memory.integer_load_latency").cloned() {
            let method = format!("= memory.integer_load_latency ({})", v.method);
            self.cal.entries.push(Measured { key: format!("cache.{l1_name}.latency"), base: self.base_value(&format!("cache.{l1_name}.latency")), method, ..v });
        }
        // (key, buffer, huge pages, what)
        let mut steps: Vec<(String, u64, bool, String)> = Vec::new();
        let l2_key = format!("cache.{}.latency", self.cache_name(2));
        let l3_key = format!("cache.{}.latency", self.cache_name(3));
        if let Some(l2) = l2 {
            // a quarter: an SMT sibling (another VM's, under KVM) shares the L2, and half the
            // L2 already misses on the development host then
            steps.push((l2_key.clone(), round_size(l2 / 4), true, "a quarter of the L2".into()));
        }
        if let Some(l3) = l3 {
            // 2 and 4 x L2 (at most half the L3), the smaller result wins: clear of the L2,
            // and small enough to stay in the part of a shared L3 that neighbours leave us
            // (on the KVM development host half the L3 is mostly DRAM)
            for k in [2, 4] {
                let size = round_size((l2.unwrap_or(l3 / 16) * k).min(l3 / 2));
                steps.push((format!("info.{l3_key}.{k}x_l2"), size, true, format!("{k} x L2")));
            }
        }
        let dram = dram_bytes(plan, l3);
        steps.push(("memory.dram_latency".into(), dram, true, "DRAM".into()));
        steps.push(("info.dram_latency_4k_pages".into(), dram, false, "DRAM, 4 KiB pages: includes DTLB/STLB misses and page walks".into()));
        let total = steps.len();
        for (i, (key, size, huge, what)) in steps.into_iter().enumerate() {
            (self.progress)("latency", i, total);
            if key == "memory.dram_latency" {
                // the L3 value (needed to correct the DRAM chase): the smaller of its chases
                let l3s: Vec<Measured> = self.cal.entries.iter().filter(|e| e.key.starts_with(&format!("info.{l3_key}."))).cloned().collect();
                if let Some(best) = l3s.iter().min_by(|a, b| a.value.total_cmp(&b.value)) {
                    let all: Vec<String> = l3s.iter().map(|e| format!("{:.1}", e.value)).collect();
                    let method = format!("smallest of the chases at 2 and 4 x L2 ({}): {}", all.join(", "), best.method);
                    self.cal.entries.push(Measured { key: l3_key.clone(), base: self.base_value(&l3_key), method, ..best.clone() });
                }
            }
            let b = Bench::Chase { bytes: size, load: ChaseLoad::Int, huge };
            let Some(s) = self.try_measure(&b)? else { continue };
            let mut m = format!(
                "pointer chase `mov rax, [rax]` over a random cycle of 64-byte nodes in {} ({what}), {}",
                bench::human_bytes(size),
                if huge { "MADV_HUGEPAGE" } else { "MADV_NOHUGEPAGE" }
            );
            if let Some(n) = self.timer.note(&b) {
                m += &format!(" ({n})");
            }
            if let Some(f) = self.timer.huge_pages(&b).filter(|&f| huge && f < 0.5 && size >= 4 << 20) {
                let note = format!(
                    "{key}: only {:.0} % of the buffer got huge pages (transparent huge pages off? see /sys/kernel/mm/transparent_hugepage/enabled): the value includes TLB misses",
                    f * 100.0
                );
                if !self.cal.notes.contains(&note) {
                    self.cal.notes.push(note);
                }
            }
            self.push(&key, s.cycles, m, &[s]);
        }
        if let (Some(h), Some(s)) = (self.cal.value("memory.dram_latency"), self.cal.value("info.dram_latency_4k_pages")) {
            self.push(
                "info.dram_tlb_miss_cycles",
                s - h,
                "DRAM chase with 4 KiB pages minus with huge pages: what translation adds per access (the model's DTLB + STLB miss latencies)".into(),
                &[],
            );
            // The model charges a 4 KiB access that misses both TLBs the DTLB's miss
            // latency (the STLB lookup) plus the STLB's (the walk): the walk is the rest.
            let tlbs = &self.base.params.tlbs;
            let dtlb = tlbs.iter().find(|t| t.kind == bottlenose_machine::CacheKind::Data);
            let stlb = tlbs.iter().find(|t| t.kind == bottlenose_machine::CacheKind::Unified);
            // the derived value is as shaky as the two chases it comes from
            let sources: Vec<(bool, f64)> = ["memory.dram_latency", "info.dram_latency_4k_pages"].iter().filter_map(|k| self.cal.get(k)).map(|e| (e.unstable, e.spread_pct)).collect();
            let shaky = sources.iter().any(|x| x.0);
            let spread = sources.iter().map(|x| x.1).fold(0.0, f64::max);
            if let (Some(d), Some(st)) = (dtlb, stlb) {
                let walk = (s - h - d.miss_latency).max(0.0);
                self.push(
                    &format!("tlb.{}.miss_latency", st.name),
                    walk,
                    format!(
                        "page walk of a random DRAM chase: {:.0} cycles per access with 4 KiB pages minus {:.0} with huge pages, minus the {}'s miss latency ({})",
                        s, h, d.name, d.miss_latency
                    ),
                    &[],
                );
                if let Some(e) = self.cal.entries.last_mut() {
                    e.unstable = shaky;
                    e.spread_pct = spread;
                }
                // DRAM latency and the walk add up to what a program with 4 KiB pages sees:
                // one without the other would pair a measured value with the base's guess
                if shaky {
                    if let Some(d) = self.cal.entries.iter_mut().find(|e| e.key == "memory.dram_latency") {
                        d.unstable = true;
                        d.method.push_str("; left out with the page walk, which was unstable");
                    }
                }
            }
        }
        (self.progress)("latency", total, total);
        Ok(())
    }

    pub(crate) fn bandwidth(&mut self, plan: &Plan) -> Result<(), CalibrateError> {
        let (l1, l2, l3) = self.geometry(plan);
        let mut steps: Vec<(String, u64, u32)> = Vec::new();
        if let Some(l1) = l1 {
            steps.push((format!("cache.{}.bytes_per_cycle", self.cache_name(1)), round_size(l1 / 2), 2));
        }
        if let Some(l2) = l2 {
            // a quarter, as for the latency: with an SMT sibling on the shared L2, half the L2
            // read 30.3-31.4 bytes per cycle in two calibrations of five here, a quarter 32.0
            steps.push((format!("cache.{}.bytes_per_cycle", self.cache_name(2)), round_size(l2 / 4), 2));
        }
        if let Some(l3) = l3 {
            steps.push((format!("cache.{}.bytes_per_cycle", self.cache_name(3)), round_size((l3 / 2).max(l2.unwrap_or(0) * 4)), 4));
        }
        steps.push(("memory.dram_bytes_per_cycle".into(), dram_bytes(plan, l3), 4));
        let total = steps.len();
        let width = if self.timer.features().avx { "32-byte vmovdqa" } else { "16-byte movdqa" };
        for (i, (key, size, streams)) in steps.into_iter().enumerate() {
            (self.progress)("bandwidth", i, total);
            let b = Bench::Stream { bytes: size, streams, huge: true };
            if let Some(s) = self.try_measure(&b)? {
                let m = format!("sequential read of {} with {width} loads over {streams} streams, huge pages", bench::human_bytes(size));
                self.push(&key, 1.0 / s.cycles, m, &[s]);
            }
        }
        (self.progress)("bandwidth", total, total);
        Ok(())
    }
}

/// The DRAM buffer: the plan's size, at least 8 x L3 (so at most 1/8 of a chase hits the
/// L3), at most 1 GiB.
pub(crate) fn dram_bytes(plan: &Plan, l3: Option<u64>) -> u64 {
    round_size(plan.dram_bytes.max(l3.unwrap_or(0) * 8).min(1 << 30))
}

/// Buffer sizes: a multiple of 16 KiB (the stream loops need multiples of 256 bytes per stream).
pub(crate) fn round_size(b: u64) -> u64 {
    (b / (16 << 10)).max(1) * (16 << 10)
}

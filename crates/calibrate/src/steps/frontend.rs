//! The front end streaming code from L2: straight-line code larger than the L1I (and any
//! op cache) against code that fits, in cycles per 64-byte line, mapped to the model's
//! `core.icache_misses_in_flight`.

use crate::analysis as an;
use crate::engine::*;
use crate::*;
use bottlenose_machine::CacheKind;

impl Engine<'_> {
    pub(crate) fn frontend(&mut self, plan: &Plan) -> Result<(), CalibrateError> {
        let l1i_model = self.base.params.caches.iter().find(|c| c.level == 1 && c.kind == CacheKind::Instruction);
        let Some(l1i) = plan.geometry.l1i_bytes.or(l1i_model.map(|c| c.size_kib as u64 * 1024)) else {
            self.cal.notes.push("core.icache_misses_in_flight: no L1I size (CPUID or the base machine): not measured".into());
            return Ok(());
        };
        let (_, l2, _) = self.geometry(plan);
        let line = bench::CODE_LINE_BYTES;
        let resident = (l1i / 2 / line).max(1) * line;
        // 4 x L1I: clear of the L1I and the op cache, well inside the L2, and few enough
        // 4 KiB pages (32 for a 32 KiB L1I) that the ITLB holds them
        let streamed = ((4 * l1i).min(l2.map_or(u64::MAX, |l| l / 4)) / line) * line;
        if streamed <= l1i {
            self.cal.notes.push("core.icache_misses_in_flight: the L2 is not larger than 4 x L1I: not measured".into());
            return Ok(());
        }
        (self.progress)("frontend", 0, 2);
        let near = self.try_measure(&Bench::CodeStream { bytes: resident })?;
        (self.progress)("frontend", 1, 2);
        let far = self.try_measure(&Bench::CodeStream { bytes: streamed })?;
        (self.progress)("frontend", 2, 2);
        if let Some(n) = near {
            let m = format!("cycles per 64-byte line of straight-line 8-byte nops, {} of code (in the L1I)", bench::human_bytes(resident));
            self.push("info.code_line_cycles_l1i", n.cycles, m, &[n]);
        }
        let Some(f) = far else { return Ok(()) };
        let l2_name = self.cache_name(2);
        let l2_key = format!("cache.{l2_name}.latency");
        let Some(l2_latency) = self.cal.value(&l2_key).or_else(|| self.base_value(&l2_key)) else { return Ok(()) };
        let l1i_latency = l1i_model.map_or(1.0, |c| c.latency);
        let measured_l2 = self.cal.get(&l2_key).is_some();
        let value = an::icache_misses_in_flight(f.cycles, l2_latency, l1i_latency);
        let mut m = format!(
            "straight-line 8-byte nops, {} of code (from L2): {:.2} cycles per 64-byte line{}; the model streams a line every ({l2_key} {l2_latency:.2}{} - L1I latency {l1i_latency}) / misses in flight",
            bench::human_bytes(streamed),
            f.cycles,
            near.map_or(String::new(), |n| format!(" ({:.2} in the L1I)", n.cycles)),
            if measured_l2 { ", measured" } else { ", the base model's" },
        );
        if near.is_some_and(|n| f.cycles <= 1.1 * n.cycles) {
            m += "; code from L2 runs as fast as from the L1I: the stream is hidden behind decode, so this is a lower bound";
        }
        if value <= 1.0 {
            m += "; slower than one miss at a time: the model's floor of one";
        }
        self.push("core.icache_misses_in_flight", value, m, &[f]);
        if measured_l2 {
            if let Some(e) = self.cal.entries.last_mut() {
                e.depends_on.push(l2_key);
            }
        }
        Ok(())
    }
}

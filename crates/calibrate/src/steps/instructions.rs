//! Latency and reciprocal throughput of instruction forms, and port conflicts from pairwise mixes.

use crate::analysis as an;
use crate::divide;
use crate::engine::*;
use crate::*;

/// How close (fraction) a throughput must be to 1/k or k cycles to be taken as it.
const SNAP: f64 = 0.05;

impl Engine<'_> {
    pub(crate) fn forms(&mut self, keys: &[String]) -> Result<(), CalibrateError> {
        let int_load = self.cal.value("memory.integer_load_latency");
        let fp_load = self.cal.value("memory.load_latency");
        for (i, key) in keys.iter().enumerate() {
            (self.progress)("forms", i, keys.len());
            self.check_stop()?;
            let base = self.base.form(key);
            let base_latency = base.map(|f| f.latency);
            let base_rthroughput = base.and_then(|f| forms::base_rthroughput(self.base, f));
            let parsed = match forms::parse(key) {
                Ok(p) => p,
                Err(why) => {
                    self.cal.forms.push(MeasuredForm { form: key.clone(), latency: None, rthroughput: None, base_latency, base_rthroughput, method: format!("skipped: {why}"), unstable: false });
                    continue;
                }
            };
            let mut method = Vec::new();
            if divide::is_divide(&parsed) {
                method.push(divide::operands_note(&parsed));
            }
            let mut unstable = false;
            let tb = Bench::FormThroughput { form: key.clone() };
            let rthroughput = match self.measure(&tb) {
                Ok(s) => {
                    unstable |= s.unstable;
                    let snapped = an::snap_rthroughput(s.cycles, SNAP);
                    method.push(format!("throughput: {} independent copies ({:.3} cycles each, taken as {snapped:.3})", bench::FORM_BODY, s.cycles));
                    Some(snapped)
                }
                Err(e) => {
                    self.check_stop()?;
                    self.cal.forms.push(MeasuredForm { form: key.clone(), latency: None, rthroughput: None, base_latency, base_rthroughput, method: format!("skipped: {e}"), unstable: false });
                    continue;
                }
            };
            let load_lat = if forms::vector_dest(&parsed) { fp_load } else { int_load };
            let load_name = if forms::vector_dest(&parsed) { "memory.load_latency" } else { "memory.integer_load_latency" };
            let latency = match forms::chain_of(&parsed) {
                Ok(forms::Chain::LoadToUse) => {
                    method.push(format!("latency: the measured load-to-use ({load_name})"));
                    load_lat
                }
                Ok(chain) => match self.measure(&Bench::FormLatency { form: key.clone() }) {
                    Ok(s) => {
                        unstable |= s.unstable;
                        let copy = forms::latency_copy(&parsed, &chain, 0);
                        let closing = chain.closing_cycles();
                        if forms::loads(&parsed) && chain != forms::Chain::Address {
                            method.push(format!("latency: chain `{copy}` ({:.2}, load off the chain) + {load_name}", s.cycles));
                            load_lat.map(|l| s.cycles + l)
                        } else if closing > 0.0 {
                            method.push(format!("latency: chain `{}` ({:.2}) minus its closing instruction ({closing})", copy.replace('\n', "; "), s.cycles));
                            Some(s.cycles - closing)
                        } else {
                            method.push(format!("latency: chain `{copy}`"));
                            Some(s.cycles)
                        }
                    }
                    Err(e) => {
                        self.check_stop()?;
                        method.push(format!("latency not measured: {e}"));
                        None
                    }
                },
                Err(why) => {
                    method.push(format!("latency not measured: {why}"));
                    None
                }
            };
            self.cal.forms.push(MeasuredForm { form: key.clone(), latency, rthroughput, base_latency, base_rthroughput, method: method.join("; "), unstable });
        }
        (self.progress)("forms", keys.len(), keys.len());
        Ok(())
    }

    /// Palmed-style pairwise mixes among the measured forms: at most 16, those whose
    /// measured throughput contradicts the base model's (more than 10 % apart) first.
    pub(crate) fn conflicts(&mut self) -> Result<(), CalibrateError> {
        let mut measured: Vec<(String, f64, bool)> = self
            .cal
            .forms
            .iter()
            .filter_map(|f| {
                let t = f.rthroughput?;
                // a divide always writes rax and rdx, which the other form's copies use
                if forms::parse(&f.form).is_ok_and(|p| divide::is_divide(&p)) {
                    return None;
                }
                let off = f.base_rthroughput.is_none_or(|b| (t - b).abs() > 0.1 * b.max(t));
                Some((f.form.clone(), t, off))
            })
            .collect();
        measured.sort_by_key(|m| !m.2); // stable: contradicting first, table order otherwise
        let measured: Vec<(String, f64)> = measured.into_iter().take(16).map(|(f, t, _)| (f, t)).collect();
        let total = measured.len() * measured.len().saturating_sub(1) / 2;
        let mut done = 0;
        for i in 0..measured.len() {
            for j in i + 1..measured.len() {
                (self.progress)("port conflicts", done, total);
                done += 1;
                // the degree divides the extra time by the faster form's: with throughputs
                // far apart that is noise of the slower one (sqrtsd beside lea read 1.5)
                let (a, b) = (measured[i].1, measured[j].1);
                if a.min(b) < 0.25 * a.max(b) {
                    continue;
                }
                let b = Bench::FormPair { a: measured[i].0.clone(), b: measured[j].0.clone() };
                if let Some(s) = self.try_measure(&b)? {
                    let c = an::conflict(measured[i].1, measured[j].1, s.cycles);
                    self.cal.conflicts.push((measured[i].0.clone(), measured[j].0.clone(), (c * 100.0).round() / 100.0));
                }
            }
        }
        (self.progress)("port conflicts", total, total);
        Ok(())
    }
}

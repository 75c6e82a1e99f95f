//! The sampling controller ([`Sampler`]) as the schedule a trace source asks
//! what to do with the batches to come.

use super::sampling::{LiveEstimate, Sampler, Warming, UNIT_BATCHES, WARM_UP_BATCHES};
use bottlenose_trace_source::Schedule;
use bottlenose_simulate::engine::{Records, VariantsTime};
use bottlenose_timing::BatchPart;

impl Schedule for Sampler {
    type Estimate = LiveEstimate;

    fn next_batch(&mut self, simulated: u64) -> Option<BatchPart> {
        Sampler::next_batch(self, simulated)
    }

    fn variants_time(&self) -> VariantsTime {
        Sampler::variants_time(self)
    }

    fn end_batch(&mut self, instructions: u64, part: Option<BatchPart>) {
        Sampler::end_batch(self, instructions, part)
    }

    fn note_batch(&mut self, part: BatchPart, records: &Records) {
        Sampler::note_batch(self, part, records)
    }

    fn on_cycles(&mut self, part: BatchPart, cycles: f64) {
        Sampler::on_cycles(self, part, cycles)
    }

    fn extend_stratum(&mut self, instructions: u64) {
        Sampler::extend_stratum(self, instructions)
    }

    fn sampling(&self) -> bool {
        Sampler::sampling(self)
    }

    fn exact_below(&self) -> u64 {
        self.opts.exact_below
    }

    fn warming_window(&self) -> Option<u64> {
        match self.opts.warming {
            Warming::Window { instructions } => Some(instructions),
            Warming::Full => None,
        }
    }

    fn window_batches(&self) -> u64 {
        WARM_UP_BATCHES + UNIT_BATCHES
    }

    fn fast_forward_ahead(&self, simulated: u64, limit: u64) -> (u64, bool) {
        Sampler::fast_forward_ahead(self, simulated, limit)
    }

    fn live(&self, simulated: u64) -> Option<LiveEstimate> {
        Sampler::live(self, simulated)
    }
}

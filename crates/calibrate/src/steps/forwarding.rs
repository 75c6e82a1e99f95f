//! Store-to-load forwarding latency and memory renaming: a load-add-store chain through
//! one L1 quadword whose store names the address differently from the load (only
//! forwarding can serve the load) and the same way (what a core that renames memory, as
//! AMD's Zen 2 and later do, turns into a register dependency).

use crate::analysis as an;
use crate::engine::*;
use crate::*;

impl Engine<'_> {
    pub(crate) fn forwarding(&mut self) -> Result<(), CalibrateError> {
        (self.progress)("store forwarding", 0, 2);
        let aliased = self.try_measure(&Bench::StoreForward { renamed: false })?;
        (self.progress)("store forwarding", 1, 2);
        let same = self.try_measure(&Bench::StoreForward { renamed: true })?;
        (self.progress)("store forwarding", 2, 2);
        let Some(a) = aliased else { return Ok(()) };
        let chain = format!(
            "{} rounds of `mov rax, [rdi+520]; add rax, r13; mov [rcx+528], rax` (rcx = rdi - 8: the same quadword named another way",
            bench::FORWARD_BODY
        );
        // the chain whose renaming sets `renamed_forward_latency`, if the core renames
        let renamed = if an::renamed_across_namings(a.cycles) {
            // renamed even when the store names the address another way: no chain here shows
            // the forwarding latency, so the base's stays; the renaming is what loads see
            let m = format!(
                "{chain}): {:.2} cycles per round, the add's pace: the core renames the load to the stored register whatever the naming (store forwarding itself not observable here: the base's latency stays)",
                a.cycles
            );
            self.push("memory.memory_renaming", 1.0, m, &[a]);
            Some(same.unwrap_or(a))
        } else {
            let m = format!("{chain}, so no renaming): {:.2} cycles per round, minus the add (1) and the store's write (1) that the model adds", a.cycles);
            self.push("memory.store_forward_latency", an::store_forward_latency(a.cycles), m, &[a]);
            let Some(s) = same else { return Ok(()) };
            let renames = an::renames_memory(a.cycles, s.cycles);
            let m = format!(
                "the same chain with the store to `[rdi+520]`, the load's own address expression: {:.2} cycles per round against {:.2} ({})",
                s.cycles,
                a.cycles,
                if renames { "renamed: the load takes the stored value without forwarding" } else { "no faster: no memory renaming" }
            );
            self.push("memory.memory_renaming", if renames { 1.0 } else { 0.0 }, m, &[a, s]);
            renames.then_some(s)
        };
        if let Some(r) = renamed {
            let m = format!("same-expression chain: {:.2} cycles per round minus the add (1)", r.cycles);
            self.push("memory.renamed_forward_latency", an::renamed_forward_latency(r.cycles), m, &[r]);
        }
        Ok(())
    }
}

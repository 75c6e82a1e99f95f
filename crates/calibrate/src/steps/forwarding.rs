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
        if an::renamed_across_namings(a.cycles) {
            // renamed even when the store names the address another way: no chain here shows
            // the forwarding latency, so the base's stays; the renaming is what loads see
            let m = format!(
                "{} rounds of `mov rax, [rdi+520]; add rax, r13; mov [rcx+528], rax` (rcx = rdi - 8: the same quadword named another way): {:.2} cycles per round, the add's pace: the core renames the load to the stored register whatever the naming (store forwarding itself not observable here: the base's latency stays)",
                bench::FORWARD_BODY,
                a.cycles
            );
            self.push("memory.memory_renaming", 1.0, m, &[a]);
            let renamed = same.unwrap_or(a);
            let m = format!("load-add-store chain renamed: {:.2} cycles per round minus the add (1)", renamed.cycles);
            self.push("memory.renamed_forward_latency", an::renamed_forward_latency(renamed.cycles), m, &[renamed]);
            return Ok(());
        }
        let m = format!(
            "{} rounds of `mov rax, [rdi+520]; add rax, r13; mov [rcx+528], rax` (rcx = rdi - 8: the same quadword named another way, so no renaming): {:.2} cycles per round, minus the add (1) and the store's write (1) that the model adds",
            bench::FORWARD_BODY,
            a.cycles
        );
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
        if renames {
            let m = format!("same-expression chain: {:.2} cycles per round minus the add (1)", s.cycles);
            self.push("memory.renamed_forward_latency", an::renamed_forward_latency(s.cycles), m, &[s]);
        }
        Ok(())
    }
}

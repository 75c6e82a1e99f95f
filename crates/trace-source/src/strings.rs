//! String instructions in the QEMU stream: one execution, not one per element.
//!
//! QEMU runs a `rep`-prefixed string instruction one element per pass through its
//! translation block and reports each pass: with its memory accesses while elements
//! remain, then once more without memory for the final count check (`rcx` = 0), which
//! leaves for the next instruction. `rep stosb` with `rcx` = 5 is reported six times;
//! with `rcx` = 0 once, without memory. `repe`/`repne cmps`/`scas` that stop at a
//! difference (or match) leave from the element that stopped them, with no count check.
//! A pass that comes back to the instruction has `next_vaddr` equal to its own address.
//!
//! [`StringCollapser`] turns those reports into one [`StringRun`] per execution: the
//! element count and, per memory stream (`[rsi]`, `[rdi]`), the first and last element
//! addresses, which give the bytes it covered in either direction (the direction flag
//! makes the addresses descend). It keeps one pending run per vCPU and allocates nothing
//! per report.

use bottlenose_trace::ExecutedInsn;

/// The bytes one memory stream of a string instruction covered: its first and last
/// element's addresses (descending when the direction flag was set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StringSpan {
    pub first: u64,
    pub last: u64,
    /// Bytes per element access.
    pub size: u8,
    pub is_store: bool,
}

impl StringSpan {
    /// The lowest and the highest byte covered.
    pub fn bytes(&self) -> (u64, u64) {
        let (lo, hi) = if self.last >= self.first { (self.first, self.last) } else { (self.last, self.first) };
        (lo, hi.wrapping_add(self.size.max(1) as u64 - 1))
    }

    pub fn descending(&self) -> bool {
        self.last < self.first
    }
}

/// Most memory streams of a string instruction (`movs` and `cmps` have two).
pub const MAX_SPANS: usize = 2;

/// One execution of a string instruction, collapsed from QEMU's reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StringRun {
    /// Index of the instruction's first report in the driver's static table.
    pub index: usize,
    pub vaddr: u64,
    pub vcpu: u16,
    /// Elements processed (reports with memory accesses).
    pub elements: u32,
    spans: [StringSpan; MAX_SPANS],
    n_spans: u8,
}

impl StringRun {
    fn new(index: usize, insn: &ExecutedInsn<'_>) -> Self {
        StringRun { index, vaddr: insn.vaddr, vcpu: insn.vcpu, elements: 0, spans: [StringSpan::default(); MAX_SPANS], n_spans: 0 }
    }

    /// The memory streams it touched (none when no element ran).
    pub fn spans(&self) -> &[StringSpan] {
        &self.spans[..self.n_spans as usize]
    }

    /// Counts one report: an element if it accessed memory.
    fn add(&mut self, insn: &ExecutedInsn<'_>) {
        let mem = insn.mem();
        if mem.is_empty() {
            return;
        }
        if self.elements == 0 {
            self.n_spans = mem.len().min(MAX_SPANS) as u8;
            for (span, m) in self.spans.iter_mut().zip(mem) {
                *span = StringSpan { first: m.vaddr, last: m.vaddr, size: m.size, is_store: m.is_store };
            }
        } else {
            for (span, m) in self.spans.iter_mut().zip(mem).take(self.n_spans as usize) {
                span.last = m.vaddr;
            }
        }
        self.elements = self.elements.saturating_add(1);
    }
}

/// What a report of a string instruction amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fed {
    /// The instruction goes on with more elements: nothing to time yet.
    Pending,
    /// The execution is complete.
    Done(StringRun),
}

/// Collapses QEMU's per-element reports of string instructions, one pending execution per vCPU.
#[derive(Debug, Default)]
pub struct StringCollapser {
    pending: Vec<Option<StringRun>>,
    /// How many vCPUs have a pending run (non-string instructions skip the lookup when none).
    open: usize,
}

impl StringCollapser {
    pub fn new() -> Self {
        Self::default()
    }

    /// One report of the string instruction at static `index`; `repeats`: it has a
    /// `rep`/`repe`/`repne` prefix. A run of the same vCPU left pending by another
    /// instruction (see [`StringCollapser::interrupted`]) must be taken first.
    #[inline]
    pub fn feed(&mut self, insn: &ExecutedInsn<'_>, index: usize, repeats: bool) -> Fed {
        let v = insn.vcpu as usize;
        if v >= self.pending.len() {
            self.pending.resize(v + 1, None);
        }
        let slot = &mut self.pending[v];
        let mut run = match slot.take() {
            Some(run) => {
                self.open -= 1;
                run
            }
            None => StringRun::new(index, insn),
        };
        run.add(insn);
        if repeats && insn.next_vaddr == Some(insn.vaddr) {
            *slot = Some(run);
            self.open += 1;
            return Fed::Pending;
        }
        if !repeats && insn.mem().is_empty() {
            // QEMU reported no access (a fault): it still executed once
            run.elements = run.elements.max(1);
        }
        Fed::Done(run)
    }

    /// A run of `insn`'s vCPU that another instruction interrupted (a signal handler, a
    /// report of another address): what it did so far, as a complete execution. QEMU
    /// resumes the rest as a new one.
    #[inline]
    pub fn interrupted(&mut self, insn: &ExecutedInsn<'_>) -> Option<StringRun> {
        if self.open == 0 {
            return None;
        }
        let slot = self.pending.get_mut(insn.vcpu as usize)?;
        if slot.is_some_and(|r| r.vaddr == insn.vaddr) {
            return None;
        }
        let run = slot.take()?;
        self.open -= 1;
        Some(run)
    }

    /// The runs still pending when the stream ended (the program was stopped mid-instruction).
    pub fn finish(&mut self) -> Vec<StringRun> {
        self.open = 0;
        self.pending.iter_mut().filter_map(Option::take).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_trace::{MemAccess, MAX_MEM_PER_INSN};

    const REP_MOVSB: &[u8] = &[0xf3, 0xa4];
    const AT: u64 = 0x401000;

    /// A report of the string instruction at `AT` with these accesses, continuing at `next`.
    fn report(mem: &[(u64, bool)], size: u8, next: u64, vcpu: u16) -> ExecutedInsn<'static> {
        assert!(mem.len() <= MAX_MEM_PER_INSN);
        let accesses: Vec<MemAccess> = mem.iter().map(|&(vaddr, is_store)| MemAccess { vaddr, size, is_store }).collect();
        ExecutedInsn {
            vaddr: AT,
            bytes: REP_MOVSB,
            tb_id: 0,
            index_in_tb: 0,
            static_id: 0,
            vcpu,
            mem_accesses: accesses.leak(),
            mem_overflow: 0,
            next_vaddr: Some(next),
        }
    }

    /// QEMU's reports of `rep movs` over `n` elements of `size` bytes from `src` to
    /// `dst` (descending when `back`): n with a load and a store, then the count check.
    fn rep_movs(n: u64, size: u8, src: u64, dst: u64, back: bool) -> Vec<ExecutedInsn<'static>> {
        let step = |base: u64, i: u64| if back { base - i * size as u64 } else { base + i * size as u64 };
        let mut v: Vec<_> = (0..n).map(|i| report(&[(step(src, i), false), (step(dst, i), true)], size, AT, 0)).collect();
        v.push(report(&[], size, AT + 2, 0));
        v
    }

    fn collapse(reports: &[ExecutedInsn<'_>]) -> Vec<StringRun> {
        let mut c = StringCollapser::new();
        let mut out = Vec::new();
        for r in reports {
            out.extend(c.interrupted(r));
            if let Fed::Done(run) = c.feed(r, 7, true) {
                out.push(run);
            }
        }
        out.extend(c.finish());
        out
    }

    #[test]
    fn rep_movsb_becomes_one_execution_with_its_count_and_spans() {
        let runs = collapse(&rep_movs(5, 1, 0x1000, 0x2000, false));
        assert_eq!(runs.len(), 1);
        let r = runs[0];
        assert_eq!((r.index, r.elements, r.vaddr), (7, 5, AT));
        assert_eq!(r.spans().len(), 2);
        assert_eq!(r.spans()[0].bytes(), (0x1000, 0x1004));
        assert!(!r.spans()[0].is_store && r.spans()[1].is_store);
        assert_eq!(r.spans()[1].bytes(), (0x2000, 0x2004));
    }

    #[test]
    fn zero_count_is_one_execution_without_elements() {
        let runs = collapse(&rep_movs(0, 1, 0x1000, 0x2000, false));
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].elements, 0);
        assert!(runs[0].spans().is_empty());
    }

    #[test]
    fn quadwords_backwards_cover_the_bytes_below_the_start() {
        // std; rep movsq with rcx = 4 from 0x1018 down: elements at 0x1018, 0x1010, 0x1008, 0x1000
        let runs = collapse(&rep_movs(4, 8, 0x1018, 0x2018, true));
        let s = runs[0].spans()[0];
        assert!(s.descending());
        assert_eq!(s.bytes(), (0x1000, 0x101f));
        assert_eq!(runs[0].elements, 4);
    }

    #[test]
    fn repe_cmps_stopping_early_leaves_from_the_last_element() {
        // repe cmpsb with rcx = 10 that finds a difference at the 3rd byte: three reports,
        // the last one leaving the instruction (no count check)
        let mut v: Vec<_> = (0..3).map(|i| report(&[(0x1000 + i, false), (0x2000 + i, false)], 1, AT, 0)).collect();
        v[2].next_vaddr = Some(AT + 2);
        let runs = collapse(&v);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].elements, 3);
        assert_eq!(runs[0].spans()[1].bytes(), (0x2000, 0x2002));
    }

    #[test]
    fn back_to_back_executions_stay_apart() {
        let mut v = rep_movs(3, 1, 0x1000, 0x2000, false);
        v.extend(rep_movs(2, 1, 0x3000, 0x4000, false));
        let runs = collapse(&v);
        assert_eq!(runs.iter().map(|r| r.elements).collect::<Vec<_>>(), vec![3, 2]);
        assert_eq!(runs[1].spans()[0].first, 0x3000);
    }

    #[test]
    fn vcpus_collapse_independently_and_unfinished_runs_come_out_at_the_end() {
        let mut c = StringCollapser::new();
        let a = report(&[(0x1000, false), (0x2000, true)], 1, AT, 0);
        let b = report(&[(0x5000, false), (0x6000, true)], 1, AT, 1);
        for r in [a, b, a, b, b] {
            assert_eq!(c.feed(&r, 7, true), Fed::Pending);
        }
        // vCPU 1 finishes, vCPU 0 is cut off
        let Fed::Done(done) = c.feed(&report(&[], 1, AT + 2, 1), 7, true) else { panic!("vCPU 1 is done") };
        assert_eq!((done.vcpu, done.elements), (1, 3));
        let rest = c.finish();
        assert_eq!(rest.len(), 1);
        assert_eq!((rest[0].vcpu, rest[0].elements), (0, 2));
    }

    #[test]
    fn another_instruction_on_the_vcpu_ends_a_pending_run() {
        let mut c = StringCollapser::new();
        let a = report(&[(0x1000, false), (0x2000, true)], 1, AT, 0);
        assert_eq!(c.feed(&a, 7, true), Fed::Pending);
        let mut other = report(&[], 1, 0x500000, 0);
        other.vaddr = 0x400000;
        let cut = c.interrupted(&other).expect("the pending run ends");
        assert_eq!(cut.elements, 1);
        assert_eq!(c.interrupted(&other), None);
        // the same instruction continuing is not an interruption
        assert_eq!(c.feed(&a, 7, true), Fed::Pending);
        assert_eq!(c.interrupted(&a), None);
    }

    #[test]
    fn a_string_instruction_without_prefix_is_one_element() {
        let mut c = StringCollapser::new();
        let r = report(&[(0x1000, false), (0x2000, true)], 1, AT + 1, 0);
        let Fed::Done(run) = c.feed(&r, 3, false) else { panic!("done at once") };
        assert_eq!(run.elements, 1);
    }
}

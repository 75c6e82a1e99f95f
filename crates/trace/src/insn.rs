//! The "executed instruction" layer: turns block definitions, block
//! executions and memory records into one [`ExecutedInsn`] per executed
//! instruction, in execution order per vCPU.

use super::stream::TraceVisitor;
use bottlenose_trace_format::transport::Resume;

/// What an [`InstructionStream`] hands its instructions to: any
/// `FnMut(&ExecutedInsn)`, or a type that also answers fast-forward's pauses
/// and takes the instructions it skipped.
pub trait InsnSink {
    fn insn(&mut self, insn: &ExecutedInsn<'_>);
    /// The plugin waits for what to do next (see `TraceVisitor::pause`).
    fn pause(&mut self) -> Resume {
        Resume::FULL
    }
    /// Static instruction `insn` (no memory accesses, no successor) ran
    /// `executions` times while the plugin fast-forwarded.
    fn skipped(&mut self, insn: &ExecutedInsn<'_>, executions: u64) {
        let _ = (insn, executions);
    }
    /// Whether the reader should return to its caller (see `TraceVisitor::yield_now`).
    #[inline(always)]
    fn yield_now(&self) -> bool {
        false
    }
}

impl<F: FnMut(&ExecutedInsn<'_>)> InsnSink for F {
    #[inline(always)]
    fn insn(&mut self, insn: &ExecutedInsn<'_>) {
        self(insn)
    }
}

/// How many memory accesses an [`ExecutedInsn`] carries inline; further
/// ones are only counted in [`ExecutedInsn::mem_overflow`].
pub const MAX_MEM_PER_INSN: usize = 4;

/// One memory access of an instruction, as QEMU reported it (a 16-byte SSE
/// access may show up as two 8-byte ones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MemAccess {
    pub vaddr: u64,
    /// Bytes (1, 2, 4, 8, 16, ...).
    pub size: u8,
    pub is_store: bool,
}

/// One executed instruction.
///
/// QEMU reports block entry, not instruction retirement: if a block is left
/// early (a fault in the middle of it), the instructions after the fault are
/// still reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutedInsn<'a> {
    pub vaddr: u64,
    /// Machine code, as translated.
    pub bytes: &'a [u8],
    /// Translation block this execution came from.
    pub tb_id: u32,
    pub index_in_tb: u16,
    /// Dense id of the static instruction (block `tb_id`, index
    /// `index_in_tb`), counting from 0 in translation order: a cache key for
    /// decoding each static instruction once (`Vec` indexed by it).
    /// Retranslations of the same address get new ids.
    pub static_id: u32,
    pub vcpu: u16,
    /// Its memory accesses (at most [`MAX_MEM_PER_INSN`]); see [`ExecutedInsn::mem`].
    /// Lent from the reader, not copied: the copy's 16-byte loads of entries the reader had
    /// just written field by field could not be served from the store buffer, and waited.
    pub mem_accesses: &'a [MemAccess],
    /// Accesses beyond [`MAX_MEM_PER_INSN`] that were dropped.
    pub mem_overflow: u32,
    /// Address of the instruction executed next on this vCPU: the next one
    /// in the block, or for the block's last instruction the first
    /// instruction of the next executed block. `None` for the last
    /// instruction of the run.
    pub next_vaddr: Option<u64>,
}

impl<'a> ExecutedInsn<'a> {
    /// The memory accesses of this execution, in program order.
    #[inline]
    pub fn mem(&self) -> &[MemAccess] {
        self.mem_accesses
    }
}

/// A static instruction of the block table.
#[derive(Debug, Clone, Copy)]
struct StaticInsn {
    vaddr: u64,
    /// Offset of its bytes in the arena.
    offset: usize,
    len: u8,
}

#[derive(Debug, Clone, Copy)]
struct Tb {
    /// Static id of its first instruction.
    first: u32,
    n: u16,
}

const NO_TB: u32 = u32::MAX;

/// Per-vCPU state: the executing block and the instruction whose memory
/// records are being collected.
#[derive(Debug, Clone, Copy)]
struct Vcpu {
    tb: u32,
    /// Next instruction of `tb` to emit.
    cur: u16,
    mem: [MemAccess; MAX_MEM_PER_INSN],
    mem_len: u8,
    overflow: u32,
}

impl Default for Vcpu {
    fn default() -> Self {
        Vcpu {
            tb: NO_TB,
            cur: 0,
            mem: [MemAccess::default(); MAX_MEM_PER_INSN],
            mem_len: 0,
            overflow: 0,
        }
    }
}

/// A [`TraceVisitor`] that keeps the block table and calls `on_insn` once
/// per executed instruction.
///
/// Memory records of an instruction arrive after its block's TB_EXEC, so an
/// instruction is emitted once a record for a later instruction of the
/// block, or the vCPU's next TB_EXEC, or END arrives; the last instruction
/// of a block always waits for the next TB_EXEC on its vCPU (for
/// `next_vaddr`). Call [`InstructionStream::finish`] if the stream ended
/// without END.
pub struct InstructionStream<F: InsnSink> {
    statics: Vec<StaticInsn>,
    arena: Vec<u8>,
    tbs: Vec<Tb>,
    vcpus: Vec<Vcpu>,
    on_insn: F,
    executed: u64,
    events: ProcessEvents,
}

/// What a stream said about its process besides instructions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessEvents {
    /// The code the guest passed to exit_group.
    pub exit_code: Option<i32>,
    /// The program the process replaced itself with (its trace goes on in a new stream).
    pub exec: Option<String>,
    /// What the plugin could not trace, and why.
    pub notes: Vec<String>,
}

impl<F: InsnSink> InstructionStream<F> {
    pub fn new(on_insn: F) -> Self {
        InstructionStream {
            statics: Vec::new(),
            arena: Vec::new(),
            tbs: Vec::new(),
            vcpus: Vec::new(),
            on_insn,
            executed: 0,
            events: ProcessEvents::default(),
        }
    }

    /// Exit code, exec and notes the stream reported.
    pub fn events(&self) -> &ProcessEvents {
        &self.events
    }

    /// Instructions emitted so far, and those skipped (fast-forward).
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Static instructions (all blocks' instructions) defined so far.
    pub fn static_count(&self) -> usize {
        self.statics.len()
    }

    /// Address and bytes of a static instruction.
    pub fn static_insn(&self, static_id: u32) -> Option<(u64, &[u8])> {
        let s = self.statics.get(static_id as usize)?;
        Some((s.vaddr, &self.arena[s.offset..s.offset + s.len as usize]))
    }

    /// Emits the instructions still pending on every vCPU (the last block
    /// of each), with `next_vaddr: None` for each block's last instruction.
    /// Called by END; call it yourself when the stream ended without END.
    pub fn finish(&mut self) {
        for v in 0..self.vcpus.len() {
            if self.vcpus[v].tb != NO_TB {
                let n = self.tbs[self.vcpus[v].tb as usize].n;
                self.emit_until(v, n, None);
                self.vcpus[v].tb = NO_TB;
            }
        }
    }

    /// Gives back the callback.
    pub fn into_inner(self) -> F {
        self.on_insn
    }

    /// The callback.
    pub fn sink(&self) -> &F {
        &self.on_insn
    }

    pub fn sink_mut(&mut self) -> &mut F {
        &mut self.on_insn
    }

    /// Emits instructions `cur..upto` of vCPU `v`'s block; `last_next` is
    /// the successor of the block's last instruction.
    #[inline]
    fn emit_until(&mut self, v: usize, upto: u16, last_next: Option<u64>) {
        let st = &mut self.vcpus[v];
        let tb_id = st.tb;
        let tb = self.tbs[tb_id as usize];
        // Work on locals and write the state back once: storing `mem_len`
        // and reloading `cur` next to it stalls store forwarding.
        let mut i = st.cur;
        if i >= upto {
            return;
        }
        let first = i;
        let mut mem_len = st.mem_len as usize;
        let mut overflow = st.overflow;
        st.cur = upto;
        st.mem_len = 0;
        st.overflow = 0;
        let mem = &self.vcpus[v].mem;
        let statics = &self.statics[tb.first as usize..tb.first as usize + tb.n as usize];
        while i < upto {
            let s = statics[i as usize];
            let next_vaddr = match statics.get(i as usize + 1) {
                Some(next) => Some(next.vaddr),
                None => last_next,
            };
            let insn = ExecutedInsn {
                vaddr: s.vaddr,
                bytes: &self.arena[s.offset..s.offset + s.len as usize],
                tb_id,
                index_in_tb: i,
                static_id: tb.first + i as u32,
                vcpu: v as u16,
                mem_accesses: &mem[..mem_len],
                mem_overflow: overflow,
                next_vaddr,
            };
            self.on_insn.insn(&insn);
            mem_len = 0;
            overflow = 0;
            i += 1;
        }
        self.executed += (i - first) as u64;
    }
}

impl<F: InsnSink> TraceVisitor for InstructionStream<F> {
    fn tb_def(&mut self, id: u32, insns: &[(u64, &[u8])]) {
        debug_assert_eq!(id as usize, self.tbs.len());
        let first = self.statics.len() as u32;
        for &(vaddr, bytes) in insns {
            self.statics.push(StaticInsn {
                vaddr,
                offset: self.arena.len(),
                len: bytes.len() as u8,
            });
            self.arena.extend_from_slice(bytes);
        }
        self.tbs.push(Tb {
            first,
            n: insns.len() as u16,
        });
    }

    #[inline]
    fn tb_exec(&mut self, id: u32, vcpu: u16) {
        let v = vcpu as usize;
        if v >= self.vcpus.len() {
            self.vcpus.resize(v + 1, Vcpu::default());
        }
        let prev = self.vcpus[v].tb;
        if prev != NO_TB {
            let n = self.tbs[prev as usize].n;
            let next = self.statics[self.tbs[id as usize].first as usize].vaddr;
            self.emit_until(v, n, Some(next));
        }
        let st = &mut self.vcpus[v];
        st.tb = id;
        st.cur = 0;
        st.mem_len = 0;
        st.overflow = 0;
    }

    #[inline]
    fn mem(&mut self, vcpu: u16, insn_index: u16, vaddr: u64, size: u8, is_store: bool) {
        let v = vcpu as usize;
        // The parser guarantees a block is executing on `vcpu` and that the
        // index is inside it.
        let cur = self.vcpus[v].cur;
        if insn_index < cur {
            // A record for an instruction already emitted: cannot happen
            // with in-order records; drop it rather than misattribute it.
            return;
        }
        if insn_index > cur {
            self.emit_until(v, insn_index, None);
        }
        let st = &mut self.vcpus[v];
        if (st.mem_len as usize) < MAX_MEM_PER_INSN {
            st.mem[st.mem_len as usize] = MemAccess {
                vaddr,
                size,
                is_store,
            };
            st.mem_len += 1;
        } else {
            st.overflow += 1;
        }
    }

    fn end(&mut self) {
        self.finish();
    }

    fn exec(&mut self, program: &[u8]) {
        self.finish();
        self.events.exec = Some(String::from_utf8_lossy(program).into_owned());
    }

    fn exit(&mut self, code: i32) {
        self.events.exit_code = Some(code);
    }

    fn note(&mut self, text: &[u8]) {
        self.events.notes.push(String::from_utf8_lossy(text).into_owned());
    }

    fn pause(&mut self) -> Resume {
        self.on_insn.pause()
    }

    #[inline(always)]
    fn yield_now(&self) -> bool {
        self.on_insn.yield_now()
    }

    fn skipped(&mut self, id: u32, executions: u64) {
        // what was executing before the skip ends there (its successor is unknown)
        self.finish();
        let tb = self.tbs[id as usize];
        for i in 0..tb.n {
            let s = self.statics[(tb.first + i as u32) as usize];
            let insn = ExecutedInsn {
                vaddr: s.vaddr,
                bytes: &self.arena[s.offset..s.offset + s.len as usize],
                tb_id: id,
                index_in_tb: i,
                static_id: tb.first + i as u32,
                vcpu: 0,
                mem_accesses: &[],
                mem_overflow: 0,
                next_vaddr: None,
            };
            self.on_insn.skipped(&insn, executions);
        }
        self.executed = self.executed.saturating_add(tb.n as u64 * executions);
    }
}

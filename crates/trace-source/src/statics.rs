//! The static instructions of a trace: each decoded once, on its first
//! execution (with fallbacks for bytes QEMU reports short or the decoder
//! cannot read), and timed by the machine's tables.

use crate::producer::Producer;
use crate::source::Schedule;
use bottlenose_decode::{decode_one_for, decode_one_vl, BranchKind, DecodedInst, Isa, StringOp};
use bottlenose_views::StaticFacts;
use bottlenose_trace::ExecutedInsn;
use bottlenose_timing::{resolve, InstrTiming, UnknownForm};

/// A static instruction of the run: decoded, and timed by the machine's tables.
#[derive(Debug, Clone)]
pub struct StaticInstruction {
    pub inst: DecodedInst,
    pub timing: InstrTiming,
}

/// What the frontend reads of a static instruction on every execution, in a table of
/// its own: a few bytes, where [`StaticInstruction`] spreads them over several cache
/// lines of hundreds of bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrontFacts {
    pub(crate) string_op: Option<StringOp>,
    pub(crate) branch: BranchKind,
    pub(crate) len: u8,
    /// [`InstrTiming::fetch_window`].
    pub(crate) fetch_window: u64,
}

impl FrontFacts {
    fn new(s: &StaticInstruction) -> Self {
        FrontFacts { string_op: s.inst.string_op, branch: s.inst.branch, len: s.inst.len, fetch_window: s.timing.fetch_window }
    }
}

impl<S: Schedule> Producer<'_, S> {
    /// The index into `statics` of `insn`'s static instruction, decoded on its first execution.
    #[inline(always)]
    pub(crate) fn statics_index(&mut self, insn: &ExecutedInsn<'_>) -> usize {
        // once per executed instruction: the lookup inline, the first sight's decoding out of line
        match self.by_static_id.get(insn.static_id as usize) {
            Some(&known) if known != u32::MAX => known as usize,
            _ => self.first_sight(insn),
        }
    }

    /// Decodes and times a static instruction executed for the first time.
    #[cold]
    #[inline(never)]
    fn first_sight(&mut self, insn: &ExecutedInsn<'_>) -> usize {
        let sid = insn.static_id as usize;
        if sid >= self.by_static_id.len() {
            self.by_static_id.resize((sid + 1).next_power_of_two(), u32::MAX);
        }
        let isa = self.machine.isa;
        let inst = decode_one_vl(isa, insn.bytes, insn.vaddr, self.machine.sve_decode_bits())
            .or_else(|e| if isa == Isa::X86_64 { decode_padded(insn) } else { Err(e) })
            .unwrap_or_else(|_| undecodable(isa, insn));
        let prev = if insn.index_in_tb > 0 {
            self.by_static_id.get(sid - 1).filter(|&&i| i != u32::MAX).map(|&i| &self.statics[i as usize].inst)
        } else {
            None
        };
        let timing = resolve(self.machine, &inst, prev);
        if timing.unknown_form {
            self.unknown.push(UnknownForm { form: inst.form.clone(), asm: inst.asm.clone(), address: inst.address });
        }
        let known = self.maps.borrow().len();
        if known != self.maps_seen {
            self.new_mappings(known);
        }
        self.maps_known.push(known as u32);
        let index = self.statics.len();
        self.facts.push(index, StaticFacts::new(self.machine, &inst, &timing));
        for st in &mut self.ideal {
            st.batch.new_instructions.push(timing.clone());
        }
        self.batch.new_instructions.push(timing.clone());
        let stat = StaticInstruction { inst, timing };
        self.front_facts.push(FrontFacts::new(&stat));
        self.statics.push(stat);
        self.by_static_id[sid] = index as u32;
        index
    }

    /// Mappings `maps_seen..known` arrived: the region of interest moves to its file's.
    #[cold]
    fn new_mappings(&mut self, known: usize) {
        if let Some(p) = &self.roi_placement {
            let maps = self.maps.borrow();
            if let Some(bias) = maps[self.maps_seen..known].iter().find_map(|m| p.bias_in(m.start, m.end, m.offset, &m.path)) {
                self.roi.relocate(bias);
                self.roi_placement = None;
            }
        }
        self.maps_seen = known;
    }
}

/// QEMU 7.2 sometimes reports an instruction's bytes without its trailing
/// immediate or displacement. Timing depends on prefixes, opcode and ModRM
/// only, so decode with the missing tail zero-filled.
pub(crate) fn decode_padded(insn: &ExecutedInsn<'_>) -> Result<DecodedInst, bottlenose_decode::DecodeError> {
    let mut bytes = [0u8; 15];
    let n = insn.bytes.len().min(15);
    bytes[..n].copy_from_slice(&insn.bytes[..n]);
    let d = decode_one_for(Isa::X86_64, &bytes, insn.vaddr)?;
    if (d.len as usize) < n {
        return Err(bottlenose_decode::DecodeError::Truncated { address: insn.vaddr });
    }
    Ok(d)
}

/// Bytes the decoder cannot decode (QEMU executed them, so they are valid somewhere;
/// on AArch64, SVE): time them as the machine's default form and report them.
pub(crate) fn undecodable(isa: Isa, insn: &ExecutedInsn<'_>) -> DecodedInst {
    let nop: &[u8] = match isa {
        Isa::X86_64 => &[0x90],
        Isa::Aarch64 => &[0x1f, 0x20, 0x03, 0xd5],
    };
    let mut d = decode_one_for(isa, nop, insn.vaddr).expect("nop decodes");
    d.len = insn.bytes.len() as u8;
    d.bytes = insn.bytes.to_vec();
    d.form = bottlenose_decode::undecodable_form(isa, insn.bytes).into();
    d.mnemonic = d.form.clone();
    d.asm = format!("{}: {}", d.form.trim_end_matches(')'), insn.bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")) + ")";
    d.is_nop = false;
    d
}


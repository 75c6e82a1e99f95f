//! Collecting instruction forms: decode the code of ELF files and assembled `.s`
//! files, key every instruction by its form, keep a few representatives per form.

use anyhow::{bail, Context, Result};
use bottlenose_decode::{form_key, DecodeContext, DecodedInst, Isa};
use iced_x86::{Decoder, DecoderOptions, EncodingKind, Instruction, OpKind, Register};
use object::{Object, ObjectSection, SectionKind};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Representatives kept per form (best first), tried in turn if llvm-mca rejects one.
const KEEP: usize = 3;

pub struct Candidate {
    /// The x86 instruction (iced), printed in AT&T syntax for llvm-mca; `None` on AArch64,
    /// whose Arm-syntax text is [`arm_text`].
    pub instr: Option<Instruction>,
    pub inst: DecodedInst,
    /// Lower is better (see [`score`]).
    pub score: u32,
}

pub struct Corpus {
    pub isa: Isa,
    /// Form key → representatives, best first, with distinct scores.
    pub forms: BTreeMap<String, Vec<Candidate>>,
    pub instructions: u64,
    pub invalid_bytes: u64,
    ctx: Option<DecodeContext>,
}

impl Default for Corpus {
    fn default() -> Self {
        Corpus::new(Isa::X86_64)
    }
}

impl Corpus {
    pub fn new(isa: Isa) -> Self {
        Corpus { isa, forms: BTreeMap::new(), instructions: 0, invalid_bytes: 0, ctx: None }
    }

    /// Adds every executable section of an ELF file.
    pub fn add_elf(&mut self, path: &Path) -> Result<()> {
        let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let file = object::File::parse(&*data)
            .with_context(|| format!("{}: not an object file", path.display()))?;
        let mut any = false;
        for s in file.sections() {
            if s.kind() == SectionKind::Text {
                let bytes = s
                    .data()
                    .with_context(|| format!("{}: reading section", path.display()))?;
                self.add_code(bytes, s.address());
                any = true;
            }
        }
        if !any {
            bail!("{}: no executable sections", path.display());
        }
        Ok(())
    }

    /// Assembles a `.s` file (AT&T with `as --64`, or AArch64 with
    /// `aarch64-linux-gnu-as`) and adds its code.
    pub fn add_asm(&mut self, path: &Path) -> Result<()> {
        let obj = std::env::temp_dir().join(format!("import-llvm-mca-{}.o", std::process::id()));
        let (assembler, flags): (&str, &[&str]) = match self.isa {
            Isa::X86_64 => ("as", &["--64"]),
            Isa::Aarch64 => ("aarch64-linux-gnu-as", &[]),
        };
        let out = Command::new(assembler)
            .args(flags)
            .arg("-o")
            .arg(&obj)
            .arg(path)
            .output()
            .with_context(|| format!("running `{assembler}` (GNU binutils)"))?;
        if !out.status.success() {
            let _ = std::fs::remove_file(&obj);
            let err = String::from_utf8_lossy(&out.stderr);
            bail!(
                "{}: {assembler} failed: {}",
                path.display(),
                err.lines().nth(1).or(err.lines().next()).unwrap_or("")
            );
        }
        let r = self.add_elf(&obj);
        let _ = std::fs::remove_file(&obj);
        r
    }

    /// Decodes a block of code, skipping bytes that do not decode.
    pub fn add_code(&mut self, bytes: &[u8], address: u64) {
        if self.isa == Isa::Aarch64 {
            let insts = bottlenose_decode::decode_lenient_for(Isa::Aarch64, bytes, address);
            self.invalid_bytes += (bytes.len() / 4 - insts.len()) as u64 * 4;
            for inst in insts {
                self.instructions += 1;
                self.offer_arm(inst);
            }
            return;
        }
        let mut decoder = Decoder::with_ip(64, bytes, address, DecoderOptions::NONE);
        let mut instr = Instruction::default();
        while decoder.can_decode() {
            let offset = decoder.position();
            decoder.decode_out(&mut instr);
            if instr.is_invalid() {
                self.invalid_bytes += 1;
                decoder
                    .set_position(offset + 1)
                    .expect("position inside the block");
                decoder.set_ip(address + offset as u64 + 1);
                continue;
            }
            self.instructions += 1;
            self.offer(&instr, &bytes[offset..offset + instr.len()]);
        }
    }

    fn offer(&mut self, instr: &Instruction, bytes: &[u8]) {
        let key = form_key(instr);
        let s = score(instr);
        let list = self.forms.entry(key).or_default();
        if list.iter().any(|c| c.score == s)
            || (list.len() >= KEEP && list.last().is_some_and(|c| c.score < s))
        {
            return;
        }
        let inst = self
            .ctx
            .get_or_insert_with(DecodeContext::new)
            .convert(instr, bytes);
        // The table is keyed by DecodedInst::form; form_key is what computes it.
        assert_eq!(
            inst.form,
            form_key(instr),
            "form key and DecodedInst::form disagree"
        );
        let at = list.iter().position(|c| c.score > s).unwrap_or(list.len());
        list.insert(
            at,
            Candidate {
                instr: Some(*instr),
                inst,
                score: s,
            },
        );
        list.truncate(KEEP);
    }
}

impl Corpus {
    fn offer_arm(&mut self, inst: DecodedInst) {
        let s = arm_score(&inst);
        let list = self.forms.entry(inst.form.clone()).or_default();
        if list.iter().any(|c| c.score == s) || (list.len() >= KEEP && list.last().is_some_and(|c| c.score < s)) {
            return;
        }
        let at = list.iter().position(|c| c.score > s).unwrap_or(list.len());
        list.insert(at, Candidate { instr: None, inst, score: s });
        list.truncate(KEEP);
    }
}

/// How unusual an AArch64 instance is: a register read twice (`eor v0, v1, v1` is an
/// idiom), the stack pointer or a PC-relative literal as the address.
fn arm_score(inst: &DecodedInst) -> u32 {
    let mut s = 0;
    let operands = inst.asm.split_once(' ').map_or("", |(_, o)| o);
    let regs: Vec<&str> = operands
        .split(|c: char| matches!(c, ',' | ' ' | '[' | ']' | '{' | '}' | '!'))
        .map(|t| t.split('.').next().unwrap_or(""))
        .filter(|t| t.len() > 1 && t[..1].chars().all(|c| "xwvbhsdq".contains(c)) && t[1..].bytes().all(|b| b.is_ascii_digit()))
        .collect();
    if inst.dep_breaking || regs.iter().enumerate().any(|(i, r)| regs[i + 1..].contains(r)) {
        s += 8;
    }
    if inst.mem.iter().any(|m| m.rip_relative) {
        s += 1;
    }
    if inst.asm.contains("sp") {
        s += 2;
    }
    s
}

/// The Arm-syntax lines llvm-mca is given, best first: the decoder's text, then with
/// the operation's own mnemonic where the text used an alias LLVM does not take
/// (`mov v1.16b, v2.b[1]` for `dup`). Branch, literal and `adr`/`adrp` targets become
/// the label `.Lt`, which the batch file defines.
pub fn arm_texts(inst: &DecodedInst) -> Vec<String> {
    let target = inst.branch_target.or_else(|| inst.mem.iter().find(|m| m.rip_relative).map(|m| m.displacement as u64));
    let mut text = match target {
        Some(t) => inst.asm.replace(&format!("0x{t:x}"), ".Lt"),
        None => inst.asm.clone(),
    };
    if inst.mnemonic.starts_with("adr") {
        if let Some((head, _)) = text.rsplit_once(", ") {
            text = format!("{head}, .Lt");
        }
    }
    if inst.mnemonic == "movprfx" {
        // llvm-mc rejects a movprfx the next instruction does not complete (the marker
        // line would be lost): the partner goes on the same line, its row is dropped
        return movprfx_partner(&text).map(|p| format!("{text} ; {p}")).into_iter().collect();
    }
    let mut out = vec![text.clone()];
    if let Some((shown, rest)) = text.split_once(' ') {
        if shown != inst.mnemonic && !shown.starts_with("b.") {
            out.push(format!("{} {rest}", inst.mnemonic));
        }
    }
    out
}

/// A destructive instruction that completes `movprfx` (`movprfx z1, z2` → an `add` into z1
/// with sources the prefix does not write; a predicated prefix's partner has its
/// predicate and element size).
fn movprfx_partner(movprfx: &str) -> Option<String> {
    let ops: Vec<&str> = movprfx.split_once(' ')?.1.split(", ").collect();
    let dest = ops.first()?.split('.').next()?;
    match ops.as_slice() {
        [_, _] => Some(format!("add {dest}.d, p7/m, {dest}.d, z31.d")),
        [d, pg, _] => {
            let size = d.split_once('.')?.1;
            let pg = pg.split('/').next()?;
            Some(format!("add {dest}.{size}, {pg}/m, {dest}.{size}, z31.{size}"))
        }
        _ => None,
    }
}

/// How unusual an instance is for representing its form (0 = plain). Prefixes and
/// EVEX-only features do not change the form key but may change what llvm-mca sees
/// (a lock, a segment override) or make a VEX-encodable form look AVX-512-only.
pub fn score(instr: &Instruction) -> u32 {
    let mut s = 0;
    if instr.is_ip_rel_memory_operand() {
        s += 1;
    }
    if instr.segment_prefix() != Register::None {
        s += 16;
    }
    if instr.has_lock_prefix() || instr.has_rep_prefix() || instr.has_repne_prefix() {
        s += 32;
    }
    if instr.encoding() == EncodingKind::EVEX {
        s += 2;
        if instr.op_mask() != Register::None {
            s += 4;
        }
        if instr.zeroing_masking() {
            s += 4;
        }
        if instr.suppress_all_exceptions()
            || instr.rounding_control() != iced_x86::RoundingControl::None
        {
            s += 8;
        }
        let high = (0..instr.op_count()).any(|i| {
            instr.op_kind(i) == OpKind::Register && {
                let r = instr.op_register(i);
                (r.is_xmm() || r.is_ymm() || r.is_zmm()) && r.number() >= 16
            }
        });
        if high {
            s += 2;
        }
    }
    // The same register twice is often an idiom the model treats specially: `xor eax, eax`
    // and `vpxor xmm0, xmm0, xmm0` are zero idioms without execution resources in LLVM.
    // The analyzer recognises those itself (DecodedInst::zero_idiom), so the form's
    // entry must describe the general case.
    let regs: Vec<Register> = (0..instr.op_count())
        .filter(|&i| instr.op_kind(i) == OpKind::Register)
        .map(|i| instr.op_register(i))
        .collect();
    if regs
        .iter()
        .enumerate()
        .any(|(i, r)| regs[i + 1..].contains(r))
    {
        s += 8;
    }
    // 32-bit addressing (0x67) and high-byte registers are legal but unusual.
    if instr.memory_base().is_gpr32() || instr.memory_index().is_gpr32() {
        s += 4;
    }
    if (0..instr.op_count()).any(|i| {
        instr.op_kind(i) == OpKind::Register
            && matches!(
                instr.op_register(i),
                Register::AH | Register::BH | Register::CH | Register::DH
            )
    }) {
        s += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_plainest_instance() {
        let mut c = Corpus::default();
        // lock add [rax], rbx ; add [rip+0x10], rbx ; add [rax], rbx
        let code = [
            0xf0, 0x48, 0x01, 0x18, 0x48, 0x01, 0x1d, 0x10, 0, 0, 0, 0x48, 0x01, 0x18,
        ];
        c.add_code(&code, 0x1000);
        assert_eq!(c.instructions, 3);
        let list = &c.forms["add m64, r64"];
        assert_eq!(list.len(), 3);
        assert_eq!(list[0].inst.asm, "add [rax], rbx");
        assert_eq!(list[0].score, 0);
        assert!(list[1].inst.asm.contains("rip") && list[2].inst.asm.starts_with("lock"));
    }

    /// A movprfx is measured with a partner on its line: a destructive SVE instruction into
    /// the prefix's destination (with its governing predicate and element size when the
    /// prefix is predicated, as the Arm ARM requires of the next instruction).
    #[test]
    fn movprfx_gets_a_partner() {
        let mut c = Corpus::new(Isa::Aarch64);
        // movprfx z1, z2 ; movprfx z1.d, p0/m, z2.d
        c.add_code(&[0x41, 0xbc, 0x20, 0x04, 0x41, 0x20, 0xd1, 0x04], 0);
        let texts = |form: &str| arm_texts(&c.forms[form][0].inst);
        assert_eq!(texts("movprfx z, z"), ["movprfx z1, z2 ; add z1.d, p7/m, z1.d, z31.d"]);
        assert_eq!(texts("movprfx z.d, p/m, z.d"), ["movprfx z1.d, p0/m, z2.d ; add z1.d, p0/m, z1.d, z31.d"]);
    }

    #[test]
    fn avoids_zero_idioms() {
        let mut c = Corpus::default();
        // xor eax, eax ; xor eax, ebx
        c.add_code(&[0x31, 0xc0, 0x31, 0xd8], 0);
        let list = &c.forms["xor r32, r32"];
        assert_eq!(list[0].inst.asm, "xor eax, ebx");
        assert!(list[1].inst.zero_idiom);
    }

    #[test]
    fn arm_lines_name_the_label_and_the_operation() {
        let mut c = Corpus::new(Isa::Aarch64);
        // b.ne . ; dup v1.16b, v2.b[1] (GNU as); llvm-mca takes `dup`, not the `mov` alias
        let code: Vec<u8> = [0x54000001u32, 0x4e030441].iter().flat_map(|w| w.to_le_bytes()).collect();
        c.add_code(&code, 0x1000);
        assert_eq!(arm_texts(&c.forms["bcc label"][0].inst), vec!["b.ne .Lt"]);
        let dup = arm_texts(&c.forms["dup v.16b, v.b[]"][0].inst);
        assert_eq!(dup.last().unwrap(), "dup v1.16b, v2.b[1]");
    }

    #[test]
    fn skips_invalid_bytes() {
        let mut c = Corpus::default();
        // 0x06 is invalid in 64-bit mode; then `ret`.
        c.add_code(&[0x06, 0xc3], 0);
        assert_eq!((c.instructions, c.invalid_bytes), (1, 1));
        assert!(c.forms.contains_key("ret"));
    }
}

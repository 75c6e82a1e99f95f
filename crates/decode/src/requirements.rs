//! What an instruction needs of the CPU (its encoding and CPUID features), to
//! explain why an emulator refused it.

use iced_x86::{Decoder, DecoderOptions, EncodingKind, Formatter, IntelFormatter, Mnemonic};

/// The instruction set extension family an encoding belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Legacy,
    Vex,
    /// EVEX: AVX-512 (and AVX10).
    Evex,
    Xop,
    Other,
}

/// One decoded instruction and what the CPU must implement to run it.
#[derive(Debug, Clone)]
pub struct IsaNeeds {
    pub asm: String,
    pub len: usize,
    pub encoding: Encoding,
    /// iced's CPUID feature names, e.g. `AVX512F`.
    pub features: Vec<String>,
    /// `ud0`, `ud1` or `ud2`: undefined on every CPU, a deliberate trap.
    pub deliberate_trap: bool,
}

/// Decodes the first instruction of `bytes`; `None` if they are not one.
pub fn isa_needs(bytes: &[u8], address: u64) -> Option<IsaNeeds> {
    let mut decoder = Decoder::with_ip(64, bytes, address, DecoderOptions::NONE);
    let instr = decoder.decode();
    if instr.is_invalid() {
        return None;
    }
    let mut asm = String::new();
    IntelFormatter::new().format(&instr, &mut asm);
    let encoding = match instr.encoding() {
        EncodingKind::Legacy => Encoding::Legacy,
        EncodingKind::VEX => Encoding::Vex,
        EncodingKind::EVEX => Encoding::Evex,
        EncodingKind::XOP => Encoding::Xop,
        _ => Encoding::Other,
    };
    Some(IsaNeeds {
        asm,
        len: instr.len(),
        encoding,
        features: instr.cpuid_features().iter().map(|f| format!("{f:?}")).collect(),
        deliberate_trap: matches!(instr.mnemonic(), Mnemonic::Ud0 | Mnemonic::Ud1 | Mnemonic::Ud2),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evex_is_avx512_and_ud2_a_trap() {
        // vpaddd zmm3, zmm2, zmm1 (as gcc assembles `vpaddd %zmm1,%zmm2,%zmm3`)
        let n = isa_needs(&[0x62, 0xf1, 0x6d, 0x48, 0xfe, 0xd9], 0).unwrap();
        assert_eq!(n.encoding, Encoding::Evex);
        assert_eq!(n.len, 6);
        assert_eq!(n.asm, "vpaddd zmm3,zmm2,zmm1");
        assert!(n.features.iter().any(|f| f == "AVX512F"), "{:?}", n.features);
        let ud2 = isa_needs(&[0x0f, 0x0b], 0).unwrap();
        assert!(ud2.deliberate_trap);
        assert!(isa_needs(&[0x62], 0).is_none(), "a lone EVEX prefix byte is not an instruction");
    }
}

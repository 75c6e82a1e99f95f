//! Printing representatives in AT&T syntax for llvm-mca (iced's GAS formatter).
//! Branch and call targets become the label `.Lt`, which the batch file defines.

use iced_x86::{Formatter, GasFormatter, Instruction, OpKind, SymbolResolver, SymbolResult};

/// Spellings to try: with size suffixes everywhere (`addq`, unambiguous for
/// memory operands), then iced's default (suffix only where GAS needs one).
pub const VARIANTS: usize = 2;

struct BranchLabel;

impl SymbolResolver for BranchLabel {
    fn symbol(
        &mut self,
        instruction: &Instruction,
        _operand: u32,
        instruction_operand: Option<u32>,
        address: u64,
        _address_size: u32,
    ) -> Option<SymbolResult<'_>> {
        let op = instruction_operand?;
        matches!(
            instruction.op_kind(op),
            OpKind::NearBranch16 | OpKind::NearBranch32 | OpKind::NearBranch64
        )
        .then(|| SymbolResult::with_str(address, ".Lt"))
    }
}

pub struct Printer {
    formatters: Vec<GasFormatter>,
}

impl Default for Printer {
    fn default() -> Self {
        Self::new()
    }
}

impl Printer {
    pub fn new() -> Self {
        let formatters = (0..VARIANTS)
            .map(|v| {
                let mut f = GasFormatter::with_options(Some(Box::new(BranchLabel)), None);
                let o = f.options_mut();
                o.set_space_after_operand_separator(true);
                o.set_rip_relative_addresses(true);
                o.set_gas_show_mnemonic_size_suffix(v == 0);
                f
            })
            .collect();
        Self { formatters }
    }

    pub fn att(&mut self, instr: &Instruction, variant: usize) -> String {
        let mut s = String::new();
        self.formatters[variant].format(instr, &mut s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_x86::{Decoder, DecoderOptions};

    fn first(bytes: &[u8], ip: u64) -> Instruction {
        Decoder::with_ip(64, bytes, ip, DecoderOptions::NONE).decode()
    }

    #[test]
    fn prints_att_with_labels() {
        let mut p = Printer::new();
        assert_eq!(p.att(&first(&[0x48, 0x01, 0xc3], 0), 0), "addq %rax, %rbx");
        assert_eq!(p.att(&first(&[0x48, 0x01, 0xc3], 0), 1), "add %rax, %rbx");
        assert_eq!(p.att(&first(&[0x75, 0x10], 0x1000), 1), "jne .Lt");
        assert_eq!(p.att(&first(&[0xe8, 0, 0, 0, 0], 0x1000), 1), "call .Lt");
        let rip = p.att(&first(&[0x48, 0x8b, 0x05, 0x10, 0, 0, 0], 0x1000), 0);
        assert_eq!(rip, "movq 0x10(%rip), %rax");
    }
}

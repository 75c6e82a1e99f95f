//! ELF input (`bottlenose_inputs::elf_function_symbols`, `from_elf` with a
//! function name and with address ranges), then the decoder on the cut bytes,
//! as `bottlenose analyze ./prog --function f` / `--range` do.

use bottlenose_inputs::{elf_function_symbols, from_elf, ElfSelector};

fn check(data: &[u8], sel: &ElfSelector) {
    match from_elf(data, "fuzz.elf", sel) {
        Ok(block) => {
            assert!(!block.bytes.is_empty());
            if let ElfSelector::Range { start, end } = sel {
                assert_eq!(block.address, *start);
                assert_eq!(block.bytes.len() as u64, end - start);
            }
            let _ = bottlenose_decode::decode_block(&block.bytes, block.address);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

pub fn run(data: &[u8]) {
    let syms = match elf_function_symbols(data) {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            Vec::new()
        }
    };
    for (name, address, size) in syms.iter().take(8) {
        check(data, &ElfSelector::Function(name.clone()));
        check(
            data,
            &ElfSelector::Range {
                start: *address,
                end: address.wrapping_add(*size),
            },
        );
        check(
            data,
            &ElfSelector::Range {
                start: *address,
                end: address.wrapping_add(1),
            },
        );
    }
    check(data, &ElfSelector::Function("main".into()));
    check(data, &ElfSelector::Function(String::new()));
    // A range taken from the input's last 16 bytes.
    if data.len() >= 16 {
        let t = &data[data.len() - 16..];
        let start = u64::from_le_bytes(t[..8].try_into().unwrap());
        let end = u64::from_le_bytes(t[8..].try_into().unwrap());
        check(data, &ElfSelector::Range { start, end });
    }
}

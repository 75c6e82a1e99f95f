//! The machine-file loader (`Machine::from_strs(file, machine_toml, forms_toml)`):
//! TOML syntax, schema and semantic validation, file:line error location.
//! A machine it accepts must then resolve instructions without panicking
//! (`bottlenose_timing::resolve_block` on a fixed mixed block) and give a
//! core configuration.
//!
//! Input: `MACHINE_TOML \0 FORMS_TOML` (no NUL: the forms table is empty).

use std::sync::OnceLock;

use bottlenose_decode::DecodedInst;
use bottlenose_machine::{Machine, MachineError};
use bottlenose_timing::{Acceleration, CoreConfig};

/// add rax,rbx; vaddsd xmm0,xmm0,xmm1; mov rax,[rdi]; mov [rdi],rax;
/// xor eax,eax; mov rax,rbx; div rcx; vfmadd213sd xmm0,xmm1,xmm2;
/// add rdi,8; cmp rdi,rsi; jb -0x20; ret
const BLOCK: &[u8] = &[
    0x48, 0x01, 0xd8, 0xc5, 0xfb, 0x58, 0xc1, 0x48, 0x8b, 0x07, 0x48, 0x89, 0x07, 0x31, 0xc0, 0x48,
    0x89, 0xd8, 0x48, 0xf7, 0xf1, 0xc4, 0xe2, 0xf1, 0xa9, 0xc2, 0x48, 0x83, 0xc7, 0x08, 0x48, 0x39,
    0xf7, 0x72, 0xe0, 0xc3,
];

static INSTS: OnceLock<Vec<DecodedInst>> = OnceLock::new();

pub fn run(data: &[u8]) {
    let insts = INSTS.get_or_init(|| bottlenose_decode::decode_block(BLOCK, 0x1000).unwrap());
    let (machine, forms) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let (Ok(machine), Ok(forms)) = (std::str::from_utf8(machine), std::str::from_utf8(forms))
    else {
        return;
    };
    match Machine::from_strs("fuzz.toml", machine, forms) {
        Ok(m) => {
            let (timings, _) = bottlenose_timing::resolve_block(&m, insts);
            assert_eq!(timings.len(), insts.len());
            let _ = CoreConfig::new(&m, &Acceleration::nominal(&m));
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "machine errors are one line: {msg:?}");
            if let MachineError::Invalid { line, .. } = e {
                assert!(line >= 1, "error lines are 1-based: {msg}");
            }
        }
    }
}

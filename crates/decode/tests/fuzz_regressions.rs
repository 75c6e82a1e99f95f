//! Inputs that crashed the fuzz targets (`fuzz/`, `scripts/fuzz.sh`),
//! minimized: each must now give a clean result or a clean error.

use bottlenose_decode::{decode_block, DecodeError};

/// decode_resolve: an invalid instruction after a valid one at the top of
/// the address space overflowed `address + offset` while naming its address.
#[test]
fn invalid_instruction_after_the_address_space_wraps_is_an_error() {
    let e = decode_block(&[0x90, 0x06, 0x90, 0x90], u64::MAX).unwrap_err();
    assert!(matches!(e, DecodeError::Invalid { address: 0, .. }), "{e}");
    assert_eq!(e.to_string(), "invalid instruction bytes at 0x0 (06 90 90)");
}

/// The same bytes at an ordinary address: unchanged behaviour.
#[test]
fn invalid_instruction_address_is_block_address_plus_offset() {
    let e = decode_block(&[0x90, 0x06, 0x90, 0x90], 0x401000).unwrap_err();
    assert!(
        matches!(
            e,
            DecodeError::Invalid {
                address: 0x401001,
                ..
            }
        ),
        "{e}"
    );
}

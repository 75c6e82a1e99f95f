//! `bottlenose_inputs::from_hex` on arbitrary text (lossy UTF-8, so the
//! fuzzer reaches every character class), then the decoder on what it gives.

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match bottlenose_inputs::from_hex(&text) {
        Ok(block) => {
            assert!(!block.bytes.is_empty());
            let _ = bottlenose_decode::decode_block(&block.bytes, block.address);
        }
        Err(e) => {
            // Errors are one line.
            let msg = e.to_string();
            assert!(!msg.is_empty());
        }
    }
}

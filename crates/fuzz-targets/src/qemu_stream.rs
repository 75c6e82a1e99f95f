//! The QEMU trace stream parser (`bottlenose_trace::read_stream`) on
//! arbitrary bytes, with a no-op visitor and with the `InstructionStream`
//! visitor that the dynamic runs use (which trusts what the parser checked).

use bottlenose_trace::{read_stream, ExecutedInsn, InstructionStream, TraceVisitor};

struct Nop;
impl TraceVisitor for Nop {}

/// A reader that hands out the input in small pieces, to exercise refills.
struct Dribble<'a>(&'a [u8], usize);
impl std::io::Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.len().min(buf.len()).min(self.1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

pub fn run(data: &[u8]) {
    let plain = read_stream(data, &mut Nop);
    let chunk = 1 + data.first().map_or(0, |&b| (b % 13) as usize);
    let dribbled = read_stream(Dribble(data, chunk), &mut Nop);
    assert_eq!(
        plain.is_ok(),
        dribbled.is_ok(),
        "the result depends on read sizes"
    );
    if let (Ok(a), Ok(b)) = (&plain, &dribbled) {
        assert_eq!(a, b);
    }

    let mut executed = 0u64;
    let mut stream = InstructionStream::new(|insn: &ExecutedInsn<'_>| {
        executed += 1;
        assert!(!insn.bytes.is_empty());
        assert!(insn.mem().len() <= bottlenose_trace::MAX_MEM_PER_INSN);
    });
    if let Ok(summary) = read_stream(data, &mut stream) {
        if !summary.complete {
            stream.finish();
        }
    }
}

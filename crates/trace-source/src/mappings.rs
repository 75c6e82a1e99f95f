//! The guest's mappings as a trace reports them, logged while the trace is read.

use bottlenose_attribution::GuestMapping;
use bottlenose_trace::TraceVisitor;
use std::cell::RefCell;
use std::rc::Rc;

/// The mappings reported so far, in order (shared by the stream's visitor,
/// which appends, and the pipeline, which reads at each new static instruction).
pub type MappingLog = Rc<RefCell<Vec<GuestMapping>>>;

/// A trace visitor that logs MAP records and hands everything else on.
pub struct WithMappings<V> {
    pub inner: V,
    pub log: MappingLog,
}

impl<V: TraceVisitor> TraceVisitor for WithMappings<V> {
    #[inline]
    fn tb_def(&mut self, id: u32, insns: &[(u64, &[u8])]) {
        self.inner.tb_def(id, insns);
    }
    #[inline]
    fn tb_exec(&mut self, id: u32, vcpu: u16) {
        self.inner.tb_exec(id, vcpu);
    }
    #[inline]
    fn mem(&mut self, vcpu: u16, insn_index: u16, vaddr: u64, size: u8, is_store: bool) {
        self.inner.mem(vcpu, insn_index, vaddr, size, is_store);
    }
    fn map(&mut self, start: u64, end: u64, offset: u64, path: &[u8]) {
        let path = String::from_utf8_lossy(path).into_owned();
        self.log.borrow_mut().push(GuestMapping { start, end, offset, path });
    }
    fn end(&mut self) {
        self.inner.end();
    }
    fn exec(&mut self, program: &[u8]) {
        self.inner.exec(program);
    }
    fn exit(&mut self, code: i32) {
        self.inner.exit(code);
    }
    fn note(&mut self, text: &[u8]) {
        self.inner.note(text);
    }
    fn pause(&mut self) -> bottlenose_trace::Resume {
        self.inner.pause()
    }
    fn skipped(&mut self, id: u32, executions: u64) {
        self.inner.skipped(id, executions);
    }
    #[inline(always)]
    fn yield_now(&self) -> bool {
        self.inner.yield_now()
    }
}

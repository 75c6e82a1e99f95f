//! What an A64 operation does with its operands: which are read, written or moved to
//! and from memory, which flags it uses, how it branches and whether it is FP work.
//! One table keyed by the decoder's opcode; the operand order is the Arm syntax's.

use crate::regs::{self, RegId};
use crate::{BranchKind, MemAccess};
use yaxpeax_arm::armv8::a64::{Opcode, Operand};
use Opcode::*;

/// What an instruction does with one register operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Read,
    Write,
    ReadWrite,
    /// A store's data register (read, counted in the access size).
    StoreData,
    /// A load's destination (written, counted in the access size).
    LoadDest,
    /// A load into one lane: the other lanes are kept, so it is read too.
    LoadLane,
    /// Named but not a dependency (a prefetch's operation, an immediate...).
    Ignore,
}

impl Role {
    pub(crate) fn reads(self) -> bool {
        matches!(self, Role::Read | Role::ReadWrite | Role::StoreData | Role::LoadLane)
    }
    pub(crate) fn writes(self) -> bool {
        matches!(self, Role::Write | Role::ReadWrite | Role::LoadDest | Role::LoadLane)
    }
    pub(crate) fn transfers(self) -> bool {
        matches!(self, Role::StoreData | Role::LoadDest | Role::LoadLane)
    }
}

pub(crate) struct Semantics {
    /// Role of operand 0; the others are `rest` unless `second` says otherwise.
    first: Role,
    second: Option<Role>,
    rest: Role,
    pub access: Option<MemAccess>,
    /// Bytes per transferred register when the operation fixes it (`ldrb`, `ldrsw`, `ldpsw`);
    /// otherwise the registers' own sizes make the access size.
    pub element_bytes: Option<u32>,
    pub branch: BranchKind,
    pub sets_flags: bool,
    pub implicit_reads: &'static [RegId],
    pub implicit_writes: &'static [RegId],
    pub fp_arith: bool,
    pub fma: bool,
    /// Its result does not depend on its sources when they are the same register (`eor v0, v1, v1`).
    pub dep_breaking_if_same: bool,
}

impl Semantics {
    pub(crate) fn role(&self, i: usize) -> Role {
        match i {
            0 => self.first,
            1 => self.second.unwrap_or(self.rest),
            _ => self.rest,
        }
    }
}

const NZCV: &[RegId] = &[regs::ARM_NZCV];
const LR: &[RegId] = &[regs::ARM_LR];

pub(crate) fn semantics(op: Opcode, ops: &[Operand]) -> Semantics {
    let mut s = Semantics {
        first: Role::Write,
        second: None,
        rest: Role::Read,
        access: None,
        element_bytes: None,
        branch: BranchKind::None,
        sets_flags: false,
        implicit_reads: &[],
        implicit_writes: &[],
        fp_arith: false,
        fma: false,
        dep_breaking_if_same: false,
    };
    let lane_dest = matches!(ops.first(), Some(Operand::SIMDRegisterElementsLane(..)));
    match op {
        // ---- loads, stores, atomics ----
        _ if is_load(op) => {
            let lane = matches!(ops.first(), Some(Operand::SIMDRegisterGroupLane(..)));
            s.first = if lane { Role::LoadLane } else { Role::LoadDest };
            // the second register of a pair; an address operand ignores roles
            s.rest = s.first;
            s.access = Some(MemAccess::Load);
            s.element_bytes = load_store_element(op);
        }
        STXR | STXRB | STXRH | STLXR | STLXRB | STLXRH | STXP | STLXP => {
            s.first = Role::Write; // the status register
            s.rest = Role::StoreData;
            s.access = Some(MemAccess::Store);
            s.element_bytes = load_store_element(op);
        }
        _ if is_store(op) => {
            s.first = Role::StoreData;
            s.rest = Role::StoreData;
            s.access = Some(MemAccess::Store);
            s.element_bytes = load_store_element(op);
        }
        CAS(_) | CASB(_) | CASH(_) | CASP(_) => {
            // the compare value receives the old memory value; the new value is stored
            s.first = Role::ReadWrite;
            s.second = Some(Role::StoreData);
            s.access = Some(MemAccess::LoadStore);
            s.element_bytes = match op {
                CASB(_) => Some(1),
                CASH(_) => Some(2),
                _ => None,
            };
        }
        _ if is_atomic_rmw(op) => {
            // `ldadd ws, wt, [xn]`: ws is the operand, wt gets the old value
            s.first = Role::Read;
            s.second = Some(Role::LoadDest);
            s.access = Some(MemAccess::LoadStore);
            s.element_bytes = atomic_element(op);
        }
        PRFM | PRFUM => {
            s.first = Role::Ignore;
            s.rest = Role::Ignore;
        }
        // ---- branches ----
        B => {
            s.first = Role::Ignore;
            s.branch = BranchKind::DirectJump;
        }
        BL => {
            s.first = Role::Ignore;
            s.branch = BranchKind::DirectCall;
            s.implicit_writes = LR;
        }
        BR | BRAA | BRAAZ | BRAB | BRABZ => {
            s.first = Role::Read;
            s.branch = BranchKind::IndirectJump;
        }
        BLR | BLRAA | BLRAAZ | BLRAB | BLRABZ => {
            s.first = Role::Read;
            s.branch = BranchKind::IndirectCall;
            s.implicit_writes = LR;
        }
        RET | RETAA | RETAB => {
            s.first = Role::Read;
            s.branch = BranchKind::Return;
            if ops.is_empty() {
                s.implicit_reads = LR;
            }
        }
        Bcc(_) | BCcc(_) => {
            s.first = Role::Ignore;
            s.branch = BranchKind::Conditional;
            s.implicit_reads = NZCV;
        }
        CBZ | CBNZ | TBZ | TBNZ => {
            s.first = Role::Read;
            s.branch = BranchKind::Conditional;
        }
        SVC | HVC | SMC | BRK | HLT | UDF | ERET | ERETAA | ERETAB | DRPS | DCPS1 | DCPS2 | DCPS3 => {
            s.first = Role::Ignore;
            s.rest = Role::Ignore;
            s.branch = BranchKind::Other;
        }
        // ---- flags ----
        FCMP | FCMPE => {
            s.first = Role::Read;
            s.sets_flags = true;
            s.implicit_writes = NZCV;
        }
        CCMP | CCMN | FCCMP | FCCMPE => {
            s.first = Role::Read;
            s.sets_flags = true;
            s.implicit_reads = NZCV;
            s.implicit_writes = NZCV;
        }
        ADDS | SUBS | ANDS | BICS | SUBPS => {
            s.sets_flags = true;
            s.implicit_writes = NZCV;
            s.dep_breaking_if_same = matches!(op, SUBS | BICS);
        }
        ADCS | SBCS => {
            s.sets_flags = true;
            s.implicit_reads = NZCV;
            s.implicit_writes = NZCV;
        }
        SETF8 | SETF16 | RMIF => {
            s.first = Role::Read;
            s.sets_flags = true;
            s.implicit_writes = NZCV;
        }
        ADC | SBC | CSEL | CSINC | CSINV | CSNEG | FCSEL => s.implicit_reads = NZCV,
        // ---- system ----
        MSR => {
            s.first = Role::Ignore;
        }
        MRS => s.rest = Role::Ignore,
        HINT | ISB | DSB(_) | DMB(_) | SB | PSSBB | SSBB | CLREX | SYS(_) => {
            s.first = Role::Ignore;
            s.rest = Role::Ignore;
        }
        _ => {
            if reads_destination(op, ops) || lane_dest {
                s.first = Role::ReadWrite;
            }
            s.fma = matches!(op, FMLA | FMLS | FMADD | FMSUB | FNMADD | FNMSUB | FMLAL | FMLAL2 | FMLSL | FMLSL2);
            s.fp_arith = s.fma || is_fp_arith(op);
            s.dep_breaking_if_same = matches!(op, EOR | SUB | BIC | CMEQ);
        }
    }
    s
}

fn is_load(op: Opcode) -> bool {
    matches!(
        op,
        LDR | LDRB | LDRSB | LDRSW | LDRSH | LDRH | LDTR | LDTRB | LDTRH | LDTRSB | LDTRSH | LDTRSW | LDUR | LDURB
            | LDURSB | LDURSW | LDURSH | LDURH | LDXR | LDXRB | LDXRH | LDAXR | LDAXRB | LDAXRH | LDAR | LDARB
            | LDARH | LDLAR | LDLARB | LDLARH | LDAPR | LDAPRB | LDAPRH | LDAPUR | LDAPURB | LDAPURH | LDAPURSB
            | LDAPURSH | LDAPURSW | LDRAA | LDRAB | LDP | LDPSW | LDNP | LDXP | LDAXP | LD1 | LD2 | LD3 | LD4 | LD1R
            | LD2R | LD3R | LD4R
    )
}

fn is_store(op: Opcode) -> bool {
    matches!(
        op,
        STR | STRB | STRH | STRW | STUR | STURB | STURH | STTR | STTRB | STTRH | STLR | STLRB | STLRH | STLLR
            | STLLRB | STLLRH | STLUR | STLURB | STLURH | STP | STNP | ST1 | ST2 | ST3 | ST4
    )
}

fn is_atomic_rmw(op: Opcode) -> bool {
    atomic_element(op).is_some()
        || matches!(
            op,
            SWP(_) | LDADD(_) | LDCLR(_) | LDEOR(_) | LDSET(_) | LDSMAX(_) | LDSMIN(_) | LDUMAX(_) | LDUMIN(_)
        )
}

fn atomic_element(op: Opcode) -> Option<u32> {
    match op {
        SWPB(_) | LDADDB(_) | LDCLRB(_) | LDEORB(_) | LDSETB(_) | LDSMAXB(_) | LDSMINB(_) | LDUMAXB(_)
        | LDUMINB(_) => Some(1),
        SWPH(_) | LDADDH(_) | LDCLRH(_) | LDEORH(_) | LDSETH(_) | LDSMAXH(_) | LDSMINH(_) | LDUMAXH(_)
        | LDUMINH(_) => Some(2),
        _ => None,
    }
}

/// Byte, halfword and sign-extended-word transfers fix their element size.
fn load_store_element(op: Opcode) -> Option<u32> {
    match op {
        LDRB | LDRSB | LDTRB | LDTRSB | LDURB | LDURSB | LDXRB | LDAXRB | LDARB | LDLARB | LDAPRB | LDAPURB
        | LDAPURSB | STRB | STURB | STTRB | STLRB | STLLRB | STLURB | STXRB | STLXRB => Some(1),
        LDRH | LDRSH | LDTRH | LDTRSH | LDURH | LDURSH | LDXRH | LDAXRH | LDARH | LDLARH | LDAPRH | LDAPURH
        | LDAPURSH | STRH | STURH | STTRH | STLRH | STLLRH | STLURH | STXRH | STLXRH => Some(2),
        LDRSW | LDTRSW | LDURSW | LDAPURSW | LDPSW => Some(4),
        _ => None,
    }
}

/// Accumulating, inserting and narrowing-into-the-upper-half operations keep part of
/// (or add to) their destination's old value.
fn reads_destination(op: Opcode, ops: &[Operand]) -> bool {
    let simd_dest = matches!(ops.first(), Some(Operand::SIMDRegisterElements(..)));
    match op {
        // `orr v0.4s, #1` / `bic v0.4s, #1`: the immediate forms modify the destination
        ORR | BIC => simd_dest && ops.len() == 2,
        // by-element `mul`/`fmul` and friends do not accumulate; `fmla` does
        _ => matches!(
            op,
            MOVK | BFM | INS | FMLA | FMLS | MLA | MLS | SDOT | UDOT | SABA | UABA | SABAL | SABAL2 | UABAL | UABAL2
                | SMLAL | SMLAL2 | SMLSL | SMLSL2 | UMLAL | UMLAL2 | UMLSL | UMLSL2 | SQDMLAL | SQDMLAL2 | SQDMLSL
                | SQDMLSL2 | SQRDMLAH | SQRDMLSH | FMLAL | FMLAL2 | FMLSL | FMLSL2 | FCMLA | BSL | BIT | BIF | TBX
                | SSRA | USRA | SRSRA | URSRA | SRI | SLI | SADALP | UADALP | SUQADD | USQADD | XTN2 | SQXTN2
                | SQXTUN2 | UQXTN2 | FCVTN2 | FCVTXN2 | SHRN2 | RSHRN2 | SQSHRN2 | SQRSHRN2 | SQSHRUN2 | SQRSHRUN2
                | UQSHRN2 | UQRSHRN2 | ADDHN2 | SUBHN2 | RADDHN2 | RSUBHN2 | AESE | AESD | SHA1C | SHA1P | SHA1M
                | SHA1SU0 | SHA1SU1 | SHA256H | SHA256H2 | SHA256SU0 | SHA256SU1 | SHA512H | SHA512H2 | SHA512SU0
                | SHA512SU1 | SM3PARTW1 | SM3PARTW2 | SM3TT1A | SM3TT1B | SM3TT2A | SM3TT2B | SM4E
        ),
    }
}

/// Floating-point arithmetic (not moves, conversions or compares).
fn is_fp_arith(op: Opcode) -> bool {
    matches!(
        op,
        FADD | FSUB | FMUL | FDIV | FSQRT | FMAX | FMIN | FMAXNM | FMINNM | FNMUL | FMULX | FABD | FADDP | FMAXP
            | FMINP | FMAXNMP | FMINNMP | FCMLA | FCADD | FRECPE | FRECPS | FRSQRTE | FRSQRTS | FRINTN | FRINTP
            | FRINTM | FRINTZ | FRINTA | FRINTX | FRINTI
    )
}

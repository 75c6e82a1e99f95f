//! ELF input: functions and ranges from gcc output, checked against what the
//! `object` crate reports, and the error cases.

use std::path::{Path, PathBuf};
use std::process::Command;

use bottlenose_inputs::{elf_function_symbols, from_elf, ElfSelector, SourceError};
use object::{Object, ObjectSection, ObjectSymbol};

const C_SOURCE: &str = r#"
int add_ints(int a, int b) { return a + b; }
long sum_array(const long *p, long n) {
    long s = 0;
    for (long i = 0; i < n; i++) s += p[i];
    return s;
}
long counter = 42;
int main(void) { long a[3] = {1, 2, 3}; return (int)sum_array(a, 3) + add_ints(1, 2); }
"#;

/// Compiles `C_SOURCE` with gcc in a temp dir; `args` picks object or executable.
fn gcc(dir: &Path, out: &str, args: &[&str]) -> PathBuf {
    let src = dir.join("prog.c");
    std::fs::write(&src, C_SOURCE).unwrap();
    let out = dir.join(out);
    let status = Command::new("gcc")
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .status()
        .expect("gcc must be installed for these tests");
    assert!(status.success(), "gcc failed");
    out
}

/// Bytes of `name` as the object crate sees them: (address, bytes).
fn reference_bytes(data: &[u8], name: &str) -> (u64, Vec<u8>) {
    let file = object::File::parse(data).unwrap();
    let sym = file.symbols().find(|s| s.name() == Ok(name)).unwrap();
    let section = file.section_by_index(sym.section_index().unwrap()).unwrap();
    let offset = (sym.address() - section.address()) as usize;
    let bytes = section.data().unwrap()[offset..offset + sym.size() as usize].to_vec();
    (sym.address(), bytes)
}

#[test]
fn function_from_object_file_and_executable() {
    let dir = tempfile::tempdir().unwrap();
    let obj = gcc(dir.path(), "prog.o", &["-O1", "-c"]);
    let exe = gcc(dir.path(), "prog", &["-O1"]);
    for path in [obj, exe] {
        let data = std::fs::read(&path).unwrap();
        for name in ["add_ints", "sum_array", "main"] {
            let block = from_elf(&data, "prog", &ElfSelector::Function(name.into()))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let (address, bytes) = reference_bytes(&data, name);
            assert_eq!(block.name, name);
            assert_eq!(block.address, address);
            assert_eq!(block.bytes, bytes);
            assert!(!block.bytes.is_empty());
        }
        // -O1 add_ints is `lea (%rdi,%rsi),%eax; ret`.
        let add = from_elf(&data, "prog", &ElfSelector::Function("add_ints".into())).unwrap();
        assert_eq!(add.bytes, vec![0x8d, 0x04, 0x37, 0xc3]);
    }
}

#[test]
fn range_matches_function_and_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let exe = gcc(dir.path(), "prog", &["-O1"]);
    let data = std::fs::read(&exe).unwrap();
    let (address, bytes) = reference_bytes(&data, "sum_array");
    let block = from_elf(
        &data,
        "prog",
        &ElfSelector::Range {
            start: address,
            end: address + bytes.len() as u64,
        },
    )
    .unwrap();
    assert_eq!(block.address, address);
    assert_eq!(block.bytes, bytes);
    assert_eq!(block.name, "prog");

    let err = from_elf(
        &data,
        "prog",
        &ElfSelector::Range {
            start: address,
            end: address,
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("empty range"), "{err}");

    let (counter, _) = reference_bytes(&data, "counter");
    let err = from_elf(
        &data,
        "prog",
        &ElfSelector::Range {
            start: counter,
            end: counter + 8,
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("which is not executable"), "{err}");

    let err = from_elf(
        &data,
        "prog",
        &ElfSelector::Range {
            start: 0xdead_0000_0000,
            end: 0xdead_0000_0010,
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("is not inside any section"),
        "{err}"
    );

    let err = from_elf(
        &data,
        "prog",
        &ElfSelector::Range {
            start: address,
            end: address + (1 << 40),
        },
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("runs past the end of section .text"),
        "{err}"
    );
}

#[test]
fn function_symbols_are_listed_by_address() {
    let dir = tempfile::tempdir().unwrap();
    let exe = gcc(dir.path(), "prog", &["-O1"]);
    let data = std::fs::read(&exe).unwrap();
    let syms = elf_function_symbols(&data).unwrap();
    assert!(
        syms.windows(2).all(|w| w[0].1 <= w[1].1),
        "not sorted: {syms:?}"
    );
    for name in ["add_ints", "sum_array", "main"] {
        let (address, bytes) = reference_bytes(&data, name);
        assert!(
            syms.contains(&(name.to_string(), address, bytes.len() as u64)),
            "{name} missing from {syms:?}"
        );
    }
    assert!(!syms.iter().any(|s| s.0 == "counter"), "data symbol listed");
}

#[test]
fn missing_symbol_lists_similar_names() {
    let dir = tempfile::tempdir().unwrap();
    let obj = gcc(dir.path(), "prog.o", &["-O1", "-c"]);
    let data = std::fs::read(&obj).unwrap();
    let err = from_elf(&data, "prog.o", &ElfSelector::Function("sum".into())).unwrap_err();
    assert!(matches!(err, SourceError::SymbolNotFound { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "no function `sum` in prog.o (similar: sum_array)"
    );

    let err = from_elf(
        &data,
        "prog.o",
        &ElfSelector::Function("nothing_like_it".into()),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no function `nothing_like_it` in prog.o (3 function symbols, none similar)"
    );

    // Data symbols are not functions.
    let err = from_elf(&data, "prog.o", &ElfSelector::Function("counter".into())).unwrap_err();
    assert!(matches!(err, SourceError::SymbolNotFound { .. }), "{err:?}");
}

/// Assembles `src` into an object file with GNU as.
fn gas(dir: &Path, src: &str) -> Vec<u8> {
    let s = dir.join("f.s");
    let o = dir.join("f.o");
    std::fs::write(&s, src).unwrap();
    let status = Command::new("as")
        .arg("--64")
        .arg("-o")
        .arg(&o)
        .arg(&s)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read(&o).unwrap()
}

#[test]
fn zero_size_symbols_extend_to_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    // `f` and `g` are typed functions without .size; `h` is a bare label.
    let data = gas(
        dir.path(),
        ".text\n.globl f\n.type f, @function\nf: nop\nret\n\
         .globl g\n.type g, @function\ng: int3\nret\n.globl h\nh: pause\nret\n",
    );
    let f = from_elf(&data, "f.o", &ElfSelector::Function("f".into())).unwrap();
    assert_eq!(f.bytes, vec![0x90, 0xc3]);
    // g stops at the label h.
    let g = from_elf(&data, "f.o", &ElfSelector::Function("g".into())).unwrap();
    assert_eq!(g.bytes, vec![0xcc, 0xc3]);
    // An untyped label still works as a function name, up to the section end.
    let h = from_elf(&data, "f.o", &ElfSelector::Function("h".into())).unwrap();
    assert_eq!(h.bytes, vec![0xf3, 0x90, 0xc3]);
    assert_eq!(h.address, 4);
    let syms = elf_function_symbols(&data).unwrap();
    assert_eq!(syms, vec![("f".to_string(), 0, 2), ("g".to_string(), 2, 2)]);
}

#[test]
fn non_elf_and_foreign_elf_are_rejected() {
    let err = from_elf(
        b"addq %rbx, %rax\n",
        "a.s",
        &ElfSelector::Function("f".into()),
    )
    .unwrap_err();
    assert!(matches!(err, SourceError::NotX86_64Elf { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "a.s is not an x86-64 or AArch64 ELF file (it looks like text)"
    );

    let err = from_elf(&[], "empty", &ElfSelector::Function("f".into())).unwrap_err();
    assert_eq!(
        err.to_string(),
        "empty is not an x86-64 or AArch64 ELF file (it is empty)"
    );

    let err = elf_function_symbols(b"!<arch>\n").unwrap_err();
    assert!(err.to_string().contains("ar archive"), "{err}");

    // An x86-64 object with e_machine patched to RISC-V (243).
    let dir = tempfile::tempdir().unwrap();
    let mut data = gas(dir.path(), "nop\n");
    data[18..20].copy_from_slice(&243u16.to_le_bytes());
    let err = from_elf(&data, "rv.o", &ElfSelector::Range { start: 0, end: 1 }).unwrap_err();
    assert_eq!(
        err.to_string(),
        "rv.o is not an x86-64 or AArch64 ELF file (64-bit ELF for Riscv64)"
    );
    // ... and to AArch64 (183): accepted, and the block says so
    data[18..20].copy_from_slice(&183u16.to_le_bytes());
    let b = from_elf(&data, "arm.o", &ElfSelector::Range { start: 0, end: 1 }).unwrap();
    assert_eq!(b.isa, bottlenose_inputs::Isa::Aarch64);
    assert_eq!(bottlenose_inputs::elf_isa(&data), Some(bottlenose_inputs::Isa::Aarch64));

    // A truncated ELF header must not panic.
    let err = from_elf(
        &data[..30],
        "cut.o",
        &ElfSelector::Range { start: 0, end: 1 },
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with("cut.o: malformed object file"),
        "{err}"
    );
}

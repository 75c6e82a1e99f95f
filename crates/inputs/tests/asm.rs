//! Assembling snippets with GNU as: syntaxes, labels, regions and errors.

use std::path::Path;

use bottlenose_inputs::{assemble, assemble_with, AsmSyntax, CodeBlock, SourceError};

/// (offset, line, text) of each listed instruction.
fn lines(b: &CodeBlock) -> Vec<(u64, usize, &str)> {
    b.source_lines.iter().map(|l| (l.offset, l.line, l.text.as_str())).collect()
}

fn one(source: &str, syntax: AsmSyntax) -> Vec<u8> {
    let blocks = assemble(source, "t.s", syntax).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].name, "t.s");
    assert_eq!(blocks[0].address, 0);
    blocks[0].bytes.clone()
}

#[test]
fn att_and_intel_give_the_same_bytes() {
    let add = vec![0x48, 0x01, 0xd8];
    assert_eq!(one("addq %rbx, %rax\n", AsmSyntax::Att), add);
    assert_eq!(one("add rax, rbx", AsmSyntax::Intel), add);
    assert_eq!(one("addq %rbx, %rax\n", AsmSyntax::Auto), add);
    assert_eq!(one("  add rax, rbx # comment\n", AsmSyntax::Auto), add);
    assert_eq!(
        one(".intel_syntax noprefix\nadd rax, rbx\n", AsmSyntax::Auto),
        add
    );
    // Intel prelude does not break sources that switch to AT&T themselves.
    assert_eq!(one(".att_syntax\naddq %rbx, %rax\n", AsmSyntax::Intel), add);
}

#[test]
fn backward_branch_to_a_label() {
    let src = "loop:\n  addq %rbx, %rax\n  decq %rcx\n  jne loop\n";
    // jne rel8 = -8: back over itself (2) and the two 3-byte instructions.
    assert_eq!(
        one(src, AsmSyntax::Att),
        vec![0x48, 0x01, 0xd8, 0x48, 0xff, 0xc9, 0x75, 0xf8]
    );
    let intel = ".L1:\n  add rax, rbx\n  dec rcx\n  jne .L1\n";
    assert_eq!(one(intel, AsmSyntax::Auto), one(src, AsmSyntax::Att));
}

#[test]
fn source_lines_come_from_the_listing() {
    let blocks = assemble(
        "top:\n  addq %rbx, %rax\n  jne top # back\n",
        "t.s",
        AsmSyntax::Att,
    )
    .unwrap();
    assert_eq!(
        lines(&blocks[0]),
        vec![(0, 2, "addq %rbx, %rax"), (3, 3, "jne top # back")]
    );
    // Same line text with the Intel prelude (line numbers shifted back).
    let blocks = assemble("add rax, rbx\nret\n", "t.s", AsmSyntax::Intel).unwrap();
    assert_eq!(lines(&blocks[0]), vec![(0, 1, "add rax, rbx"), (3, 2, "ret")]);
}

#[test]
fn external_symbols_assemble_with_zero_displacement() {
    assert_eq!(one("call printf\n", AsmSyntax::Att), vec![0xe8, 0, 0, 0, 0]);
}

#[test]
fn llvm_mca_regions_become_blocks() {
    let src = "\
movq $1, %rcx
# LLVM-MCA-BEGIN first
addq %rbx, %rax
# LLVM-MCA-END
nop
#LLVM-MCA-BEGIN
imulq %rcx, %rdx
# LLVM-MCA-END
ret
";
    let blocks = assemble(src, "r.s", AsmSyntax::Auto).unwrap();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].name, "first");
    assert_eq!(blocks[0].bytes, vec![0x48, 0x01, 0xd8]);
    assert_eq!(lines(&blocks[0]), vec![(0, 3, "addq %rbx, %rax")]);
    assert_eq!(blocks[1].name, "region 2");
    assert_eq!(blocks[1].bytes, vec![0x48, 0x0f, 0xaf, 0xd1]);
    assert_eq!(lines(&blocks[1]), vec![(0, 7, "imulq %rcx, %rdx")]);
}

#[test]
fn named_regions_may_overlap() {
    let src = "\
# LLVM-MCA-BEGIN outer
nop
# LLVM-MCA-BEGIN inner
ret
# LLVM-MCA-END outer
int3
# LLVM-MCA-END inner
";
    let blocks = assemble(src, "r.s", AsmSyntax::Att).unwrap();
    let got: Vec<_> = blocks
        .iter()
        .map(|b| (b.name.as_str(), b.bytes.clone()))
        .collect();
    assert_eq!(
        got,
        vec![("outer", vec![0x90, 0xc3]), ("inner", vec![0xc3, 0xcc])]
    );
}

#[test]
fn unbalanced_markers_name_the_line() {
    let err = assemble("nop\n# LLVM-MCA-BEGIN hot\nnop\n", "u.s", AsmSyntax::Att).unwrap_err();
    assert!(
        matches!(err, SourceError::Region { line: 2, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "u.s:2: LLVM-MCA-BEGIN without a matching LLVM-MCA-END (region `hot`)"
    );

    let err = assemble("nop\nnop\n# LLVM-MCA-END\n", "u.s", AsmSyntax::Att).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("u.s:3: LLVM-MCA-END without a matching LLVM-MCA-BEGIN"),
        "{err}"
    );

    let err = assemble(
        "# LLVM-MCA-BEGIN a\nnop\n# LLVM-MCA-END b\n",
        "u.s",
        AsmSyntax::Att,
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("u.s:3: "), "{err}");

    let err = assemble(
        "# LLVM-MCA-BEGIN\n# LLVM-MCA-END\nnop\n",
        "u.s",
        AsmSyntax::Att,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "u.s:1: region `region 1` contains no instructions"
    );
}

#[test]
fn assembler_errors_name_the_user_file_and_line() {
    let err = assemble("addq %rbx, %rax\nfoo\n", "jacobi.s", AsmSyntax::Att).unwrap_err();
    assert!(
        matches!(err, SourceError::Assembler { line: Some(2), .. }),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "jacobi.s:2: no such instruction: `foo'");

    // The Intel prelude line must not shift the reported line.
    let err = assemble("add rax, rbx\nnop\nfoo rax\n", "jacobi.s", AsmSyntax::Intel).unwrap_err();
    assert_eq!(
        err.to_string(),
        "jacobi.s:3: no such instruction: `foo rax'"
    );
    assert!(!err.to_string().contains("input.s"));
}

#[test]
fn no_instructions_is_an_error() {
    let err = assemble("# nothing here\n.p2align 4\n", "empty.s", AsmSyntax::Auto).unwrap_err();
    assert_eq!(err.to_string(), "no instructions in empty.s");
    let err = assemble("", "empty.s", AsmSyntax::Att).unwrap_err();
    assert_eq!(err.to_string(), "no instructions in empty.s");
}

#[test]
fn missing_assembler_is_reported() {
    let err = assemble_with(
        Path::new("/nonexistent/bottlenose/as"),
        "nop\n",
        "t.s",
        AsmSyntax::Att,
    )
    .unwrap_err();
    assert!(
        matches!(err, SourceError::AssemblerNotFound { .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("GNU as not found: install binutils (apt-get install binutils)"),
        "{err}"
    );
}

#[test]
fn finds_as_on_path() {
    let path =
        bottlenose_inputs::find_gnu_as().expect("binutils must be installed for these tests");
    assert!(path.ends_with("as"));
    let blocks = assemble_with(&path, "ret", "t.s", AsmSyntax::Att).unwrap();
    assert_eq!(blocks[0].bytes, vec![0xc3]);
}

#[test]
fn function_symbols_of_an_assembly_file() {
    let src = "\t.text\n\t.globl f\n\t.type f, @function\nf:\n\tret\n\t.type g, @function\ng:\n\tnop\n\tret\nplain_label:\n\tret\n";
    let blocks = assemble(src, "fg.s", AsmSyntax::Att).unwrap();
    // `plain_label` has no type: not a function
    assert_eq!(blocks[0].functions, vec![(0, "f".to_string()), (1, "g".to_string())]);
}

#[test]
fn aarch64_assembly_goes_through_the_cross_assembler() {
    use bottlenose_inputs::{assemble_for, AsmSyntax, Isa};
    // GNU as encodings (objdump): fmul d0, d0, d1 = 1e610800; subs x2, x2, #1 = f1000442
    let blocks = assemble_for(Isa::Aarch64, "fmul d0, d0, d1 // a comment\n  subs x2, x2, #1\n", "k.s", AsmSyntax::Auto).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].isa, Isa::Aarch64);
    assert_eq!(blocks[0].bytes, [0x00, 0x08, 0x61, 0x1e, 0x42, 0x04, 0x00, 0xf1]);
    assert_eq!(blocks[0].source_lines.iter().map(|l| l.line).collect::<Vec<_>>(), vec![1, 2]);
    // an x86 mnemonic is an assembler error on the user's line
    let err = assemble_for(Isa::Aarch64, "nop\naddq %rbx, %rax\n", "k.s", AsmSyntax::Auto).unwrap_err();
    assert!(err.to_string().starts_with("k.s:2:"), "{err}");
}

#[test]
fn an_input_that_makes_the_assembler_grow_without_bound_is_an_error() {
    // GNU as 2.40 on nested brackets in an Intel-syntax operand allocates without
    // end (7 GB in a minute); under its memory limit it stops with an error
    let source = format!("mov eax, {}\n", "[".repeat(40));
    let err = assemble(&source, "brackets.s", AsmSyntax::Intel).unwrap_err();
    assert!(matches!(err, SourceError::Assembler { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.starts_with("brackets.s") && !message.contains('\n'), "{message}");
}

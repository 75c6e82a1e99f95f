//! Symbolization across files: a stripped PIE and a shared library built
//! here, placed in an [`AddressSpace`] as QEMU's mappings would place them;
//! C++ and Rust names demangled; a separate debug file found by its
//! `.gnu_debuglink`. Expected names and addresses come from nm, c++filt and
//! objcopy, which read the files independently.

mod common;

use bottlenose_attribution::{AddressSpace, GuestMapping, Program, Symbolize, JIT, UNMAPPED};
use common::nm;
use std::path::{Path, PathBuf};
use std::process::Command;

const LIB_C: &str = r#"
long lib_sum(const long *a, long n) { long s = 0; for (long i = 0; i < n; i++) s += a[i] * 3; return s; }
"#;

const MAIN_C: &str = r#"
long lib_sum(const long *a, long n);
__attribute__((noinline)) static long fill(long *a, long n) { for (long i = 0; i < n; i++) a[i] = i ^ 5; return n; }
int main(void) { static long a[1000]; fill(a, 1000); return (int)(lib_sum(a, 1000) & 1); }
"#;

fn sh(cmd: &mut Command) {
    let out = cmd.output().expect("tool runs");
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Builds `libdemo.so` and `prog` (PIE, linked to it), keeps unstripped
/// copies (`libdemo.so.full`, `prog.full`) for nm, and strips both.
fn build(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    std::fs::write(dir.join("lib.c"), LIB_C).unwrap();
    std::fs::write(dir.join("main.c"), MAIN_C).unwrap();
    let lib = dir.join("libdemo.so");
    sh(Command::new("gcc").args(["-O1", "-shared", "-fPIC", "-o"]).arg(&lib).arg(dir.join("lib.c")));
    let exe = dir.join("prog");
    sh(Command::new("gcc").args(["-O1", "-pie", "-fPIE", "-o"]).arg(&exe).arg(dir.join("main.c")).arg(&lib));
    let full = dir.join("prog.full");
    std::fs::copy(&exe, &full).unwrap();
    sh(Command::new("strip").arg("-s").arg(&exe));
    std::fs::copy(&lib, dir.join("libdemo.so.full")).unwrap();
    sh(Command::new("strip").arg("-s").arg(&lib));
    (exe, lib, full)
}

/// The file offset of file address `addr` by readelf's program headers.
fn offset_of(path: &Path, addr: u64) -> u64 {
    let out = Command::new("readelf").args(["-lW"]).arg(path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines().map(str::trim).filter(|l| l.starts_with("LOAD")) {
        let f: Vec<u64> = line.split_whitespace().skip(1).take(5).map(|x| u64::from_str_radix(x.trim_start_matches("0x"), 16).unwrap()).collect();
        let (off, vaddr, filesz) = (f[0], f[1], f[3]);
        if addr >= vaddr && addr < vaddr + filesz {
            return addr - vaddr + off;
        }
    }
    panic!("0x{addr:x} in no LOAD segment of {}", path.display());
}

/// The first `.plt*` section by objdump -h: (name, address).
fn plt_section(path: &Path) -> (String, u64) {
    let out = Command::new("objdump").arg("-h").arg(path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() > 4 && f[1].starts_with(".plt"))
        .map(|f| (f[1].to_string(), u64::from_str_radix(f[3], 16).unwrap()))
        .unwrap_or_else(|| panic!("no .plt in {text}"))
}

#[test]
fn stripped_pie_and_its_library_in_one_address_space() {
    let dir = tempfile::tempdir().unwrap();
    let (exe, lib, full) = build(dir.path());
    // where QEMU 7.2 puts a PIE and the libraries after it (page aligned)
    let (exe_base, lib_base) = (0x40_0000_0000u64, 0x40_0280_0000u64);
    let mapping = |base: u64, path: &Path| GuestMapping { start: base, end: base + 0x20_0000, offset: 0, path: path.display().to_string() };
    let maps = vec![
        mapping(exe_base, &exe),
        mapping(lib_base, &lib),
        GuestMapping { start: 0x7000_0000, end: 0x7000_1000, offset: 0, path: String::new() },
    ];
    // the library's exported function keeps its name in .dynsym
    let (sum, sum_size) = nm(&dir.path().join("libdemo.so.full"), "lib_sum");
    let (fill, _) = nm(&full, "fill");
    let (main, _) = nm(&full, "main");
    // both files map from offset 0, so runtime = base + file offset
    let at_sum = lib_base + offset_of(&lib, sum) + sum_size / 2;
    let at_fill = exe_base + offset_of(&full, fill) + 2;
    let at_main = exe_base + offset_of(&full, main);
    let at_jit = 0x7000_0010;
    let at_nowhere = 0x1234_0000;
    let all = maps.len();
    let space = AddressSpace::new(maps, [at_sum, at_fill, at_main, at_jit, at_nowhere].map(|a| (a, all)));

    assert_eq!(space.label(at_sum), "libdemo.so!lib_sum");
    assert_eq!(space.dso_address(at_sum), Some(("libdemo.so", sum + sum_size / 2)));
    assert_eq!(space.symbol_start(at_sum), Some(lib_base + offset_of(&lib, sum)));
    // the stripped executable keeps .dynsym (main is not in it) and .eh_frame:
    // each function is a range named by its start as nm saw it before stripping
    assert_eq!(space.label(at_fill), format!("prog+{fill:#x}"));
    assert_eq!(space.label(at_main), format!("prog+{main:#x}"));
    assert_eq!(space.symbol_start(at_fill), None);
    assert_eq!(space.dso_address(at_fill), Some(("prog", fill + 2)));
    // the PLT stub main calls lib_sum through has no symbol: named by its section
    let (plt_name, plt) = plt_section(&full);
    let at_plt = exe_base + offset_of(&full, plt);
    let space_plt = AddressSpace::new(vec![mapping(exe_base, &exe)], [(at_plt, 1)]);
    assert_eq!(space_plt.label(at_plt), format!("prog!{plt_name}"));
    assert_eq!(space.label(at_jit), JIT);
    assert_eq!(space.label(at_nowhere), UNMAPPED);
    assert_eq!(space.dso_address(at_jit), None);

    // a mapping reported after an address first ran does not rename it
    let maps = vec![
        mapping(exe_base, &exe),
        GuestMapping { start: lib_base, end: lib_base + 0x20_0000, offset: 0, path: String::new() },
        mapping(lib_base, &lib),
    ];
    let space = AddressSpace::new(maps, [(at_sum, 2)]);
    assert_eq!(space.label(at_sum), JIT);
}

/// `c++filt`'s reading of a mangled name.
fn cxxfilt(mangled: &str) -> String {
    let out = Command::new("c++filt").arg(mangled).output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The mangled name nm lists for a symbol whose name contains `part`.
fn mangled_containing(path: &Path, part: &str) -> (String, u64) {
    let out = Command::new("nm").arg("--defined-only").arg(path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3 && ["t", "T", "W", "w"].contains(&f[1]) && f[2].contains(part)).then(|| (f[2].to_string(), u64::from_str_radix(f[0], 16).unwrap()))
        })
        .next()
        .unwrap_or_else(|| panic!("no symbol with {part} in\n{text}"))
}

#[test]
fn cpp_names_are_demangled() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("p.cpp");
    std::fs::write(
        &src,
        "#include <vector>\nnamespace geo { template <typename T> __attribute__((noinline)) T dot(const std::vector<T>& a, const std::vector<T>& b) { T s = 0; for (std::size_t i = 0; i < a.size(); i++) s += a[i] * b[i]; return s; } }\nint main() { std::vector<double> v(100, 1.5); return (int)geo::dot(v, v); }\n",
    )
    .unwrap();
    let exe = dir.path().join("p");
    sh(Command::new("g++").args(["-O1", "-o"]).arg(&exe).arg(&src));
    let (mangled, addr) = mangled_containing(&exe, "3dot");
    assert!(mangled.starts_with("_Z"), "{mangled}");
    let program = Program::open(&exe).unwrap();
    let want = cxxfilt(&mangled);
    assert!(want.contains("geo::dot<double>"), "{want}");
    assert_eq!(program.label(addr), want);
    // the ROI can name it either way
    assert_eq!(program.named_function(&mangled).map(|f| f.start), Some(addr));
    assert_eq!(program.named_function(&want).map(|f| f.start), Some(addr));
}

#[test]
fn rust_names_are_demangled() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("demo.rs");
    std::fs::write(
        &src,
        "mod kernels { #[inline(never)] pub fn hot_loop(n: u64) -> u64 { (0..n).fold(0, |s, i| s ^ (i * 7)) } }\nfn main() { std::process::exit((kernels::hot_loop(std::env::args().count() as u64 * 1000) & 1) as i32); }\n",
    )
    .unwrap();
    let exe = dir.path().join("demo");
    sh(Command::new("rustc").args(["-O", "--crate-name", "demo", "-o"]).arg(&exe).arg(&src));
    let (mangled, addr) = mangled_containing(&exe, "hot_loop");
    let program = Program::open(&exe).unwrap();
    // the path as written in the source, without the hash perf leaves out too
    assert_eq!(program.label(addr), "demo::kernels::hot_loop", "{mangled}");
}

#[test]
fn separate_debug_file_by_debuglink() {
    let dir = tempfile::tempdir().unwrap();
    let (_exe, _lib, full) = build(dir.path());
    let exe = dir.path().join("prog2");
    std::fs::copy(&full, &exe).unwrap();
    let debug = dir.path().join("prog2.debug");
    sh(Command::new("objcopy").arg("--only-keep-debug").arg(&exe).arg(&debug));
    sh(Command::new("strip").arg("-s").arg(&exe));
    let plain = Program::open(&exe).unwrap();
    assert!(!plain.has_debug_file());
    let (fill, _) = nm(&full, "fill");
    assert_eq!(plain.label(fill), format!("prog2+{fill:#x}"));
    sh(Command::new("objcopy").arg(format!("--add-gnu-debuglink={}", debug.display())).arg(&exe));
    let linked = Program::open(&exe).unwrap();
    assert!(linked.has_debug_file());
    assert_eq!(linked.label(fill), "fill");
    // a debug file whose CRC does not match the link is not used
    std::fs::write(&debug, b"not the debug file").unwrap();
    assert!(!Program::open(&exe).unwrap().has_debug_file());
}

//! Finding QEMU, the plugin and the program to run: environment overrides,
//! PATH lookup, the ELF header's ISA, and `#!` scripts resolved to the ELF
//! executable the kernel would run.

use bottlenose_decode::Isa;
use std::env;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use object::read::elf::FileHeader;

use super::error::QemuError;
use super::runner::PLUGIN_FILE_NAME;
use super::shebang::{read_shebang, script_command, MAX_DEPTH};

/// Locates `qemu-x86_64`: `$BOTTLENOSE_QEMU` (a path, or a name looked up
/// on PATH) if set and not empty, else `qemu-x86_64` on PATH.
pub fn find_qemu() -> Result<PathBuf, QemuError> {
    find_qemu_for(Isa::X86_64)
}

/// The user-mode emulator of `isa` and the variable that overrides it.
fn emulator(isa: Isa) -> (&'static str, &'static str) {
    match isa {
        Isa::X86_64 => ("qemu-x86_64", "BOTTLENOSE_QEMU"),
        Isa::Aarch64 => ("qemu-aarch64", "BOTTLENOSE_QEMU_AARCH64"),
    }
}

/// Locates the emulator of `isa` (`qemu-x86_64`, `qemu-aarch64`), or the one
/// its variable (`$BOTTLENOSE_QEMU`, `$BOTTLENOSE_QEMU_AARCH64`) names.
pub fn find_qemu_for(isa: Isa) -> Result<PathBuf, QemuError> {
    let (program, var) = emulator(isa);
    if let Some(v) = env::var_os(var).filter(|v| !v.is_empty()) {
        let p = PathBuf::from(&v);
        let found = if p.components().count() == 1 && !p.is_absolute() {
            search_path(&v)
        } else if is_executable_file(&p) {
            Some(p.clone())
        } else {
            None
        };
        return found.ok_or(QemuError::QemuNotFound { program, tried: Some(p) });
    }
    search_path(OsStr::new(program)).ok_or(QemuError::QemuNotFound { program, tried: None })
}

/// Where the AArch64 guest's dynamic loader and libraries are: `$QEMU_LD_PREFIX` if set
/// (QEMU reads it itself), else Debian's cross sysroot (libc6-arm64-cross).
pub(crate) fn aarch64_sysroot() -> Option<PathBuf> {
    if env::var_os("QEMU_LD_PREFIX").is_some() {
        return None;
    }
    let p = PathBuf::from("/usr/aarch64-linux-gnu");
    p.join("lib").is_dir().then_some(p)
}

/// Locates the plugin: `$BOTTLENOSE_QEMU_PLUGIN` if set and not empty, else
/// [`PLUGIN_FILE_NAME`] next to the current executable or in its parent
/// directory (test binaries live in `target/<profile>/deps`).
pub fn find_plugin() -> Result<PathBuf, QemuError> {
    if let Some(v) = env::var_os("BOTTLENOSE_QEMU_PLUGIN").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(v);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(QemuError::PluginNotFound {
                tried: vec![p],
                from_env: true,
            })
        };
    }
    let mut tried = Vec::new();
    if let Ok(exe) = env::current_exe() {
        let mut dir = exe.parent();
        for _ in 0..2 {
            let Some(d) = dir else { break };
            let candidate = d.join(PLUGIN_FILE_NAME);
            if candidate.is_file() {
                return Ok(candidate);
            }
            tried.push(candidate);
            dir = d.parent();
        }
    }
    Err(QemuError::PluginNotFound {
        tried,
        from_env: false,
    })
}

/// Checks that `program` names an x86-64 ELF executable (or position
/// independent executable) and returns the path to run. A bare name that is
/// not a file in the current directory is looked up on PATH.
pub fn check_program(program: &Path) -> Result<PathBuf, QemuError> {
    program_isa(program).map(|(p, _)| p)
}

/// [`check_program`] for x86-64 and AArch64 executables: the path to run and its ISA.
pub fn program_isa(program: &Path) -> Result<(PathBuf, Isa), QemuError> {
    let mut path = program.to_path_buf();
    let bare = program.components().count() == 1 && !program.is_absolute();
    if bare && !program.exists() {
        if let Some(found) = search_path(program.as_os_str()) {
            path = found;
        }
    }
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(QemuError::ProgramNotFound(program.to_path_buf()))
        }
        Err(e) => {
            return Err(QemuError::Io {
                context: format!("cannot read {}", program.display()),
                source: e,
            })
        }
    };
    let not_exe = || QemuError::NotX86_64Executable(program.to_path_buf());
    if !meta.is_file() {
        return Err(not_exe());
    }
    let mut header = Vec::with_capacity(64);
    File::open(&path)
        .and_then(|f| f.take(64).read_to_end(&mut header))
        .map_err(|e| QemuError::Io {
            context: format!("cannot read {}", program.display()),
            source: e,
        })?;
    let elf = object::elf::FileHeader64::<object::Endianness>::parse(&header[..])
        .map_err(|_| not_exe())?;
    let endian = elf.endian().map_err(|_| not_exe())?;
    let e_type = elf.e_type(endian);
    let isa = match elf.e_machine(endian) {
        object::elf::EM_X86_64 => Isa::X86_64,
        object::elf::EM_AARCH64 => Isa::Aarch64,
        _ => return Err(not_exe()),
    };
    if !elf.is_class_64() || !(e_type == object::elf::ET_EXEC || e_type == object::elf::ET_DYN) {
        return Err(not_exe());
    }
    // SAFETY: access() on a NUL-terminated path.
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|_| not_exe())?;
    if unsafe { libc::access(c_path.as_ptr(), libc::X_OK) } != 0 {
        return Err(QemuError::PermissionDenied(program.to_path_buf()));
    }
    // QEMU would take a path starting with '-' for an option.
    if path.as_os_str().as_bytes().first() == Some(&b'-') {
        path = Path::new(".").join(path);
    }
    Ok((path, isa))
}

/// The ELF executable and arguments that run `program args` as the kernel
/// would: a `#!` script (or a shim such as pyenv's) runs through its
/// interpreter (interpreters of interpreters up to Linux's depth of 4; see
/// [`script_command`]), then [`check_program`] checks the ELF file.
pub fn resolve_command(program: &Path, args: &[OsString]) -> Result<(PathBuf, Vec<OsString>), QemuError> {
    let mut path = program.to_path_buf();
    let mut args = args.to_vec();
    for _ in 0..=MAX_DEPTH {
        let found = find_program(&path)?;
        let script = match read_shebang(&found) {
            Ok(Some(s)) => s,
            // not a script (or unreadable: check_program says which)
            _ => return Ok((check_program(&found)?, args)),
        };
        if !is_executable_file(&found) {
            return Err(QemuError::PermissionDenied(path));
        }
        let cmd = script_command(&script, &found, &args, env::var_os("PATH").as_deref());
        let interpreter = PathBuf::from(&cmd[0]);
        if !interpreter.exists() {
            return Err(QemuError::InterpreterNotFound { script: path, interpreter });
        }
        path = interpreter;
        args = cmd[1..].to_vec();
    }
    Err(QemuError::NotX86_64Executable(program.to_path_buf()))
}

/// `program` itself, or a bare name not in the current directory found on PATH.
fn find_program(program: &Path) -> Result<PathBuf, QemuError> {
    let bare = program.components().count() == 1 && !program.is_absolute();
    if bare && !program.exists() {
        return search_path(program.as_os_str()).ok_or_else(|| QemuError::ProgramNotFound(program.to_path_buf()));
    }
    Ok(program.to_path_buf())
}

fn is_executable_file(p: &Path) -> bool {
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn search_path(name: &OsStr) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable_file(p))
}

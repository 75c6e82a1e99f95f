//! `#!` scripts: the interpreter line, split as Linux splits it (the
//! interpreter, then everything after it as one optional argument), and
//! `#!/usr/bin/env NAME` resolved to NAME on PATH. Self-contained (std only):
//! the QEMU plugin includes this file to run the scripts a guest executes.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// Linux reads at most this much of the `#!` line (BINPRM_BUF_SIZE).
const LINE_MAX: usize = 256;
/// Linux follows at most this many interpreters of interpreters.
pub const MAX_DEPTH: usize = 4;

/// The interpreter line of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shebang {
    pub interpreter: PathBuf,
    pub arg: Option<OsString>,
}

/// Parses the start of a file; `None` if it is not a `#!` script.
pub fn parse_shebang(head: &[u8]) -> Option<Shebang> {
    let rest = head.strip_prefix(b"#!")?;
    let line = rest.split(|&b| b == b'\n').next()?;
    let line = trim(line);
    let split = line.iter().position(|b| *b == b' ' || *b == b'\t').unwrap_or(line.len());
    let (interp, arg) = line.split_at(split);
    if interp.is_empty() {
        return None;
    }
    let arg = trim(arg);
    Some(Shebang {
        interpreter: PathBuf::from(OsStr::from_bytes(interp)),
        arg: (!arg.is_empty()).then(|| OsString::from_vec(arg.to_vec())),
    })
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(start, |e| e + 1);
    &b[start..end.max(start)]
}

/// Reads the interpreter line of `path`; `None` if it is not a script.
pub fn read_shebang(path: &Path) -> std::io::Result<Option<Shebang>> {
    let mut head = Vec::with_capacity(LINE_MAX);
    std::fs::File::open(path)?.take(LINE_MAX as u64).read_to_end(&mut head)?;
    Ok(parse_shebang(&head))
}

/// The command that runs `script args` as the kernel would: `[interpreter,
/// arg?, script, args...]`. `#!/usr/bin/env NAME [ARGS]` (or `env -S ...`)
/// becomes `[NAME found on PATH, ARGS..., script, args...]`, so that the
/// interpreter itself is what runs; env with other options stays as it is.
pub fn script_command(sh: &Shebang, script: &Path, args: &[OsString], path_var: Option<&OsStr>) -> Vec<OsString> {
    let mut cmd: Vec<OsString> = Vec::new();
    let env_words = (sh.interpreter.file_name() == Some(OsStr::new("env")))
        .then_some(sh.arg.as_ref())
        .flatten()
        .map(|a| {
            let words: Vec<&[u8]> = a.as_bytes().split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).collect();
            match words.first() {
                Some(&b"-S") => words[1..].to_vec(),
                _ => words,
            }
        })
        .filter(|w| !w.is_empty() && !w[0].starts_with(b"-") && !w.iter().any(|x| x.contains(&b'=')));
    let found = env_words.as_ref().and_then(|w| {
        let name = OsStr::from_bytes(w[0]);
        if name.as_bytes().contains(&b'/') {
            return Some(PathBuf::from(name));
        }
        std::env::split_paths(path_var?).map(|d| d.join(name)).find(|p| p.is_file())
    });
    match (env_words, found) {
        (Some(words), Some(interp)) => {
            cmd.push(interp.into_os_string());
            cmd.extend(words[1..].iter().map(|w| OsStr::from_bytes(w).to_os_string()));
        }
        _ => {
            cmd.push(sh.interpreter.clone().into_os_string());
            cmd.extend(sh.arg.clone());
        }
    }
    cmd.push(script.as_os_str().to_os_string());
    cmd.extend(args.iter().cloned());
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_as_linux_splits_them() {
        let s = parse_shebang(b"#!/bin/sh -e -u\necho").unwrap();
        assert_eq!(s.interpreter, Path::new("/bin/sh"));
        assert_eq!(s.arg.as_deref(), Some(OsStr::new("-e -u")), "one argument, as the kernel passes it");
        assert_eq!(parse_shebang(b"#! /usr/bin/python3  \n").unwrap().arg, None);
        assert!(parse_shebang(b"\x7fELF").is_none());
        assert!(parse_shebang(b"#!\n").is_none());
    }

    #[test]
    fn env_runs_the_named_interpreter() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tool"), b"").unwrap();
        let path = dir.path().as_os_str().to_os_string();
        let cmd = |line: &[u8]| script_command(&parse_shebang(line).unwrap(), Path::new("s"), &["a".into()], Some(&path));
        let tool = dir.path().join("tool").into_os_string();
        assert_eq!(cmd(b"#!/usr/bin/env tool\n"), vec![tool.clone(), "s".into(), "a".into()]);
        assert_eq!(cmd(b"#!/usr/bin/env -S tool -x\n"), vec![tool, "-x".into(), "s".into(), "a".into()]);
        // options of env itself: env runs, as the kernel would run it
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(cmd(b"#!/usr/bin/env -i tool\n"), os(&["/usr/bin/env", "-i tool", "s", "a"]));
        assert_eq!(cmd(b"#!/bin/sh -e\n"), os(&["/bin/sh", "-e", "s", "a"]));
    }
}

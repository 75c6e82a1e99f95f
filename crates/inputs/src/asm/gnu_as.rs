//! Running the GNU assembler in a temporary directory, and its error messages
//! mapped back to the user's file and line.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use super::markers::Prepared;
use crate::SourceError;

pub(super) struct AsOutput {
    pub(super) object: Vec<u8>,
    pub(super) listing: String,
}

/// Runs the assembler (`as --64`, or the AArch64 one) on the prepared text in a temporary directory.
pub(super) fn run_as(as_path: &Path, prepared: &Prepared, file_name: &str, target_flags: &[&str]) -> Result<AsOutput, SourceError> {
    let io = |context: &str| {
        let context = context.to_string();
        move |source| SourceError::Io { context, source }
    };
    let dir = tempfile::Builder::new()
        .prefix("bottlenose-as")
        .tempdir()
        .map_err(io("creating a temporary directory"))?;
    let input = dir.path().join("input.s");
    let object_path = dir.path().join("out.o");
    let listing_path = dir.path().join("listing.lst");
    std::fs::write(&input, &prepared.text).map_err(io("writing the assembler input"))?;

    let mut listing_arg = OsString::from("-aln=");
    listing_arg.push(listing_path.as_os_str());
    let mut command = Command::new(as_path);
    limit_resources(&mut command);
    let result = command
        .args(target_flags)
        .arg(listing_arg)
        .arg("-o")
        .arg(&object_path)
        .arg(&input)
        .stdin(Stdio::null())
        .output();
    let output = match result {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SourceError::AssemblerNotFound {
                path: Some(as_path.to_path_buf()),
            })
        }
        Err(e) => {
            return Err(SourceError::Io {
                context: format!("running {}", as_path.display()),
                source: e,
            })
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let input_name = input.to_string_lossy();
        return Err(map_as_error(
            &stderr,
            &input_name,
            file_name,
            prepared.prepended,
            &output.status.to_string(),
        ));
    }
    let object = std::fs::read(&object_path).map_err(io("reading the object written by as"))?;
    // The listing is a nicety: a missing one just means no source lines.
    let listing = std::fs::read_to_string(&listing_path).unwrap_or_default();
    Ok(AsOutput { object, listing })
}

/// The memory the assembler may map. GNU as 2.40 grows without bound on some
/// malformed Intel-syntax operands (`mov eax, [[[[...` with 40 brackets: 7 GB in a
/// minute, found by the fuzzer); with a limit it stops with an error ("out of
/// memory") in about 4 s. Real files need a few tens of MB.
const AS_MEMORY_BYTES: u64 = 512 << 20;
/// The CPU time it may take, for any other input it would loop on.
const AS_CPU_SECONDS: u64 = 60;

/// Sets the assembler's limits in the child before it runs.
fn limit_resources(command: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec and calls only
    // setrlimit, which is async-signal-safe; it touches no memory of the parent's.
    unsafe {
        command.pre_exec(|| {
            for (resource, limit) in [(libc::RLIMIT_AS, AS_MEMORY_BYTES), (libc::RLIMIT_CPU, AS_CPU_SECONDS)] {
                let l = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                if libc::setrlimit(resource, &l) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

/// Turns `as` stderr into one error naming the user's file and line.
///
/// `as` prints `/tmp/…/input.s:3: Error: no such instruction: `foo'`; this
/// becomes `file.s:3: no such instruction: `foo'` (line shifted back by the
/// lines we prepended).
pub(super) fn map_as_error(
    stderr: &str,
    input_name: &str,
    file_name: &str,
    prepended: usize,
    status: &str,
) -> SourceError {
    let mut fallback: Option<String> = None;
    for line in stderr.lines() {
        let line = line.trim_end();
        if line.is_empty() || line.ends_with("Assembler messages:") {
            continue;
        }
        let Some(rest) = line
            .strip_prefix(input_name)
            .and_then(|r| r.strip_prefix(':'))
        else {
            fallback.get_or_insert_with(|| line.replace(input_name, file_name));
            continue;
        };
        let (num, msg) = match rest.split_once(':') {
            Some((n, m)) => (n.trim().parse::<usize>().ok(), m.trim_start()),
            None => (None, rest.trim_start()),
        };
        if msg.starts_with("Warning:") {
            continue;
        }
        let msg = msg
            .strip_prefix("Error:")
            .or_else(|| msg.strip_prefix("Fatal error:"))
            .unwrap_or(msg)
            .trim_start()
            .replace(input_name, file_name);
        let user_line = num
            .and_then(|n| n.checked_sub(prepended))
            .filter(|&n| n > 0);
        return SourceError::Assembler {
            file: file_name.to_string(),
            line: user_line,
            message: msg,
        };
    }
    SourceError::Assembler {
        file: file_name.to_string(),
        line: None,
        message: fallback.unwrap_or_else(|| format!("as failed ({status}) without a message")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_as_error_lines_back_to_the_user_file() {
        let stderr = "/tmp/x/input.s: Assembler messages:\n/tmp/x/input.s:4: Error: no such instruction: `foo'\n";
        let e = map_as_error(stderr, "/tmp/x/input.s", "jacobi.s", 1, "exit status: 1");
        assert_eq!(e.to_string(), "jacobi.s:3: no such instruction: `foo'");
    }

    #[test]
    fn skips_warnings_and_handles_messages_without_a_line() {
        let stderr = "Assembler messages:\n/tmp/x/input.s:2: Warning: something\n\
                      Error: can't open /tmp/x/input.s for reading\n";
        let e = map_as_error(stderr, "/tmp/x/input.s", "a.s", 0, "exit status: 1");
        assert_eq!(e.to_string(), "a.s: Error: can't open a.s for reading");
    }
}

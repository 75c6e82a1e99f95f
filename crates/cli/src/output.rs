//! Report files are written atomically: to a temporary file beside the target,
//! then renamed, so an interrupted run never leaves half a JSON or HTML file.
//! A target that exists and is not a regular file (`/dev/stdout`, a FIFO, a
//! terminal) is written in place: renaming onto it would replace the device.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        let mut f = std::fs::OpenOptions::new().write(true).open(path).with_context(|| format!("cannot write {}", path.display()))?;
        return f.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()));
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    tmp.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    // a temporary file is private (0600); a report is an ordinary file
    use std::os::unix::fs::PermissionsExt;
    let _ = tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644));
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The schema version of each kind of JSON report (`schemas/KIND.vN.json`):
/// analyze and run went to 2 when they gained the verdict (issue 16).
pub fn schema_version(kind: &str) -> u32 {
    match kind {
        "analyze" | "run" => 2,
        _ => 1,
    }
}

/// Marks a JSON report with its schema id (`bottlenose/KIND/vN`).
pub fn stamped<T: serde::Serialize>(report: &T, kind: &str) -> Result<serde_json::Value> {
    let mut v = serde_json::to_value(report)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("schema".into(), serde_json::Value::String(format!("bottlenose/{kind}/v{}", schema_version(kind))));
    }
    Ok(v)
}

/// [`stamped`], plus the host the report was made on and how its model was chosen.
pub fn stamped_on<T: serde::Serialize>(report: &T, kind: &str, host: &crate::machine_choice::HostNote) -> Result<serde_json::Value> {
    let mut v = stamped(report, kind)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("host".into(), serde_json::to_value(host)?);
    }
    Ok(v)
}

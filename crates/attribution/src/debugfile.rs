//! Finding the separate debug file of a stripped ELF file, as gdb and perf
//! do: by build id under `/usr/lib/debug/.build-id/`, then by
//! `.gnu_debuglink` next to the file, in its `.debug/` directory and under
//! `/usr/lib/debug/` plus the file's directory.

use std::path::{Path, PathBuf};

use object::Object;

/// The root of the global debug directory.
const DEBUG_ROOT: &str = "/usr/lib/debug";

/// The bytes of `path`'s separate debug file, if one is installed. A
/// debuglink candidate must carry the CRC-32 the link names; a build-id
/// candidate must carry the same build id.
pub(crate) fn find(path: &Path, file: &object::File<'_>) -> Option<Vec<u8>> {
    if let Ok(Some(id)) = file.build_id() {
        if id.len() >= 2 {
            let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
            let candidate = Path::new(DEBUG_ROOT).join(".build-id").join(&hex[..2]).join(format!("{}.debug", &hex[2..]));
            if let Some(data) = read_matching(&candidate, |d| {
                object::File::parse(d).ok().and_then(|f| f.build_id().ok().flatten().map(|b| b == id)).unwrap_or(false)
            }) {
                return Some(data);
            }
        }
    }
    let (name, crc) = file.gnu_debuglink().ok().flatten()?;
    let name = std::str::from_utf8(name).ok()?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut candidates: Vec<PathBuf> = vec![dir.join(name), dir.join(".debug").join(name)];
    if let Ok(rel) = dir.strip_prefix("/") {
        candidates.push(Path::new(DEBUG_ROOT).join(rel).join(name));
    }
    candidates
        .into_iter()
        .filter(|c| c.as_path() != path)
        .find_map(|c| read_matching(&c, |d| crc32fast::hash(d) == crc))
}

fn read_matching(path: &Path, ok: impl Fn(&[u8]) -> bool) -> Option<Vec<u8>> {
    let data = std::fs::read(path).ok()?;
    ok(&data).then_some(data)
}

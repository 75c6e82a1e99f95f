//! Errors of machine loading: always one line, naming file, line and field.

use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    #[error("{file}: cannot read: {reason}")]
    Io { file: String, reason: String },
    #[error("{file}:{line}: {field}: {message}")]
    Invalid { file: String, line: usize, field: String, message: String },
    #[error("unknown machine '{name}' (built-in machines: {known}; or give a path to a .toml file)")]
    Unknown { name: String, known: String },
}

impl MachineError {
    pub fn io(path: &Path, e: std::io::Error) -> Self {
        MachineError::Io { file: path.display().to_string(), reason: e.to_string() }
    }
}

//! Machines shipped inside the binary (the files under `machines/`), and the
//! names they answer to. A machine's aliases live in its own file (`aliases =
//! [...]`), so `--machine`, `--cpu` and `machines show` accept the same names.

use crate::{schema, Machine, MachineError};
use std::sync::OnceLock;

/// One built-in machine: its name, its file and its form table.
pub(crate) struct Builtin {
    pub(crate) name: &'static str,
    pub(crate) text: &'static str,
    pub(crate) forms_file: &'static str,
    pub(crate) forms: &'static str,
}

macro_rules! builtin {
    ($name:literal) => {
        builtin!($name, forms = $name)
    };
    // a machine that uses another's imported table
    ($name:literal, forms = $table:literal) => {
        Builtin {
            name: $name,
            text: include_str!(concat!("../../../machines/", $name, ".toml")),
            forms_file: concat!($table, ".forms.toml"),
            forms: include_str!(concat!("../../../machines/", $table, ".forms.toml")),
        }
    };
}

const BUILTIN: &[Builtin] = &[
    builtin!("skylake"),
    builtin!("zen4"),
    builtin!("goldencove"),
    // LLVM 19 times graniterapids and znver5 with the SapphireRapids and Znver4 models: these
    // machines share goldencove's and zen4's imported tables (their files say `forms = ...`).
    builtin!("graniterapids", forms = "goldencove"),
    builtin!("icelake-server"),
    builtin!("zen3"),
    builtin!("zen5", forms = "zen4"),
    builtin!("gus-fig4"),
    builtin!("neoverse-n1"),
    builtin!("neoverse-v2"),
];

pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|b| b.name).collect()
}

/// Every built-in name with its aliases, for messages and completion.
pub fn builtin_names_with_aliases() -> Vec<(&'static str, &'static [String])> {
    BUILTIN.iter().zip(aliases()).map(|(b, a)| (b.name, a.as_slice())).collect()
}

/// The built-in machine a name or alias selects (case-insensitive).
pub fn canonical_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    BUILTIN
        .iter()
        .zip(aliases())
        .find(|(b, a)| b.name == lower || a.iter().any(|x| x.eq_ignore_ascii_case(&lower)))
        .map(|(b, _)| b.name)
}

pub fn load_builtin(name: &str) -> Option<Result<Machine, MachineError>> {
    let b = builtin(name)?;
    Some(schema::parse_machine(b.text, &format!("machines/{}.toml", b.name), |_| {
        Ok((format!("machines/{}", b.forms_file), b.forms.to_string()))
    }))
}

/// The text of a built-in machine's file and of its form table (what a result
/// made with it depends on).
pub fn builtin_text(name: &str) -> Option<(&'static str, &'static str)> {
    builtin(name).map(|b| (b.text, b.forms))
}

/// The built-in a name or alias selects (overlays patch its text before parsing).
pub(crate) fn builtin(name: &str) -> Option<&'static Builtin> {
    let canonical = canonical_name(name)?;
    BUILTIN.iter().find(|b| b.name == canonical)
}

/// Aliases of each built-in, read once from the machine files' `aliases` key
/// (only that key: the form tables are not parsed for a name lookup).
fn aliases() -> &'static [Vec<String>] {
    static ALIASES: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    ALIASES.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|b| {
                // A broken file is reported when it is loaded; here it just has no aliases.
                let table: Result<toml::Table, _> = b.text.parse();
                table
                    .ok()
                    .and_then(|t| t.get("aliases").cloned())
                    .and_then(|v| v.try_into::<Vec<String>>().ok())
                    .unwrap_or_default()
            })
            .collect()
    })
}

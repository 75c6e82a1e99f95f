//! Machines shipped inside the binary (the files under `machines/`).

use crate::{schema, Machine, MachineError};

const BUILTIN: &[(&str, &str, &str, &str)] = &[
    (
        "skylake",
        include_str!("../../../machines/skylake.toml"),
        "skylake.forms.toml",
        include_str!("../../../machines/skylake.forms.toml"),
    ),
    (
        "zen4",
        include_str!("../../../machines/zen4.toml"),
        "zen4.forms.toml",
        include_str!("../../../machines/zen4.forms.toml"),
    ),
    (
        "gus-fig4",
        include_str!("../../../machines/gus-fig4.toml"),
        "gus-fig4.forms.toml",
        include_str!("../../../machines/gus-fig4.forms.toml"),
    ),
];

pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|b| b.0).collect()
}

pub fn load_builtin(name: &str) -> Option<Result<Machine, MachineError>> {
    let (n, text, forms_name, forms) = BUILTIN.iter().find(|b| b.0 == name)?;
    Some(schema::parse_machine(text, &format!("machines/{n}.toml"), |_| {
        Ok((format!("machines/{forms_name}"), forms.to_string()))
    }))
}

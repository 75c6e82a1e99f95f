//! Machine descriptions: TOML loading and validation, ports and resource groups, instruction-form tables.

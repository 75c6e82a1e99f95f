//! Reports: how analyses are shown to people (terminal tables) and programs (JSON).

mod accounting_text;
mod block_text;
pub mod html;
mod dynamic_text;
mod loops_text;
mod machine_text;
pub mod numbers;
mod sampling_text;
mod table;
mod verdict_text;

pub use accounting_text::{render_accounting, render_accounting_sampled};
pub use block_text::render_block;
pub use html::render_html;
pub use dynamic_text::render_dynamic;
pub use loops_text::render_loops;
pub use machine_text::{render_machine, render_machine_list};
pub use sampling_text::render_sampling;
pub use table::Table;
pub use verdict_text::render_verdict;

/// Pretty JSON of any report; the schema is the `Serialize` shape of the report types.
pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

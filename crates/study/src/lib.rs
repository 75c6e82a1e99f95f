//! Studies: programs x machines x variants, each combination one ordinary
//! `bottlenose run` or `analyze` job, run on a local process pool or as a Slurm
//! job array, kept in a result store keyed by a hash of the job's inputs, and
//! merged into tables (CSV, JSON, HTML) and diffs.
//!
//! Data flow: study file ([`spec`]) -> jobs ([`expand`]) -> backend ([`local`],
//! [`slurm`], each job through [`exec`]) -> store ([`store`]) -> table rows
//! ([`table`]) -> reports and diffs ([`render`]).

pub mod driver;
pub mod exec;
pub mod expand;
pub mod local;
pub mod render;
pub mod slurm;
pub mod spec;
pub mod store;
pub mod table;

pub use driver::{run, Backend, Event, RunOptions, Summary};
pub use expand::{expand, Job};
pub use spec::Study;
pub use store::Store;

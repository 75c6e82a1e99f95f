//! The measurement steps of a calibration, one file per part of the core.

mod core;
mod forwarding;
mod frontend;
mod instructions;
mod memory;

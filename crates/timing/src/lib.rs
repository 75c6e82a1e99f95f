//! The out-of-order timing model: per-cycle resource calendars, instruction window, shadow registers and memory, stage times with binding constraints.

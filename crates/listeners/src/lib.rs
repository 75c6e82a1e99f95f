//! Accounting views computed from the timing model's per-instruction stage times: resource usage, stall attribution.

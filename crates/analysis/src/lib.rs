//! Analyses: static loop analysis to steady state, sensitivity sweeps, bottleneck ranking.

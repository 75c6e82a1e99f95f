//! Reports: terminal tables and JSON for analyses.

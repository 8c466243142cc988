//! One module per command.

pub mod admit;
pub mod bench;
pub mod check;
pub mod completions;
pub mod consolidate;
pub mod demo;
pub mod drain;
pub mod explain;
pub mod generate;
pub mod lint;
pub mod man;
pub mod pools;
pub mod report;
pub mod schedule;
pub mod serve;
pub mod simulate;
pub mod snapshot;
pub mod taint;

//! repel's report: the model of one page that shows a cluster's taints the way a platform team
//! asks about them — for each pool, which workloads land there, which are kept off and by
//! which taint — with DaemonSet coverage, drain readiness, lint findings and a scenario's
//! timeline, and the self-contained HTML page that draws it.
//!
//! Start at [`build`] (a [`ClusterInput`](repel_engine::load::ClusterInput) in, a [`Report`]
//! out) and [`html::page`] (a report in, one HTML file out). `repel report` and `repel serve`'s
//! `/ui/` both call them, so the page is the same wherever it is seen. The verdicts are the
//! engine's (the scheduler's filters, the DaemonSet controller's check, the drain what-ifs);
//! the page draws them and decides nothing.
//!
//! # Layout
//! - [`model`]: the model and its JSON (`repel report -o json`, a contract).
//! - [`pools`]: which pool each node belongs to.
//! - [`matrix`]: a workload's verdict on a node and on a pool.
//! - [`build`](mod@build): the model of a cluster.
//! - [`timeline`]: a scenario's events as the timeline's entries.
//! - [`html`]: the page.

pub mod build;
pub mod html;
pub mod matrix;
pub mod model;
pub mod pools;
pub mod timeline;

pub use build::{Options, build};
pub use model::{JsonReport, Report, Verdict};

/// The most names a list of the model holds (a pool's nodes, a taint's tolerating workloads);
/// the rest are counted. Keeps the model of a 5,000-node cluster small.
pub const MAX_NAMES: usize = 50;

/// Up to this many nodes every node's drain verdicts are listed; above it only the nodes some
/// judge refuses (the pools' counts cover the rest).
pub const MAX_DRAIN_NODES: usize = 500;

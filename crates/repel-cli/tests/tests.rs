//! The `repel` binary's integration tests, one binary: each module runs the built
//! `repel` on files in a temp dir (or a live `repel serve`); shared helpers live in `util`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod admission_plugins;
mod agree;
mod bench_generate;
mod cli;
mod completions;
mod corpus;
mod docs;
mod drain;
mod explain_daemonset;
mod help_examples;
mod in_cluster;
mod limits;
mod lint;
mod live;
mod many_pods;
mod pools;
mod real_manifests;
mod replication_controller;
mod report;
mod report_browser;
mod serve;
mod serve_timeline;
mod strict_fields;
mod util;

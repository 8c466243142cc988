//! `repel serve`'s integration tests, one binary: real HTTP on `127.0.0.1:0`, kube-rs and
//! the real `kubectl`; the test server and kubectl runner live in `util`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod extended_resource;
mod garbage_collection;
mod hostile;
mod http_status;
mod kube_rs;
mod kubectl_admission_policy;
mod kubectl_corpus;
mod kubectl_crds;
mod kubectl_defaults;
mod kubectl_describe;
mod kubectl_explain;
mod kubectl_kinds;
mod kubectl_live;
mod kubectl_nodes;
mod kubectl_protobuf;
mod kubectl_rollout;
mod kubectl_server_side_apply;
mod kubectl_writes;
mod paging;
mod patch_errors;
mod pool_allocatable;
mod preemption;
mod ui;
mod util;
mod view;

//! `repel-engine`'s integration tests, one binary: the controllers and the scheduler
//! driven through the simulation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod controller_revisions;
mod daemonset_rollout;
mod node_pools;
mod ownership;
mod pod_conditions;
mod pod_index;
mod pod_names;
mod preemption_events;
mod rollout;
mod scale_down;
mod scheduling;
mod statefulset;
mod taint_steps;
mod util;

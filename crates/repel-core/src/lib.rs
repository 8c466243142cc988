//! repel-core: Kubernetes taint and toleration semantics, identical to upstream, on `k8s-openapi` types.
//!
//! Start with [`tolerates`] (one toleration against one taint), then the set helpers in
//! [`taint`] ([`find_matching_untolerated_taint`], [`no_execute_outcome`]), which are what the
//! scheduler, the kubelet and the taint-eviction controller call. [`validation`] checks objects
//! as the API server does; [`kubectl`] parses and applies `kubectl taint` arguments; [`defaults`]
//! holds what the control plane adds to pods and nodes. Everything is pure: no I/O, no clock,
//! no global state; time and feature gates come in as parameters.
//!
//! # Tests (every crate of the workspace)
//! Unit tests of `x.rs` live in `x/tests.rs` (`#[cfg(test)] mod tests;` at the bottom of `x.rs`);
//! an inline `mod tests {}` only under ~60 lines. A ported upstream table too big for one file is
//! split along upstream's own test functions as `x/tests/<upstream_test>.rs`, case names verbatim,
//! shared helpers in `x/tests.rs`; fixtures come from [`testing`]'s builders.
//!
//! # Layout
//! - [`gates`]: feature gates (`TaintTolerationComparisonOperators`), kube's flag syntax.
//! - [`toleration`]: `ToleratesTaint`, the canonical-integer check for `Gt`/`Lt`.
//! - [`taint`]: effects, well-known keys, `ToString`, set helpers, NoExecute outcome, score normalisation.
//! - [`names`]: qualified names, label values, DNS subdomains, with upstream's messages.
//! - [`validation`]: API-server validation of tolerations and node taints (`FieldError`).
//! - [`kubectl`]: `kubectl taint` spec syntax and apply rules.
//! - [`defaults`]: admission defaults and DaemonSet tolerations.
//! - [`admission`]: the admission chain a new pod passes (DefaultTolerationSeconds,
//!   PodTolerationRestriction, ExtendedResourceToleration); plugins by name.
//! - [`conditions`]: node conditions → taints.
//! - [`affinity`]: nodeSelector and required node affinity matching.
//! - [`labels`]: label selectors (`-l`): parse, print, match; `metav1.LabelSelector`.
//! - [`lint`]: `repel lint`'s rules: findings with fixes, and the admission policy.
//! - [`advice`]: the classic mistakes (toleration without affinity, wildcard, kept off own nodes).
//! - [`near_miss`]: a toleration evidently written for a taint that does not match it, and why.
//! - [`explain`]: a pod against every node: taints, filters, scores, NoExecute outcome.
//! - [`object_defaults`]: the API server's `SetDefaults_*` for nodes and namespaces.
//! - [`workload`]: workloads and the pods their controllers create, named as upstream.
//! - [`quantity`]: `resource.Quantity` as integers (`MilliValue`, `Value`).
//! - [`kubelet_reserved`]: the providers' kubelet reservations: a pool node's allocatable.
//! - [`fit_error`]: the scheduler's "0/N nodes are available" message.
//! - [`pools`]: node pools (Karpenter NodePools, eksctl node groups, AKS and EKS pools) read.
//! - [`pool_nodes`]: the nodes a pool creates: names, labels, taints, capacity.
//! - [`instance_types`]: the built-in catalogue of AWS and Azure instance types.
//! - [`kinds`]: the built-in kinds' names: kind, resource, singular, group, version, scope,
//!   kubectl's short names.
//! - [`doc_layout`]: the rule that every public module is in its crate's layout.
//! - [`versions`]: the upstream releases followed (Kubernetes, Karpenter, cluster-autoscaler).
//! - [`testing`]: fixture builders for tests (`MakePod`, `MakeNode`, `MakePdb`, `MakeTaint`,
//!   `MakeToleration`), behind the `testing` feature that only dev-dependencies enable.

pub mod admission;
pub mod advice;
pub mod affinity;
pub mod conditions;
pub mod defaults;
pub mod doc_layout;
pub mod explain;
pub mod fit_error;
pub mod gates;
pub mod instance_types;
pub mod kinds;
pub mod kubectl;
pub mod kubelet_reserved;
pub mod labels;
pub mod lint;
pub mod names;
pub mod near_miss;
pub mod object_defaults;
pub mod pool_nodes;
pub mod pools;
pub mod quantity;
pub mod taint;
pub mod toleration;
pub mod validation;
pub mod versions;
pub mod workload;

pub use gates::FeatureGates;
pub use taint::{NoExecuteOutcome, find_matching_untolerated_taint, no_execute_outcome};
pub use toleration::tolerates;

/// Re-exported so callers name the same k8s-openapi types this crate uses.
pub use k8s_openapi;

#[cfg(any(test, feature = "testing"))]
pub mod testing;

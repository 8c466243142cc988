//! NodeResourcesBalancedAllocation (upstream
//! `pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`, v1.35): favours nodes
//! whose cpu and memory would be used in equal fractions with the pod on them. Scores use the
//! pods' actual requests (no non-zero defaults), and a pod requesting no cpu and no memory is
//! not scored at all.

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::resources::pod_score_requests;
use crate::scheduler::framework::{CycleState, MAX_NODE_SCORE, Plugin, Status};
use crate::scheduler::plugins::node_resources_fit::{
    ResourceSpec, default_resources, resource_allocation_score,
};

/// The plugin's name.
pub const NAME: &str = "NodeResourcesBalancedAllocation";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 1;

/// Upstream `balancedResourceScorer` (v1.35):
///
/// 1. Each resource with a non-zero allocatable gives the fraction `requested / allocatable`
///    (floating point), capped at 1.
/// 2. With two fractions the deviation is `|f1 - f2| / 2`; with more, the population standard
///    deviation `sqrt(Σ(f - mean)² / n)`; with fewer, 0.
/// 3. The score is `(1 - std) * MaxNodeScore`, truncated toward zero (Go's `int64(float64)`).
pub fn balanced_resource_score(requested: &[i64], allocatable: &[i64]) -> i64 {
    let fractions: Vec<f64> = requested
        .iter()
        .zip(allocatable)
        .filter(|(_, a)| **a != 0)
        .map(|(r, a)| (*r as f64 / *a as f64).min(1.0))
        .collect();
    let total: f64 = fractions.iter().sum();
    let std = match fractions.as_slice() {
        [a, b] => ((a - b) / 2.0).abs(),
        f if f.len() > 2 => {
            let n = f.len() as f64;
            let mean = total / n;
            let sum: f64 = f.iter().map(|x| (x - mean) * (x - mean)).sum();
            (sum / n).sqrt()
        }
        _ => 0.0,
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// The NodeResourcesBalancedAllocation plugin.
#[derive(Debug, Clone)]
pub struct BalancedAllocation {
    /// The resources balanced (upstream's default: cpu and memory, weight 1; the weights are
    /// not used by this score).
    pub resources: Vec<ResourceSpec>,
}

impl Default for BalancedAllocation {
    fn default() -> Self {
        BalancedAllocation {
            resources: default_resources(),
        }
    }
}

/// PreScore state: the pod's actual request per resource (upstream
/// `balancedAllocationPreScoreState`).
#[derive(Debug, Clone)]
struct PreScoreState(Vec<i64>);

impl BalancedAllocation {
    fn pod_requests(&self, pod: &PodInfo) -> Vec<i64> {
        let names: Vec<&str> = self.resources.iter().map(|r| r.name.as_str()).collect();
        pod_score_requests(pod.spec(), &names, true)
    }
}

/// Upstream `resourceAllocationScorer.isBestEffortPod`: every request is zero.
fn is_best_effort(requests: &[i64]) -> bool {
    requests.iter().all(|r| *r == 0)
}

impl Plugin for BalancedAllocation {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Upstream `BalancedAllocation.PreScore` (v1.35): computes the pod's actual requests for
    /// the resources; Skip when they are all zero (a BestEffort pod, kubernetes#129138), so
    /// that such pods do not pile onto one node.
    fn pre_score(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &[&NodeInfo],
        _: &Cluster,
    ) -> Status {
        let requests = self.pod_requests(pod);
        if is_best_effort(&requests) {
            return Status::skip();
        }
        state.write(NAME, PreScoreState(requests));
        Status::success()
    }

    /// Upstream `BalancedAllocation.Score` (v1.35, no NormalizeScore): the node's actual
    /// requests plus the pod's, through [`balanced_resource_score`]. Without PreScore state a
    /// BestEffort pod scores 0.
    fn score(
        &self,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        _: &Cluster,
    ) -> Result<i64, Status> {
        let requests = match state.read::<PreScoreState>(NAME) {
            Some(s) => s.0.clone(),
            None => {
                let r = self.pod_requests(pod);
                if is_best_effort(&r) {
                    return Ok(0);
                }
                r
            }
        };
        resource_allocation_score(
            NAME,
            node,
            &self.resources,
            &requests,
            true,
            balanced_resource_score,
        )
    }
}

#[cfg(test)]
mod tests;

//! The upstream versions whose behaviour and texts repel follows, in one place: what `repel
//! --version` prints, and what the code's "as upstream vX" references mean.
//!
//! Where code ports an upstream function it names the file, function and version beside it
//! (`v1.35`'s `processPodOnNode`, Karpenter `v1.14.1`'s `OrderByWeight`, …); these constants are
//! the versions those references add up to. Changing one means re-reading the ported code and
//! texts against the new release.

/// The Kubernetes release whose behaviour and messages repel follows (kube-scheduler's default
/// profile, kube-apiserver's validation and admission, kube-controller-manager's controllers,
/// the kubelet's admission, kubectl's commands).
pub const KUBERNETES: &str = "v1.35";

/// The Karpenter release (`kubernetes-sigs/karpenter`) whose scheduling, consolidation and
/// disruption rules and texts repel uses.
pub const KARPENTER: &str = "v1.14.1";

/// The cluster-autoscaler release (`kubernetes/autoscaler` tag `cluster-autoscaler-1.36.1`,
/// unchanged in `kubernetes-sigs/cluster-autoscaler`) whose drainability rules, scale-down
/// simulation and texts repel uses.
pub const CLUSTER_AUTOSCALER: &str = "1.36.1";

/// The Kubernetes API version of the types repel reads and serves (k8s-openapi's `v1_37`
/// feature, which the `repel` binary enables), so fields up to this release are known.
pub const API_TYPES: &str = "1.37";

/// What `repel --version` prints after the program's name: `version`, then one line per
/// upstream release followed.
pub fn long_version(version: &str) -> String {
    format!(
        "{version}\nKubernetes {KUBERNETES} (behaviour and messages; API types {API_TYPES})\nKarpenter {KARPENTER}\ncluster-autoscaler {CLUSTER_AUTOSCALER}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_version_names_every_upstream_release() {
        assert_eq!(
            long_version("0.1.0"),
            "0.1.0\nKubernetes v1.35 (behaviour and messages; API types 1.37)\nKarpenter v1.14.1\ncluster-autoscaler 1.36.1"
        );
    }
}

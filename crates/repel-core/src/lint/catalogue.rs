//! The well-known taints: the exact key, value and effects each component sets, and where that
//! is written. Data, one table; the rules read it through [`lookup`] and [`closest`].

/// A catalogued taint's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// No value (`key:Effect`): only `Exists`, or `Equal` with an empty value, matches.
    Empty,
    /// This exact value (case matters).
    Fixed(&'static str),
    /// A value that changes (a timestamp) or that each cluster chooses: only `Exists` is sure
    /// to match.
    Varies,
}

/// One well-known taint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WellKnown {
    /// The key.
    pub key: &'static str,
    /// The value.
    pub value: Value,
    /// The effects it is set with.
    pub effects: &'static [&'static str],
    /// Who sets it.
    pub set_by: &'static str,
    /// Where that is written (upstream file or documentation page).
    pub source: &'static str,
    /// Set and removed by the control plane as the node's state changes (not a pool's own).
    pub transient: bool,
    /// A pool's or a node kind's own taint (a dedicated node), as opposed to a state.
    pub dedicated: bool,
}

const NS: &[&str] = &["NoSchedule"];
const NE: &[&str] = &["NoExecute"];
const NS_NE: &[&str] = &["NoSchedule", "NoExecute"];

/// The catalogue.
pub const WELL_KNOWN: &[WellKnown] = &[
    WellKnown {
        key: "node-role.kubernetes.io/control-plane",
        value: Value::Empty,
        effects: NS,
        set_by: "kubeadm (v1.24 and later) on control-plane nodes",
        source: "kubernetes/kubernetes cmd/kubeadm/app/constants/constants.go (ControlPlaneTaint)",
        transient: false,
        dedicated: true,
    },
    WellKnown {
        key: "node-role.kubernetes.io/master",
        value: Value::Empty,
        effects: NS,
        set_by: "kubeadm before v1.25 on control-plane nodes (OldControlPlaneTaint); OpenShift",
        source: "kubernetes/kubernetes cmd/kubeadm/app/constants/constants.go (v1.24)",
        transient: false,
        dedicated: true,
    },
    WellKnown {
        key: "node.kubernetes.io/not-ready",
        value: Value::Empty,
        effects: NS_NE,
        set_by: "the node lifecycle controller (Ready=False) and TaintNodesByCondition on Node create",
        source: "kubernetes/api core/v1/well_known_taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.kubernetes.io/unreachable",
        value: Value::Empty,
        effects: NS_NE,
        set_by: "the node lifecycle controller (Ready=Unknown)",
        source: "kubernetes/api core/v1/well_known_taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.kubernetes.io/unschedulable",
        value: Value::Empty,
        effects: NS,
        set_by: "the node lifecycle controller (spec.unschedulable: kubectl cordon)",
        source: "kubernetes/api core/v1/well_known_taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.kubernetes.io/memory-pressure",
        value: Value::Empty,
        effects: NS,
        set_by: "the node lifecycle controller (MemoryPressure=True)",
        source: "kubernetes/api core/v1/well_known_taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.kubernetes.io/disk-pressure",
        value: Value::Empty,
        effects: NS,
        set_by: "the node lifecycle controller (DiskPressure=True)",
        source: "kubernetes/api core/v1/well_known_taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.kubernetes.io/pid-pressure",
        value: Value::Empty,
        effects: NS,
        set_by: "the node lifecycle controller (PIDPressure=True)",
        source: "kubernetes/api core/v1/well_known_taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.kubernetes.io/network-unavailable",
        value: Value::Empty,
        effects: NS,
        set_by: "the node lifecycle controller (NetworkUnavailable=True)",
        source: "kubernetes/api core/v1/well_known_taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.kubernetes.io/out-of-service",
        value: Value::Varies,
        effects: NS_NE,
        set_by: "an administrator, for non-graceful node shutdown (the docs write nodeshutdown)",
        source: "kubernetes/api core/v1/well_known_taints.go; kubernetes.io/docs/concepts/cluster-administration/node-shutdown",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.cloudprovider.kubernetes.io/uninitialized",
        value: Value::Fixed("true"),
        effects: NS,
        set_by: "the kubelet with --cloud-provider=external, until the cloud controller manager initialises the node",
        source: "kubernetes/cloud-provider api/well_known_taints.go (TaintExternalCloudProvider)",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "node.cloudprovider.kubernetes.io/shutdown",
        value: Value::Empty,
        effects: NS,
        set_by: "the cloud node lifecycle controller, on a node whose instance is shut down",
        source: "kubernetes/cloud-provider api/well_known_taints.go (TaintNodeShutdown)",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "ToBeDeletedByClusterAutoscaler",
        value: Value::Varies,
        effects: NS,
        set_by: "cluster-autoscaler, before it deletes a node (the value is a Unix timestamp)",
        source: "kubernetes/autoscaler cluster-autoscaler/utils/taints/taints.go (ToBeDeletedTaint)",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "DeletionCandidateOfClusterAutoscaler",
        value: Value::Varies,
        effects: &["PreferNoSchedule"],
        set_by: "cluster-autoscaler, on nodes it may delete (the value is a Unix timestamp)",
        source: "kubernetes/autoscaler cluster-autoscaler/utils/taints/taints.go (DeletionCandidateTaint)",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "karpenter.sh/disrupted",
        value: Value::Empty,
        effects: NS,
        set_by: "Karpenter, on nodes it disrupts (DisruptedNoScheduleTaint)",
        source: "kubernetes-sigs/karpenter pkg/apis/v1/taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "karpenter.sh/unregistered",
        value: Value::Empty,
        effects: NE,
        set_by: "Karpenter, on nodes until they register (UnregisteredNoExecuteTaint)",
        source: "kubernetes-sigs/karpenter pkg/apis/v1/taints.go",
        transient: true,
        dedicated: false,
    },
    WellKnown {
        key: "kubernetes.azure.com/scalesetpriority",
        value: Value::Fixed("spot"),
        effects: NS,
        set_by: "AKS, on Spot node pools",
        source: "learn.microsoft.com/azure/aks/spot-node-pool",
        transient: false,
        dedicated: true,
    },
    WellKnown {
        key: "CriticalAddonsOnly",
        value: Value::Fixed("true"),
        effects: NS,
        set_by: "AKS system node pools with --node-taints CriticalAddonsOnly=true:NoSchedule; Karpenter system pools",
        source: "learn.microsoft.com/azure/aks/use-system-pools; Azure/karpenter-provider-azure examples/v1/system-surge.yaml",
        transient: false,
        dedicated: true,
    },
    WellKnown {
        key: "nvidia.com/gpu",
        value: Value::Fixed("present"),
        effects: NS,
        set_by: "GKE, on GPU node pools",
        source: "cloud.google.com/kubernetes-engine/docs/how-to/gpus (nvidia.com/gpu=present:NoSchedule)",
        transient: false,
        dedicated: true,
    },
    WellKnown {
        key: "cloud.google.com/gke-spot",
        value: Value::Fixed("true"),
        effects: NS,
        set_by: "GKE Spot node pools, where the cluster adds the taint",
        source: "cloud.google.com/kubernetes-engine/docs/concepts/spot-vms",
        transient: false,
        dedicated: true,
    },
    WellKnown {
        key: "eks.amazonaws.com/compute-type",
        value: Value::Fixed("fargate"),
        effects: NS,
        set_by: "EKS, on Fargate nodes",
        source: "docs.aws.amazon.com/eks/latest/userguide/fargate-pod-configuration.html",
        transient: false,
        dedicated: true,
    },
    WellKnown {
        key: "virtual-kubelet.io/provider",
        value: Value::Varies,
        effects: NS,
        set_by: "virtual-kubelet providers (ACI virtual nodes: azure)",
        source: "virtual-kubelet/virtual-kubelet README (virtual-kubelet.io/provider=<provider>:NoSchedule)",
        transient: false,
        dedicated: true,
    },
];

/// The catalogue entry of `key`.
pub fn lookup(key: &str) -> Option<&'static WellKnown> {
    WELL_KNOWN.iter().find(|e| e.key == key)
}

/// The catalogued key `key` is evidently a misspelling of: the same but for case, within two
/// edits (keys of 12 characters or more), or a `node.kubernetes.io/` key no component sets
/// that is closest to one that is ([`crate::near_miss::unknown_node_key`]).
pub fn closest(key: &str) -> Option<&'static WellKnown> {
    if lookup(key).is_some() || key.len() > 317 {
        return None;
    }
    if let Some(k) = crate::near_miss::unknown_node_key(key) {
        return lookup(k);
    }
    WELL_KNOWN
        .iter()
        .filter(|e| {
            e.key.eq_ignore_ascii_case(key)
                || key.len() >= 12 && crate::near_miss::distance(key, e.key) <= 2
        })
        .min_by_key(|e| crate::near_miss::distance(key, e.key))
}

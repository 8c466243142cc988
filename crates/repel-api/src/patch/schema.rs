//! The patch metadata (`patchStrategy`, `patchMergeKey` struct tags) of the types `repel serve`
//! serves, as `k8s.io/api` v1.32 declares them. Strategic merge patch looks a field up here the
//! way upstream's `forkedjson.LookupPatchMetadata` reads the Go struct tags.
//!
//! A field that is not listed has no patch metadata: a nested object merges key by key and a
//! list is replaced whole (atomic). That covers `spec.taints`, `spec.tolerations`, container
//! `args`/`command`, `readinessGates`, affinity terms and every status list without a tag.

/// A Go struct type whose fields carry patch metadata (or `Other` for everything else).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// A type with no tagged fields below it (maps merge, lists are atomic).
    Other,
    /// `metav1.ObjectMeta`.
    ObjectMeta,
    /// `v1.Pod`.
    Pod,
    /// `v1.PodSpec`.
    PodSpec,
    /// `v1.PodStatus`.
    PodStatus,
    /// `v1.Container` (also `EphemeralContainer`, whose common fields carry the same tags).
    Container,
    /// `v1.PodTemplateSpec`.
    PodTemplateSpec,
    /// `v1.Node`.
    Node,
    /// `v1.NodeSpec`.
    NodeSpec,
    /// `v1.NodeStatus`.
    NodeStatus,
    /// `v1.Namespace`, `v1.Event`, `coordinationv1.Lease`: only `metadata`/`status` matter.
    Namespace,
    /// A status whose `conditions` merge by `type` (namespaces, workloads, PDBs, jobs).
    ConditionsStatus,
    /// `apps/v1` Deployment, ReplicaSet, StatefulSet, DaemonSet and `batch/v1` Job.
    Workload,
    /// The spec of a workload: `template` is a pod template.
    WorkloadSpec,
    /// `policy/v1` PodDisruptionBudget.
    Pdb,
    /// `policy/v1` PodDisruptionBudgetSpec: `selector` has `patchStrategy:"replace"`.
    PdbSpec,
    /// A plain object with `metadata` (Event, Lease and unknown kinds).
    Object,
    /// Upstream's test struct `MergeItem` (`strategicpatch/patch_test.go`).
    #[cfg(test)]
    MergeItem,
    /// Upstream's test struct `RetainKeysMergeItem`.
    #[cfg(test)]
    RetainKeysMergeItem,
}

/// What strategic merge patch does with one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// No tag: maps merge recursively, lists are replaced.
    Default,
    /// `patchStrategy:"merge"` (possibly with `retainKeys`): lists merge, by `merge_key` for
    /// lists of objects and by value for lists of scalars.
    Merge,
    /// `patchStrategy:"replace"`: the patch value replaces the field whole.
    Replace,
}

/// The patch metadata of one field: its type, strategy and merge key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldMeta {
    /// The field's type (the element type for a list).
    pub ty: Ty,
    /// Its patch strategy.
    pub strategy: Strategy,
    /// Its `patchMergeKey`, empty when none.
    pub merge_key: &'static str,
}

const fn plain(ty: Ty) -> FieldMeta {
    FieldMeta {
        ty,
        strategy: Strategy::Default,
        merge_key: "",
    }
}

const fn merge(ty: Ty, key: &'static str) -> FieldMeta {
    FieldMeta {
        ty,
        strategy: Strategy::Merge,
        merge_key: key,
    }
}

const OTHER: FieldMeta = plain(Ty::Other);

/// The root type of a kind's object.
pub fn root(kind: &str) -> Ty {
    match kind {
        "Pod" => Ty::Pod,
        "Node" => Ty::Node,
        "Namespace" => Ty::Namespace,
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => Ty::Workload,
        "PodDisruptionBudget" => Ty::Pdb,
        "PodTemplate" => Ty::PodTemplateSpec,
        _ => Ty::Object,
    }
}

/// Upstream `LookupPatchMetadata(t, field)` for the tagged fields of the served types.
pub fn lookup(ty: Ty, field: &str) -> FieldMeta {
    use Ty::*;
    match (ty, field) {
        (Pod | Node | Namespace | Workload | Pdb | Object | PodTemplateSpec, "metadata") => {
            plain(ObjectMeta)
        }
        (ObjectMeta, "finalizers") => merge(Other, ""),
        (ObjectMeta, "ownerReferences") => merge(Other, "uid"),

        (Pod | PodTemplateSpec, "spec") => plain(PodSpec),
        (Pod, "status") => plain(PodStatus),
        (PodSpec, "containers" | "initContainers" | "ephemeralContainers") => {
            merge(Container, "name")
        }
        (PodSpec, "volumes" | "imagePullSecrets" | "resourceClaims" | "schedulingGates") => {
            merge(Other, "name")
        }
        (PodSpec, "hostAliases") => merge(Other, "ip"),
        (PodSpec, "topologySpreadConstraints") => merge(Other, "topologyKey"),
        (Container, "ports") => merge(Other, "containerPort"),
        (Container, "env") => merge(Other, "name"),
        (Container, "volumeMounts") => merge(Other, "mountPath"),
        (Container, "volumeDevices") => merge(Other, "devicePath"),
        (PodStatus, "conditions") => merge(Other, "type"),
        (PodStatus, "podIPs" | "hostIPs") => merge(Other, "ip"),
        (PodStatus, "resourceClaimStatuses") => merge(Other, "name"),

        (Node, "spec") => plain(NodeSpec),
        (Node, "status") => plain(NodeStatus),
        (NodeSpec, "podCIDRs") => merge(Other, ""),
        (NodeStatus, "conditions" | "addresses") => merge(Other, "type"),

        (Namespace | Workload | Pdb, "status") => plain(ConditionsStatus),
        (ConditionsStatus, "conditions") => merge(Other, "type"),

        (Workload, "spec") => plain(WorkloadSpec),
        (WorkloadSpec, "template") => plain(PodTemplateSpec),
        (WorkloadSpec, "strategy") => plain(Other),

        (Pdb, "spec") => plain(PdbSpec),
        (PdbSpec, "selector") => FieldMeta {
            ty: Other,
            strategy: Strategy::Replace,
            merge_key: "",
        },

        #[cfg(test)]
        (MergeItem, "mergingList" | "retainKeysMergingList" | "mergeItemPtr") => {
            merge(MergeItem, "name")
        }
        #[cfg(test)]
        (MergeItem | RetainKeysMergeItem, "nonMergingList") => plain(MergeItem),
        #[cfg(test)]
        (MergeItem | RetainKeysMergeItem, "mergingIntList") => merge(Other, ""),
        #[cfg(test)]
        (MergeItem, "replacingItem") => FieldMeta {
            ty: Other,
            strategy: Strategy::Replace,
            merge_key: "",
        },
        #[cfg(test)]
        (MergeItem, "retainKeysMap") => plain(RetainKeysMergeItem),
        #[cfg(test)]
        (RetainKeysMergeItem, "mergingList") => merge(MergeItem, "name"),
        _ => OTHER,
    }
}

#[cfg(test)]
mod tests;

//! Upstream's list and map extensions (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
//! `x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`, `x-kubernetes-map-type`),
//! which k8s-openapi's schemas do not carry, for the fields of scheduling, taints and
//! tolerations and the metadata every object has. The values are those of the `+listType`,
//! `+listMapKey`, `+patchStrategy`, `+patchMergeKey` and `+structType` markers in upstream's
//! `types.go` (Kubernetes 1.32); a field not listed here is served without them, as the table
//! is not meant to be complete. Likewise the `enum` of the taint and toleration fields (kubectl
//! explain prints it as `enum: NoExecute, NoSchedule, PreferNoSchedule`), which k8s-openapi
//! drops too (with the "Possible enum values" paragraph of their descriptions, not restored).

use serde_json::{Map, Value, json};

/// A field's extensions: `x-kubernetes-list-type`, `-list-map-keys`, `-patch-strategy`,
/// `-patch-merge-key`.
struct Field {
    schema: &'static str,
    property: &'static str,
    list_type: &'static str,
    map_keys: &'static [&'static str],
    patch_strategy: &'static str,
    merge_key: &'static str,
}

/// An atomic list: replaced as a whole by an apply or a patch.
const fn atomic(schema: &'static str, property: &'static str) -> Field {
    Field {
        schema,
        property,
        list_type: "atomic",
        map_keys: &[],
        patch_strategy: "",
        merge_key: "",
    }
}

/// A list of objects keyed by `keys`, merged by the first one in a strategic merge patch.
const fn map(
    schema: &'static str,
    property: &'static str,
    keys: &'static [&'static str],
    patch_strategy: &'static str,
) -> Field {
    let merge_key = match keys.first() {
        Some(k) if !patch_strategy.is_empty() => k,
        _ => "",
    };
    Field {
        schema,
        property,
        list_type: "map",
        map_keys: keys,
        patch_strategy,
        merge_key,
    }
}

/// A list of unique scalars, merged in a strategic merge patch.
const fn set(schema: &'static str, property: &'static str, patch_strategy: &'static str) -> Field {
    Field {
        schema,
        property,
        list_type: "set",
        map_keys: &[],
        patch_strategy,
        merge_key: "",
    }
}

static FIELDS: &[Field] = &[
    // Taints and tolerations.
    atomic("io.k8s.api.core.v1.PodSpec", "tolerations"),
    atomic("io.k8s.api.core.v1.NodeSpec", "taints"),
    set("io.k8s.api.core.v1.NodeSpec", "podCIDRs", "merge"),
    // The pod's scheduling constraints.
    map(
        "io.k8s.api.core.v1.PodSpec",
        "containers",
        &["name"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.PodSpec",
        "initContainers",
        &["name"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.PodSpec",
        "ephemeralContainers",
        &["name"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.PodSpec",
        "volumes",
        &["name"],
        "merge,retainKeys",
    ),
    map(
        "io.k8s.api.core.v1.PodSpec",
        "imagePullSecrets",
        &["name"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.PodSpec",
        "hostAliases",
        &["ip"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.PodSpec",
        "topologySpreadConstraints",
        &["topologyKey", "whenUnsatisfiable"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.PodSpec",
        "schedulingGates",
        &["name"],
        "merge",
    ),
    atomic("io.k8s.api.core.v1.PodSpec", "readinessGates"),
    atomic("io.k8s.api.core.v1.NodeSelector", "nodeSelectorTerms"),
    atomic("io.k8s.api.core.v1.NodeSelectorTerm", "matchExpressions"),
    atomic("io.k8s.api.core.v1.NodeSelectorTerm", "matchFields"),
    atomic("io.k8s.api.core.v1.NodeSelectorRequirement", "values"),
    atomic(
        "io.k8s.api.core.v1.NodeAffinity",
        "preferredDuringSchedulingIgnoredDuringExecution",
    ),
    atomic(
        "io.k8s.api.core.v1.PodAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
    ),
    atomic(
        "io.k8s.api.core.v1.PodAffinity",
        "preferredDuringSchedulingIgnoredDuringExecution",
    ),
    atomic(
        "io.k8s.api.core.v1.PodAntiAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
    ),
    atomic(
        "io.k8s.api.core.v1.PodAntiAffinity",
        "preferredDuringSchedulingIgnoredDuringExecution",
    ),
    atomic("io.k8s.api.core.v1.PodAffinityTerm", "namespaces"),
    atomic("io.k8s.api.core.v1.PodAffinityTerm", "matchLabelKeys"),
    atomic("io.k8s.api.core.v1.PodAffinityTerm", "mismatchLabelKeys"),
    atomic(
        "io.k8s.api.core.v1.TopologySpreadConstraint",
        "matchLabelKeys",
    ),
    atomic(
        "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
        "matchExpressions",
    ),
    atomic(
        "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
        "values",
    ),
    // Containers.
    map("io.k8s.api.core.v1.Container", "env", &["name"], "merge"),
    map(
        "io.k8s.api.core.v1.Container",
        "ports",
        &["containerPort", "protocol"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.Container",
        "volumeMounts",
        &["mountPath"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.Container",
        "volumeDevices",
        &["devicePath"],
        "merge",
    ),
    atomic("io.k8s.api.core.v1.Container", "command"),
    atomic("io.k8s.api.core.v1.Container", "args"),
    atomic("io.k8s.api.core.v1.Container", "envFrom"),
    // Status lists a node's and a pod's conditions are merged in.
    map(
        "io.k8s.api.core.v1.NodeStatus",
        "conditions",
        &["type"],
        "merge",
    ),
    map(
        "io.k8s.api.core.v1.NodeStatus",
        "addresses",
        &["type"],
        "merge",
    ),
    atomic("io.k8s.api.core.v1.NodeStatus", "images"),
    map(
        "io.k8s.api.core.v1.PodStatus",
        "conditions",
        &["type"],
        "merge",
    ),
    map("io.k8s.api.core.v1.PodStatus", "podIPs", &["ip"], "merge"),
    atomic("io.k8s.api.core.v1.PodStatus", "containerStatuses"),
    atomic("io.k8s.api.core.v1.PodStatus", "initContainerStatuses"),
    map(
        "io.k8s.api.apps.v1.DeploymentStatus",
        "conditions",
        &["type"],
        "merge",
    ),
    map(
        "io.k8s.api.apps.v1.ReplicaSetStatus",
        "conditions",
        &["type"],
        "merge",
    ),
    map(
        "io.k8s.api.apps.v1.StatefulSetStatus",
        "conditions",
        &["type"],
        "merge",
    ),
    map(
        "io.k8s.api.apps.v1.DaemonSetStatus",
        "conditions",
        &["type"],
        "merge",
    ),
    // Every object's metadata.
    set(
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "finalizers",
        "merge",
    ),
    map(
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "ownerReferences",
        &["uid"],
        "merge",
    ),
    atomic(
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "managedFields",
    ),
];

/// Schemas upstream marks `+structType=atomic` (`x-kubernetes-map-type: atomic`).
static ATOMIC_STRUCTS: &[&str] = &[
    "io.k8s.api.core.v1.NodeSelector",
    "io.k8s.api.core.v1.NodeSelectorTerm",
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
    "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
];

/// Upstream's `enum` of the taint and toleration fields (`+enum` types), sorted as upstream
/// sorts them; the operators are those of the Kubernetes version whose descriptions
/// k8s-openapi carries (1.37: `Lt` and `Gt` besides `Equal` and `Exists`).
static ENUMS: &[(&str, &str, &[&str])] = &[
    (
        "io.k8s.api.core.v1.Taint",
        "effect",
        &["NoExecute", "NoSchedule", "PreferNoSchedule"],
    ),
    (
        "io.k8s.api.core.v1.Toleration",
        "effect",
        &["NoExecute", "NoSchedule", "PreferNoSchedule"],
    ),
    (
        "io.k8s.api.core.v1.Toleration",
        "operator",
        &["Equal", "Exists", "Gt", "Lt"],
    ),
];

/// Adds the tables' extensions and enums to the schemas of `defs` that have the field.
pub fn apply(defs: &mut Map<String, Value>) {
    for f in FIELDS {
        let Some(p) = defs
            .get_mut(f.schema)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut(f.property))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        if !f.map_keys.is_empty() {
            p.insert("x-kubernetes-list-map-keys".into(), json!(f.map_keys));
        }
        p.insert("x-kubernetes-list-type".into(), json!(f.list_type));
        if !f.merge_key.is_empty() {
            p.insert("x-kubernetes-patch-merge-key".into(), json!(f.merge_key));
        }
        if !f.patch_strategy.is_empty() {
            p.insert(
                "x-kubernetes-patch-strategy".into(),
                json!(f.patch_strategy),
            );
        }
    }
    for (schema, property, values) in ENUMS {
        if let Some(p) = defs
            .get_mut(*schema)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut(*property))
            .and_then(Value::as_object_mut)
        {
            p.insert("enum".into(), json!(values));
        }
    }
    for name in ATOMIC_STRUCTS {
        if let Some(s) = defs.get_mut(*name).and_then(Value::as_object_mut) {
            s.insert("x-kubernetes-map-type".into(), json!("atomic"));
        }
    }
}

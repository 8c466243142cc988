//! The column definitions of each kind's table (printers.go `AddHandlers`, v1.32), with the
//! descriptions upstream takes from the API's field docs.

use serde_json::{Value, json};

const NAME_DOC: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATION_DOC: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const ADDRESSES_DOC: &str = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";
const CONTAINERS_DOC: &str = "Names of each container in the template.";
const IMAGES_DOC: &str = "Images referenced by each container in the template.";

/// One `TableColumnDefinition` (all five keys, as Go marshals them).
fn col(name: &str, ty: &str, format: &str, priority: u8, description: &str) -> Value {
    json!({"name": name, "type": ty, "format": format, "description": description, "priority": priority})
}

fn name_col() -> Value {
    col("Name", "string", "name", 0, NAME_DOC)
}

fn age_col() -> Value {
    col("Age", "string", "", 0, CREATION_DOC)
}

/// The column definitions of a kind's table.
pub fn columns(kind: &str) -> Vec<Value> {
    match kind {
        "Node" => vec![
            name_col(),
            col("Status", "string", "", 0, "The status of the node"),
            col("Roles", "string", "", 0, "The roles of the node"),
            age_col(),
            col(
                "Version",
                "string",
                "",
                0,
                "Kubelet Version reported by the node.",
            ),
            col("Internal-IP", "string", "", 1, ADDRESSES_DOC),
            col("External-IP", "string", "", 1, ADDRESSES_DOC),
            col(
                "OS-Image",
                "string",
                "",
                1,
                "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
            ),
            col(
                "Kernel-Version",
                "string",
                "",
                1,
                "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
            ),
            col(
                "Container-Runtime",
                "string",
                "",
                1,
                "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
            ),
        ],
        "Pod" => vec![
            name_col(),
            col(
                "Ready",
                "string",
                "",
                0,
                "The aggregate readiness state of this pod for accepting traffic.",
            ),
            col(
                "Status",
                "string",
                "",
                0,
                "The aggregate status of the containers in this pod.",
            ),
            col(
                "Restarts",
                "string",
                "",
                0,
                "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
            ),
            age_col(),
            col(
                "IP",
                "string",
                "",
                1,
                "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
            ),
            col(
                "Node",
                "string",
                "",
                1,
                "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
            ),
            col(
                "Nominated Node",
                "string",
                "",
                1,
                "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
            ),
            col(
                "Readiness Gates",
                "string",
                "",
                1,
                "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
            ),
        ],
        "Namespace" => vec![
            name_col(),
            col("Status", "string", "", 0, "The status of the namespace"),
            age_col(),
        ],
        "Event" => vec![
            col(
                "Last Seen",
                "string",
                "",
                0,
                "The time at which the most recent occurrence of this event was recorded.",
            ),
            col(
                "Type",
                "string",
                "",
                0,
                "Type of this event (Normal, Warning), new types could be added in the future",
            ),
            col(
                "Reason",
                "string",
                "",
                0,
                "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
            ),
            col(
                "Object",
                "string",
                "",
                0,
                "The object that this event is about.",
            ),
            col(
                "Subobject",
                "string",
                "",
                1,
                "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.",
            ),
            col(
                "Source",
                "string",
                "",
                1,
                "The component reporting this event. Should be a short machine understandable string.",
            ),
            col(
                "Message",
                "string",
                "",
                0,
                "A human-readable description of the status of this operation.",
            ),
            col(
                "First Seen",
                "string",
                "",
                1,
                "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
            ),
            col(
                "Count",
                "string",
                "",
                1,
                "The number of times this event has occurred.",
            ),
            col("Name", "string", "name", 1, NAME_DOC),
        ],
        "Deployment" => vec![
            name_col(),
            col(
                "Ready",
                "string",
                "",
                0,
                "Number of the pod with ready state",
            ),
            col(
                "Up-to-date",
                "string",
                "",
                0,
                "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
            ),
            col(
                "Available",
                "string",
                "",
                0,
                "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
            ),
            age_col(),
            col("Containers", "string", "", 1, CONTAINERS_DOC),
            col("Images", "string", "", 1, IMAGES_DOC),
            col(
                "Selector",
                "string",
                "",
                1,
                "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
            ),
        ],
        "ReplicaSet" => vec![
            name_col(),
            col(
                "Desired",
                "integer",
                "",
                0,
                "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
            ),
            col(
                "Current",
                "integer",
                "",
                0,
                "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
            ),
            col(
                "Ready",
                "integer",
                "",
                0,
                "The number of ready replicas for this replica set.",
            ),
            age_col(),
            col("Containers", "string", "", 1, CONTAINERS_DOC),
            col("Images", "string", "", 1, IMAGES_DOC),
            col(
                "Selector",
                "string",
                "",
                1,
                "Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            ),
        ],
        "DaemonSet" => vec![
            name_col(),
            col(
                "Desired",
                "integer",
                "",
                0,
                "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
            ),
            col(
                "Current",
                "integer",
                "",
                0,
                "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
            ),
            col(
                "Ready",
                "integer",
                "",
                0,
                "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
            ),
            col(
                "Up-to-date",
                "integer",
                "",
                0,
                "The total number of nodes that are running updated daemon pod",
            ),
            col(
                "Available",
                "integer",
                "",
                0,
                "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
            ),
            col(
                "Node Selector",
                "string",
                "",
                0,
                "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
            ),
            age_col(),
            col("Containers", "string", "", 1, CONTAINERS_DOC),
            col("Images", "string", "", 1, IMAGES_DOC),
            col(
                "Selector",
                "string",
                "",
                1,
                "A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            ),
        ],
        "StatefulSet" => vec![
            name_col(),
            col(
                "Ready",
                "string",
                "",
                0,
                "Number of the pod with ready state",
            ),
            age_col(),
            col("Containers", "string", "", 1, CONTAINERS_DOC),
            col("Images", "string", "", 1, IMAGES_DOC),
        ],
        "Job" => vec![
            name_col(),
            col("Status", "string", "", 0, "Status of the job."),
            col(
                "Completions",
                "string",
                "",
                0,
                "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
            ),
            col(
                "Duration",
                "string",
                "",
                0,
                "Time required to complete the job.",
            ),
            age_col(),
            col("Containers", "string", "", 1, CONTAINERS_DOC),
            col("Images", "string", "", 1, IMAGES_DOC),
            col(
                "Selector",
                "string",
                "",
                1,
                "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            ),
        ],
        "PodDisruptionBudget" => vec![
            name_col(),
            col(
                "Min Available",
                "string",
                "",
                0,
                "The minimum number of pods that must be available.",
            ),
            col(
                "Max Unavailable",
                "string",
                "",
                0,
                "The maximum number of pods that may be unavailable.",
            ),
            col(
                "Allowed Disruptions",
                "integer",
                "",
                0,
                "Calculated number of pods that may be disrupted at this time.",
            ),
            age_col(),
        ],
        "Lease" => vec![
            name_col(),
            col("Holder", "string", "", 0, "The holder of the lease"),
            age_col(),
        ],
        _ => vec![name_col(), age_col()],
    }
}

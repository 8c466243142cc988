//! Objects the control plane creates (pods through admission, as any API create) and the
//! objects a pass changes, written as updates.

use k8s_openapi::api::core::v1::Pod;
use repel_core::admission::AdmissionConfig;
use repel_engine::actions::ObjectWrite;
use serde_json::{Value, json};

use crate::admission::Admission;
use crate::store::{Store, StoreError, ns_name};

use super::NodeCache;
use super::stamp::{stamp, with_times};

/// Creates a pod through admission, as the API's create does ([`Admission::create_pod`]: the
/// pod is typed already; `config` is the admission plugins' configuration, read once per
/// pass). An object already there (a client's of the same name) is left; a pod admission
/// refuses is reported on stderr and left out (the view drops it at its next sync).
/// A pod created already running (created, bound and started in one pass) gets its kubelet's
/// running status rendered, and its conditions the wall clock's time.
pub(super) fn create_pod(
    store: &Store,
    admission: &Admission,
    config: &AdmissionConfig,
    nodes: &mut NodeCache,
    mut pod: Pod,
) -> Result<(), StoreError> {
    let (ns, name) = (
        pod.metadata.namespace.clone().unwrap_or_default(),
        pod.metadata.name.clone().unwrap_or_default(),
    );
    // An owner the control plane created this pass (a ReplicaSet) got its uid from the store
    // just now: the pod's reference carries it, as upstream's always does.
    for r in pod.metadata.owner_references.iter_mut().flatten() {
        let Some(resource) = resource_of(&r.kind) else {
            continue;
        };
        if let Some(Some(uid)) = store.read(resource, &ns, &r.name, |o| {
            o["metadata"]["uid"].as_str().map(str::to_string)
        }) {
            r.uid = uid;
        }
    }
    let mut pod = match admission.create_pod(store, config, pod) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("repel serve: the control plane's pods {ns}/{name} refused: {e:?}");
            return Ok(());
        }
    };
    if let Some(r) = crate::registry::find("", "pods")
        && let Err(e) = crate::policy::admit_create(store, &r, &ns, &pod)
    {
        eprintln!("repel serve: the control plane's pods {ns}/{name} refused: {e:?}");
        return Ok(());
    }
    if let Some(cs) = pod.pointer_mut("/status/conditions") {
        stamp(cs, &Value::Null, "type", &[]);
    }
    if pod["status"]["phase"] == "Running"
        && let Some(node) = pod["spec"]["nodeName"]
            .as_str()
            .and_then(|n| nodes.get(store, n))
    {
        crate::kubelet::run_pod(&mut pod, &node);
    }
    match store.add("pods", pod) {
        Ok(_) | Err(StoreError::AlreadyExists) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates an object through admission (defaults, validation, `metadata.generation`); one the
/// API server would refuse is reported on stderr and left out: the control plane's view drops
/// it at the next sync.
pub(super) fn create(
    store: &Store,
    admission: &Admission,
    group: &str,
    resource: &str,
    obj: Value,
) -> Result<(), StoreError> {
    let (ns, name) = ns_name(&obj);
    let Some(r) = crate::registry::find(group, resource) else {
        return Ok(());
    };
    let namespace = (!ns.is_empty()).then_some(ns.as_str());
    let admitted = match admission.create(store, &r, namespace, obj, &Default::default()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("repel serve: the control plane's {resource} {ns}/{name} refused: {e:?}");
            return Ok(());
        }
    };
    if let Err(e) = crate::policy::admit_create(store, &r, &ns, &admitted) {
        eprintln!("repel serve: the control plane's {resource} {ns}/{name} refused: {e:?}");
        return Ok(());
    }
    match store.add(resource, admitted) {
        Ok(_) | Err(StoreError::AlreadyExists) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The resource of a kind the control plane writes or names (its plural, from
/// [`repel_core::kinds`]).
pub(super) fn resource_of(kind: &str) -> Option<&'static str> {
    match kind {
        "Pod"
        | "Node"
        | "ReplicaSet"
        | "ReplicationController"
        | "StatefulSet"
        | "DaemonSet"
        | "Job"
        | "Deployment" => repel_core::kinds::by_kind(kind).map(|k| k.plural),
        // Karpenter's events name its NodeClaims, which the store does not hold yet: the
        // event carries the kind, group and name alone.
        "NodeClaim" => Some("nodeclaims"),
        _ => None,
    }
}

/// The resource's API group, for the workload resources the controllers write (`apps` for a
/// resource [`repel_core::kinds`] does not name).
pub(super) fn group_of(resource: &str) -> &'static str {
    repel_core::kinds::by_plural(resource).map_or("apps", |k| k.group)
}

/// Writes the workload controllers' object writes (see [`ObjectWrite`]): ReplicaSets created
/// through admission, scaled and annotated (a `spec.replicas` change is a new
/// `metadata.generation`), statuses, deletions. A write that finds its object gone is dropped.
pub fn write_objects(
    store: &Store,
    admission: &Admission,
    writes: &[ObjectWrite],
) -> Result<(), StoreError> {
    for w in writes {
        let r = match w {
            ObjectWrite::Create { resource, object } => create(
                store,
                admission,
                group_of(resource),
                resource,
                object.clone(),
            ),
            ObjectWrite::Update {
                resource,
                namespace,
                name,
                replicas,
                annotations,
            } => store
                .modify::<StoreError>(resource, namespace, name, |cur| {
                    let mut obj = cur.clone();
                    if let Some(n) = replicas
                        && obj["spec"]["replicas"] != json!(n)
                    {
                        obj["spec"]["replicas"] = json!(n);
                        let generation = obj["metadata"]["generation"].as_i64().unwrap_or(1);
                        obj["metadata"]["generation"] = json!(generation + 1);
                    }
                    for (k, v) in annotations {
                        match v {
                            Some(v) => obj["metadata"]["annotations"][k.as_str()] = json!(v),
                            None => {
                                if let Some(a) = obj["metadata"]["annotations"].as_object_mut() {
                                    a.remove(k.as_str());
                                }
                            }
                        }
                    }
                    if obj == *cur {
                        return Ok(None);
                    }
                    obj["metadata"]["resourceVersion"] = Value::Null;
                    Ok(Some(obj))
                })
                .map(|_| ()),
            ObjectWrite::SetRevision {
                namespace,
                name,
                revision,
            } => store
                .modify::<StoreError>("controllerrevisions", namespace, name, |cur| {
                    if cur["revision"] == json!(revision) {
                        return Ok(None);
                    }
                    let mut obj = cur.clone();
                    obj["revision"] = json!(revision);
                    obj["metadata"]["resourceVersion"] = Value::Null;
                    Ok(Some(obj))
                })
                .map(|_| ()),
            ObjectWrite::Status {
                resource,
                namespace,
                name,
                status,
            } => store
                .modify::<StoreError>(resource, namespace, name, |cur| {
                    let status = with_times(resource, status.clone(), &cur["status"]);
                    if cur["status"] == status {
                        return Ok(None);
                    }
                    let mut obj = cur.clone();
                    obj["status"] = status;
                    obj["metadata"]["resourceVersion"] = Value::Null;
                    Ok(Some(obj))
                })
                .map(|_| ()),
            ObjectWrite::Delete {
                resource,
                namespace,
                name,
            } => store.delete(resource, namespace, name).map(|_| ()),
            ObjectWrite::Collect {
                resource,
                namespace,
                name,
                uid,
                foreground,
            } => {
                let policy = if *foreground {
                    crate::finalizers::Propagation::Foreground
                } else {
                    crate::finalizers::Propagation::Background
                };
                crate::finalizers::delete(store, resource, namespace, name, policy, Some(uid))
                    .map(|_| ())
            }
            ObjectWrite::RemoveOwnerReference {
                resource,
                namespace,
                name,
                owner_kind,
                owner_name,
                owner_uid,
            } => crate::finalizers::remove_owner_reference(
                store,
                resource,
                namespace,
                name,
                (owner_kind, owner_name, owner_uid),
            )
            .map(|_| ()),
            ObjectWrite::RemoveFinalizer {
                resource,
                namespace,
                name,
                finalizer,
            } => crate::finalizers::remove_finalizer(store, resource, namespace, name, finalizer)
                .map(|_| ()),
        };
        match r {
            Ok(()) | Err(StoreError::NotFound) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

//! A live cluster's objects put into an [`Inventory`], and files layered on top of them as a
//! what-if: an object the files define replaces the cluster's, as `kubectl apply -f` would
//! update it.

use std::collections::HashSet;

use serde_json::Value;

use super::{KINDS, Snapshot};
use crate::decode::{Decoded, decode_early};
use crate::{Inventory, Loaded};

/// The live objects added to `inv` in [`KINDS`]' order, except those `files` defines (the
/// files are a what-if on top of the cluster: their version replaces the cluster's).
///
/// Each batch of objects is read on every core ([`decode_early`]: JSON text to value to typed
/// object, a ReplicaSet's pods sharing their decoded spec) and added here, in order.
pub fn add_to(
    snapshot: &Snapshot,
    inv: &mut Inventory,
    files: &HashSet<String>,
) -> Result<(), crate::InputError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 8);
    // `None`: an object the files define.
    let read = |text: &str| -> Option<(Value, Option<Decoded>)> {
        // Text this process wrote from a decoded page: it decodes.
        let mut v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        if !files.is_empty() && files.contains(&object_id(&v)) {
            return None;
        }
        let decoded = decode_early(&mut v);
        Some((v, decoded))
    };
    for (kind, objects) in KINDS.iter().zip(&snapshot.objects) {
        for (b, batch) in objects.chunks(ADD_BATCH).enumerate() {
            let read_batch = |part: &[Box<str>]| part.iter().map(|t| read(t)).collect::<Vec<_>>();
            let done: Vec<_> = if threads < 2 || batch.len() < 2 * threads {
                read_batch(batch)
            } else {
                let chunk = batch.len().div_ceil(threads);
                std::thread::scope(|s| {
                    let handles: Vec<_> = batch
                        .chunks(chunk)
                        .map(|part| s.spawn(move || read_batch(part)))
                        .collect();
                    // A thread that failed leaves its objects to be read here.
                    handles
                        .into_iter()
                        .zip(batch.chunks(chunk))
                        .flat_map(|(h, part)| h.join().unwrap_or_else(|_| read_batch(part)))
                        .collect()
                })
            };
            for (k, item) in done.into_iter().enumerate() {
                let Some((v, decoded)) = item else { continue };
                let source = snapshot.source(kind, b * ADD_BATCH + k);
                inv.add_decoded(source, &v, Vec::new(), decoded)?;
            }
        }
    }
    Ok(())
}

/// Objects read at once on every core by [`add_to`] before they are added (a batch's typed
/// objects are held beside the snapshot's text, not a whole kind's).
const ADD_BATCH: usize = 4096;

/// `files` on top of `live`: the files' objects after the cluster's (their `seq` shifted),
/// their warnings and strict reports kept (`files` must be [`Inventory::finish`]ed).
pub fn layer(mut live: Inventory, mut files: Inventory) -> Inventory {
    let offset = live.nodes.len()
        + live.pods.len()
        + live.workloads.len()
        + live.namespaces.len()
        + live.pdbs.len()
        + live.priority_classes.len();
    fn shift<T>(to: &mut Vec<Loaded<T>>, from: &mut Vec<Loaded<T>>, offset: usize) {
        for l in from.iter_mut() {
            l.seq += offset;
        }
        to.append(from);
    }
    shift(&mut live.nodes, &mut files.nodes, offset);
    shift(&mut live.pods, &mut files.pods, offset);
    shift(&mut live.workloads, &mut files.workloads, offset);
    shift(&mut live.namespaces, &mut files.namespaces, offset);
    shift(&mut live.pdbs, &mut files.pdbs, offset);
    shift(
        &mut live.priority_classes,
        &mut files.priority_classes,
        offset,
    );
    shift(&mut live.node_pools, &mut files.node_pools, offset);
    shift(&mut live.node_claims, &mut files.node_claims, offset);
    live.warnings.append(&mut files.warnings);
    live.strict.append(&mut files.strict);
    live
}

/// The [`object_id`]s of the objects read from files (nodes, pods, namespaces, budgets,
/// PriorityClasses, workloads; node pools and NodeClaims by name).
pub fn file_ids(inv: &Inventory) -> HashSet<String> {
    use repel_core::workload::namespace_of;
    let mut ids = HashSet::new();
    let name = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
        m.name.clone().unwrap_or_default()
    };
    for n in &inv.nodes {
        ids.insert(format!("Node {}", name(&n.obj.metadata)));
    }
    for n in &inv.namespaces {
        ids.insert(format!("Namespace {}", name(&n.obj.metadata)));
    }
    for c in &inv.priority_classes {
        ids.insert(format!("PriorityClass {}", name(&c.obj.metadata)));
    }
    for p in &inv.pods {
        let m = &p.obj.metadata;
        ids.insert(format!("Pod {}/{}", namespace_of(m), name(m)));
    }
    for b in &inv.pdbs {
        let m = &b.obj.metadata;
        ids.insert(format!(
            "PodDisruptionBudget {}/{}",
            namespace_of(m),
            name(m)
        ));
    }
    for w in &inv.workloads {
        ids.insert(format!(
            "{} {}/{}",
            w.obj.kind(),
            w.obj.namespace(),
            w.obj.name()
        ));
    }
    for p in inv.node_pools.iter().chain(&inv.node_claims) {
        ids.insert(object_id(&p.obj));
    }
    ids
}

/// `Kind namespace/name` (`Kind name` when cluster-scoped) of a raw object.
pub fn object_id(v: &Value) -> String {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default();
    let name = v
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match v.pointer("/metadata/namespace").and_then(Value::as_str) {
        Some(ns) if !ns.is_empty() && !cluster_scoped(kind) => format!("{kind} {ns}/{name}"),
        _ if cluster_scoped(kind) => format!("{kind} {name}"),
        _ => format!("{kind} default/{name}"),
    }
}

/// Whether `kind` is one of the kinds read ([`KINDS`]) whose objects live outside namespaces.
fn cluster_scoped(kind: &str) -> bool {
    KINDS
        .iter()
        .any(|k| k.kind() == kind && !k.names.namespaced)
}

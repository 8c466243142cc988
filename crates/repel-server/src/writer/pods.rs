//! A pod's end: deleted gracefully (marked Terminating) or removed with its last status.

use serde_json::{Value, json};

use crate::store::{Store, StoreError};
use crate::time;

use super::stamp::stamp;

/// Removes a pod the control plane deleted. A running pod its kubelet had to stop (bound to a
/// node that exists, not finished, not yet Terminating) goes as a delete request and its
/// kubelet's completion do, in two writes: first marked Terminating (`deletionTimestamp`),
/// then removed — so a watch shows it Terminating, then gone, as on a real cluster. The first
/// write carries the pod's last `status` from the view (a kubelet's rejection, say).
pub(super) fn remove_pod(
    store: &Store,
    ns: &str,
    name: &str,
    status: &Value,
) -> Result<(), StoreError> {
    let Some((node, finished, terminating, grace)) = store.read("pods", ns, name, |cur| {
        (
            cur["spec"]["nodeName"]
                .as_str()
                .filter(|n| !n.is_empty())
                .map(str::to_string),
            matches!(
                cur["status"]["phase"].as_str(),
                Some("Succeeded" | "Failed")
            ),
            !cur["metadata"]["deletionTimestamp"].is_null(),
            cur["spec"]["terminationGracePeriodSeconds"]
                .as_i64()
                .unwrap_or(30),
        )
    }) else {
        return Ok(());
    };
    let running = node.is_some_and(|n| store.read("nodes", "", &n, |_| ()).is_some()) && !finished;
    if running && !terminating {
        ignore_gone_value(store.modify::<StoreError>("pods", ns, name, |cur| {
            let mut obj = cur.clone();
            obj["metadata"]["deletionTimestamp"] = json!(time::now_rfc3339());
            obj["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
            if !status.is_null() {
                obj["status"] = status.clone();
                stamp(
                    &mut obj["status"]["conditions"],
                    &cur["status"]["conditions"],
                    "type",
                    &[],
                );
            }
            obj["metadata"]["resourceVersion"] = Value::Null;
            Ok(Some(obj))
        }))?;
    }
    match store.delete("pods", ns, name) {
        Ok(_) | Err(StoreError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
}

pub(super) fn ignore_gone_value(r: Result<Value, StoreError>) -> Result<(), StoreError> {
    match r {
        Ok(_) | Err(StoreError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Deletes a stored pod gracefully, as a delete request does ([`crate::kubelet::delete_pod`]:
/// `deletionTimestamp` on a pod whose node exists; an object already gone is no error).
pub(super) fn mark_terminating(store: &Store, ns: &str, name: &str) -> Result<(), StoreError> {
    match crate::kubelet::delete_pod(store, ns, name, None) {
        Ok(_) | Err(StoreError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
}

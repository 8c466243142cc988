//! Wall-clock times on what a pass changes: a condition or taint that is new or changed is
//! stamped, as the controllers stamp theirs.

use serde_json::{Value, json};

use crate::time;

/// Stamps the entries of `new` (a list of conditions, keyed by `key`) with the wall clock
/// where they changed from `old`'s: an entry whose `status` is unchanged keeps `old`'s
/// `lastTransitionTime` (and the `keep` fields, such as a node's `lastHeartbeatTime`); a new
/// or changed one gets the wall clock's in all of them. (The control plane's own times run on
/// the scaled clock.) Nothing is inserted where `new` is not a list.
pub(super) fn stamp(new: &mut Value, old: &Value, key: &str, keep: &[&str]) {
    let Some(items) = new.as_array_mut() else {
        return;
    };
    let now = time::now_rfc3339();
    for item in items {
        let before = old
            .as_array()
            .and_then(|o| o.iter().find(|x| x[key] == item[key]));
        match before {
            Some(b) if b["status"] == item["status"] => {
                item["lastTransitionTime"] = b["lastTransitionTime"].clone();
                for f in keep {
                    item[*f] = b[*f].clone();
                }
            }
            _ => {
                item["lastTransitionTime"] = json!(now);
                for f in keep {
                    item[*f] = json!(now);
                }
            }
        }
        if let Some(m) = item.as_object_mut() {
            m.retain(|_, v| !v.is_null());
        }
    }
}

/// A controller's `status` with the wall-clock times its upstream controller writes and the
/// engine leaves out (see [`stamp`]): a Deployment's conditions' `lastUpdateTime` and
/// `lastTransitionTime`; a Job's `startTime` (when it was first synced), its conditions'
/// `lastProbeTime` and `lastTransitionTime`, and `completionTime` once `Complete` (what
/// `kubectl describe job` prints as Start Time, Completed At and Duration).
pub(super) fn with_times(resource: &str, mut status: Value, old: &Value) -> Value {
    let keep: &[&str] = match resource {
        "deployments" => &["lastUpdateTime"],
        "jobs" => &["lastProbeTime"],
        _ => return status,
    };
    if status.get("conditions").is_some() {
        stamp(&mut status["conditions"], &old["conditions"], "type", keep);
    }
    if resource == "jobs" {
        let now = json!(time::now_rfc3339());
        let since = |key: &str| match &old[key] {
            Value::String(_) => old[key].clone(),
            _ => now.clone(),
        };
        status["startTime"] = since("startTime");
        let complete = status["conditions"].as_array().is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Complete" && c["status"] == "True")
        });
        if complete {
            status["completionTime"] = since("completionTime");
        }
    }
    status
}

/// Taints the control plane added (a `timeAdded` not in `old`) get the wall clock's time.
pub(super) fn stamp_taints(new: &mut Value, old: &Value) {
    let Some(items) = new.as_array_mut() else {
        return;
    };
    let now = time::now_rfc3339();
    for t in items.iter_mut().filter(|t| !t["timeAdded"].is_null()) {
        let before = old.as_array().and_then(|o| {
            o.iter()
                .find(|x| x["key"] == t["key"] && x["effect"] == t["effect"])
        });
        t["timeAdded"] = match before {
            Some(b) if !b["timeAdded"].is_null() => b["timeAdded"].clone(),
            _ => json!(now),
        };
    }
}

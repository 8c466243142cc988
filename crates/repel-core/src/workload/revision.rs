//! ControllerRevisions, as upstream's DaemonSet and StatefulSet controllers write them (v1.35,
//! `pkg/controller/history`, `pkg/controller/daemon/update.go`,
//! `pkg/controller/statefulset/stateful_set_utils.go`): each revision's `data` is a patch
//! that replaces the workload's pod template, what `kubectl rollout history --revision` shows
//! and `kubectl rollout undo` applies as a strategic merge patch.
//!
//! The patch is written as Go's `json.Marshal` writes it from the typed object (compact, keys
//! sorted, `metadata.creationTimestamp: null` and each container's `resources: {}` present),
//! so that kubectl's own patch of an unchanged workload equals a revision's byte for byte
//! (`rollout undo` then says the current template already matches).

use k8s_openapi::api::core::v1::PodTemplateSpec;
use serde_json::{Map, Value};

use super::safe_encode_string;

/// The label a DaemonSet's pods and revisions carry, and a StatefulSet's pods (upstream
/// `apps.DefaultDaemonSetUniqueLabelKey`, `apps.StatefulSetRevisionLabel`).
pub const CONTROLLER_REVISION_HASH: &str = "controller-revision-hash";

/// The label a StatefulSet's revisions carry (upstream `history.ControllerRevisionHashLabel`).
pub const HASH_LABEL: &str = "controller.kubernetes.io/hash";

/// FNV-1 (not 1a), 32 bits: Go's `hash/fnv.New32`, what `HashControllerRevision` uses.
pub fn fnv32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, b| {
        h.wrapping_mul(0x0100_0193) ^ u32::from(*b)
    })
}

/// `value` with every object's keys sorted, as Go encodes a `map[string]interface{}`.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&m[k.as_str()]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Upstream `getPatch` (the DaemonSet controller's, and the StatefulSet controller's alike):
/// `{"spec":{"template":{…,"$patch":"replace"}}}`, the template as Go's encoder writes it.
///
/// 1. The template is encoded from the typed object: `metadata.creationTimestamp` (a struct,
///    never omitted) is `null`, each container's `resources` (a struct) is `{}` when unset.
/// 2. It gains `"$patch": "replace"`, so that applying the patch replaces the whole template.
/// 3. Keys are sorted at every level (Go marshals the decoded maps).
pub fn template_patch(template: &PodTemplateSpec) -> Value {
    let mut t = serde_json::to_value(template).unwrap_or_else(|_| Value::Object(Map::new()));
    if let Some(obj) = t.as_object_mut() {
        let meta = obj
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(m) = meta.as_object_mut() {
            m.entry("creationTimestamp").or_insert(Value::Null);
        }
        let spec = obj
            .entry("spec")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(s) = spec.as_object_mut() {
            s.entry("containers")
                .or_insert_with(|| Value::Array(Vec::new()));
            for key in ["initContainers", "containers", "ephemeralContainers"] {
                if let Some(cs) = s.get_mut(key).and_then(Value::as_array_mut) {
                    for c in cs.iter_mut().filter_map(Value::as_object_mut) {
                        c.entry("resources")
                            .or_insert_with(|| Value::Object(Map::new()));
                    }
                }
            }
        }
        obj.insert("$patch".into(), Value::String("replace".into()));
    }
    let mut spec = Map::new();
    spec.insert("template".into(), t);
    let mut patch = Map::new();
    patch.insert("spec".into(), Value::Object(spec));
    sorted(&Value::Object(patch))
}

/// Upstream `HashControllerRevision` with the collision count `probe`: FNV-1 over the
/// revision's data bytes, then the probe in decimal, written with `SafeEncodeString`.
pub fn hash_controller_revision(data: &Value, probe: Option<i32>) -> String {
    let mut bytes = serde_json::to_vec(data).unwrap_or_default();
    if let Some(p) = probe {
        bytes.extend_from_slice(p.to_string().as_bytes());
    }
    safe_encode_string(&fnv32(&bytes).to_string())
}

/// A StatefulSet's revision name for its template: `NAME-<hash>` (upstream
/// `ControllerRevisionName`, the prefix cut to 223 characters; the hash of the template patch
/// with collision count 0, as the controller's `getStatefulSetRevisions` passes it). Its pods
/// carry it in [`CONTROLLER_REVISION_HASH`].
pub fn stateful_set_revision_name(name: &str, template: &PodTemplateSpec) -> String {
    let hash = hash_controller_revision(&template_patch(template), Some(0));
    revision_name(name, &hash)
}

/// Upstream `ControllerRevisionName`: `PREFIX-HASH`, the prefix cut to 223 characters.
pub fn revision_name(prefix: &str, hash: &str) -> String {
    let prefix: String = prefix.chars().take(223).collect();
    format!("{prefix}-{hash}")
}

/// A DaemonSet's revision hash for its template (the pods' [`CONTROLLER_REVISION_HASH`]): the
/// same hash as a Deployment's `pod-template-hash` (see the module docs of
/// [`crate::workload`]: upstream's `ComputeHash` cannot be reproduced outside Go).
pub fn daemon_set_hash(template: &PodTemplateSpec) -> String {
    super::pod_template_hash(template)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fnv32_is_go_fnv_new32() {
        // Go: fnv.New32() over "" and "a".
        let cases = [
            ("empty input is the offset basis", "", 0x811c_9dc5u32),
            ("one byte is multiplied then xored", "a", 0x050c_5d7e),
        ];
        for (name, input, want) in cases {
            assert_eq!(fnv32(input.as_bytes()), want, "{name}");
        }
    }

    #[test]
    fn template_patch_is_gos_encoding() {
        let template: PodTemplateSpec = serde_json::from_value(json!({
            "metadata": {"labels": {"app": "ds"}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}
        }))
        .unwrap();
        let patch = serde_json::to_string(&template_patch(&template)).unwrap();
        assert_eq!(
            patch,
            r#"{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"ds"}},"spec":{"containers":[{"image":"busybox:1","name":"c","resources":{}}]}}}}"#
        );
    }

    #[test]
    fn a_stateful_set_revision_is_named_after_its_set() {
        let template: PodTemplateSpec = serde_json::from_value(json!({
            "metadata": {"labels": {"app": "db"}},
            "spec": {"containers": [{"name": "c", "image": "redis:7"}]}
        }))
        .unwrap();
        let name = stateful_set_revision_name("db", &template);
        let hash = name.strip_prefix("db-").unwrap();
        assert!(!hash.is_empty() && hash.len() <= 10, "{name}");
        let mut other = template.clone();
        other.spec.as_mut().unwrap().containers[0].image = Some("redis:8".into());
        assert_ne!(name, stateful_set_revision_name("db", &other));
    }
}

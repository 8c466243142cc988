//! The single-object rules as ValidatingAdmissionPolicies and their bindings
//! (admissionregistration.k8s.io/v1, GA since Kubernetes 1.30), in CEL, for Pods and every
//! workload kind (a CronJob's pod template is one level deeper).
//!
//! A binding has one set of `validationActions`, and `Deny` and `Warn` may not be used
//! together, so the rules are grouped by severity: errors in a policy bound with `[Deny]`,
//! warnings with `[Warn, Audit]`, infos with `[Audit]`. The API server's own validation errors
//! (`invalid-toleration`, `exists-with-value`, `toleration-seconds-without-noexecute`) are left
//! out: the API server refuses such an object before any admission policy sees it. Rules that
//! need other objects (nodes, pools, other workloads) cannot be expressed — a policy sees one
//! object — and are listed in the comment the text starts with.

use serde_json::{Value, json};

use super::catalogue::{self, WELL_KNOWN};
use super::rules::RULES;
use super::{IGNORE_ANNOTATION, LintOptions, Severity};
use crate::near_miss::{CONTROL_PLANE_TAINT_KEY, LEGACY_MASTER_TAINT_KEY};

/// The policies' name suffix.
pub const NAME: &str = "tolerations.repel.dev";

/// The label the API server sets on every namespace with its name (KEP-2161).
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// The variables every policy declares, in order: the pod spec and metadata of any kind, its
/// tolerations, whether it is a node agent, whether it is a pod a controller owns, and the
/// rules its ignore annotation names.
pub fn variables() -> Vec<(&'static str, String)> {
    vec![
        (
            "podSpec",
            "object.kind == 'Pod' ? object.spec : object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec : object.spec.template.spec".into(),
        ),
        (
            "podMeta",
            "object.kind == 'Pod' ? object.metadata : object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.?metadata.orValue({}) : object.spec.template.?metadata.orValue({})".into(),
        ),
        ("tols", "variables.podSpec.?tolerations.orValue([])".into()),
        (
            "daemon",
            "object.kind == 'DaemonSet' || object.kind == 'Pod' && (object.metadata.?ownerReferences.orValue([]).exists(r, r.?controller.orValue(false) && r.kind in ['DaemonSet', 'Node']) || 'kubernetes.io/config.mirror' in object.metadata.?annotations.orValue({}))".into(),
        ),
        (
            "owned",
            "object.kind == 'Pod' && object.metadata.?ownerReferences.orValue([]).exists(r, r.?controller.orValue(false) && r.kind != 'Node')".into(),
        ),
        (
            "ignore",
            format!("object.metadata.?annotations.orValue({{}})[?'{IGNORE_ANNOTATION}'].orValue('')"),
        ),
    ]
}

/// CEL: whether toleration `t` matches the taint `key=value:effect` (`ToleratesTaint`; an
/// absent operator is Equal).
fn tolerates_cel(key: &str, value: &str, effect: &str) -> String {
    format!(
        "(t.?key.orValue('') == '' ? t.?operator.orValue('') == 'Exists' : t.?key.orValue('') == '{key}' && (t.?operator.orValue('') == 'Exists' || t.?operator.orValue('') in ['', 'Equal'] && t.?value.orValue('') == '{value}')) && t.?effect.orValue('') in ['', '{effect}']"
    )
}

/// CEL: toleration `t` names a well-known key and matches none of the taints it is set with.
fn never_matches_cel() -> String {
    let mut parts = Vec::new();
    for e in WELL_KNOWN {
        let effects: Vec<String> = e.effects.iter().map(|x| format!("'{x}'")).collect();
        let effect_ok = format!("t.?effect.orValue('') in ['', {}]", effects.join(", "));
        let value_ok = match e.value {
            catalogue::Value::Empty => {
                "t.?operator.orValue('') == 'Exists' || t.?value.orValue('') == ''".to_string()
            }
            catalogue::Value::Fixed(v) => {
                format!("t.?operator.orValue('') == 'Exists' || t.?value.orValue('') == '{v}'")
            }
            catalogue::Value::Varies => "t.?operator.orValue('') == 'Exists'".to_string(),
        };
        parts.push(format!(
            "t.?key.orValue('') == '{}' && !({effect_ok} && ({value_ok}))",
            e.key
        ));
    }
    format!(
        "t.?operator.orValue('') in ['', 'Equal', 'Exists'] && ({})",
        parts.join(" || ")
    )
}

/// One validation: the rule, its CEL (true when the object passes) and its message.
pub struct Validation {
    /// The rule's id.
    pub rule: &'static str,
    /// The expression.
    pub expression: String,
    /// What the message says after `Kind name: `.
    pub message: &'static str,
}

/// The CEL of each single-object rule a policy can carry.
pub fn validations() -> Vec<Validation> {
    let wildcard = "t.?key.orValue('') == '' && t.?operator.orValue('') == 'Exists' && !has(t.tolerationSeconds)";
    vec![
        Validation {
            rule: "toleration-never-matches",
            expression: format!("!variables.tols.exists(t, {})", never_matches_cel()),
            message: "a toleration names a well-known taint but can never match it (wrong value, case or effect); run repel lint for the fix",
        },
        Validation {
            rule: "legacy-master-only",
            expression: format!(
                "request.namespace.startsWith('openshift-') || (!variables.tols.exists(t, t.?key.orValue('') == '{LEGACY_MASTER_TAINT_KEY}' && {}) || variables.tols.exists(t, {})) && (!('{LEGACY_MASTER_TAINT_KEY}' in variables.podSpec.?nodeSelector.orValue({{}})) || '{CONTROL_PLANE_TAINT_KEY}' in variables.podSpec.?nodeSelector.orValue({{}}))",
                tolerates_cel(LEGACY_MASTER_TAINT_KEY, "", "NoSchedule"),
                tolerates_cel(CONTROL_PLANE_TAINT_KEY, "", "NoSchedule"),
            ),
            message: "tolerates or selects node-role.kubernetes.io/master but not node-role.kubernetes.io/control-plane (kubeadm >= 1.24)",
        },
        Validation {
            rule: "wildcard-toleration",
            expression: format!(
                "variables.daemon || !variables.tols.exists(t, {wildcard} && t.?effect.orValue('') in ['', 'NoSchedule', 'NoExecute'])"
            ),
            message: "a toleration with no key and operator Exists tolerates every taint, the control plane and every dedicated pool included",
        },
        Validation {
            rule: "noexecute-forever",
            expression: format!(
                "variables.daemon || !variables.tols.exists(t, {wildcard} && t.?effect.orValue('') in ['', 'NoExecute'])"
            ),
            message: "tolerates every NoExecute taint with no tolerationSeconds: its pods never leave a failed node",
        },
        Validation {
            rule: "condition-toleration-outside-daemonset",
            expression: "variables.daemon || !variables.tols.exists(t, t.?key.orValue('') in ['node.kubernetes.io/unschedulable', 'node.kubernetes.io/disk-pressure', 'node.kubernetes.io/pid-pressure'] || object.kind != 'Pod' && t.?key.orValue('') == 'node.kubernetes.io/memory-pressure')".into(),
            message: "tolerates node.kubernetes.io/unschedulable or a pressure taint, which only node agents should: its pods land on cordoned or starved nodes",
        },
        Validation {
            rule: "annotation-tolerations",
            expression: "!('scheduler.alpha.kubernetes.io/tolerations' in variables.podMeta.?annotations.orValue({})) && !('scheduler.alpha.kubernetes.io/tolerations' in object.metadata.?annotations.orValue({}))".into(),
            message: "the scheduler.alpha.kubernetes.io/tolerations annotation has been ignored since Kubernetes 1.6",
        },
    ]
}

/// The expression as the policy writes it: passes too when the ignore annotation names the
/// rule (or `all`), and for a pod its controller created (its template was judged when the
/// controller was applied; a warning on each of its pods would reach only the controller).
pub fn guarded(v: &Validation) -> String {
    format!(
        "variables.owned || variables.ignore.contains('{}') || variables.ignore.contains('all') || ({})",
        v.rule, v.expression
    )
}

/// The policies and bindings for the rules `opts` leaves on, bound everywhere but
/// `exclude_namespaces`.
pub fn policy(opts: &LintOptions, exclude_namespaces: &[String]) -> Vec<Value> {
    let mut out = Vec::new();
    let groups = [
        (Severity::Error, "deny", vec!["Deny"]),
        (Severity::Warning, "warn", vec!["Warn", "Audit"]),
        (Severity::Info, "audit", vec!["Audit"]),
    ];
    let all = validations();
    for (sev, suffix, actions) in groups {
        let chosen: Vec<&Validation> = all
            .iter()
            .filter(|v| opts.runs(v.rule))
            .filter(|v| {
                let default = RULES
                    .iter()
                    .find(|r| r.info.id == v.rule)
                    .map(|r| r.info.severity);
                opts.severity.get(v.rule).copied().or(default) == Some(sev)
            })
            .collect();
        if chosen.is_empty() {
            continue;
        }
        let name = format!("{suffix}.{NAME}");
        let validations: Vec<Value> = chosen
            .iter()
            .map(|v| {
                json!({
                    "expression": guarded(v),
                    "messageExpression": format!(
                        "'{}: ' + object.kind + ' ' + object.metadata.?name.orValue(object.metadata.?generateName.orValue('')) + ': {}'",
                        v.rule, v.message.replace('\'', "\\'")
                    ),
                    "message": format!("{}: {}", v.rule, v.message),
                    "reason": "Invalid"
                })
            })
            .collect();
        let rule = |group: &str, resources: &[&str]| json!({"apiGroups": [group], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": resources});
        out.push(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {"resourceRules": [
                    rule("", &["pods", "replicationcontrollers"]),
                    rule("apps", &["deployments", "replicasets", "statefulsets", "daemonsets"]),
                    rule("batch", &["jobs", "cronjobs"]),
                ]},
                "variables": variables().into_iter().map(|(n, e)| json!({"name": n, "expression": e})).collect::<Vec<_>>(),
                "validations": validations
            }
        }));
        let mut binding = json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name},
            "spec": {"policyName": name, "validationActions": actions}
        });
        if !exclude_namespaces.is_empty() {
            binding["spec"]["matchResources"] = json!({"namespaceSelector": {"matchExpressions": [
                {"key": NAMESPACE_NAME_LABEL, "operator": "NotIn", "values": exclude_namespaces}]}});
        }
        out.push(binding);
    }
    out
}

/// The objects as a YAML stream (`yaml` writes one object), after a comment naming the rules a
/// policy cannot express.
pub fn to_text<E>(docs: &[Value], yaml: impl Fn(&Value) -> Result<String, E>) -> Result<String, E> {
    let in_policy: Vec<&str> = validations().iter().map(|v| v.rule).collect();
    let mut s = String::from(
        "# repel lint --emit validating-admission-policy: the single-object rules, as the API server\n# enforces them (admissionregistration.k8s.io/v1, Kubernetes 1.30 and later).\n# Not expressible in a policy, which sees one object at a time (run `repel lint` for these):\n",
    );
    for r in RULES.iter().filter(|r| !r.info.single_object) {
        s.push_str(&format!("#   {}: {}\n", r.info.id, r.info.summary));
    }
    s.push_str("# Left to the API server's own validation, which refuses the object first:\n");
    for r in RULES
        .iter()
        .filter(|r| r.info.single_object && !in_policy.contains(&r.info.id))
    {
        s.push_str(&format!("#   {}\n", r.info.id));
    }
    for d in docs {
        s.push_str("---\n");
        s.push_str(&yaml(d)?);
    }
    Ok(s)
}

#[cfg(test)]
mod tests;

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)
//! The policies' CEL, parsed and evaluated with cel-rust (the `cel` crate) as kube-apiserver
//! evaluates a ValidatingAdmissionPolicy: the variables in order under `variables`, then each
//! validation; a validation that is false denies (or warns). Each rule's expression is held
//! against the Rust rule on the same objects, cut from real manifests.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{guarded, policy, validations, variables};
use crate::lint::testing::{Fixture, daemonset, deployment, pod};
use crate::lint::{LintOptions, Severity};

/// The CEL environment: the standard library, optional syntax on (Kubernetes 1.29+).
fn env() -> Arc<cel::Env> {
    Arc::new(cel::Env::stdlib())
}

/// Evaluates `expr` on `object` in namespace `ns` with the policy's variables.
fn eval(expr: &str, object: &Value, ns: &str) -> cel::Value {
    let env = env();
    let mut ctx = cel::Context::with_env(env.clone());
    ctx.add_variable("object", cel::to_value(object).unwrap())
        .unwrap();
    ctx.add_variable(
        "request",
        cel::to_value(json!({"namespace": ns, "operation": "CREATE"})).unwrap(),
    )
    .unwrap();
    let mut vars: HashMap<String, cel::Value> = HashMap::new();
    for (name, e) in variables() {
        ctx.add_variable("variables", cel::Value::from(vars.clone()))
            .unwrap();
        let p = env
            .compile(&e)
            .unwrap_or_else(|e| panic!("variable {name}: {e:?}"));
        let v = p
            .execute(&ctx)
            .unwrap_or_else(|e| panic!("variable {name}: {e:?}"));
        vars.insert(name.to_string(), v);
    }
    ctx.add_variable("variables", cel::Value::from(vars))
        .unwrap();
    let p = env
        .compile(expr)
        .unwrap_or_else(|e| panic!("{expr}: {e:?}"));
    p.execute(&ctx).unwrap_or_else(|e| panic!("{expr}: {e:?}"))
}

/// Whether the rule's guarded validation passes `object`.
fn passes(rule: &str, object: &Value) -> bool {
    let v = validations().into_iter().find(|v| v.rule == rule).unwrap();
    let ns = object["metadata"]["namespace"]
        .as_str()
        .unwrap_or("default");
    match eval(&guarded(&v), object, ns) {
        cel::Value::Bool(b) => b,
        other => panic!("{rule}: not a bool: {other:?}"),
    }
}

#[test]
fn every_expression_parses() {
    let env = env();
    for (name, e) in variables() {
        assert!(env.compile(&e).is_ok(), "variable {name}: {e}");
    }
    let all = policy(&LintOptions::default(), &[]);
    for p in all
        .iter()
        .filter(|d| d["kind"] == "ValidatingAdmissionPolicy")
    {
        for v in p["spec"]["validations"].as_array().unwrap() {
            for f in ["expression", "messageExpression"] {
                let e = v[f].as_str().unwrap();
                assert!(env.compile(e).is_ok(), "{f}: {e}");
            }
        }
    }
}

/// A CronJob whose pod spec is `spec` (one level deeper than other workloads).
fn cronjob(name: &str, mut spec: Value) -> Value {
    spec["containers"] = json!([{"name": "c", "image": "i"}]);
    json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name, "namespace": "default"},
           "spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": {"spec": spec}}}}})
}

/// Cases: rule, what, object, whether it passes. Each is also linted by the Rust rule, which
/// must report it exactly when the policy refuses it.
fn cases() -> Vec<(&'static str, &'static str, Value, bool)> {
    let master_only = json!({"tolerations": [{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}, {"key": "CriticalAddonsOnly", "operator": "Exists"}]});
    let both = json!({"tolerations": [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/master", "operator": "Equal"},
                                      {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane", "operator": "Equal"}]});
    let wild = json!({"tolerations": [{"effect": "NoExecute", "operator": "Exists"}, {"effect": "NoSchedule", "operator": "Exists"}]});
    let ebs = json!({"tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}, {"effect": "NoExecute", "operator": "Exists", "tolerationSeconds": 300}]});
    let mut ignored = deployment("tigera-operator", wild.clone());
    ignored["metadata"]["annotations"] =
        json!({"repel.dev/lint-ignore": "wildcard-toleration,noexecute-forever"});
    let mut cilium = daemonset("cilium", json!({"tolerations": [{"operator": "Exists"}]}));
    cilium["spec"]["template"]["metadata"]["annotations"] = json!({"scheduler.alpha.kubernetes.io/tolerations": "[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"master\",\"effect\":\"NoSchedule\"}]"});
    let mut mirror = pod(
        "etcd-cp",
        json!({"tolerations": [{"effect": "NoExecute", "operator": "Exists"}]}),
    );
    mirror["metadata"]["annotations"] = json!({"kubernetes.io/config.mirror": "x"});
    vec![
        (
            "toleration-never-matches",
            "Equal \"true\" on kubeadm's control-plane taint (cluster-autoscaler aws)",
            deployment(
                "ca",
                json!({"tolerations": [{"effect": "NoSchedule", "operator": "Equal", "value": "true", "key": "node-role.kubernetes.io/control-plane"}]}),
            ),
            false,
        ),
        (
            "toleration-never-matches",
            "\"True\" on CriticalAddonsOnly, in a CronJob",
            cronjob(
                "ca",
                json!({"tolerations": [{"key": "CriticalAddonsOnly", "value": "True"}]}),
            ),
            false,
        ),
        (
            "toleration-never-matches",
            "nvidia.com/gpu Equal \"\" (tensorflow-notebook), a Pod",
            pod(
                "tf",
                json!({"tolerations": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}),
            ),
            false,
        ),
        (
            "toleration-never-matches",
            "operator omitted on control-plane (clusterapi)",
            deployment(
                "ca",
                json!({"tolerations": [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]}),
            ),
            true,
        ),
        (
            "toleration-never-matches",
            "karpenter.sh/disrupted with NoExecute",
            deployment(
                "d",
                json!({"tolerations": [{"key": "karpenter.sh/disrupted", "operator": "Exists", "effect": "NoExecute"}]}),
            ),
            false,
        ),
        (
            "toleration-never-matches",
            "a key outside the catalogue",
            deployment(
                "d",
                json!({"tolerations": [{"key": "dedicated", "value": "control-plane"}]}),
            ),
            true,
        ),
        (
            "legacy-master-only",
            "master only (eks-connector)",
            deployment("eks-connector", master_only.clone()),
            false,
        ),
        (
            "legacy-master-only",
            "master only in a CronJob",
            cronjob("c", master_only.clone()),
            false,
        ),
        (
            "legacy-master-only",
            "master and control-plane (ingress-nginx)",
            deployment("ingress", both),
            true,
        ),
        (
            "legacy-master-only",
            "master plus a keyless NoSchedule wildcard (fluent-bit)",
            daemonset(
                "fluent-bit",
                json!({"tolerations": [{"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"}, {"operator": "Exists", "effect": "NoSchedule"}]}),
            ),
            true,
        ),
        (
            "legacy-master-only",
            "an openshift- namespace (cluster-version-operator)",
            {
                let mut d = deployment("cvo", master_only);
                d["metadata"]["namespace"] = json!("openshift-cluster-version");
                d
            },
            true,
        ),
        (
            "wildcard-toleration",
            "keyless Exists on a Deployment (tigera-operator)",
            deployment("tigera-operator", wild.clone()),
            false,
        ),
        (
            "wildcard-toleration",
            "keyless Exists on a Job's CronJob",
            cronjob("c", json!({"tolerations": [{"operator": "Exists"}]})),
            false,
        ),
        (
            "wildcard-toleration",
            "keyless Exists on a DaemonSet (node-exporter)",
            daemonset(
                "node-exporter",
                json!({"tolerations": [{"operator": "Exists"}]}),
            ),
            true,
        ),
        (
            "wildcard-toleration",
            "keyless NoExecute with 300 s (aws-ebs-csi controller)",
            deployment("ebs", ebs.clone()),
            true,
        ),
        (
            "wildcard-toleration",
            "ignored by annotation",
            ignored.clone(),
            true,
        ),
        (
            "noexecute-forever",
            "keyless NoExecute forever (tigera-operator)",
            deployment("tigera-operator", wild),
            false,
        ),
        (
            "noexecute-forever",
            "keyless NoExecute with 300 s (aws-ebs-csi controller)",
            deployment("ebs", ebs),
            true,
        ),
        (
            "noexecute-forever",
            "a static pod's mirror (nri 1.35 etcd)",
            mirror,
            true,
        ),
        ("noexecute-forever", "ignored by annotation", ignored, true),
        (
            "condition-toleration-outside-daemonset",
            "unschedulable on a Deployment",
            deployment(
                "w",
                json!({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}),
            ),
            false,
        ),
        (
            "condition-toleration-outside-daemonset",
            "not-ready and network-unavailable (cluster-version-operator)",
            deployment(
                "cvo",
                json!({"tolerations": [{"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"}, {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}]}),
            ),
            true,
        ),
        (
            "condition-toleration-outside-daemonset",
            "a DaemonSet",
            daemonset(
                "a",
                json!({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}),
            ),
            true,
        ),
        (
            "annotation-tolerations",
            "the alpha annotation (cilium v1.6.0)",
            cilium,
            false,
        ),
        (
            "annotation-tolerations",
            "no annotation (node-exporter)",
            daemonset("node-exporter", json!({})),
            true,
        ),
    ]
}

#[test]
fn each_policy_rule_refuses_exactly_what_the_lint_rule_reports() {
    for (rule, what, object, want) in cases() {
        assert_eq!(passes(rule, &object), want, "{rule}: {what}: CEL");
        let lint_clean = Fixture::of(std::slice::from_ref(&object))
            .findings(rule)
            .is_empty();
        // The ignore annotation is honoured by both.
        assert_eq!(lint_clean, want, "{rule}: {what}: repel lint");
    }
}

#[test]
fn the_message_expression_names_the_object() {
    let all = policy(&LintOptions::default(), &[]);
    let warn = all
        .iter()
        .find(|d| d["metadata"]["name"] == "warn.tolerations.repel.dev")
        .unwrap();
    let v = warn["spec"]["validations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| {
            v["message"]
                .as_str()
                .unwrap()
                .starts_with("wildcard-toleration")
        })
        .unwrap();
    let obj = deployment("tigera-operator", json!({}));
    let msg = eval(v["messageExpression"].as_str().unwrap(), &obj, "default");
    assert_eq!(
        msg,
        cel::Value::String(Arc::new("wildcard-toleration: Deployment tigera-operator: a toleration with no key and operator Exists tolerates every taint, the control plane and every dedicated pool included".into()))
    );
}

#[test]
fn bindings_follow_severity_and_never_deny_and_warn_together() {
    let mut opts = LintOptions::default();
    opts.severity
        .insert("legacy-master-only".into(), Severity::Error);
    opts.disabled.insert("annotation-tolerations".into());
    let docs = policy(&opts, &["kube-system".to_string()]);
    let bindings: Vec<&Value> = docs
        .iter()
        .filter(|d| d["kind"] == "ValidatingAdmissionPolicyBinding")
        .collect();
    assert_eq!(bindings.len(), 2);
    for b in &bindings {
        let actions = b["spec"]["validationActions"].as_array().unwrap();
        assert!(
            !(actions.contains(&json!("Deny")) && actions.contains(&json!("Warn"))),
            "{b}"
        );
        assert_eq!(
            b["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"],
            json!(["kube-system"])
        );
        assert_eq!(b["spec"]["policyName"], b["metadata"]["name"]);
    }
    let deny = docs
        .iter()
        .find(|d| {
            d["kind"] == "ValidatingAdmissionPolicy"
                && d["metadata"]["name"] == "deny.tolerations.repel.dev"
        })
        .unwrap();
    let rules: Vec<&str> = deny["spec"]["validations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["message"].as_str().unwrap().split(':').next().unwrap())
        .collect();
    assert_eq!(rules, vec!["legacy-master-only"]);
    let text = serde_json::to_string(&docs).unwrap();
    assert!(
        !text.contains("scheduler.alpha.kubernetes.io/tolerations' in"),
        "disabled rule left out"
    );
    assert_eq!(docs[0]["apiVersion"], "admissionregistration.k8s.io/v1");
}

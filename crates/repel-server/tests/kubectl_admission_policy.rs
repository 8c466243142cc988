//! ValidatingAdmissionPolicies through the real kubectl: a policy that denies the keyless
//! `operator: Exists` toleration on Deployments and Pods and one that warns on a NoExecute
//! toleration of under 60 seconds, their bindings, the refusals kubectl prints, and a binding's
//! removal lifting enforcement.

use crate::util::{self, have_kubectl, node, start, table_rows};
use serde_json::json;

const POLICIES: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: deny-wildcard-toleration
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [pods]
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  variables:
  - name: spec
    expression: "object.kind == 'Pod' ? object.spec : object.spec.template.spec"
  validations:
  - expression: >-
      !has(variables.spec.tolerations) ||
      variables.spec.tolerations.all(t, has(t.key) || !has(t.operator) || t.operator != 'Exists')
    messageExpression: >-
      object.kind + ' ' + object.metadata.name +
      ' tolerates every taint (operator Exists without a key)'
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: deny-wildcard-toleration
spec:
  policyName: deny-wildcard-toleration
  validationActions: [Deny]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: short-noexecute-toleration
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  validations:
  - expression: >-
      !has(object.spec.template.spec.tolerations) ||
      object.spec.template.spec.tolerations.all(t,
        !has(t.tolerationSeconds) || t.effect != 'NoExecute' || t.tolerationSeconds >= 60)
    message: a NoExecute toleration under 60 seconds evicts and reschedules in a loop
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: short-noexecute-toleration-warn
spec:
  policyName: short-noexecute-toleration
  validationActions: [Warn]
"#;

fn deployment(name: &str, tolerations: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: app
        image: nginx
      tolerations:
{tolerations}"
    )
}

/// What kubectl prints for a denial, byte for byte, with its exit code.
fn refused(o: &util::Out, stderr: &str) {
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (1, "", stderr)
    );
}

#[test]
fn policies_deny_and_warn_as_kube_apiserver_does() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let policies = s.write("policies.yaml", POLICIES);
    assert_eq!(
        s.kubectl_ok(&["apply", "-f", &policies]),
        "validatingadmissionpolicy.admissionregistration.k8s.io/deny-wildcard-toleration created\n\
         validatingadmissionpolicybinding.admissionregistration.k8s.io/deny-wildcard-toleration created\n\
         validatingadmissionpolicy.admissionregistration.k8s.io/short-noexecute-toleration created\n\
         validatingadmissionpolicybinding.admissionregistration.k8s.io/short-noexecute-toleration-warn created\n"
    );
    // printers.go's columns: Name, Validations, ParamKind, Age; Name, PolicyName, ParamRef, Age.
    assert_eq!(
        table_rows(&s.kubectl_ok(&["get", "validatingadmissionpolicies"]), 3),
        [
            "NAME VALIDATIONS PARAMKIND AGE",
            "deny-wildcard-toleration 1 <unset> AGE",
            "short-noexecute-toleration 1 <unset> AGE",
        ]
    );
    assert_eq!(
        table_rows(
            &s.kubectl_ok(&["get", "validatingadmissionpolicybindings"]),
            3
        ),
        [
            "NAME POLICYNAME PARAMREF AGE",
            "deny-wildcard-toleration deny-wildcard-toleration <unset> AGE",
            "short-noexecute-toleration-warn short-noexecute-toleration <unset> AGE",
        ]
    );

    // A Deployment and a Pod with the keyless Exists toleration: refused, nothing stored.
    let bad = s.write(
        "bad.yaml",
        &deployment("wild", "      - operator: Exists\n"),
    );
    refused(
        &s.kubectl(&["apply", "-f", &bad]),
        "The deployments \"wild\" is invalid: : ValidatingAdmissionPolicy 'deny-wildcard-toleration' with binding 'deny-wildcard-toleration' denied request: Deployment wild tolerates every taint (operator Exists without a key)\n",
    );
    assert!(s.get("deployments", "default", "wild").is_none());
    // Server-side apply and a server dry run meet the policy too.
    let denied_wild = "The deployments \"wild\" is invalid: : ValidatingAdmissionPolicy 'deny-wildcard-toleration' with binding 'deny-wildcard-toleration' denied request: Deployment wild tolerates every taint (operator Exists without a key)\n";
    refused(
        &s.kubectl(&["apply", "--server-side", "-f", &bad]),
        denied_wild,
    );
    refused(
        &s.kubectl(&["apply", "--dry-run=server", "-f", &bad]),
        denied_wild,
    );
    let pod = s.write(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: wildpod\nspec:\n  containers:\n  - name: app\n    image: nginx\n  tolerations:\n  - operator: Exists\n",
    );
    refused(
        &s.kubectl(&["create", "-f", &pod]),
        "The pods \"wildpod\" is invalid: : ValidatingAdmissionPolicy 'deny-wildcard-toleration' with binding 'deny-wildcard-toleration' denied request: Pod wildpod tolerates every taint (operator Exists without a key)\n",
    );
    assert!(s.get("pods", "default", "wildpod").is_none());

    // A keyed toleration passes; an update that adds the keyless one is refused too.
    let good = s.write(
        "good.yaml",
        &deployment(
            "tame",
            "      - key: dedicated\n        operator: Exists\n        effect: NoSchedule\n",
        ),
    );
    assert_eq!(
        s.kubectl_ok(&["apply", "-f", &good]),
        "deployment.apps/tame created\n"
    );
    refused(
        &s.kubectl(&[
            "patch",
            "deployment",
            "tame",
            "--type=json",
            "-p",
            r#"[{"op":"add","path":"/spec/template/spec/tolerations/-","value":{"operator":"Exists"}}]"#,
        ]),
        "The deployments \"tame\" is invalid: : ValidatingAdmissionPolicy 'deny-wildcard-toleration' with binding 'deny-wildcard-toleration' denied request: Deployment tame tolerates every taint (operator Exists without a key)\n",
    );

    // The Warn binding: admitted, with kubectl's warning.
    let warn = s.write(
        "warn.yaml",
        &deployment(
            "flappy",
            "      - key: node.kubernetes.io/unreachable\n        operator: Exists\n        effect: NoExecute\n        tolerationSeconds: 10\n",
        ),
    );
    let o = s.kubectl(&["apply", "-f", &warn]);
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (
            0,
            "deployment.apps/flappy created\n",
            "Warning: Validation failed for ValidatingAdmissionPolicy 'short-noexecute-toleration' with binding 'short-noexecute-toleration-warn': a NoExecute toleration under 60 seconds evicts and reschedules in a loop\n"
        )
    );
    assert!(s.get("deployments", "default", "flappy").is_some());

    // Deleting the binding lifts enforcement.
    assert_eq!(
        s.kubectl_ok(&[
            "delete",
            "validatingadmissionpolicybinding",
            "deny-wildcard-toleration"
        ]),
        "validatingadmissionpolicybinding.admissionregistration.k8s.io \"deny-wildcard-toleration\" deleted\n"
    );
    assert_eq!(
        s.kubectl_ok(&["apply", "-f", &bad]),
        "deployment.apps/wild created\n"
    );
}

/// kube-apiserver compiles every expression when a policy is written: one that does not
/// compile is refused with the compiler's text, whatever the failure policy.
#[test]
fn a_policy_whose_expression_does_not_compile_is_refused() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![]);
    let broken = s.write(
        "broken.yaml",
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: broken\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    resourceRules:\n    - apiGroups: [apps]\n      apiVersions: [v1]\n      operations: [CREATE]\n      resources: [deployments]\n  validations:\n  - expression: \"object.spec.\"\n  - expression: \"spec.replicas > 1\"\n",
    );
    refused(
        &s.kubectl(&["apply", "-f", &broken]),
        "The ValidatingAdmissionPolicy \"broken\" is invalid: \n\
         * spec.validations[0].expression: Invalid value: \"object.spec.\": compilation failed: ERROR: <input>:1:13: Syntax error: no viable alternative at input '.'\n | object.spec.\n | ............^\n\
         * spec.validations[1].expression: Invalid value: \"spec.replicas > 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'spec' (in container '')\n | spec.replicas > 1\n | ^\n",
    );
    assert!(s.get("validatingadmissionpolicies", "", "broken").is_none());
}

/// The example of upstream's documentation
/// (https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/,
/// kubernetes/website `content/en/docs/reference/access-authn-authz/validating-admission-policy.md`):
/// `kubectl create deploy` refused by a policy prints
/// `error: failed to create deployment: deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy '…' with binding '…' denied request: …`.
/// Here with the documentation's `basic-example-policy.yaml` and its binding; a policy edited
/// with `kubectl patch` and removed with `kubectl delete`.
#[test]
fn the_documentations_example_as_kubectl_prints_it() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![]);
    let files = s.write(
        "demo.yaml",
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: \"demo-policy.example.com\"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   [\"apps\"]
      apiVersions: [\"v1\"]
      operations:  [\"CREATE\", \"UPDATE\"]
      resources:   [\"deployments\"]
  validations:
    - expression: \"object.spec.replicas <= 5\"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: \"demo-binding-test.example.com\"
spec:
  policyName: \"demo-policy.example.com\"
  validationActions: [Deny]
",
    );
    s.kubectl_ok(&["apply", "-f", &files]);
    refused(
        &s.kubectl(&[
            "create",
            "deploy",
            "--image=nginx",
            "nginx",
            "--replicas=10",
        ]),
        "error: failed to create deployment: deployments.apps \"nginx\" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5\n",
    );
    // A message edited with `kubectl patch`: the spec's generation moves on.
    assert_eq!(
        s.kubectl_ok(&[
            "patch",
            "validatingadmissionpolicy",
            "demo-policy.example.com",
            "--type=merge",
            "-p",
            r#"{"spec":{"validations":[{"expression":"object.spec.replicas <= 5","messageExpression":"'replicas: ' + string(object.spec.replicas)"}]}}"#,
        ]),
        "validatingadmissionpolicy.admissionregistration.k8s.io/demo-policy.example.com patched\n"
    );
    let policy = s
        .get("validatingadmissionpolicies", "", "demo-policy.example.com")
        .unwrap();
    assert_eq!(policy["metadata"]["generation"], 2);
    assert_eq!(policy["spec"]["failurePolicy"], "Fail");
    refused(
        &s.kubectl(&[
            "create",
            "deploy",
            "--image=nginx",
            "nginx",
            "--replicas=10",
        ]),
        "error: failed to create deployment: deployments.apps \"nginx\" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: replicas: 10\n",
    );
    // A binding that names an action twice is refused as upstream refuses it.
    refused(
        &s.kubectl(&[
            "patch",
            "validatingadmissionpolicybinding",
            "demo-binding-test.example.com",
            "--type=merge",
            "-p",
            r#"{"spec":{"validationActions":["Deny","Warn"]}}"#,
        ]),
        "The ValidatingAdmissionPolicyBinding \"demo-binding-test.example.com\" is invalid: spec.validationActions: Invalid value: [\"Deny\",\"Warn\"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)\n",
    );
    assert_eq!(
        s.kubectl_ok(&[
            "delete",
            "validatingadmissionpolicy",
            "demo-policy.example.com"
        ]),
        "validatingadmissionpolicy.admissionregistration.k8s.io \"demo-policy.example.com\" deleted\n"
    );
    assert_eq!(
        s.kubectl_ok(&[
            "create",
            "deploy",
            "--image=nginx",
            "nginx",
            "--replicas=10"
        ]),
        "deployment.apps/nginx created\n"
    );
}

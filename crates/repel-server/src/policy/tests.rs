//! The dispatcher against upstream's integration tests of the plugin
//! (test/integration/apiserver/cel/validatingadmissionpolicy_test.go:
//! `Test_ValidateNamespace_WithoutParams`, `Test_ValidateAnnotationsAndWarnings`), case names
//! verbatim: a policy and a binding stored, one request, the error's message and reason (and the
//! warnings). Upstream's helpers: `withNamespaceMatch` matches CREATE of `namespaces`,
//! `withConfigMapMatch` of `configmaps`, `makeBinding` binds with `validationActions: [Deny]`
//! and the param named (none here).

use serde_json::{Value, json};

use super::*;
use crate::registry::find;
use crate::store::Store;

fn make_policy(name: &str, fail: &str, resource: &str, validations: Value) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {
            "failurePolicy": fail,
            "matchConstraints": {"resourceRules": [{
                "operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": [resource],
            }]},
            "validations": validations,
        },
    })
}

fn make_binding(name: &str, policy: &str, actions: Value) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {"policyName": policy, "validationActions": actions},
    })
}

fn store_with(policies: &[Value], bindings: &[Value]) -> Store {
    let store = Store::in_memory();
    for (key, objs) in [(POLICIES, policies), (BINDINGS, bindings)] {
        for o in objs {
            let mut o = o.clone();
            if key == POLICIES {
                validation::set_policy_defaults(&mut o);
            }
            store.create(key, o).expect("stored");
        }
    }
    store
}

/// A CREATE of `obj` (a `resource` of the core group) in `ns`: the warnings, or the denial's
/// code and Status.
fn create(store: &Store, resource: &str, ns: &str, obj: &Value) -> Result<Vec<String>, ApiError> {
    let r = find("", resource).expect("served");
    let Some(gate) = Gate::load(store, ns) else {
        return Ok(Vec::new());
    };
    let a = Attributes {
        operation: "CREATE",
        resource: &r,
        subresource: "",
        namespace: ns,
        name: obj["metadata"]["name"].as_str().unwrap_or(""),
        object: Some(obj),
        old: None,
        namespace_object: &gate.namespace,
        dry_run: false,
    };
    gate.admit(&a)
}

fn namespace(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
}

/// (name, expression, reason, failurePolicy, namespace name, expected error, expected reason)
type NamespaceCase = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

#[test]
fn validate_namespace_without_params() {
    let cases: Vec<NamespaceCase> = vec![
        (
            "namespace name contains suffix enforced by validating admission policy, using object metadata fields",
            "object.metadata.name.endsWith('k8s')",
            None,
            "Fail",
            "test-k8s",
            "",
            "",
        ),
        (
            "namespace name does NOT contain suffix enforced by validating admission policyusing, object metadata fields",
            "object.metadata.name.endsWith('k8s')",
            None,
            "Fail",
            "test-foobar",
            "namespaces \"test-foobar\" is forbidden: ValidatingAdmissionPolicy 'validate-namespace-suffix' with binding 'validate-namespace-suffix-binding' denied request: failed expression: object.metadata.name.endsWith('k8s')",
            "Invalid",
        ),
        (
            "namespace name does NOT contain suffix enforced by validating admission policy using object metadata fields, AND validating expression returns StatusReasonForbidden",
            "object.metadata.name.endsWith('k8s')",
            Some("Forbidden"),
            "Fail",
            "forbidden-test-foobar",
            "namespaces \"forbidden-test-foobar\" is forbidden: ValidatingAdmissionPolicy 'validate-namespace-suffix' with binding 'validate-namespace-suffix-binding' denied request: failed expression: object.metadata.name.endsWith('k8s')",
            "Forbidden",
        ),
        (
            "namespace name contains suffix enforced by validating admission policy, using request field",
            "request.name.endsWith('k8s')",
            None,
            "Fail",
            "test-k8s",
            "",
            "",
        ),
        (
            "runtime error when validating namespace, but failurePolicy=Ignore",
            "object.nonExistentProperty == 'someval'",
            None,
            "Ignore",
            "test-k8s",
            "",
            "",
        ),
        (
            "runtime error when validating namespace, but failurePolicy=Fail",
            "object.nonExistentProperty == 'someval'",
            None,
            "Fail",
            "test-k8s",
            "namespaces \"test-k8s\" is forbidden: ValidatingAdmissionPolicy 'validate-namespace-suffix' with binding 'validate-namespace-suffix-binding' denied request: expression 'object.nonExistentProperty == 'someval'' resulted in error: no such key: nonExistentProperty",
            "Invalid",
        ),
        (
            "with check against namespaceObject",
            "namespaceObject == null",
            None,
            "Fail",
            "test-k8s",
            "",
            "",
        ),
    ];
    for (name, expression, reason, fail, ns_name, err, failure_reason) in cases {
        let mut validation = json!({"expression": expression});
        if let Some(r) = reason {
            validation["reason"] = json!(r);
        }
        let store = store_with(
            &[make_policy(
                "validate-namespace-suffix",
                fail,
                "namespaces",
                json!([validation]),
            )],
            &[make_binding(
                "validate-namespace-suffix-binding",
                "validate-namespace-suffix",
                json!(["Deny"]),
            )],
        );
        let got = create(&store, "namespaces", "", &namespace(ns_name));
        match got {
            Ok(w) => {
                assert_eq!(err, "", "{name}: admitted, expected {err}");
                assert!(w.is_empty(), "{name}: {w:?}");
            }
            Err(ApiError(code, st)) => {
                assert_eq!(st["message"], json!(err), "{name}");
                assert_eq!(st["reason"], json!(failure_reason), "{name}");
                assert_eq!(code, reason_to_code(failure_reason), "{name}");
                assert_eq!(st["code"], json!(code), "{name}");
            }
        }
    }
}

/// Upstream's cases with params, run on a policy with a `paramKind` and a binding without a
/// `paramRef`: `params` is null, as upstream evaluates it.
#[test]
fn validate_namespace_with_null_params() {
    let cases = [
        (
            "runtime error due to unguarded params",
            "object.metadata.name.startsWith(params.metadata.name)",
            "namespaces \"test-k8s\" is forbidden: ValidatingAdmissionPolicy 'validate-namespace-suffix' with binding 'validate-namespace-suffix-binding' denied request: expression 'object.metadata.name.startsWith(params.metadata.name)' resulted in error: no such key: metadata",
        ),
        (
            "with check against null params",
            "(params != null && object.metadata.name.endsWith(params.metadata.name))",
            "namespaces \"test-k8s\" is forbidden: ValidatingAdmissionPolicy 'validate-namespace-suffix' with binding 'validate-namespace-suffix-binding' denied request: failed expression: (params != null && object.metadata.name.endsWith(params.metadata.name))",
        ),
        (
            "with check against null params and default check",
            "(params != null && object.metadata.name.startsWith(params.metadata.name)) || object.metadata.name.endsWith('k8s')",
            "",
        ),
    ];
    for (name, expression, err) in cases {
        let mut policy = make_policy(
            "validate-namespace-suffix",
            "Fail",
            "namespaces",
            json!([{"expression": expression}]),
        );
        policy["spec"]["paramKind"] = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        let store = store_with(
            &[policy],
            &[make_binding(
                "validate-namespace-suffix-binding",
                "validate-namespace-suffix",
                json!(["Deny"]),
            )],
        );
        match create(&store, "namespaces", "", &namespace("test-k8s")) {
            Ok(_) => assert_eq!(err, "", "{name}: admitted"),
            Err(ApiError(_, st)) => assert_eq!(st["message"], json!(err), "{name}"),
        }
    }
}

#[test]
fn validate_annotations_and_warnings() {
    let configmap = |name: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}});
    let validations = json!([{"expression": "object.metadata.name.endsWith('k8s')"}]);

    // "with warn validationActions"
    let store = store_with(
        &[make_policy(
            "validate-actions-warn",
            "Fail",
            "configmaps",
            validations.clone(),
        )],
        &[make_binding(
            "validate-actions-warn-binding",
            "validate-actions-warn",
            json!(["Warn"]),
        )],
    );
    assert_eq!(
        create(&store, "configmaps", "default", &configmap("test4-nope")),
        Ok(vec!["Validation failed for ValidatingAdmissionPolicy 'validate-actions-warn' with binding 'validate-actions-warn-binding': failed expression: object.metadata.name.endsWith('k8s')".to_string()]),
        "with warn validationActions"
    );

    // "with audit validationActions": Deny and Audit deny (the audit annotation has no log).
    let store = store_with(
        &[make_policy(
            "validate-actions-audit",
            "Fail",
            "configmaps",
            validations,
        )],
        &[make_binding(
            "validate-actions-audit-binding",
            "validate-actions-audit",
            json!(["Deny", "Audit"]),
        )],
    );
    let Err(ApiError(code, st)) = create(&store, "configmaps", "default", &configmap("test5-nope"))
    else {
        panic!("with audit validationActions: admitted");
    };
    assert_eq!(code, 422);
    assert_eq!(
        st["message"],
        "configmaps \"test5-nope\" is forbidden: ValidatingAdmissionPolicy 'validate-actions-audit' with binding 'validate-actions-audit-binding' denied request: failed expression: object.metadata.name.endsWith('k8s')"
    );
}

/// The Status of a denial as `dispatcher.go` builds it: `admission.NewForbidden`'s details
/// (the group, the resource as `kind`, the name) and the denied message again as the one cause.
#[test]
fn a_denial_is_upstreams_status() {
    let store = store_with(
        &[make_policy(
            "p",
            "Fail",
            "configmaps",
            json!([{"expression": "false", "message": " no configmaps "}]),
        )],
        &[make_binding("b", "p", json!(["Deny"]))],
    );
    let obj = json!({"metadata": {"name": "x", "namespace": "default"}});
    let Err(ApiError(code, st)) = create(&store, "configmaps", "default", &obj) else {
        panic!("admitted");
    };
    let denied = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no configmaps";
    assert_eq!(code, 422);
    assert_eq!(
        st,
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": format!("configmaps \"x\" is forbidden: {denied}"),
            "reason": "Invalid",
            "details": {"name": "x", "kind": "configmaps", "causes": [{"message": denied}]},
            "code": 422,
        })
    );
}

/// `validator.go`: the message is the `messageExpression`'s string (trimmed), else `message`;
/// a non-string, multi-line or failing `messageExpression` falls back.
#[test]
fn messages_come_from_message_expression_then_message_then_the_expression() {
    let cases = [
        (
            json!({"expression": "false", "messageExpression": "'name ' + object.metadata.name + ' '"}),
            "name x",
        ),
        (
            json!({"expression": "false", "messageExpression": "object.nope", "message": "fixed"}),
            "fixed",
        ),
        (
            json!({"expression": "false", "messageExpression": "'a\\nb'", "message": "fixed"}),
            "fixed",
        ),
        (
            json!({"expression": "false", "messageExpression": "1"}),
            "failed expression: false",
        ),
        (json!({"expression": " false "}), "failed expression: false"),
    ];
    for (v, want) in cases {
        let store = store_with(
            &[make_policy("p", "Fail", "configmaps", json!([v.clone()]))],
            &[make_binding("b", "p", json!(["Warn"]))],
        );
        let obj = json!({"metadata": {"name": "x", "namespace": "default"}});
        let got = create(&store, "configmaps", "default", &obj);
        assert_eq!(got, Ok(vec![warning_message("p", "b", want)]), "{v}");
    }
}

/// A stored expression that does not compile (validation refuses one on write; one stored
/// before, or restored, is judged when it runs): `compilation error: …` under `Fail`,
/// admitted under `Ignore`.
#[test]
fn an_expression_that_does_not_compile_follows_the_failure_policy() {
    for (fail, denied) in [("Fail", true), ("Ignore", false)] {
        let store = store_with(
            &[make_policy(
                "p",
                fail,
                "configmaps",
                json!([{"expression": "object.spec."}]),
            )],
            &[make_binding("b", "p", json!(["Deny"]))],
        );
        let obj = json!({"metadata": {"name": "x", "namespace": "default"}});
        match create(&store, "configmaps", "default", &obj) {
            Err(ApiError(code, st)) => {
                assert!(denied, "{fail}: denied");
                assert_eq!(code, 422);
                assert_eq!(
                    st["message"],
                    "configmaps \"x\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: compilation error: compilation failed: ERROR: <input>:1:13: Syntax error: no viable alternative at input '.'\n | object.spec.\n | ............^"
                );
            }
            Ok(w) => assert!(!denied && w.is_empty(), "{fail}: admitted"),
        }
    }
}

/// `matchConditions`: a false one skips the policy; an error follows the failure policy.
#[test]
fn match_conditions_gate_the_validations() {
    let with = |cond: &str, fail: &str| {
        let mut p = make_policy("p", fail, "configmaps", json!([{"expression": "false"}]));
        p["spec"]["matchConditions"] = json!([{"name": "only-x", "expression": cond}]);
        let store = store_with(&[p], &[make_binding("b", "p", json!(["Deny"]))]);
        let obj = json!({"metadata": {"name": "x", "namespace": "default"}});
        create(&store, "configmaps", "default", &obj)
            .map_err(|ApiError(_, st)| st["message"].clone())
    };
    assert_eq!(with("object.metadata.name == 'y'", "Fail"), Ok(Vec::new()));
    assert_eq!(
        with("object.metadata.name == 'x'", "Fail"),
        Err(json!(
            "configmaps \"x\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: false"
        ))
    );
    assert_eq!(
        with("object.nope", "Fail"),
        Err(json!(
            "configmaps \"x\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.nope' resulted in error: no such key: nope"
        ))
    );
    assert_eq!(with("object.nope", "Ignore"), Ok(Vec::new()));
}

/// A binding's `matchResources` narrows the policy's constraints; a binding naming no stored
/// policy does nothing; admission configuration is never subject to policies.
#[test]
fn bindings_select_and_configuration_is_exempt() {
    let p = make_policy("p", "Fail", "configmaps", json!([{"expression": "false"}]));
    let mut scoped = make_binding("b", "p", json!(["Deny"]));
    scoped["spec"]["matchResources"] =
        json!({"objectSelector": {"matchLabels": {"checked": "yes"}}});
    let store = store_with(
        &[p],
        &[scoped, make_binding("orphan", "nope", json!(["Deny"]))],
    );
    let plain = json!({"metadata": {"name": "x", "namespace": "default"}});
    let labelled =
        json!({"metadata": {"name": "x", "namespace": "default", "labels": {"checked": "yes"}}});
    assert_eq!(
        create(&store, "configmaps", "default", &plain),
        Ok(Vec::new())
    );
    assert!(create(&store, "configmaps", "default", &labelled).is_err());
    let r = crate::registry::find("admissionregistration.k8s.io", POLICIES).expect("served");
    assert!(exempt(&r));
}

/// A DELETE sees `oldObject` and a null `object`; the denial names the object deleted
/// (`extractResourceName`: the request's name first).
#[test]
fn a_delete_is_judged_on_the_old_object() {
    let mut p = make_policy(
        "keep",
        "Fail",
        "configmaps",
        json!([{"expression": "object == null && oldObject.metadata.name != 'precious'", "message": "keep it"}]),
    );
    p["spec"]["matchConstraints"]["resourceRules"][0]["operations"] = json!(["DELETE"]);
    let store = store_with(&[p], &[make_binding("keep", "keep", json!(["Deny"]))]);
    let r = find("", "configmaps").expect("served");
    let gate = Gate::load(&store, "default").expect("bound");
    let old = json!({"metadata": {"name": "precious", "namespace": "default"}});
    let a = Attributes {
        operation: "DELETE",
        resource: &r,
        subresource: "",
        namespace: "default",
        name: "precious",
        object: None,
        old: Some(&old),
        namespace_object: &gate.namespace,
        dry_run: false,
    };
    let Err(ApiError(_, st)) = gate.admit(&a) else {
        panic!("deleted");
    };
    assert_eq!(
        st["message"],
        "configmaps \"precious\" is forbidden: ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: keep it"
    );
    let other = json!({"metadata": {"name": "other", "namespace": "default"}});
    let a = Attributes {
        name: "other",
        old: Some(&other),
        ..a
    };
    assert_eq!(gate.admit(&a), Ok(Vec::new()));
}

/// A Warn binding's warning goes out with another binding's denial, as upstream's warning
/// recorder sends it with the failure.
#[test]
fn warnings_go_out_with_a_denial() {
    let store = store_with(
        &[
            make_policy(
                "a-warn",
                "Fail",
                "configmaps",
                json!([{"expression": "false", "message": "careful"}]),
            ),
            make_policy(
                "b-deny",
                "Fail",
                "configmaps",
                json!([{"expression": "false", "message": "no"}]),
            ),
        ],
        &[
            make_binding("a-warn", "a-warn", json!(["Warn"])),
            make_binding("b-deny", "b-deny", json!(["Deny"])),
        ],
    );
    let r = find("", "configmaps").expect("served");
    let gate = Gate::load(&store, "default").expect("bound");
    let obj = json!({"metadata": {"name": "x", "namespace": "default"}});
    let a = Attributes {
        operation: "CREATE",
        resource: &r,
        subresource: "",
        namespace: "default",
        name: "x",
        object: Some(&obj),
        old: None,
        namespace_object: &gate.namespace,
        dry_run: false,
    };
    let mut warnings = Vec::new();
    assert!(gate.admit_into(&a, &mut warnings).is_err());
    assert_eq!(warnings, [warning_message("a-warn", "a-warn", "careful")]);
}

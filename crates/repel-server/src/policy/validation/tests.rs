//! Upstream's `TestValidateValidatingAdmissionPolicy` and
//! `TestValidateValidatingAdmissionPolicyBinding`
//! (pkg/apis/admissionregistration/validation/validation_test.go), case names verbatim: each
//! expected error is a substring of the aggregated errors (`errs.ToAggregate().Error()`), and
//! `""` means no error. The objects are upstream's, undefaulted, as JSON. A composite bad value
//! prints as JSON (`["*/*","a"]`), as `ErrorBody` prints it since v1.34, where the older test
//! file this was ported from shows Go syntax (`[]string{"*/*", "a"}`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::validation::meta;
use serde_json::{Value, json};

use super::*;

/// `field.ErrorList.ToAggregate().Error()`: one message, or `[a, b]`.
fn aggregate(errs: &[FieldError]) -> String {
    let msgs: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
    match msgs.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

fn meta_errors(kind: &str, obj: &Value) -> Vec<FieldError> {
    let m: ObjectMeta = serde_json::from_value(obj["metadata"].clone()).unwrap_or_default();
    meta::strategy_errors(kind, &m, false, None)
}

fn check(kind: &str, cases: &[(&str, Value, &str)], validate: fn(&Value) -> Vec<FieldError>) {
    for (name, obj, expected) in cases {
        let mut errs = meta_errors(kind, obj);
        errs.extend(validate(obj));
        let got = aggregate(&errs);
        if expected.is_empty() {
            assert!(errs.is_empty(), "{name}: unexpected errors: {got}");
        } else {
            assert!(
                got.contains(expected),
                "{name}:\n expected to contain: {expected}\n got: {got}"
            );
        }
    }
}

fn policy(spec: Value) -> Value {
    json!({"metadata": {"name": "config"}, "spec": spec})
}

fn rule(ops: Value, resources: Value) -> Value {
    json!({"operations": ops, "apiGroups": ["a"], "apiVersions": ["a"], "resources": resources})
}

fn full_match(rules: Value) -> Value {
    json!({
        "namespaceSelector": {"matchLabels": {"a": "b"}},
        "objectSelector": {"matchLabels": {"a": "b"}},
        "matchPolicy": "Exact",
        "resourceRules": rules,
    })
}

fn x_lt_100() -> Value {
    json!([{"expression": "object.x < 100"}])
}

#[test]
fn validate_validating_admission_policy() {
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "metadata.name validation",
            json!({"metadata": {"name": "!!!!"}}),
            r#"metadata.name: Invalid value: "!!!!":"#,
        ),
        (
            "failure policy validation",
            policy(json!({"failurePolicy": "other", "validations": x_lt_100()})),
            r#"spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore""#,
        ),
        (
            "failure policy validation",
            policy(json!({"failurePolicy": "other"})),
            r#"spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore""#,
        ),
        (
            "API version is required in ParamKind",
            policy(
                json!({"validations": x_lt_100(), "paramKind": {"kind": "Example", "apiVersion": "test.example.com"}}),
            ),
            r#"spec.paramKind.apiVersion: Invalid value: "test.example.com""#,
        ),
        (
            "API kind is required in ParamKind",
            policy(
                json!({"validations": x_lt_100(), "paramKind": {"apiVersion": "test.example.com/v1"}}),
            ),
            "spec.paramKind.kind: Required value",
        ),
        (
            "API version format in ParamKind",
            policy(
                json!({"validations": x_lt_100(), "paramKind": {"kind": "Example", "apiVersion": "test.example.com/!!!"}}),
            ),
            r#"pec.paramKind.apiVersion: Invalid value: "!!!":"#,
        ),
        (
            "API group format in ParamKind",
            policy(
                json!({"validations": x_lt_100(), "paramKind": {"apiVersion": "!!!/v1", "kind": "ReplicaLimit"}}),
            ),
            r#"pec.paramKind.apiVersion: Invalid value: "!!!":"#,
        ),
        (
            "Validations is required",
            policy(json!({})),
            "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        ),
        (
            "Invalid Validations Reason",
            policy(json!({"validations": [{"expression": "object.x < 100", "reason": "other"}]})),
            r#"spec.validations[0].reason: Unsupported value: "other""#,
        ),
        (
            "MatchConstraints is required",
            policy(json!({"validations": x_lt_100()})),
            "spec.matchConstraints: Required value",
        ),
        (
            "matchConstraints.resourceRules is required",
            policy(json!({"validations": x_lt_100(), "matchConstraints": {}})),
            "spec.matchConstraints.resourceRules: Required value",
        ),
        (
            "matchConstraints.resourceRules has at least one explicit rule",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}}),
            ),
            "spec.matchConstraints.resourceRules[0].apiVersions: Required value",
        ),
        (
            "expression is required",
            policy(json!({"validations": [{}]})),
            "spec.validations[0].expression: Required value: expression is not specified",
        ),
        (
            "matchResources resourceNames check",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}}),
            ),
            r#"spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "/./.""#,
        ),
        (
            "matchResources resourceNames cannot duplicate",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [{"resourceNames": ["test", "test"]}]}}),
            ),
            r#"spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "test""#,
        ),
        (
            "matchResources validation: matchPolicy",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"matchPolicy": "other"}}),
            ),
            r#"spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact""#,
        ),
        (
            "Operations must not be empty or nil",
            policy(json!({
                "validations": x_lt_100(),
                "failurePolicy": "Fail",
                "matchConstraints": {
                    "namespaceSelector": {"matchLabels": {"a": "b"}},
                    "objectSelector": {"matchLabels": {"a": "b"}},
                    "matchPolicy": "Exact",
                    "resourceRules": [rule(json!([]), json!(["a"])), rule(Value::Null, json!(["a"]))],
                    "excludeResourceRules": [rule(json!([]), json!(["a"])), rule(Value::Null, json!(["a"]))],
                },
            })),
            "spec.matchConstraints.resourceRules[0].operations: Required value, spec.matchConstraints.resourceRules[1].operations: Required value, spec.matchConstraints.excludeResourceRules[0].operations: Required value, spec.matchConstraints.excludeResourceRules[1].operations: Required value",
        ),
        (
            "\"\" is NOT a valid operation",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [rule(json!(["CREATE", ""]), json!(["a"]))]}}),
            ),
            r#"Unsupported value: """#,
        ),
        (
            "operation must be either create/update/delete/connect",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [rule(json!(["PATCH"]), json!(["a"]))]}}),
            ),
            r#"Unsupported value: "PATCH""#,
        ),
        (
            "wildcard operation cannot be mixed with other strings",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [rule(json!(["CREATE", "*"]), json!(["a"]))]}}),
            ),
            "if '*' is present, must not specify other operations",
        ),
        (
            r#"resource "*" can co-exist with resources that have subresources"#,
            policy(
                json!({"failurePolicy": "Fail", "validations": x_lt_100(), "matchConstraints": full_match(json!([rule(json!(["CREATE"]), json!(["*", "a/b", "a/*", "*/b"]))]))}),
            ),
            "",
        ),
        (
            r#"resource "*" cannot mix with resources that don't have subresources"#,
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [rule(json!(["CREATE"]), json!(["*", "a"]))]}}),
            ),
            "if '*' is present, must not specify other resources without subresources",
        ),
        (
            "resource a/* cannot mix with a/x",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [rule(json!(["CREATE"]), json!(["a/*", "a/x"]))]}}),
            ),
            r#"spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: "a/x": if 'a/*' is present, must not specify a/x"#,
        ),
        (
            "resource a/* can mix with a",
            policy(
                json!({"failurePolicy": "Fail", "validations": x_lt_100(), "matchConstraints": full_match(json!([rule(json!(["CREATE"]), json!(["a/*", "a"]))]))}),
            ),
            "",
        ),
        (
            "resource */a cannot mix with x/a",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [rule(json!(["CREATE"]), json!(["*/a", "x/a"]))]}}),
            ),
            r#"spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: "x/a": if '*/a' is present, must not specify x/a"#,
        ),
        (
            "resource */* cannot mix with other resources",
            policy(
                json!({"validations": x_lt_100(), "matchConstraints": {"resourceRules": [rule(json!(["CREATE"]), json!(["*/*", "a"]))]}}),
            ),
            r#"spec.matchConstraints.resourceRules[0].resources: Invalid value: ["*/*","a"]: if '*/*' is present, must not specify other resources"#,
        ),
        (
            "invalid expression",
            policy(
                json!({"validations": [{"expression": "object.x in [1, 2, "}], "matchConstraints": {"resourceRules": [rule(json!(["CREATE"]), json!(["*/*"]))]}}),
            ),
            r#"spec.validations[0].expression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>"#,
        ),
        (
            "invalid messageExpression",
            policy(
                json!({"validations": [{"expression": "true", "messageExpression": "object.x in [1, 2, "}], "matchConstraints": {"resourceRules": [rule(json!(["CREATE"]), json!(["*/*"]))]}}),
            ),
            r#"spec.validations[0].messageExpression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>"#,
        ),
        (
            "messageExpression of wrong type",
            policy(
                json!({"validations": [{"expression": "true", "messageExpression": "0 == 0"}], "matchConstraints": {"resourceRules": [rule(json!(["CREATE"]), json!(["*/*"]))]}}),
            ),
            r#"spec.validations[0].messageExpression: Invalid value: "0 == 0": must evaluate to string"#,
        ),
        (
            "invalid auditAnnotations key due to key name",
            policy(json!({"auditAnnotations": [{"key": "@", "valueExpression": "value"}]})),
            r#"spec.auditAnnotations[0].key: Invalid value: "config/@": name part must consist of alphanumeric characters"#,
        ),
        (
            "auditAnnotations keys must be unique",
            policy(
                json!({"auditAnnotations": [{"key": "a", "valueExpression": "'1'"}, {"key": "a", "valueExpression": "'2'"}]}),
            ),
            r#"spec.auditAnnotations[1].key: Duplicate value: "a""#,
        ),
        (
            "invalid auditAnnotations key due to metadata.name",
            json!({"metadata": {"name": "nope!"}, "spec": {"auditAnnotations": [{"key": "key", "valueExpression": "'value'"}]}}),
            r#"spec.auditAnnotations[0].key: Invalid value: "nope!/key": prefix part a lowercase RFC 1123 subdomain"#,
        ),
        (
            "invalid auditAnnotations key due to length",
            json!({"metadata": {"name": "this-is-a-long-name-for-a-admission-policy-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}, "spec": {"auditAnnotations": [{"key": "this-is-a-long-name-for-an-audit-annotation-key-xxxxxxxxxxxxxxxxxxxxxxxxxx", "valueExpression": "'value'"}]}}),
            "spec.auditAnnotations[0].key: Invalid value",
        ),
        (
            "invalid auditAnnotations valueExpression type",
            policy(json!({"auditAnnotations": [{"key": "something", "valueExpression": "true"}]})),
            r#"spec.auditAnnotations[0].valueExpression: Invalid value: "true": must evaluate to one of [string null_type]"#,
        ),
        (
            "invalid auditAnnotations valueExpression",
            policy(
                json!({"auditAnnotations": [{"key": "something", "valueExpression": "object.x in [1, 2, "}]}),
            ),
            r#"spec.auditAnnotations[0].valueExpression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>"#,
        ),
        (
            "single match condition must have a name",
            policy(json!({"matchConditions": [{"expression": "true"}], "validations": x_lt_100()})),
            "spec.matchConditions[0].name: Required value",
        ),
        (
            "match condition with parameters allowed",
            policy(json!({
                "paramKind": {"kind": "Foo", "apiVersion": "foobar/v1alpha1"},
                "matchConstraints": full_match(json!([rule(json!(["*"]), json!(["a"]))])),
                "failurePolicy": "Fail",
                "matchConditions": [{"name": "hasParams", "expression": "params.foo == \"okay\""}],
                "validations": x_lt_100(),
            })),
            "",
        ),
        (
            "match condition with parameters not allowed if no param kind",
            policy(json!({
                "matchConstraints": full_match(json!([rule(json!(["*"]), json!(["a"]))])),
                "failurePolicy": "Fail",
                "matchConditions": [{"name": "hasParams", "expression": "params.foo == \"okay\""}],
                "validations": x_lt_100(),
            })),
            "undeclared reference to 'params'",
        ),
        (
            "variable composition empty name",
            policy(
                json!({"variables": [{"name": "    ", "expression": "true"}], "validations": [{"expression": "true"}]}),
            ),
            "spec.variables[0].name: Required value: name is not specified",
        ),
        (
            "variable composition name is not a valid identifier",
            policy(
                json!({"variables": [{"name": "4ever", "expression": "true"}], "validations": [{"expression": "true"}]}),
            ),
            r#"spec.variables[0].name: Invalid value: "4ever": name is not a valid CEL identifier"#,
        ),
    ];
    check("ValidatingAdmissionPolicy", &cases, validate_policy);
}

/// Upstream's case `variable composition cannot compile` needs a type checker (`114 + '514'`
/// is `found no matching overload for '_+_' applied to '(int, string)'` at creation there):
/// repel stores the policy, and the expression fails when it runs.
#[test]
fn type_errors_are_found_when_the_expression_runs_not_on_create() {
    let obj = policy(json!({
        "failurePolicy": "Fail",
        "matchConstraints": full_match(json!([rule(json!(["*"]), json!(["a"]))])),
        "variables": [{"name": "foo", "expression": "114 + '514'"}],
        "validations": [{"expression": "true"}],
    }));
    assert!(validate_policy(&obj).is_empty());
}

fn binding(spec: Value) -> Value {
    let mut s = json!({
        "policyName": "xyzlimit-scale.example.com",
        "paramRef": {"name": "xyzlimit-scale-setting.example.com", "parameterNotFoundAction": "Deny"},
    });
    if let (Some(m), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
        for (k, v) in extra {
            m.insert(k.clone(), v.clone());
        }
    }
    json!({"metadata": {"name": "config"}, "spec": s})
}

#[test]
fn validate_validating_admission_policy_binding() {
    let deny = json!(["Deny"]);
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "\"\" is NOT a valid operation",
            binding(
                json!({"matchResources": {"resourceRules": [rule(json!(["CREATE", ""]), json!(["a"]))]}}),
            ),
            r#"Unsupported value: """#,
        ),
        (
            "operation must be either create/update/delete/connect",
            binding(
                json!({"matchResources": {"resourceRules": [rule(json!(["PATCH"]), json!(["a"]))]}}),
            ),
            r#"Unsupported value: "PATCH""#,
        ),
        (
            "wildcard operation cannot be mixed with other strings",
            binding(
                json!({"validationActions": deny, "matchResources": {"resourceRules": [rule(json!(["CREATE", "*"]), json!(["a"]))]}}),
            ),
            "if '*' is present, must not specify other operations",
        ),
        (
            r#"resource "*" can co-exist with resources that have subresources"#,
            binding(
                json!({"validationActions": deny, "matchResources": full_match(json!([rule(json!(["CREATE"]), json!(["*", "a/b", "a/*", "*/b"]))]))}),
            ),
            "",
        ),
        (
            r#"resource "*" cannot mix with resources that don't have subresources"#,
            binding(
                json!({"validationActions": deny, "matchResources": {"resourceRules": [rule(json!(["CREATE"]), json!(["*", "a"]))]}}),
            ),
            "if '*' is present, must not specify other resources without subresources",
        ),
        (
            "resource a/* cannot mix with a/x",
            binding(
                json!({"validationActions": deny, "matchResources": {"resourceRules": [rule(json!(["CREATE"]), json!(["a/*", "a/x"]))]}}),
            ),
            r#"spec.matchResouces.resourceRules[0].resources[1]: Invalid value: "a/x": if 'a/*' is present, must not specify a/x"#,
        ),
        (
            "resource a/* can mix with a",
            binding(
                json!({"validationActions": deny, "matchResources": full_match(json!([rule(json!(["CREATE"]), json!(["a/*", "a"]))]))}),
            ),
            "",
        ),
        (
            "resource */a cannot mix with x/a",
            binding(
                json!({"validationActions": deny, "matchResources": {"resourceRules": [rule(json!(["CREATE"]), json!(["*/a", "x/a"]))]}}),
            ),
            r#"spec.matchResouces.resourceRules[0].resources[1]: Invalid value: "x/a": if '*/a' is present, must not specify x/a"#,
        ),
        (
            "resource */* cannot mix with other resources",
            binding(
                json!({"validationActions": deny, "matchResources": {"resourceRules": [rule(json!(["CREATE"]), json!(["*/*", "a"]))]}}),
            ),
            r#"spec.matchResouces.resourceRules[0].resources: Invalid value: ["*/*","a"]: if '*/*' is present, must not specify other resources"#,
        ),
        (
            "validationActions must be unique",
            binding(json!({"validationActions": ["Deny", "Deny"]})),
            r#"spec.validationActions[1]: Duplicate value: "Deny""#,
        ),
        (
            "validationActions must contain supported values",
            binding(json!({"validationActions": ["illegal"]})),
            r#"Unsupported value: "illegal": supported values: "Audit", "Deny", "Warn""#,
        ),
        (
            "paramRef selector must not be set when name is set",
            binding(
                json!({"validationActions": deny, "paramRef": {"name": "xyzlimit-scale-setting.example.com", "selector": {"matchLabels": {"label": "value"}}, "parameterNotFoundAction": "Deny"}}),
            ),
            "spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
        ),
        (
            "paramRef parameterNotFoundAction must be set",
            binding(
                json!({"validationActions": deny, "paramRef": {"name": "xyzlimit-scale-setting.example.com"}}),
            ),
            "spec.paramRef.parameterNotFoundAction: Required value",
        ),
        (
            "paramRef parameterNotFoundAction must be an valid value",
            binding(
                json!({"validationActions": deny, "paramRef": {"name": "xyzlimit-scale-setting.example.com", "parameterNotFoundAction": "invalid"}}),
            ),
            r#"spec.paramRef.parameterNotFoundAction: Unsupported value: "invalid": supported values: "Deny", "Allow""#,
        ),
        (
            "paramRef one of name or selector",
            binding(
                json!({"validationActions": deny, "paramRef": {"parameterNotFoundAction": "Deny"}}),
            ),
            "one of name or selector must be specified",
        ),
    ];
    check("ValidatingAdmissionPolicyBinding", &cases, validate_binding);
}

#[test]
fn deny_and_warn_together_are_refused() {
    let errs = validate_binding(&binding(json!({"validationActions": ["Deny", "Warn"]})));
    assert_eq!(
        aggregate(&errs),
        format!(r#"spec.validationActions: Invalid value: ["Deny","Warn"]: {DENY_AND_WARN}"#)
    );
}

#[test]
fn defaults_fill_what_upstream_defaults() {
    let mut p = policy(
        json!({"matchConstraints": {"resourceRules": [rule(json!(["CREATE"]), json!(["pods"]))]}, "validations": x_lt_100()}),
    );
    set_policy_defaults(&mut p);
    assert_eq!(p["spec"]["failurePolicy"], "Fail");
    assert_eq!(p["spec"]["matchConstraints"]["matchPolicy"], "Equivalent");
    assert_eq!(
        p["spec"]["matchConstraints"]["namespaceSelector"],
        json!({})
    );
    assert_eq!(p["spec"]["matchConstraints"]["objectSelector"], json!({}));
    assert_eq!(
        p["spec"]["matchConstraints"]["resourceRules"][0]["scope"],
        "*"
    );
    assert!(validate_policy(&p).is_empty(), "{:?}", validate_policy(&p));
}

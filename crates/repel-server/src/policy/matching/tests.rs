use serde_json::{Value, json};

use super::*;
use crate::resources::find;

fn attrs<'a>(
    r: &'a crate::resources::Resource,
    op: &'a str,
    sub: &'a str,
    ns: &'a str,
    obj: &'a Value,
    ns_obj: &'a Value,
) -> Attributes<'a> {
    Attributes {
        operation: op,
        resource: r,
        subresource: sub,
        namespace: ns,
        name: obj["metadata"]["name"].as_str().unwrap_or(""),
        object: Some(obj),
        old: None,
        namespace_object: ns_obj,
        dry_run: false,
    }
}

fn m(v: Value) -> MatchResources {
    serde_json::from_value(v).expect("match resources")
}

#[test]
fn rules_match_as_upstreams_rule_matcher() {
    let deploy = find("apps", "deployments").expect("served");
    let ns = find("", "namespaces").expect("served");
    let nodes = find("", "nodes").expect("served");
    let obj = json!({"metadata": {"name": "web", "labels": {"team": "a"}}});
    let team_a = json!({"metadata": {"name": "prod", "labels": {"env": "prod"}}});
    let rule = |ops: Value, res: Value| json!({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ops, "resources": res}]});
    let cases: Vec<(&str, Value, Attributes, bool)> = vec![
        (
            "the resource and operation named match",
            rule(json!(["CREATE"]), json!(["deployments"])),
            attrs(&deploy, "CREATE", "", "prod", &obj, &team_a),
            true,
        ),
        (
            "another operation does not",
            rule(json!(["CREATE"]), json!(["deployments"])),
            attrs(&deploy, "UPDATE", "", "prod", &obj, &team_a),
            false,
        ),
        (
            "* matches every operation",
            rule(json!(["*"]), json!(["deployments"])),
            attrs(&deploy, "DELETE", "", "prod", &obj, &team_a),
            true,
        ),
        (
            "a resource does not match its subresource",
            rule(json!(["UPDATE"]), json!(["deployments"])),
            attrs(&deploy, "UPDATE", "status", "prod", &obj, &team_a),
            false,
        ),
        (
            "res/* matches its subresources",
            rule(json!(["UPDATE"]), json!(["deployments/*"])),
            attrs(&deploy, "UPDATE", "status", "prod", &obj, &team_a),
            true,
        ),
        (
            "*/status matches every status",
            rule(json!(["UPDATE"]), json!(["*/status"])),
            attrs(&deploy, "UPDATE", "status", "prod", &obj, &team_a),
            true,
        ),
        (
            "another group does not match",
            json!({"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["*"]}]}),
            attrs(&deploy, "CREATE", "", "prod", &obj, &team_a),
            false,
        ),
        (
            "resourceNames restrict by name",
            json!({"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"], "resourceNames": ["other"]}]}),
            attrs(&deploy, "CREATE", "", "prod", &obj, &team_a),
            false,
        ),
        (
            "Cluster scope does not match a namespaced request",
            json!({"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"], "scope": "Cluster"}]}),
            attrs(&deploy, "CREATE", "", "prod", &obj, &team_a),
            false,
        ),
        (
            "Cluster scope matches a Namespace",
            json!({"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"], "scope": "Cluster"}]}),
            attrs(&ns, "CREATE", "", "", &obj, &Value::Null),
            true,
        ),
        (
            "excludeResourceRules win",
            json!({"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}], "excludeResourceRules": [{"apiGroups": ["apps"], "apiVersions": ["*"], "operations": ["*"], "resources": ["deployments"]}]}),
            attrs(&deploy, "CREATE", "", "prod", &obj, &team_a),
            false,
        ),
        (
            "namespaceSelector selects the namespace's labels",
            json!({"namespaceSelector": {"matchLabels": {"env": "prod"}}}),
            attrs(&deploy, "CREATE", "", "prod", &obj, &team_a),
            true,
        ),
        (
            "namespaceSelector not matching skips",
            json!({"namespaceSelector": {"matchLabels": {"env": "dev"}}}),
            attrs(&deploy, "CREATE", "", "prod", &obj, &team_a),
            false,
        ),
        (
            "a cluster-scoped request other than a Namespace ignores namespaceSelector",
            json!({"namespaceSelector": {"matchLabels": {"env": "dev"}}}),
            attrs(&nodes, "CREATE", "", "", &obj, &Value::Null),
            true,
        ),
        (
            "a Namespace is selected by its own labels",
            json!({"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "Exists"}]}}),
            attrs(&ns, "CREATE", "", "", &obj, &Value::Null),
            true,
        ),
        (
            "objectSelector selects the object's labels",
            json!({"objectSelector": {"matchLabels": {"team": "b"}}}),
            attrs(&deploy, "CREATE", "", "prod", &obj, &team_a),
            false,
        ),
    ];
    for (name, mr, a, want) in cases {
        assert_eq!(matches(&m(mr), &a), want, "{name}");
    }
}

use serde_json::{Value, json};

use super::*;
use crate::registry::find;

fn attrs<'a>(
    r: &'a crate::registry::ApiResource,
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

/// Upstream's rules_test.go (webhook/predicates/rules): `TestGroup`, `TestVersion`,
/// `TestOperation`, `TestResource`, `TestScope`, case names verbatim. Each rule sets only the
/// part its test checks; `a` is a namespaced request (`ns`), `cluster` a cluster-scoped one.
mod upstream_rules {
    use super::*;

    type Req = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    );

    fn a(
        g: &'static str,
        v: &'static str,
        r: &'static str,
        sub: &'static str,
        op: &'static str,
    ) -> Req {
        (g, v, r, sub, "ns", op)
    }

    fn cluster(g: &'static str, v: &'static str, r: &'static str, sub: &'static str) -> Req {
        (g, v, r, sub, "", "CREATE")
    }

    fn req(r: &Req) -> RuleRequest<'static> {
        RuleRequest {
            group: r.0,
            version: r.1,
            resource: r.2,
            subresource: r.3,
            namespace: r.4,
            operation: r.5,
        }
    }

    fn run(
        test: &str,
        part: fn(&NamedRuleWithOperations, &RuleRequest) -> bool,
        cases: Vec<(&str, Value, Vec<Req>, Vec<Req>)>,
    ) {
        for (name, rule, matching, not) in cases {
            let rule: NamedRuleWithOperations = serde_json::from_value(rule).expect("rule");
            for m in &matching {
                assert!(part(&rule, &req(m)), "{test} {name}: expected match {m:?}");
            }
            for m in &not {
                assert!(
                    !part(&rule, &req(m)),
                    "{test} {name}: expected no match {m:?}"
                );
            }
        }
    }

    #[test]
    fn group() {
        run(
            "TestGroup",
            group_matches,
            vec![
                (
                    "wildcard",
                    json!({"apiGroups": ["*"]}),
                    vec![a("g", "v", "r", "", "CREATE")],
                    vec![],
                ),
                (
                    "exact",
                    json!({"apiGroups": ["g1", "g2"]}),
                    vec![
                        a("g1", "v", "r", "", "CREATE"),
                        a("g2", "v2", "r3", "", "CREATE"),
                    ],
                    vec![
                        a("g3", "v", "r", "", "CREATE"),
                        a("g4", "v", "r", "", "CREATE"),
                    ],
                ),
            ],
        );
    }

    #[test]
    fn version() {
        run(
            "TestVersion",
            version_matches,
            vec![
                (
                    "wildcard",
                    json!({"apiVersions": ["*"]}),
                    vec![a("g", "v", "r", "", "CREATE")],
                    vec![],
                ),
                (
                    "exact",
                    json!({"apiVersions": ["v1", "v2"]}),
                    vec![
                        a("g1", "v1", "r", "", "CREATE"),
                        a("g2", "v2", "r", "", "CREATE"),
                    ],
                    vec![
                        a("g1", "v3", "r", "", "CREATE"),
                        a("g2", "v4", "r", "", "CREATE"),
                    ],
                ),
            ],
        );
    }

    #[test]
    fn operation() {
        let op = |o| a("g", "v", "r", "", o);
        run(
            "TestOperation",
            operation_matches,
            vec![
                (
                    "wildcard",
                    json!({"operations": ["*"]}),
                    vec![op("CREATE"), op("UPDATE"), op("DELETE"), op("CONNECT")],
                    vec![],
                ),
                (
                    "create",
                    json!({"operations": ["CREATE"]}),
                    vec![op("CREATE")],
                    vec![op("UPDATE"), op("DELETE"), op("CONNECT")],
                ),
                (
                    "update",
                    json!({"operations": ["UPDATE"]}),
                    vec![op("UPDATE")],
                    vec![op("CREATE"), op("DELETE"), op("CONNECT")],
                ),
                (
                    "delete",
                    json!({"operations": ["DELETE"]}),
                    vec![op("DELETE")],
                    vec![op("CREATE"), op("UPDATE"), op("CONNECT")],
                ),
                (
                    "connect",
                    json!({"operations": ["CONNECT"]}),
                    vec![op("CONNECT")],
                    vec![op("CREATE"), op("UPDATE"), op("DELETE")],
                ),
                (
                    "multiple",
                    json!({"operations": ["UPDATE", "DELETE"]}),
                    vec![op("UPDATE"), op("DELETE")],
                    vec![op("CREATE"), op("CONNECT")],
                ),
            ],
        );
    }

    #[test]
    fn resource() {
        let c = |g, r, sub| a(g, "v", r, sub, "CREATE");
        run(
            "TestResource",
            resource_matches,
            vec![
                (
                    "no subresources",
                    json!({"resources": ["*"]}),
                    vec![c("g", "r", ""), c("2", "r2", "")],
                    vec![c("g", "r", "exec"), c("2", "r2", "proxy")],
                ),
                (
                    "r & subresources",
                    json!({"resources": ["r/*"]}),
                    vec![c("g", "r", ""), c("g", "r", "exec")],
                    vec![c("2", "r2", ""), c("2", "r2", "proxy")],
                ),
                (
                    "r & subresources or r2",
                    json!({"resources": ["r/*", "r2"]}),
                    vec![c("g", "r", ""), c("g", "r", "exec"), c("2", "r2", "")],
                    vec![c("2", "r2", "proxy")],
                ),
                (
                    "proxy or exec",
                    json!({"resources": ["*/proxy", "*/exec"]}),
                    vec![
                        c("g", "r", "exec"),
                        c("2", "r2", "proxy"),
                        c("2", "r3", "proxy"),
                    ],
                    vec![c("g", "r", ""), c("2", "r2", ""), c("2", "r4", "scale")],
                ),
            ],
        );
    }

    #[test]
    fn scope() {
        let ns = |g, v, r, sub| a(g, v, r, sub, "CREATE");
        run(
            "TestScope",
            scope_matches,
            vec![
                (
                    "cluster scope",
                    json!({"resources": ["*"], "scope": "Cluster"}),
                    vec![
                        cluster("g", "v", "r", ""),
                        cluster("g", "v", "r", "exec"),
                        cluster("", "v1", "namespaces", ""),
                        cluster("", "v1", "namespaces", "finalize"),
                        ns("", "v1", "namespaces", ""),
                        ns("", "v1", "namespaces", "finalize"),
                    ],
                    vec![ns("g", "v", "r", ""), ns("g", "v", "r", "exec")],
                ),
                (
                    "namespace scope",
                    json!({"resources": ["*"], "scope": "Namespaced"}),
                    vec![ns("g", "v", "r", ""), ns("g", "v", "r", "exec")],
                    vec![
                        cluster("", "v1", "namespaces", ""),
                        cluster("", "v1", "namespaces", "finalize"),
                        ns("", "v1", "namespaces", ""),
                        ns("", "v1", "namespaces", "finalize"),
                        cluster("g", "v", "r", ""),
                        cluster("g", "v", "r", "exec"),
                    ],
                ),
                (
                    "all scopes",
                    json!({"resources": ["*"], "scope": "*"}),
                    vec![
                        ns("g", "v", "r", ""),
                        ns("g", "v", "r", "exec"),
                        cluster("g", "v", "r", ""),
                        cluster("g", "v", "r", "exec"),
                        cluster("", "v1", "namespaces", ""),
                        cluster("", "v1", "namespaces", "finalize"),
                        ns("", "v1", "namespaces", ""),
                        ns("", "v1", "namespaces", "finalize"),
                    ],
                    vec![],
                ),
            ],
        );
    }
}

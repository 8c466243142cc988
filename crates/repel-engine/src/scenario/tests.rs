//! Scenario parsing: the design's example scenario (a kubectl taint, a node condition, an
//! apply, an expectation), each field, and every error naming its field.

use serde_json::{Value, json};

use super::*;

fn errors(v: Value) -> Vec<String> {
    match parse_scenario(&v) {
        Ok(s) => panic!("expected errors, got {s:?}"),
        Err(e) => e.errors.iter().map(ToString::to_string).collect(),
    }
}

fn ok(v: Value) -> Scenario {
    match parse_scenario(&v) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn with(extra: Value) -> Value {
    let mut v = json!({"kind": "Scenario"});
    if let (Value::Object(o), Value::Object(e)) = (&mut v, extra) {
        o.extend(e);
    }
    v
}

#[test]
fn design_md_example_scenario() {
    let s = ok(json!({
        "kind": "Scenario",
        "manifests": ["cluster.yaml"],
        "steps": [
            {"at": "0s", "kubectl": "taint nodes node1 key1=value1:NoExecute"},
            {"at": "10m", "node": {"name": "node2", "condition": {"type": "Ready", "status": "Unknown"}}},
            {"at": "20m", "apply": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late"}}]}
        ],
        "until": "1h",
        "expect": [{"at": "10m", "pod": "default/web-0", "phase": "Running", "node": "node3"}]
    }));
    assert_eq!(s.manifests, ["cluster.yaml"]);
    assert_eq!(s.until, Some(3_600_000));
    assert_eq!(s.steps.len(), 3);
    assert_eq!(
        s.steps[0],
        Step {
            index: 0,
            at: 0,
            action: StepAction::Kubectl("taint nodes node1 key1=value1:NoExecute".into())
        }
    );
    assert_eq!(
        s.steps[1].action,
        StepAction::Node {
            name: "node2".into(),
            condition: Some(("Ready".into(), "Unknown".into())),
            heartbeats: None,
        }
    );
    assert_eq!(s.steps[1].at, 600_000);
    assert!(matches!(&s.steps[2].action, StepAction::Apply(objs) if objs.len() == 1));
    assert_eq!(
        s.expect,
        vec![Expectation::Pod {
            index: 0,
            at: 600_000,
            pod: "default/web-0".into(),
            phase: Some(ExpectedPhase::Running),
            node: Some("node3".into()),
            pool: None,
            terminating: None,
        }]
    );
    assert_eq!(s.flags, ControllerFlags::default());
    assert_eq!(s.feature_gates, FeatureGates::default());
}

#[test]
fn every_field() {
    let s = ok(json!({
        "apiVersion": "repel.dev/v1", "kind": "Scenario", "metadata": {"name": "outage"},
        "description": "a node goes away",
        "manifests": "one.yaml",
        "objects": [{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"}}]}, {"kind": "Pod"}],
        "featureGates": {"TaintTolerationComparisonOperators": true},
        "defaultNotReadyTolerationSeconds": 60, "defaultUnreachableTolerationSeconds": 30,
        "nodeMonitorGracePeriod": "50s", "nodeEvictionRate": 0.5, "secondaryNodeEvictionRate": 0.05,
        "unhealthyZoneThreshold": 0.6, "largeClusterSizeThreshold": 10, "percentageOfNodesToScore": 50,
        "enableAdmissionPlugins": ["ExtendedResourceToleration"],
        "disableAdmissionPlugins": "PodTolerationRestriction, DefaultTolerationSeconds",
        "seed": 7,
        "steps": [
            {"at": 30, "delete": ["pod/default/web-0", "node/n3", "deploy/web"]},
            {"advance": "5m"},
            {"node": {"name": "n", "heartbeats": false}},
            {"at": "1s", "kubectl": "cordon n"}
        ],
        "expect": [
            {"event": "TaintManagerEviction", "object": "pod/default/web-0", "by": "20m", "count": 1},
            {"event": "Scheduled", "at": 0},
            {"pod": "web-1", "phase": "Gone"}
        ],
        "until": "1h"
    }));
    assert_eq!(s.name.as_deref(), Some("outage"));
    assert_eq!(s.manifests, ["one.yaml"]);
    assert_eq!(s.objects.len(), 2, "a List is flattened");
    assert!(s.feature_gates.taint_toleration_comparison_operators);
    assert_eq!(
        s.flags,
        ControllerFlags {
            default_not_ready_toleration_seconds: 60,
            default_unreachable_toleration_seconds: 30,
            node_monitor_grace_period: Some(50_000),
            node_eviction_rate: Some(0.5),
            secondary_node_eviction_rate: Some(0.05),
            unhealthy_zone_threshold: Some(0.6),
            large_cluster_size_threshold: Some(10),
            percentage_of_nodes_to_score: Some(50),
            enable_admission_plugins: vec!["ExtendedResourceToleration".into()],
            disable_admission_plugins: vec![
                "PodTolerationRestriction".into(),
                "DefaultTolerationSeconds".into()
            ],
        }
    );
    assert_eq!(s.seed, Some(7));
    let times: Vec<(usize, Millis)> = s.steps.iter().map(|s| (s.index, s.at)).collect();
    assert_eq!(
        times,
        vec![(3, 1_000), (0, 30_000), (1, 330_000), (2, 330_000)],
        "sorted stably; advance counts from the previous step; no at means the previous step's time"
    );
    assert_eq!(
        s.steps[1].action,
        StepAction::Delete(vec![
            ObjectRef {
                kind: "Pod".into(),
                namespace: Some("default".into()),
                name: "web-0".into()
            },
            ObjectRef {
                kind: "Node".into(),
                namespace: None,
                name: "n3".into()
            },
            ObjectRef {
                kind: "Deployment".into(),
                namespace: None,
                name: "web".into()
            },
        ])
    );
    assert_eq!(
        s.expect[0],
        Expectation::Event {
            index: 0,
            reason: "TaintManagerEviction".into(),
            object: Some("Pod/default/web-0".into()),
            at: None,
            by: Some(1_200_000),
            count: Some(1),
        }
    );
    assert_eq!(
        s.expect[2],
        Expectation::Pod {
            index: 2,
            at: 3_600_000,
            pod: "default/web-1".into(),
            phase: Some(ExpectedPhase::Gone),
            node: None,
            pool: None,
            terminating: None,
        },
        "a pod expectation without at is checked at until"
    );
}

#[test]
fn feature_gates_as_kubes_string() {
    let s = ok(with(
        json!({"featureGates": "TaintTolerationComparisonOperators=true"}),
    ));
    assert!(s.feature_gates.taint_toleration_comparison_operators);
}

#[test]
fn errors_name_the_field() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        ("a bad step time", with(json!({"steps": [{"at": "0s", "kubectl": "cordon n"}, {"at": "1m", "kubectl": "cordon n"}, {"at": "10x", "kubectl": "cordon n"}]})),
         vec!["steps[2].at: time: invalid duration \"10x\""]),
        ("a misspelt phase", with(json!({"expect": [{"at": "1m", "pod": "web", "phase": "Runing"}]})),
         vec!["expect[0].phase: unsupported value \"Runing\": supported values: \"Pending\", \"Running\", \"Failed\", \"Succeeded\", \"Gone\""]),
        ("a misspelt field gets a suggestion", with(json!({"steps": [{"at": "0s", "kubeclt": "cordon n"}]})),
         vec!["steps[0].kubeclt: unknown field (did you mean \"kubectl\"?)", "steps[0]: a step needs one of: kubectl, node, apply, delete, advance, az, aws"]),
        ("an unknown top-level field", with(json!({"untill": "1h"})), vec!["untill: unknown field (did you mean \"until\"?)"]),
        ("an unrelated unknown field", with(json!({"zzz": 1})), vec!["zzz: unknown field"]),
        ("a missing kind", json!({"steps": []}), vec!["kind: required value"]),
        ("another kind", json!({"kind": "Pod"}), vec!["kind: unsupported value \"Pod\": supported values: \"Scenario\""]),
        ("not a map", json!([1]), vec!["<root>: expected a map, got a list"]),
        ("two actions in a step", with(json!({"steps": [{"kubectl": "cordon n", "advance": "1m"}]})),
         vec!["steps[0]: a step takes one action, got kubectl, advance"]),
        ("advance with at", with(json!({"steps": [{"at": "1m", "advance": "1m"}]})),
         vec!["steps[0].advance: may not be combined with at: advance counts from the previous step"]),
        ("a negative time", with(json!({"until": -5})), vec!["until: must not be negative"]),
        ("a time of the wrong type", with(json!({"until": true})), vec!["until: expected a duration such as \"90s\" or a number of seconds, got a boolean"]),
        ("a step after until", with(json!({"until": "1h", "steps": [{"at": "2h", "kubectl": "cordon n"}]})),
         vec!["steps[0].at: 2h is after until (1h); the run stops at until"]),
        ("an expectation after until", with(json!({"until": "1h", "expect": [{"at": "90m", "pod": "a", "phase": "Running"}]})),
         vec!["expect[0].at: 1h30m is after until (1h); the run stops at until"]),
        ("a node step without a name or change", with(json!({"steps": [{"node": {"condition": {"type": "Ready", "status": "Down"}}}]})),
         vec!["steps[0].node.name: required value", "steps[0].node.condition.status: unsupported value \"Down\": supported values: \"True\", \"False\", \"Unknown\""]),
        ("a node step with nothing to change", with(json!({"steps": [{"node": {"name": "n"}}]})),
         vec!["steps[0].node: a node step needs condition or heartbeats"]),
        ("heartbeats must be a boolean", with(json!({"steps": [{"node": {"name": "n", "heartbeats": "no"}}]})),
         vec!["steps[0].node.heartbeats: expected a boolean, got a string"]),
        ("a bad delete reference", with(json!({"steps": [{"delete": ["pod", "widget/x", "node/ns/x"]}]})),
         vec!["steps[0].delete[0]: invalid object \"pod\": expected kind/name or kind/namespace/name, e.g. pod/default/web-0",
              "steps[0].delete[1]: unsupported kind \"widget\": supported kinds: pod, node, namespace, deployment, replicaset, statefulset, daemonset, job, cronjob, replicationcontroller, poddisruptionbudget",
              "steps[0].delete[2]: invalid object \"node/ns/x\": a Node has no namespace"]),
        ("an applied object without kind", with(json!({"steps": [{"apply": [{"metadata": {}}, 3]}]})),
         vec!["steps[0].apply[0].kind: required value", "steps[0].apply[1]: expected a map (a Kubernetes object), got a number"]),
        ("an unterminated quote in a kubectl line", with(json!({"steps": [{"kubectl": "label nodes n 'a=b"}]})),
         vec!["steps[0].kubectl: unterminated ' quote"]),
        ("an empty kubectl line", with(json!({"steps": [{"kubectl": ""}]})), vec!["steps[0].kubectl: required value"]),
        ("an unknown feature gate", with(json!({"featureGates": {"Nope": true}})), vec!["featureGates.Nope: unrecognized feature gate: Nope"]),
        ("a feature gate that is not a boolean", with(json!({"featureGates": {"TaintTolerationComparisonOperators": "yes"}})),
         vec!["featureGates.TaintTolerationComparisonOperators: expected a boolean, got a string"]),
        ("bad flag values", with(json!({"defaultNotReadyTolerationSeconds": 1.5, "nodeEvictionRate": -1, "percentageOfNodesToScore": 150, "largeClusterSizeThreshold": -3, "nodeMonitorGracePeriod": "forty"})),
         vec!["defaultNotReadyTolerationSeconds: must be a whole number", "nodeMonitorGracePeriod: time: invalid duration \"forty\"", "nodeEvictionRate: must not be negative",
              "largeClusterSizeThreshold: must be a whole number, 0 or more", "percentageOfNodesToScore: must be between 0 and 100"]),
        ("a pod expectation without at or until", with(json!({"expect": [{"pod": "a", "phase": "Running"}]})),
         vec!["expect[0].at: required value (or give the scenario an until)"]),
        ("a pod expectation with nothing to check", with(json!({"expect": [{"at": 0, "pod": "a"}]})),
         vec!["expect[0]: a pod expectation needs phase, node, pool and/or terminating"]),
        ("a Gone pod on a node", with(json!({"expect": [{"at": 0, "pod": "a", "phase": "Gone", "node": "n"}]})),
         vec!["expect[0].node: a Gone pod is on no node"]),
        ("a bad pod name", with(json!({"expect": [{"at": 0, "pod": "a/b/c", "phase": "Running"}]})),
         vec!["expect[0].pod: invalid pod \"a/b/c\": expected namespace/name or name"]),
        ("an event with at and by", with(json!({"expect": [{"event": "X", "at": 0, "by": 1, "count": -1}]})),
         vec!["expect[0].by: give at (exactly then) or by (at or before), not both", "expect[0].count: must be a whole number, 0 or more"]),
        ("an expectation on nothing", with(json!({"expect": [{"at": 0, "phase": "Running"}]})),
         vec!["expect[0]: an expectation needs pod (with phase, node and/or pool), event, drainable or pool"]),
        ("an expectation on a pod and an event", with(json!({"expect": [{"pod": "a", "event": "X"}]})),
         vec!["expect[0]: an expectation is on a pod or on an event, not both"]),
        ("an unknown field in an event expectation", with(json!({"expect": [{"event": "X", "phase": "Running"}]})),
         vec!["expect[0].phase: unknown field"]),
        ("steps that are not a list", with(json!({"steps": {"at": 0}})), vec!["steps: expected a list, got a map"]),
        ("a negative seed", with(json!({"seed": -1})), vec!["seed: must be a whole number, 0 or more"]),
        ("an unknown admission plugin, with kube-apiserver's message", with(json!({"enableAdmissionPlugins": ["ExtendedResourceTolerations"]})),
         vec!["enableAdmissionPlugins: enable-admission-plugins plugin \"ExtendedResourceTolerations\" is unknown"]),
        ("a plugin both enabled and disabled", with(json!({"enableAdmissionPlugins": "ExtendedResourceToleration", "disableAdmissionPlugins": ["ExtendedResourceToleration"]})),
         vec!["enableAdmissionPlugins: [ExtendedResourceToleration] in enable-admission-plugins and disable-admission-plugins overlapped"]),
        ("a pool expectation with nothing to check", with(json!({"expect": [{"at": 0, "pool": "gpu"}]})),
         vec!["expect[0]: a pool expectation needs nodes and/or taints"]),
        ("a pool expectation with a bad taint and count", with(json!({"expect": [{"at": 0, "pool": "gpu", "nodes": -1, "taints": ["a=b:Sometimes"]}]})),
         vec!["expect[0].nodes: must be a whole number, 0 or more"]),
        ("a pool expectation's taint as kubectl refuses it", with(json!({"expect": [{"at": 0, "pool": "gpu", "taints": ["a=b:Sometimes"]}]})),
         vec!["expect[0].taints[0]: invalid taint effect: Sometimes, unsupported taint effect"]),
        ("an instance type without pods and with a bad quantity", with(json!({"instanceTypes": {"x1": {"cpu": "4", "memory": "lots"}}})),
         vec!["instanceTypes.x1.memory: \"lots\" is not a quantity", "instanceTypes.x1.pods: required value"]),
        ("an az step that does not tokenize", with(json!({"steps": [{"az": "aks nodepool update --node-taints 'x"}]})),
         vec!["steps[0].az: unterminated ' quote"]),
        ("admission plugins of the wrong type", with(json!({"enableAdmissionPlugins": 3, "disableAdmissionPlugins": [true]})),
         vec!["enableAdmissionPlugins: expected a list of admission plugin names, got a number", "disableAdmissionPlugins[0]: expected a string, got a boolean"]),
    ];
    for (name, v, want) in cases {
        assert_eq!(errors(v), want, "{name}");
    }
}

#[test]
fn the_error_displays_one_line_per_field() {
    let e = parse_scenario(&with(json!({"until": "x", "seed": "y"}))).expect_err("errors");
    assert_eq!(
        e.to_string(),
        "until: time: invalid duration \"x\"\nseed: expected a whole number, got a string"
    );
}

#[test]
fn object_refs_round_trip() {
    for (input, shown) in [
        ("pod/default/web-0", "Pod/default/web-0"),
        ("no/n1", "Node/n1"),
        ("deploy/web", "Deployment/web"),
    ] {
        let r: ObjectRef = input.parse().expect("parses");
        assert_eq!(r.to_string(), shown, "{input}");
        assert_eq!(r.to_string().parse::<ObjectRef>(), Ok(r), "{input}");
    }
}

#[test]
fn drainable_expectations() {
    let s = ok(with(json!({"until": "10m", "expect": [
        {"at": "1m", "drainable": "n1", "value": true},
        {"drainable": "n2", "as": "cluster-autoscaler", "value": false}
    ]})));
    assert_eq!(
        s.expect,
        vec![
            Expectation::Drainable {
                index: 0,
                at: 60_000,
                node: "n1".into(),
                decider: ExpectedDecider::Kubectl,
                value: true
            },
            Expectation::Drainable {
                index: 1,
                at: 600_000,
                node: "n2".into(),
                decider: ExpectedDecider::ClusterAutoscaler,
                value: false
            },
        ]
    );
    assert_eq!(
        errors(with(json!({"until": "10m", "expect": [
            {"drainable": "n1", "as": "descheduler", "value": true},
            {"drainable": "n1"},
            {"drainable": "n1", "value": true, "node": "x"}
        ]}))),
        vec![
            "expect[0].as: \"descheduler\": kubectl, cluster-autoscaler or karpenter",
            "expect[1].value: required value (true or false)",
            "expect[2].node: unknown field",
        ]
    );
}

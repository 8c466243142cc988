//! Karpenter's upstream candidate filtering, ported: which pods' `do-not-disrupt` and budgets
//! block a drain.

use super::*;

/// karpenter `pkg/controllers/disruption/suite_test.go` "Candidate Filtering" (v1.x), its
/// do-not-disrupt and budget cases by name, and `emptiness_test.go`'s terminating StatefulSet
/// pod: which pods block a drain as Karpenter, and the node's message.
#[test]
fn karpenter_candidate_filtering() {
    let karpenter = cfg(Decider::Karpenter, true);
    let dnd = json!({"karpenter.sh/do-not-disrupt": "true"});
    let owners = |api: &str, kind: &str, name: &str| {
        json!([{"apiVersion": api, "kind": kind, "name": name, "uid": format!("u-{name}"),
                "controller": true}])
    };
    // test.Pod(): no owner; `f` adds the rest.
    let p = |name: &str, f: &dyn Fn(&mut Value)| {
        pod("default", name, "a", |v| {
            v["metadata"]["labels"] = json!({"test": "value"});
            f(v)
        })
    };
    let budget = |name: &str| -> PodDisruptionBudget {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"test": "value"}}}
        }))
        .unwrap_or_default()
    };
    let deleting = |v: &mut Value| {
        v["metadata"]["deletionTimestamp"] = json!("2033-05-18T03:30:00Z");
    };
    let dnd_msg = |pod: &str| {
        format!("pod has \"karpenter.sh/do-not-disrupt\" annotation (Pod=default/{pod})")
    };
    let pdb_msg = "pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])".to_string();
    type Case<'a> = (&'a str, Vec<Pod>, Vec<PodDisruptionBudget>, Option<String>);
    let cases: Vec<Case> = vec![
        (
            "should not consider candidates that have do-not-disrupt pods scheduled and no \
             terminationGracePeriod",
            vec![p("p", &|v| v["metadata"]["annotations"] = dnd.clone())],
            vec![],
            Some(dnd_msg("p")),
        ),
        (
            "should not consider candidates that have do-not-disrupt mirror pods scheduled",
            vec![p("mirror", &|v| {
                v["metadata"]["annotations"] = dnd.clone();
                v["metadata"]["ownerReferences"] = owners("v1", "Node", "a");
            })],
            vec![],
            Some(dnd_msg("mirror")),
        ),
        (
            "should not consider candidates that have do-not-disrupt daemonset pods scheduled",
            vec![p("agent", &|v| {
                v["metadata"]["annotations"] = dnd.clone();
                v["metadata"]["ownerReferences"] = owners("apps/v1", "DaemonSet", "agent");
            })],
            vec![],
            Some(dnd_msg("agent")),
        ),
        (
            "should consider candidates that have do-not-disrupt terminating pods",
            vec![p("p", &|v| {
                v["metadata"]["annotations"] = dnd.clone();
                deleting(v);
            })],
            vec![],
            None,
        ),
        (
            "should consider candidates that have do-not-disrupt terminal pods",
            vec![
                p("succeeded", &|v| {
                    v["metadata"]["annotations"] = dnd.clone();
                    v["status"]["phase"] = json!("Succeeded");
                }),
                p("failed", &|v| {
                    v["metadata"]["annotations"] = dnd.clone();
                    v["status"]["phase"] = json!("Failed");
                }),
            ],
            vec![],
            None,
        ),
        (
            "should not consider candidates that have fully blocking PDBs",
            vec![p("p", &|_| {})],
            vec![budget("pdb")],
            Some(pdb_msg.clone()),
        ),
        (
            "should not consider candidates that have fully blocking PDBs on daemonset pods",
            vec![p("agent", &|v| {
                v["metadata"]["ownerReferences"] = owners("apps/v1", "DaemonSet", "agent");
            })],
            vec![budget("pdb")],
            Some(pdb_msg.clone()),
        ),
        (
            "should consider candidates that have fully blocking PDBs on mirror pods",
            vec![p("mirror", &|v| {
                v["metadata"]["ownerReferences"] = owners("v1", "Node", "a");
            })],
            vec![budget("pdb")],
            None,
        ),
        (
            "should consider candidates that have fully blocking PDBs on terminal pods",
            vec![
                p("succeeded", &|v| v["status"]["phase"] = json!("Succeeded")),
                p("failed", &|v| v["status"]["phase"] = json!("Failed")),
            ],
            vec![budget("pdb")],
            None,
        ),
        (
            "should consider candidates that have fully blocking PDBs on terminating pods",
            vec![p("p", &|v| deleting(v))],
            vec![budget("pdb")],
            None,
        ),
        (
            "should not consider candidates that have multiple PDBs on the same pod",
            vec![p("p", &|_| {})],
            vec![budget("pdb1"), budget("pdb2")],
            Some(
                "eviction does not support multiple PDBs \
                 (PodDisruptionBudget(s)=[default/pdb1 default/pdb2])"
                    .to_string(),
            ),
        ),
        (
            // ValidatePodsDisruptable checks every pod's annotation before any budget.
            "a do-not-disrupt pod is the node's message before an earlier pod's budget",
            vec![
                p("a-budgeted", &|_| {}),
                p("b-protected", &|v| {
                    v["metadata"]["annotations"] = dnd.clone()
                }),
            ],
            vec![budget("pdb")],
            Some(dnd_msg("b-protected")),
        ),
    ];
    for (name, pods, pdbs, want) in cases {
        let mut c = Cluster::new();
        c.add_node(node("a", "110"));
        c.add_node(node("b", "110"));
        for pod in pods {
            c.add_pod(pod);
        }
        c.pdbs = pdbs;
        let v = &on_copy(&c, &["a"], &karpenter).nodes[0];
        match want {
            Some(message) => {
                assert!(!v.drainable, "{name}: {v:?}");
                assert_eq!(v.reason.as_deref(), Some("BlockedByPod"), "{name}");
                assert_eq!(v.message.as_deref(), Some(message.as_str()), "{name}");
            }
            None => assert!(v.drainable, "{name}: {v:?}"),
        }
    }
    // emptiness_test.go: "will not consider a node with a terminating StatefulSet pod as
    // empty" — a StatefulSet's terminating pod is rescheduled; a ReplicaSet's is not.
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    c.add_pod(pod("default", "ss-0", "a", |v| {
        v["metadata"]["ownerReferences"] = owners("apps/v1", "StatefulSet", "ss");
        deleting(v);
    }));
    c.add_pod(pod("default", "rs-1", "a", |v| {
        replicated(v);
        deleting(v);
    }));
    let v = &on_copy(&c, &["a"], &karpenter).nodes[0];
    assert!(v.drainable, "{v:?}");
    assert_eq!(
        action(v, "default/ss-0"),
        PodAction::Move { to: "b".into() }
    );
    assert!(matches!(action(v, "default/rs-1"), PodAction::Gone { .. }));
}

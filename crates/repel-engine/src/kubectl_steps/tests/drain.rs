//! `kubectl drain`: upstream's `TestDrain` table, then exact output for each path.

#![allow(clippy::type_complexity)] // case tables are tuples, as upstream's are structs

use super::*;
use crate::kubectl::drain::{DAEMON_SET_WARNING, UNMANAGED_WARNING};
use crate::kubectl::eviction;
use crate::kubectl_steps::drain::DELETE_LOCAL_DATA_DEPRECATED;

/// A pod named `bar` on `node`, with `extra` merged in, in `phase`.
fn bar(extra: Value, phase: PodPhase) -> Cluster {
    let mut c = cluster_with(vec![pod("bar", "node", extra)]);
    c.pods[0].phase = phase;
    c
}

#[test]
fn upstream_drain_table() {
    use PodPhase::{Failed, Running, Succeeded};
    let no_controller_ref = json!({"metadata": {"ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "missing-ds", "uid": "u"}
    ]}});
    let mirror = json!({"metadata": {"annotations": {"kubernetes.io/config.mirror": "x"}}});
    let ds_warning = format!("Warning: {DAEMON_SET_WARNING}: default/bar");
    let unmanaged_warning = format!("Warning: {UNMANAGED_WARNING}: default/bar");
    #[rustfmt::skip]
    let cases: Vec<(&str, Value, PodPhase, &str, bool, bool, Vec<String>)> = vec![
        // (name, pod, phase, flags, ok, pod goes, stderr warnings)
        ("RC-managed pod", owner("ReplicationController"), Running, "", true, true, vec![]),
        ("DS-managed pod", owner("DaemonSet"), Running, "", false, false, vec![]),
        ("DS-managed terminated pod", owner("DaemonSet"), Failed, "", true, true, vec![]),
        ("owner without controller: true with --force is unmanaged", no_controller_ref.clone(), Running, "--force", true, true, vec![unmanaged_warning.clone()]),
        ("owner without controller: true is unmanaged", no_controller_ref, Running, "", false, false, vec![]),
        ("DS-managed pod with --ignore-daemonsets", owner("DaemonSet"), Running, "--ignore-daemonsets", true, false, vec![ds_warning.clone()]),
        ("DS-managed pod with emptyDir with --ignore-daemonsets", merge(owner("DaemonSet"), EMPTY_DIR()), Running, "--ignore-daemonsets", true, false, vec![ds_warning]),
        ("Job-managed pod with local storage", merge(owner("Job"), EMPTY_DIR()), Running, "--force --delete-emptydir-data=true", true, true, vec![]),
        ("Ensure compatibility for --delete-local-data until fully deprecated", merge(owner("Job"), EMPTY_DIR()), Running, "--force --delete-local-data=true", true, true,
         vec![DELETE_LOCAL_DATA_DEPRECATED.to_string()]),
        ("Job-managed terminated pod", merge(owner("Job"), EMPTY_DIR()), Succeeded, "", true, true, vec![]),
        ("RS-managed pod", owner("ReplicaSet"), Running, "", true, true, vec![]),
        ("naked pod", json!({}), Running, "", false, false, vec![]),
        ("naked pod with --force", json!({}), Running, "--force", true, true, vec![unmanaged_warning.clone()]),
        ("pod with EmptyDir", EMPTY_DIR(), Running, "--force", false, false, vec![]),
        ("terminated pod with emptyDir", EMPTY_DIR(), Failed, "", true, true, vec![]),
        ("pod with EmptyDir and --delete-emptydir-data: the last filter's warning wins", EMPTY_DIR(), Running, "--force --delete-emptydir-data=true", true, true, vec![unmanaged_warning]),
        ("a mirror pod is skipped", mirror, Running, "", true, false, vec![]),
    ];
    for eviction in [true, false] {
        for (name, extra, phase, flags, ok, goes, warnings) in &cases {
            let mut c = bar(extra.clone(), *phase);
            let method = if eviction { "" } else { " --disable-eviction" };
            let r = run(&format!("drain node {flags}{method}"), &mut c);
            let name = format!("{name} (eviction: {eviction})");
            assert_eq!(r.ok, *ok, "{name}: {r:?}");
            assert_eq!(!live(&c, "bar"), *goes, "{name}");
            assert!(
                c.nodes[0].unschedulable,
                "{name}: the node is cordoned first"
            );
            assert_eq!(
                r.stdout.first().map(String::as_str),
                Some("node/node cordoned"),
                "{name}"
            );
            if *ok {
                assert_eq!(
                    r.stdout.last().map(String::as_str),
                    Some("node/node drained"),
                    "{name}"
                );
                assert_eq!(&r.stderr, warnings, "{name}");
            }
            let (evicted, deleted) = if *goes && eviction {
                (vec![0], vec![])
            } else if *goes {
                (vec![], vec![0])
            } else {
                (vec![], vec![])
            };
            assert_eq!(
                (r.evicted.clone(), r.deleted.clone()),
                (evicted, deleted),
                "{name}"
            );
        }
    }
}

fn lines(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_drain_that_succeeds_prints_what_kubectl_prints() {
    let mut c = cluster_with(vec![
        pod("ds-pod", "node", owner("DaemonSet")),
        pod("web-1", "node", owner("ReplicaSet")),
        pod("web-0", "node", owner("ReplicaSet")),
        pod("elsewhere", "other", owner("ReplicaSet")),
    ]);
    let r = run(
        "drain node --ignore-daemonsets --grace-period=30 --timeout=5m",
        &mut c,
    );
    assert!(r.ok);
    assert_eq!(
        r.stdout,
        lines(&[
            "node/node cordoned",
            "evicting pod default/web-0",
            "evicting pod default/web-1",
            "pod/web-0 evicted",
            "pod/web-1 evicted",
            "node/node drained",
        ])
    );
    assert_eq!(
        r.stderr,
        lines(&["Warning: ignoring DaemonSet-managed Pods: default/ds-pod"])
    );
    assert_eq!(r.evicted, vec![2, 1]);
    assert!(live(&c, "ds-pod") && live(&c, "elsewhere"));
    let cond = c.pods[1]
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.first())
        .cloned();
    assert_eq!(
        cond.and_then(|c| c.reason),
        Some(eviction::EVICTION_REASON.to_string())
    );
    let again = run("drain node --ignore-daemonsets", &mut c);
    assert_eq!(again.stdout[0], "node/node already cordoned");
}

#[test]
fn a_drain_refused_by_the_filters_lists_every_pod() {
    let mut c = cluster_with(vec![
        pod("a", "node", owner("DaemonSet")),
        pod("b", "node", json!({})),
        pod("c", "node", json!({})),
    ]);
    let r = run("drain node", &mut c);
    assert!(!r.ok);
    assert_eq!(r.stdout, lines(&["node/node cordoned"]));
    let ds = "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/a";
    let naked = "cannot delete Pods that declare no controller (use --force to override): default/b, default/c";
    assert_eq!(
        r.stderr,
        lines(&[
            &format!(
                "error: unable to drain node \"node\" due to error: [{ds}, {naked}], continuing command..."
            ),
            "There are pending nodes to be drained:",
            " node",
            ds,
            naked,
        ])
    );
    assert!(live(&c, "a") && live(&c, "b") && live(&c, "c"));
}

#[test]
fn a_single_filter_error_is_printed_without_brackets() {
    let mut c = cluster_with(vec![pod("ds", "node", owner("DaemonSet"))]);
    let r = run("drain node", &mut c);
    let msg =
        "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/ds";
    assert_eq!(
        r.stderr,
        lines(&[
            &format!(
                "error: unable to drain node \"node\" due to error: {msg}, continuing command..."
            ),
            "There are pending nodes to be drained:",
            " node",
            msg,
        ])
    );
}

fn two_web_pods() -> Cluster {
    cluster_with(vec![
        pod("a", "node", owner("ReplicaSet")),
        pod("b", "node", owner("ReplicaSet")),
    ])
}

const BLOCKED: &str = "error when evicting pods/\"b\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.";

#[test]
fn a_budget_allowing_one_disruption_lets_one_pod_go() {
    let mut c = two_web_pods();
    c.pdbs.push(pdb("web", Some(1), json!({"minAvailable": 1})));
    let r = run("drain node", &mut c);
    assert!(!r.ok);
    assert_eq!(
        r.stdout,
        lines(&[
            "node/node cordoned",
            "evicting pod default/a",
            "evicting pod default/b",
            "pod/a evicted"
        ])
    );
    let err = "error when evicting pods/\"b\" -n \"default\": Cannot evict pod as it would violate the pod's disruption budget.";
    assert_eq!(
        r.stderr,
        lines(&[
            BLOCKED,
            "repel: kubectl would retry every 5s until the budget allows it; the simulated drain gives up on this pod (give --timeout to bound it as kubectl does)",
            &format!("There are pending pods in node \"node\" when an error occurred: {err}"),
            "pod/b",
            &format!(
                "error: unable to drain node \"node\" due to error: {err}, continuing command..."
            ),
            "There are pending nodes to be drained:",
            " node",
            err,
        ])
    );
    assert_eq!(r.evicted, vec![0]);
    assert!(!live(&c, "a") && live(&c, "b"));
    assert_eq!(
        c.pdbs[0]
            .status
            .as_ref()
            .and_then(|s| s.disruptions_allowed),
        Some(0),
        "the API server decrements the budget"
    );
}

#[test]
fn a_blocked_eviction_with_a_timeout_ends_in_kubectls_timeout_error() {
    let mut c = two_web_pods();
    c.pdbs.push(pdb("web", Some(1), json!({"minAvailable": 1})));
    let r = run("drain node --timeout=1m", &mut c);
    assert_eq!(
        r.stdout,
        lines(&[
            "node/node cordoned",
            "evicting pod default/a",
            "evicting pod default/b",
            "evicting pod default/b",
            "pod/a evicted"
        ])
    );
    let err = "error when evicting pods/\"b\" -n \"default\": global timeout reached: 1m0s";
    assert_eq!(
        r.stderr[..2],
        lines(&[
            BLOCKED,
            "repel: kubectl repeats this every 5s, 12 attempts in all within --timeout=1m0s"
        ])
    );
    assert_eq!(r.stderr.last().map(String::as_str), Some(err));
}

#[test]
fn eviction_api_rules() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<PodDisruptionBudget>, PodPhase, &str, bool, Option<&str>)> = vec![
        // (name, budgets, phase of both pods, flags, both go, error for pod a)
        ("no budget: both go", vec![], PodPhase::Running, "", true, None),
        ("a budget with room for two", vec![pdb("web", Some(2), json!({"minAvailable": 0}))], PodPhase::Running, "", true, None),
        ("--disable-eviction bypasses a budget", vec![pdb("web", Some(0), json!({"minAvailable": 2}))], PodPhase::Running, "--disable-eviction", true, None),
        ("pending pods ignore budgets", vec![pdb("web", Some(0), json!({"minAvailable": 2}))], PodPhase::Pending, "", true, None),
        ("two budgets on one pod are refused", vec![pdb("web", Some(5), json!({})), pdb("web2", Some(5), json!({}))], PodPhase::Running, "", false,
         Some("error when evicting pods/\"a\" -n \"default\": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")),
        ("a negative allowance is forbidden", vec![pdb("web", Some(-1), json!({}))], PodPhase::Running, "", false,
         Some("error when evicting pods/\"a\" -n \"default\": poddisruptionbudget.policy \"web\" is forbidden: pdb disruptions allowed is negative")),
        ("a budget with an empty selector matches nothing", vec![{
            let mut p = pdb("web", Some(0), json!({}));
            p.spec.as_mut().expect("spec").selector = Some(Default::default()); p
        }], PodPhase::Running, "", true, None),
        ("a budget in another namespace does not apply", vec![{
            let mut p = pdb("web", Some(0), json!({})); p.metadata.namespace = Some("other".into()); p
        }], PodPhase::Running, "", true, None),
    ];
    for (name, budgets, phase, flags, both_go, err) in cases {
        let mut c = two_web_pods();
        for p in &mut c.pods {
            p.phase = phase;
        }
        c.pdbs = budgets;
        let r = run(&format!("drain node {flags}"), &mut c);
        assert_eq!(r.ok, both_go, "{name}: {r:?}");
        assert_eq!(!live(&c, "a") && !live(&c, "b"), both_go, "{name}");
        if let Some(e) = err {
            assert!(r.stderr.iter().any(|l| l == e), "{name}: {r:?}");
        }
    }
}

#[test]
fn a_budget_without_status_is_computed_as_the_disruption_controller_would() {
    let mut c = two_web_pods();
    c.pdbs.push(pdb("web", None, json!({"minAvailable": 1})));
    let r = run("drain node", &mut c);
    assert_eq!(
        r.evicted,
        vec![0],
        "one of two may go with minAvailable 1: {r:?}"
    );
    assert!(live(&c, "b"));
    assert!(r.stderr.contains(&BLOCKED.to_string()));
}

#[test]
fn drain_refusals_before_any_change() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, &[&str])] = &[
        ("a missing node", "drain ghost", &["Error from server (NotFound): nodes \"ghost\" not found"]),
        ("no node", "drain", &["error: USAGE: drain NODE [flags]", "See 'kubectl drain -h' for help and examples"]),
        ("a bad timeout", "drain node --timeout=10x", &["error: invalid argument \"10x\" for \"--timeout\" flag: time: invalid duration \"10x\"", "See 'kubectl drain --help' for usage."]),
        ("a bad grace period", "drain node --grace-period=soon", &["error: invalid argument \"soon\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"soon\": invalid syntax", "See 'kubectl drain --help' for usage."]),
        ("a bad pod selector", "drain node --pod-selector=a=b=c", &["error: --pod-selector=<pod_selector> must be a valid label selector"]),
        ("a pod is not a node", "drain pod/a", &["error: expected resource of type node, got \"/v1, Resource=pods\""]),
    ];
    for (name, line, stderr) in cases {
        let mut c = two_web_pods();
        let r = run(line, &mut c);
        assert!(!r.ok, "{name}");
        assert_eq!(r.stderr, *stderr, "{name}");
        assert!(!c.nodes[0].unschedulable, "{name}: nothing is cordoned");
    }
}

#[test]
fn a_pod_selector_limits_the_drain() {
    let mut c = two_web_pods();
    c.pods[1]
        .meta
        .labels
        .get_or_insert_with(Default::default)
        .insert("keep".into(), "yes".into());
    let r = run("drain node --pod-selector=!keep", &mut c);
    assert!(r.ok, "{r:?}");
    assert!(!live(&c, "a") && live(&c, "b"));
}

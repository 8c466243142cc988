//! `kubectl wait` and `kubectl rollout status|history|undo|restart|pause|resume` through the
//! real kubectl, for Deployments, DaemonSets and StatefulSets, with upstream's fixed outputs
//! byte for byte. A DaemonSet's and a StatefulSet's history are the ControllerRevisions their
//! controllers write (`kubectl get controllerrevisions`).

use crate::util::{self, Server, have_kubectl, table_rows};
use serde_json::json;

/// A Deployment, a DaemonSet, a StatefulSet and a bare Pod (shared with `kubectl_describe`).
const WORKLOADS: &str = include_str!("data/workloads.yaml");

/// Applies the workloads, the given images changed.
fn apply(s: &Server, from: &[(&str, &str)]) {
    let mut text = WORKLOADS.to_string();
    for (a, b) in from {
        text = text.replace(a, b);
    }
    let f = s.write("workloads.yaml", &text);
    s.kubectl_ok(&["apply", "-f", &f]);
}

/// The last line `kubectl rollout status` prints once the rollout is done.
fn rolled_out(s: &Server, what: &str) -> String {
    let out = s.kubectl_ok(&["rollout", "status", what, "--timeout=60s"]);
    out.lines().last().unwrap_or_default().to_string()
}

/// The images of the running pods whose name starts with `prefix`, sorted.
fn images(s: &Server, prefix: &str) -> Vec<String> {
    let out = s.kubectl_ok(&[
        "get",
        "pods",
        "-o",
        "jsonpath={range .items[*]}{.metadata.name} {.spec.containers[0].image}{\"\\n\"}{end}",
    ]);
    let mut v: Vec<String> = out
        .lines()
        .filter(|l| l.starts_with(prefix))
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect();
    v.sort();
    v
}

const HISTORY_1_2: &str = "REVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n";

#[test]
fn kubectl_wait_reports_each_condition_met_as_upstream() {
    if !have_kubectl() {
        return;
    }
    let s = util::two_nodes();
    apply(&s, &[]);
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "a pod's Ready condition",
            &["wait", "--for=condition=Ready", "pod/x", "--timeout=60s"],
            "pod/x condition met\n",
        ),
        (
            "a Deployment's Available condition",
            &[
                "wait",
                "--for=condition=Available",
                "deployment/web",
                "--timeout=60s",
            ],
            "deployment.apps/web condition met\n",
        ),
        (
            "a JSONPath value",
            &[
                "wait",
                "--for=jsonpath={.status.phase}=Running",
                "pod/x",
                "--timeout=60s",
            ],
            "pod/x condition met\n",
        ),
        (
            "a StatefulSet's ready replicas",
            &[
                "wait",
                "--for=jsonpath={.status.readyReplicas}=2",
                "statefulset/db",
                "--timeout=60s",
            ],
            "statefulset.apps/db condition met\n",
        ),
    ];
    for (name, args, want) in cases {
        let o = s.kubectl(args);
        assert_eq!(
            (o.code, o.stdout.as_str()),
            (0, *want),
            "{name}: {}",
            o.stderr
        );
    }
    let o = s.kubectl(&["wait", "--for=condition=Ready", "pod", "-l", "app=db"]);
    assert_eq!(
        o.stdout, "pod/db-0 condition met\npod/db-1 condition met\n",
        "a label selector: {}",
        o.stderr
    );

    // A pod nothing can take never becomes Ready: kubectl's timeout.
    let pending = s.write(
        "pending.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: pending}\n\
         spec: {nodeSelector: {nope: \"1\"}, containers: [{name: c, image: busybox}]}\n",
    );
    s.kubectl_ok(&["apply", "-f", &pending]);
    let o = s.kubectl(&[
        "wait",
        "--for=condition=Ready",
        "pod/pending",
        "--timeout=1s",
    ]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            "error: timed out waiting for the condition on pods/pending\n"
        )
    );
    let o = s.kubectl(&["wait", "--for=condition=Ready", "pod/nope", "--timeout=1s"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "Error from server (NotFound): pods \"nope\" not found\n")
    );

    // --for=delete returns once the pod is gone (kubectl prints nothing when it already was).
    s.kubectl_ok(&["delete", "pod", "x", "--wait=false"]);
    let o = s.kubectl(&["wait", "--for=delete", "pod/x", "--timeout=60s"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.is_empty() || o.stdout == "pod/x condition met\n",
        "{}",
        o.stdout
    );
    assert!(s.get("pods", "default", "x").is_none());
}

#[test]
fn a_deployment_rolls_out_back_and_restarts() {
    if !have_kubectl() {
        return;
    }
    let s = util::two_nodes();
    apply(&s, &[]);
    assert_eq!(
        rolled_out(&s, "deployment/web"),
        "deployment \"web\" successfully rolled out"
    );
    apply(&s, &[("nginx:1.25", "nginx:1.26")]);
    assert_eq!(
        rolled_out(&s, "deployment/web"),
        "deployment \"web\" successfully rolled out"
    );
    assert_eq!(
        s.kubectl_ok(&["rollout", "history", "deployment/web"]),
        format!("deployment.apps/web \n{HISTORY_1_2}")
    );
    assert_eq!(images(&s, "web-"), ["nginx:1.26", "nginx:1.26"]);
    assert_eq!(
        s.kubectl_ok(&["rollout", "undo", "deployment/web"]),
        "deployment.apps/web rolled back\n"
    );
    rolled_out(&s, "deployment/web");
    assert_eq!(images(&s, "web-"), ["nginx:1.25", "nginx:1.25"]);
    // Revision 1 became revision 3.
    let o = s.kubectl(&["rollout", "undo", "deployment/web", "--to-revision=1"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "error: unable to find specified revision 1 in history\n")
    );

    assert_eq!(
        s.kubectl_ok(&["rollout", "pause", "deployment/web"]),
        "deployment.apps/web paused\n"
    );
    assert_eq!(
        s.kubectl_ok(&["rollout", "resume", "deployment/web"]),
        "deployment.apps/web resumed\n"
    );
    assert_eq!(
        s.kubectl_ok(&["rollout", "restart", "deployment/web"]),
        "deployment.apps/web restarted\n"
    );
    assert_eq!(
        rolled_out(&s, "deployment/web"),
        "deployment \"web\" successfully rolled out"
    );
    let rs = s.kubectl_ok(&["get", "rs", "-l", "app=web", "-o", "name"]);
    assert_eq!(rs.lines().count(), 3, "one ReplicaSet per template: {rs}");
}

#[test]
fn a_daemon_sets_history_is_its_controller_revisions() {
    if !have_kubectl() {
        return;
    }
    let s = util::two_nodes();
    apply(&s, &[]);
    assert_eq!(
        rolled_out(&s, "daemonset/agent"),
        "daemon set \"agent\" successfully rolled out"
    );
    apply(&s, &[("agent:1", "agent:2")]);
    assert_eq!(
        rolled_out(&s, "daemonset/agent"),
        "daemon set \"agent\" successfully rolled out"
    );
    assert_eq!(images(&s, "agent-"), ["agent:2", "agent:2"]);
    assert_eq!(
        s.kubectl_ok(&["rollout", "history", "daemonset/agent"]),
        format!("daemonset.apps/agent \n{HISTORY_1_2}")
    );
    assert_eq!(
        s.kubectl_ok(&["rollout", "history", "daemonset/agent", "--revision=1"]),
        "daemonset.apps/agent with revision #1\nPod Template:\n  Labels:\tapp=agent\n  \
         Containers:\n   c:\n    Image:\tagent:1\n    Port:\t<none>\n    Host Port:\t<none>\n    \
         Environment:\t<none>\n    Mounts:\t<none>\n  Volumes:\t<none>\n  Node-Selectors:\t<none>\n  \
         Tolerations:\t<none>\n\n"
    );
    let revs = s.kubectl_ok(&["get", "controllerrevisions"]);
    let rows = table_rows(&revs, 3);
    assert_eq!(rows[0], "NAME CONTROLLER REVISION AGE", "{revs}");
    let mut controllers: Vec<String> = rows[1..]
        .iter()
        .map(|r| r.split(' ').skip(1).collect::<Vec<_>>().join(" "))
        .collect();
    controllers.sort();
    assert_eq!(
        controllers,
        [
            "daemonset.apps/agent 1 AGE",
            "daemonset.apps/agent 2 AGE",
            "statefulset.apps/db 1 AGE",
        ]
    );

    assert_eq!(
        s.kubectl_ok(&["rollout", "undo", "daemonset/agent"]),
        "daemonset.apps/agent rolled back\n"
    );
    rolled_out(&s, "daemonset/agent");
    assert_eq!(images(&s, "agent-"), ["agent:1", "agent:1"]);
    // The first revision is the third now, and the template already matches it: kubectl's
    // patch of the DaemonSet equals the revision's data byte for byte.
    assert_eq!(
        s.kubectl_ok(&["rollout", "undo", "daemonset/agent", "--to-revision=3"]),
        "daemonset.apps/agent skipped rollback (current template already matches revision 3)\n"
    );
    let o = s.kubectl(&["rollout", "undo", "daemonset/agent", "--to-revision=1"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "error: unable to find specified revision 1 in history\n")
    );
    let o = s.kubectl(&["rollout", "pause", "daemonset/agent"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            "error: daemonsets.apps \"agent\" pausing is not supported\n"
        )
    );
    assert_eq!(
        s.kubectl_ok(&["rollout", "restart", "daemonset/agent"]),
        "daemonset.apps/agent restarted\n"
    );
    rolled_out(&s, "daemonset/agent");
    let history = s.kubectl_ok(&["rollout", "history", "daemonset/agent"]);
    assert_eq!(
        history
            .lines()
            .filter(|l| l.starts_with(['2', '3', '4']))
            .count(),
        3,
        "the restart is revision 4: {history}"
    );
}

#[test]
fn a_stateful_set_rolls_from_its_highest_ordinal_and_back() {
    if !have_kubectl() {
        return;
    }
    let s = util::two_nodes();
    apply(&s, &[]);
    assert_eq!(
        rolled_out(&s, "statefulset/db"),
        "partitioned roll out complete: 2 new pods have been updated..."
    );
    let o = s.kubectl(&["rollout", "undo", "statefulset/db"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "error: no last revision to roll back to\n")
    );
    apply(&s, &[("redis:7", "redis:8")]);
    assert_eq!(
        rolled_out(&s, "statefulset/db"),
        "partitioned roll out complete: 2 new pods have been updated..."
    );
    assert_eq!(images(&s, "db-"), ["redis:8", "redis:8"]);
    assert_eq!(
        s.kubectl_ok(&["rollout", "history", "statefulset/db"]),
        format!("statefulset.apps/db \n{HISTORY_1_2}")
    );
    let sts = s.get("statefulsets", "default", "db").unwrap();
    let update = sts["status"]["updateRevision"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(sts["status"]["currentRevision"], json!(update));
    assert!(update.starts_with("db-"), "{update}");
    let labels = s.kubectl_ok(&[
        "get",
        "pods",
        "-l",
        "app=db",
        "-o",
        "jsonpath={.items[*].metadata.labels.controller-revision-hash}",
    ]);
    assert_eq!(labels, format!("{update} {update}"));
    assert_eq!(
        s.kubectl_ok(&["rollout", "undo", "statefulset/db"]),
        "statefulset.apps/db rolled back\n"
    );
    rolled_out(&s, "statefulset/db");
    assert_eq!(images(&s, "db-"), ["redis:7", "redis:7"]);
    let events = s.kubectl_ok(&[
        "get",
        "events",
        "--field-selector",
        "reason=SuccessfulDelete,involvedObject.name=db",
        "-o",
        "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}",
    ]);
    assert!(
        events.contains("delete Pod db-1 in StatefulSet db successful")
            && events.contains("delete Pod db-0 in StatefulSet db successful"),
        "{events}"
    );
    let o = s.kubectl(&["rollout", "pause", "statefulset/db"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            "error: statefulsets.apps \"db\" pausing is not supported\n"
        )
    );
    assert_eq!(
        s.kubectl_ok(&["rollout", "restart", "statefulset/db"]),
        "statefulset.apps/db restarted\n"
    );
    assert_eq!(
        rolled_out(&s, "statefulset/db"),
        "partitioned roll out complete: 2 new pods have been updated..."
    );
    let history = s.kubectl_ok(&["rollout", "history", "statefulset/db"]);
    assert!(history.contains("\n4         <none>\n"), "{history}");
}

//! `kubectl describe` of every served kind, `kubectl get events -w|--watch-only` and
//! `kubectl diff` through the real kubectl: upstream's outputs byte for byte where they are
//! fixed (a Secret, a PodDisruptionBudget, a PriorityClass, a namespace, a diff's exit codes),
//! the lines that say what the server holds elsewhere.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::util::{self, Server, have_kubectl};

const OBJECTS: &str = concat!(
    include_str!("data/workloads.yaml"),
    "---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    metadata: {annotations: {repel.dev/run-seconds: '1'}}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: '*/5 * * * *'
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {a: '1'}
---
apiVersion: v1
kind: Secret
metadata: {name: sec}
stringData: {pw: hunter2}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
description: important
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"
);

const CUSTOM: &str = "
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: my}
spec: {cronSpec: '* * * * */5', image: my-image}
";

/// The lines of `out` with runs of spaces collapsed (describe's columns depend on the widest
/// label of their block).
fn lines(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn every_served_kind_describes_as_upstream_describes_it() {
    if !have_kubectl() {
        return;
    }
    let s = util::two_nodes();
    // `create`, not `apply`: no last-applied annotation in the outputs.
    let f = s.write("objects.yaml", OBJECTS);
    s.kubectl_ok(&["create", "-f", &f]);
    let f = s.write("custom.yaml", CUSTOM);
    s.kubectl_ok(&["create", "-f", &f]);
    for what in ["deployment/web", "daemonset/agent", "statefulset/db"] {
        s.kubectl_ok(&["rollout", "status", what, "--timeout=60s"]);
    }
    s.kubectl_ok(&[
        "wait",
        "--for=condition=Complete",
        "job/once",
        "--timeout=60s",
    ]);
    // The bare pod is described as Running and Ready: wait for that as a user would (under
    // load, the kubelet's start can come after the workloads' rollouts).
    s.kubectl_ok(&["wait", "--for=condition=Ready", "pod/x", "--timeout=60s"]);

    let fixed: &[(&str, &str)] = &[
        (
            "secret/sec",
            "Name:         sec\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n\n\
             Type:  Opaque\n\nData\n====\npw:  7 bytes\n",
        ),
        (
            "pdb/pdb",
            "Name:           pdb\nNamespace:      default\nMin available:  1\nSelector:       app=web\n\
             Status:\n    Allowed disruptions:  1\n    Current:              2\n    \
             Desired:              1\n    Total:                2\nEvents:                   <none>\n",
        ),
        (
            "priorityclass/high",
            "Name:              high\nValue:             1000\nGlobalDefault:     false\n\
             PreemptionPolicy:  PreemptLowerPriority\nDescription:       important\n\
             Annotations:       <none>\nEvents:            <none>\n",
        ),
        (
            "namespace/default",
            "Name:         default\nLabels:       kubernetes.io/metadata.name=default\n\
             Annotations:  <none>\nStatus:       Active\n\nNo resource quota.\n\n\
             No LimitRange resource.\n",
        ),
        (
            "configmap/cm",
            "Name:         cm\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n\n\
             Data\n====\na:\n----\n1\n\n\nBinaryData\n====\n\nEvents:  <none>\n",
        ),
    ];
    for (what, want) in fixed {
        assert_eq!(s.kubectl_ok(&["describe", what]), *want, "{what}");
    }

    let pod = s.kubectl_ok(&["get", "pods", "-l", "app=web", "-o", "name"]);
    let rs = s.kubectl_ok(&["get", "rs", "-l", "app=web", "-o", "name"]);
    let rs_name = rs.trim().trim_start_matches("replicaset.apps/").to_string();
    let described: Vec<(&str, Vec<String>)> = vec![
        (
            "node/node1",
            vec![
                "Name: node1".into(),
                "Taints: <none>".into(),
                "Unschedulable: false".into(),
                "HolderIdentity: node1".into(),
                "Kubelet Version: v1.32.0".into(),
            ],
        ),
        (
            "pod/x",
            vec![
                "Name: x".into(),
                "Status: Running".into(),
                "Ready: True".into(),
                "Tolerations: node.kubernetes.io/not-ready:NoExecute op=Exists for 300s".into(),
            ],
        ),
        (
            pod.lines().next().unwrap(),
            vec![format!("Controlled By: ReplicaSet/{rs_name}")],
        ),
        (
            "deployment/web",
            vec![
                "Replicas: 2 desired | 2 updated | 2 total | 2 available | 0 unavailable".into(),
                "StrategyType: RollingUpdate".into(),
                "RollingUpdateStrategy: 25% max unavailable, 25% max surge".into(),
                "Available True MinimumReplicasAvailable".into(),
                "Progressing True NewReplicaSetAvailable".into(),
                format!("NewReplicaSet: {rs_name} (2/2 replicas created)"),
            ],
        ),
        (
            rs.trim(),
            vec![
                "Controlled By: Deployment/web".into(),
                "Replicas: 2 current / 2 desired".into(),
                "Pods Status: 2 Running / 0 Waiting / 0 Succeeded / 0 Failed".into(),
            ],
        ),
        (
            "daemonset/agent",
            vec![
                "Desired Number of Nodes Scheduled: 2".into(),
                "Number of Nodes Scheduled with Up-to-date Pods: 2".into(),
                "Pods Status: 2 Running / 0 Waiting / 0 Succeeded / 0 Failed".into(),
            ],
        ),
        (
            "statefulset/db",
            vec![
                "Replicas: 2 desired | 2 total".into(),
                "Update Strategy: RollingUpdate".into(),
                "Partition: 0".into(),
                "Normal SuccessfulCreate".to_string(),
            ],
        ),
        (
            "job/once",
            vec![
                "Completion Mode: NonIndexed".into(),
                "Backoff Limit: 6".into(),
                "Pods Statuses: 0 Active (0 Ready) / 1 Succeeded / 0 Failed".into(),
            ],
        ),
        (
            "cronjob/tick",
            vec![
                "Schedule: */5 * * * *".into(),
                "Concurrency Policy: Allow".into(),
                "Suspend: False".into(),
                "Successful Job History Limit: 3".into(),
                "Failed Job History Limit: 1".into(),
            ],
        ),
        (
            "service/svc",
            vec![
                "Type: ClusterIP".into(),
                "IP: 10.96.0.10".into(),
                "TargetPort: 8080/TCP".into(),
            ],
        ),
        (
            "crd/crontabs.stable.example.com",
            vec![
                "Kind: CustomResourceDefinition".into(),
                "Type: Established".into(),
            ],
        ),
        (
            "crontab/my",
            vec![
                "Name: my".into(),
                "Kind: CronTab".into(),
                "Cron Spec: * * * * */5".into(),
            ],
        ),
    ];
    for (what, want) in described {
        let out = s.kubectl_ok(&["describe", what]);
        let got = lines(&out);
        for line in &want {
            assert!(
                got.iter().any(|l| l.starts_with(line.as_str())),
                "{what}: no line {line:?} in\n{out}"
            );
        }
        assert!(!out.contains("0001"), "{what}: a zero time in\n{out}");
    }
    // A Job's times: started, completed, how long it took.
    let job = lines(&s.kubectl_ok(&["describe", "job/once"]));
    for label in ["Start Time:", "Completed At:", "Duration:"] {
        assert!(job.iter().any(|l| l.starts_with(label)), "{label}: {job:?}");
    }
}

/// Runs `kubectl ARGS` in the background and returns its stdout lines as they come.
fn watch(s: &Server, args: &[&str]) -> (std::process::Child, mpsc::Receiver<String>) {
    let mut child = Command::new("kubectl")
        .env("KUBECONFIG", &s.kubeconfig)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Lines from `rx` until one satisfies `done` (or a minute passed).
fn until(rx: &mpsc::Receiver<String>, done: impl Fn(&str) -> bool) -> Vec<String> {
    until_within(rx, Duration::from_secs(60), done)
}

/// Lines from `rx` until one satisfies `done` or `within` passed.
fn until_within(
    rx: &mpsc::Receiver<String>,
    within: Duration,
    done: impl Fn(&str) -> bool,
) -> Vec<String> {
    let deadline = Instant::now() + within;
    let mut got = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(l) => {
                let stop = done(&l);
                got.push(l);
                if stop {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    got
}

#[test]
fn kubectl_get_events_watches_what_the_controllers_record() {
    if !have_kubectl() {
        return;
    }
    let s = util::two_nodes();
    let f = s.write("objects.yaml", OBJECTS);
    s.kubectl_ok(&["create", "-f", &f]);
    s.kubectl_ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);

    // -w lists the events there are, then follows.
    let (mut all, rx_all) = watch(&s, &["get", "events", "-w"]);
    let listed = until(&rx_all, |l| l.contains("Scaled up replica set web-"));
    assert!(
        listed[0].starts_with("LAST SEEN   TYPE     REASON"),
        "{listed:?}"
    );
    // --watch-only prints what happens from now on, the header with the first row. (Its
    // watch starts some time after the process: the Deployment is scaled until it sees one.)
    let (mut only, rx_only) = watch(&s, &["get", "events", "--watch-only"]);
    let mut seen = Vec::new();
    for replicas in 3..=9 {
        s.kubectl_ok(&["scale", "deployment/web", &format!("--replicas={replicas}")]);
        seen = until_within(&rx_only, Duration::from_secs(5), |l| {
            l.contains("Successfully assigned default/web-")
        });
        if !seen.is_empty() {
            break;
        }
    }
    assert!(
        seen[0].starts_with("LAST SEEN   TYPE     REASON"),
        "{seen:?}"
    );
    let rows: Vec<String> = lines(&seen[1..].join("\n"));
    assert!(
        rows.iter().any(|r| r.split_once(' ').is_some_and(|(_, r)| r
            .starts_with("Normal ScalingReplicaSet deployment/web Scaled up replica set web-"))),
        "{rows:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("Normal SuccessfulCreate replicaset/web-")),
        "{rows:?}"
    );
    assert!(
        !rows.iter().any(|r| r.contains("Normal Scheduled pod/x")),
        "nothing from before the watch: {rows:?}"
    );
    let followed = until(&rx_all, |l| l.contains("from 2 to 3"));
    assert!(
        followed.last().is_some_and(|l| l.contains("from 2 to 3")),
        "-w follows too: {followed:?}"
    );
    only.kill().unwrap();
    all.kill().unwrap();
    only.wait().unwrap();
    all.wait().unwrap();
}

#[test]
fn kubectl_diff_exits_0_when_unchanged_and_1_with_the_diff() {
    if !have_kubectl() {
        return;
    }
    let s = util::two_nodes();
    let web = OBJECTS.split("---").next().unwrap();
    let f = s.write("web.yaml", web);
    s.kubectl_ok(&["apply", "-f", &f]);
    s.kubectl_ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);

    let o = s.kubectl(&["diff", "-f", &f]);
    assert_eq!((o.code, o.stdout.as_str(), o.stderr.as_str()), (0, "", ""));

    let changed = s.write("web2.yaml", &web.replace("nginx:1.25", "nginx:1.26"));
    let o = s.kubectl(&["diff", "-f", &changed]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let body: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| !l.starts_with("diff ") && !l.starts_with("---") && !l.starts_with("+++"))
        .filter(|l| l.starts_with(['-', '+']))
        .collect();
    assert_eq!(
        body,
        [
            "-  generation: 1",
            "+  generation: 2",
            "-      - image: nginx:1.25",
            "+      - image: nginx:1.26",
        ],
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("+++ /tmp/MERGED-")
            && o.stdout.contains("/apps.v1.Deployment.default.web\t"),
        "{}",
        o.stdout
    );
    // Nothing was written.
    let d = s.get("deployments", "default", "web").unwrap();
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.25"
    );
    // An object that does not exist yet is all added.
    let cm = s.write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fresh}\ndata: {a: '1'}\n",
    );
    let o = s.kubectl(&["diff", "-f", &cm]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stdout.contains("+  name: fresh\n"), "{}", o.stdout);
    assert!(s.get("configmaps", "default", "fresh").is_none());
}

//! The kinds a real application's manifests hold besides workloads — Services, ConfigMaps,
//! Secrets, ServiceAccounts, RBAC, StorageClasses, PVCs, Ingresses, HPAs, CronJobs — applied
//! and listed through the real kubectl, with kubectl's columns as upstream's printers fill them.

use crate::util;

use crate::util::{have_kubectl, node, start, table_rows};
use serde_json::json;

const APP: &str = include_str!("data/app-kinds.yaml");

#[test]
fn an_applications_kinds_apply_and_list_with_kubectls_columns() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let app = s.write("app.yaml", APP);
    let o = s.kubectl(&["apply", "-f", &app]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 15, "{}", o.stdout);
    assert!(
        o.stdout
            .contains("horizontalpodautoscaler.autoscaling/web created")
    );

    let o = s.kubectl(&["get", "svc", "-o", "wide"]);
    assert_eq!(
        table_rows(&o.stdout, 5),
        [
            "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR",
            "web ClusterIP 10.96.0.10 <none> 80/TCP AGE app=web",
            "web-lb LoadBalancer 10.96.0.12 <pending> 80:30001/TCP AGE <none>",
            "web-np NodePort 10.96.0.11 <none> 443:30000/TCP AGE app=web",
        ],
        "{}",
        o.stdout
    );
    let svc = s.get("services", "default", "web").unwrap();
    assert_eq!(svc["spec"]["ports"][0]["targetPort"], 8080);
    assert_eq!(svc["spec"]["sessionAffinity"], "None");
    assert_eq!(svc["spec"]["ipFamilies"], json!(["IPv4"]));

    let o = s.kubectl(&["get", "cm,secret,sa"]);
    let rows: Vec<String> = o
        .stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(
        rows.iter()
            .any(|r| r.starts_with("configmap/web-config 2 ")),
        "{}",
        o.stdout
    );
    assert!(
        rows.iter()
            .any(|r| r.starts_with("secret/web-secret Opaque 1 ")),
        "{}",
        o.stdout
    );
    assert!(
        rows.iter().any(|r| r.starts_with("serviceaccount/web 0 ")),
        "{}",
        o.stdout
    );
    let secret = s.get("secrets", "default", "web-secret").unwrap();
    assert_eq!(
        secret["data"]["password"], "aHVudGVyMg==",
        "stringData is stored as data"
    );
    assert!(secret.get("stringData").is_none());

    let o = s.kubectl(&["get", "rolebinding,clusterrolebinding", "-o", "wide"]);
    let rows = table_rows(&o.stdout, 2);
    assert!(
        rows.contains(
            &"rolebinding.rbac.authorization.k8s.io/read-pods Role/reader AGE jane default/web"
                .to_string()
        ),
        "{rows:#?}"
    );
    assert!(rows.contains(&"clusterrolebinding.rbac.authorization.k8s.io/read-nodes ClusterRole/node-reader AGE ops".to_string()), "{rows:#?}");
    let o = s.kubectl(&["get", "clusterrole", "node-reader"]);
    assert!(
        o.stdout
            .starts_with("NAME          CREATED AT\nnode-reader   20"),
        "{}",
        o.stdout
    );

    let o = s.kubectl(&["get", "hpa"]);
    // (The TARGETS cell is two words: AGE is the eighth.)
    assert_eq!(
        table_rows(&o.stdout, 7),
        [
            "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE",
            "web Deployment/web cpu: <unknown>/80% 1 5 0 AGE"
        ],
        "{}",
        o.stdout
    );
    let o = s.kubectl(&["get", "sc,pvc,ing"]);
    let rows = table_rows(&o.stdout, usize::MAX);
    assert!(
        rows.iter().any(|r| r.starts_with(
            "storageclass.storage.k8s.io/fast (default) ebs.csi.aws.com Delete Immediate false "
        )),
        "{rows:#?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.starts_with("persistentvolumeclaim/data Pending fast <unset> ")),
        "{rows:#?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.starts_with("ingress.networking.k8s.io/web <none> web.example.com 80 ")),
        "{rows:#?}"
    );

    // Names are each kind's: a Service name is a DNS-1035 label.
    let bad = s.write(
        "bad-svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: 1web}\nspec: {ports: [{port: 80}]}\n",
    );
    let o = s.kubectl(&["apply", "-f", &bad]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character"),
        "{}",
        o.stderr
    );
    // Deleting works for every kind, by name and by file.
    let o = s.kubectl(&["delete", "-f", &app]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(s.get("services", "default", "web").is_none());
    assert!(s.get("clusterrolebindings", "", "read-nodes").is_none());
}

#[test]
fn ingress_classes_and_webhook_configurations_are_stored_and_listed() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![]);
    let f = s.write(
        "kinds.yaml",
        "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec:\n  controller: k8s.io/ingress-nginx\n  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}\n---\napiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: plain}\nspec: {controller: example.com/plain}\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: hooks}\nwebhooks:\n- name: a.example.com\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  clientConfig: {service: {name: svc, namespace: default, path: /validate}}\n  rules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: none}\n",
    );
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(
        o.stdout,
        "ingressclass.networking.k8s.io/nginx created\ningressclass.networking.k8s.io/plain created\nvalidatingwebhookconfiguration.admissionregistration.k8s.io/hooks created\nmutatingwebhookconfiguration.admissionregistration.k8s.io/none created\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "ingressclass"]);
    assert_eq!(
        table_rows(&o.stdout, 3),
        [
            "NAME CONTROLLER PARAMETERS AGE",
            "nginx k8s.io/ingress-nginx IngressParameters.k8s.example.com/external-lb AGE",
            "plain example.com/plain <none> AGE",
        ],
        "{}",
        o.stderr
    );
    let o = s.kubectl(&[
        "get",
        "validatingwebhookconfigurations,mutatingwebhookconfigurations",
    ]);
    let rows = table_rows(&o.stdout, 2);
    assert!(
        rows.contains(
            &"validatingwebhookconfiguration.admissionregistration.k8s.io/hooks 1 AGE".to_string()
        ),
        "{rows:#?}"
    );
    assert!(
        rows.contains(
            &"mutatingwebhookconfiguration.admissionregistration.k8s.io/none 0 AGE".to_string()
        ),
        "{rows:#?}"
    );
    // Stored only: creating a pod calls no webhook.
    let o = s.kubectl(&["run", "p", "--image=nginx"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// Two Events whose `lastTimestamp` order is the reverse of their names'.
const EVENTS: &str = "apiVersion: v1
kind: Event
metadata:
  name: a-late
  namespace: default
involvedObject:
  kind: Pod
  name: web-1
  namespace: default
reason: Late
message: the later one
type: Normal
firstTimestamp: \"2025-12-07T10:05:00Z\"
lastTimestamp: \"2025-12-07T10:05:00Z\"
count: 1
---
apiVersion: v1
kind: Event
metadata:
  name: b-early
  namespace: default
involvedObject:
  kind: Pod
  name: web-0
  namespace: default
reason: Early
message: the earlier one
type: Warning
firstTimestamp: \"2025-12-07T10:00:00Z\"
lastTimestamp: \"2025-12-07T10:00:00Z\"
count: 1
";

#[test]
fn sort_by_a_field_outside_metadata_reads_the_whole_objects_kubectl_asks_for() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let f = s.write("events.yaml", EVENTS);
    s.kubectl_ok(&["create", "-f", &f]);
    // kubectl asks for `includeObject=Object` and sorts the rows by the objects' field.
    let out = s.kubectl_ok(&["get", "events", "--sort-by=.lastTimestamp"]);
    let reasons: Vec<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|r| ["Early", "Late"].contains(r))
        .collect();
    assert_eq!(reasons, ["Early", "Late"], "{out}");
    let out = s.kubectl_ok(&["get", "events", "--sort-by=.involvedObject.name"]);
    assert!(
        out.find("web-0").unwrap() < out.find("web-1").unwrap(),
        "{out}"
    );
}

/// `staging/spark/spark-worker-controller.yaml` of kubernetes/examples, byte for byte:
/// <https://github.com/kubernetes/examples/blob/8e9406886a027d9c1e99a82c33ad6662cadc81d8/staging/spark/spark-worker-controller.yaml>
const SPARK_WORKER_RC: &str = include_str!("data/spark-worker-controller.yaml");

/// The names of the pods whose name starts with `prefix`, with their phase, sorted.
fn pods_of(s: &util::Server, prefix: &str) -> Vec<String> {
    let out = s.kubectl_ok(&[
        "get",
        "pods",
        "-o",
        "jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.metadata.ownerReferences[0].kind}{\"\\n\"}{end}",
    ]);
    let mut v: Vec<String> = out
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

#[test]
fn a_replication_controller_is_served_scaled_and_owns_its_pods() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let rc = s.write("rc.yaml", SPARK_WORKER_RC);
    assert_eq!(
        s.kubectl_ok(&["apply", "-f", &rc]),
        "replicationcontroller/spark-worker-controller created\n"
    );
    // Defaulted as SetDefaults_ReplicationController: the object's labels from the template.
    let stored = s
        .get(
            "replicationcontrollers",
            "default",
            "spark-worker-controller",
        )
        .unwrap();
    assert_eq!(
        stored["metadata"]["labels"],
        json!({"component": "spark-worker"})
    );
    s.kubectl_ok(&[
        "wait",
        "--for=jsonpath={.status.readyReplicas}=2",
        "rc/spark-worker-controller",
        "--timeout=60s",
    ]);
    let pods = pods_of(&s, "spark-worker-controller-");
    assert_eq!(pods.len(), 2, "{pods:?}");
    assert!(
        pods.iter()
            .all(|p| p.ends_with(" Running ReplicationController")),
        "{pods:?}"
    );
    let o = s.kubectl_ok(&["get", "rc", "-o", "wide"]);
    assert_eq!(
        table_rows(&o, 4),
        [
            "NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR",
            "spark-worker-controller 2 2 2 AGE spark-worker registry.k8s.io/spark:1.5.2_v1 component=spark-worker",
        ],
        "{o}"
    );
    assert_eq!(
        s.kubectl_ok(&["scale", "rc/spark-worker-controller", "--replicas=3"]),
        "replicationcontroller/spark-worker-controller scaled\n"
    );
    s.kubectl_ok(&[
        "wait",
        "--for=jsonpath={.status.readyReplicas}=3",
        "replicationcontroller/spark-worker-controller",
        "--timeout=60s",
    ]);
    assert_eq!(pods_of(&s, "spark-worker-controller-").len(), 3);

    // Upstream's ValidateReplicationControllerSpec: a selector the template does not carry.
    let bad = s.write(
        "bad.yaml",
        &SPARK_WORKER_RC
            .replace("spark-worker-controller", "bad")
            .replacen("component: spark-worker", "component: other", 1),
    );
    let o = s.kubectl(&["apply", "-f", &bad]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "The ReplicationController \"bad\" is invalid: spec.template.metadata.labels: Invalid value: {\"component\":\"spark-worker\"}: `selector` does not match template `labels`\n",
    );

    s.kubectl_ok(&["delete", "rc/spark-worker-controller", "--wait=false"]);
    for _ in 0..200 {
        if pods_of(&s, "spark-worker-controller-").is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(
        pods_of(&s, "spark-worker-controller-"),
        Vec::<String>::new(),
        "the garbage collector deletes the pods it owned"
    );
}

//! A real ReplicationController manifest: read as a workload (kube-controller-manager runs it
//! as a ReplicaSet), so `admit` prints its pods, `explain rc/NAME` explains one, and
//! cluster-autoscaler finds the controller of a pod it owns.

use serde_json::{Value, json};

use crate::util::{self, run};

/// `staging/spark/spark-worker-controller.yaml` of kubernetes/examples, byte for byte:
/// <https://github.com/kubernetes/examples/blob/8e9406886a027d9c1e99a82c33ad6662cadc81d8/staging/spark/spark-worker-controller.yaml>
const SPARK_WORKER_RC: &str = r#"kind: ReplicationController
apiVersion: v1
metadata:
  name: spark-worker-controller
spec:
  replicas: 2
  selector:
    component: spark-worker
  template:
    metadata:
      labels:
        component: spark-worker
    spec:
      containers:
        - name: spark-worker
          image: registry.k8s.io/spark:1.5.2_v1
          command: ["/start-worker"]
          ports:
            - containerPort: 8081
          resources:
            requests:
              cpu: 100m

"#;

/// The pod of the RC on node `a`, as an export holds it.
const POD: &str = "spark-worker-controller-x7k2p";

fn node(name: &str) -> Value {
    let res = json!({"cpu": "4", "memory": "16Gi", "pods": "110"});
    json!({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "status": {"capacity": res, "allocatable": res,
                      "conditions": [{"type": "Ready", "status": "True"}]}})
}

/// Two nodes and the RC's pod on `a` (its controller reference as the RC's controller writes
/// it), in `cluster.json`; the RC in `rc.yaml`.
fn files() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": POD, "namespace": "default", "labels": {"component": "spark-worker"},
                     "ownerReferences": [{"apiVersion": "v1", "kind": "ReplicationController",
                                          "name": "spark-worker-controller", "uid": "",
                                          "controller": true}]},
        "spec": {"nodeName": "a",
                 "containers": [{"name": "spark-worker", "image": "registry.k8s.io/spark:1.5.2_v1"}]},
        "status": {"phase": "Running"}});
    let cluster = dir.path().join("cluster.json");
    std::fs::write(
        &cluster,
        serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List",
                                      "items": [node("a"), node("b"), pod]}))
        .unwrap(),
    )
    .unwrap();
    let rc = dir.path().join("rc.yaml");
    std::fs::write(&rc, SPARK_WORKER_RC).unwrap();
    let (c, r) = (cluster.display().to_string(), rc.display().to_string());
    (dir, c, r)
}

#[test]
fn admit_prints_the_pods_of_a_replication_controller() {
    let (_dir, _, rc) = files();
    let (code, out, err) = run(&["admit", "-f", &rc, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let pods = v["items"].as_array().unwrap();
    assert_eq!(pods.len(), 2, "{v}");
    for p in pods {
        let name = p["metadata"]["name"].as_str().unwrap();
        let suffix = name.strip_prefix("spark-worker-controller-").unwrap();
        assert_eq!(suffix.len(), 5, "{name}");
        assert_eq!(
            p["metadata"]["labels"],
            json!({"component": "spark-worker"})
        );
        let owner = &p["metadata"]["ownerReferences"][0];
        assert_eq!(
            (
                &owner["apiVersion"],
                &owner["kind"],
                &owner["name"],
                &owner["controller"]
            ),
            (
                &json!("v1"),
                &json!("ReplicationController"),
                &json!("spark-worker-controller"),
                &json!(true)
            ),
        );
    }
    // With the pod it owns: it makes only the one missing.
    let (_dir, cluster, rc) = files();
    let (code, out, err) = run(&["admit", "-f", &cluster, "-f", &rc, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = util::strs(&v["items"], "/metadata/name");
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&POD), "{names:?}");
}

#[test]
fn explain_takes_kubectls_names_for_a_replication_controller() {
    let (_dir, cluster, rc) = files();
    for arg in [
        "rc/spark-worker-controller",
        "replicationcontroller/spark-worker-controller",
        "replicationcontrollers.v1/spark-worker-controller",
    ] {
        let (code, out, err) = run(&["explain", arg, "-f", &cluster, "-f", &rc, "-o", "json"]);
        assert_eq!(code, 0, "{arg}: {err}");
        assert!(
            err.contains(
                "explaining a pod of ReplicationController default/spark-worker-controller"
            ),
            "{arg}: {err}"
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["message"], "", "{arg}: {v}");
    }
    let (code, _, err) = run(&["explain", "rc/nope", "-f", &cluster, "-f", &rc]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "Error from server (NotFound): replicationcontrollers \"nope\" not found in the given files (namespace \"default\")"
        ),
        "{err}"
    );
}

/// cluster-autoscaler's replicacount rule lists the pod's ReplicationController: found in the
/// input, the pod moves; absent, upstream's ControllerNotFound with its text
/// (`rules/replicacount/rule.go`).
#[test]
fn cluster_autoscaler_finds_the_replication_controller_of_a_pod() {
    let (_dir, cluster, rc) = files();
    let drain = |files: &[&str]| {
        let mut args = vec!["drain", "a", "--as", "cluster-autoscaler", "-o", "json"];
        for f in files {
            args.extend(["-f", f]);
        }
        let (code, out, err) = run(&args);
        (code, serde_json::from_str::<Value>(&out).unwrap(), err)
    };
    let (code, v, err) = drain(&[&cluster, &rc]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        v["nodes"][0]["pods"][0],
        json!({"pod": format!("default/{POD}"), "action": "move", "to": "b"}),
        "{v}"
    );
    let (code, v, err) = drain(&[&cluster]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        v["nodes"][0]["pods"][0],
        json!({"pod": format!("default/{POD}"), "action": "blocked", "reason": "ControllerNotFound",
               "message": format!("replication controller for default/{POD} is not available, err: replicationcontroller \"spark-worker-controller\" not found")}),
        "{v}"
    );
}

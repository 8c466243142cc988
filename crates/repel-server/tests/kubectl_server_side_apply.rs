//! `kubectl apply --server-side`, field managers and `managedFields`, through the real kubectl:
//! create by apply, ownership shown by `--show-managed-fields`, a conflict with another
//! manager in upstream's words, `--force-conflicts`, and a field dropped from the file going.

use crate::util::{have_kubectl, node, start};
use serde_json::json;

fn deployment(replicas: u32, extra_label: bool) -> String {
    let tier = if extra_label { "\n    tier: front" } else { "" };
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web{tier}
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      tolerations:
      - key: dedicated
        operator: Equal
        value: web
        effect: NoSchedule
      containers:
      - name: nginx
        image: nginx
"
    )
}

#[test]
fn server_side_apply_owns_conflicts_and_forces_as_upstream() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let f = s.write("web.yaml", &deployment(2, true));
    let o = s.kubectl(&["apply", "--server-side", "-f", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.trim(), "deployment.apps/web serverside-applied");
    let d = s.get("deployments", "default", "web").unwrap();
    assert_eq!(d["spec"]["replicas"], 2);
    let mf = d["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(mf.len(), 1, "{mf:?}");
    assert_eq!(mf[0]["manager"], "kubectl");
    assert_eq!(mf[0]["operation"], "Apply");
    assert_eq!(
        mf[0]["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"],
        json!({"k:{\"name\":\"nginx\"}": {".": {}, "f:image": {}, "f:name": {}}})
    );

    // Hidden from -o yaml unless asked for, as kubectl does.
    let o = s.kubectl(&["get", "deploy", "web", "-o", "yaml"]);
    assert!(!o.stdout.contains("managedFields"), "{}", o.stdout);
    let o = s.kubectl(&[
        "get",
        "deploy",
        "web",
        "-o",
        "yaml",
        "--show-managed-fields",
    ]);
    assert!(o.stdout.contains("managedFields:"), "{}", o.stdout);
    assert!(o.stdout.contains("manager: kubectl\n"), "{}", o.stdout);
    assert!(o.stdout.contains("operation: Apply"), "{}", o.stdout);

    // Another manager changes replicas; applying another value then conflicts.
    let o = s.kubectl(&["patch", "deploy", "web", "-p", r#"{"spec":{"replicas":4}}"#]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let d = s.get("deployments", "default", "web").unwrap();
    let managers: Vec<&str> = d["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["manager"].as_str().unwrap())
        .collect();
    assert_eq!(managers, ["kubectl", "kubectl-patch"]);
    let f3 = s.write("web3.yaml", &deployment(3, true));
    let o = s.kubectl(&["apply", "--server-side", "-f", &f3]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"kubectl-patch\" using apps/v1: .spec.replicas\n"
        ),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("--force-conflicts"),
        "kubectl's advice follows: {}",
        o.stderr
    );
    assert_eq!(
        s.get("deployments", "default", "web").unwrap()["spec"]["replicas"],
        4
    );
    let o = s.kubectl(&["apply", "--server-side", "--force-conflicts", "-f", &f3]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let d = s.get("deployments", "default", "web").unwrap();
    assert_eq!(d["spec"]["replicas"], 3);
    // kubectl-patch owned only replicas: it is gone from the list.
    assert_eq!(d["metadata"]["managedFields"].as_array().unwrap().len(), 1);

    // A label dropped from the file is removed.
    let f4 = s.write("web4.yaml", &deployment(3, false));
    let o = s.kubectl(&["apply", "--server-side", "-f", &f4]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let d = s.get("deployments", "default", "web").unwrap();
    assert_eq!(d["metadata"]["labels"], json!({"app": "web"}));

    // Dry run changes nothing.
    let o = s.kubectl(&["apply", "--server-side", "--dry-run=server", "-f", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout.trim(),
        "deployment.apps/web serverside-applied (server dry run)"
    );
    let d = s.get("deployments", "default", "web").unwrap();
    assert_eq!(d["metadata"]["labels"], json!({"app": "web"}));
}

#[test]
fn client_side_writes_record_their_managers() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let f = s.write("web.yaml", &deployment(1, false));
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = s.kubectl(&["label", "deploy", "web", "team=a"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let d = s.get("deployments", "default", "web").unwrap();
    let mf = d["metadata"]["managedFields"].as_array().unwrap();
    let managers: Vec<(&str, &str)> = mf
        .iter()
        .map(|e| {
            (
                e["manager"].as_str().unwrap(),
                e["operation"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        managers,
        [
            ("kubectl-client-side-apply", "Update"),
            ("kubectl-label", "Update")
        ]
    );
    assert_eq!(
        mf[1]["fieldsV1"],
        json!({"f:metadata": {"f:labels": {"f:team": {}}}})
    );
    // Taking over from client-side apply: kubectl moves the fields to its applier first, so
    // the same file applies server-side without a conflict (kubectl's csaupgrade).
    let f2 = s.write("web2.yaml", &deployment(2, false));
    let o = s.kubectl(&["apply", "--server-side", "-f", &f2]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        s.get("deployments", "default", "web").unwrap()["spec"]["replicas"],
        2
    );
}

/// A Deployment whose metadata is only its name (the shape of `kubectl create deployment
/// --dry-run -o yaml` and of most manifests' first lines).
fn bare_deployment(replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
      - name: nginx
        image: nginx
"
    )
}

#[test]
fn another_managers_apply_conflicts_on_the_changed_field_only() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let f = s.write("api.yaml", &bare_deployment(2));
    let o = s.kubectl(&["apply", "--server-side", "-f", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let d = s.get("deployments", "default", "api").unwrap();
    let fields = &d["metadata"]["managedFields"][0]["fieldsV1"];
    assert!(fields.get("f:metadata").is_none(), "{fields}");
    assert_eq!(
        fields["f:spec"]["f:selector"],
        json!({}),
        "atomic: {fields}"
    );
    let f3 = s.write("api3.yaml", &bare_deployment(3));
    let o = s.kubectl(&["apply", "--server-side", "--field-manager=other", "-f", &f3]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas\n"
        ),
        "{}",
        o.stderr
    );
}

#[test]
fn client_side_then_server_side_apply_takes_the_last_applied_fields_as_upstream() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let f = s.write("api.yaml", &bare_deployment(2));
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Another writer scales it: replicas no longer match the last-applied annotation.
    let o = s.kubectl(&["scale", "deploy", "api", "--replicas=5"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let f3 = s.write("api3.yaml", &bare_deployment(3));
    let o = s.kubectl(&["apply", "--server-side", "-f", &f3]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(
        o.stderr
            .starts_with("error: Apply failed with 1 conflict: conflict with \"kubectl")
            && o.stderr.contains(": .spec.replicas\n"),
        "{}",
        o.stderr
    );
    // Unchanged replicas: the client-side fields are taken without a conflict and the
    // annotation follows the applied file.
    let f5 = s.write(
        "api5.yaml",
        &bare_deployment(5).replace("image: nginx", "image: nginx:1.27"),
    );
    let o = s.kubectl(&["apply", "--server-side", "-f", &f5]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let d = s.get("deployments", "default", "api").unwrap();
    let last = d["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
        .as_str()
        .unwrap();
    assert!(last.contains("\"replicas\":5"), "{last}");
    assert!(last.contains("\"image\":\"nginx:1.27\""), "{last}");
    assert!(last.ends_with("}\n"), "{last:?}");
}

//! `kubectl explain` over the server's OpenAPI v3: the built-in kinds' schemas carry upstream's
//! field documentation (k8s-openapi's), a custom resource's its CRD's schema; and
//! `--validate=strict` of a manifest with an unknown field gets the server's strict-decoding
//! error, kubectl having found the `fieldValidation` parameter in the same documents.

use crate::util;

use crate::util::{Out, have_kubectl, node, start};
use serde_json::json;

/// What `kubectl explain` prints for a toleration list, after the `KIND`/`VERSION` lines.
const TOLERATIONS: &str = "FIELD: tolerations <[]Toleration>


DESCRIPTION:
    If specified, the pod's tolerations.
    The pod this Toleration is attached to tolerates any taint that matches the
    triple <key,value,effect> using the matching operator <operator>.
    
FIELDS:
  effect\t<string>
  enum: NoExecute, NoSchedule, PreferNoSchedule
    Effect indicates the taint effect to match. Empty means match all taint
    effects. When specified, allowed values are NoSchedule, PreferNoSchedule and
    NoExecute.

  key\t<string>
    Key is the taint key that the toleration applies to. Empty means match all
    taint keys. If the key is empty, operator must be Exists; this combination
    means to match all values and all keys.

  operator\t<string>
  enum: Equal, Exists, Gt, Lt
";

/// The lines of `o`'s stdout, asserting it succeeded.
fn lines(o: &Out) -> Vec<&str> {
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    o.stdout.lines().collect()
}

#[test]
fn explain_prints_upstreams_documentation_of_tolerations_and_taints() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);

    let o = s.kubectl(&["explain", "pod.spec.tolerations"]);
    let l = lines(&o);
    assert_eq!(
        l[..3],
        ["KIND:       Pod", "VERSION:    v1", ""],
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains(&format!("VERSION:    v1\n\n{TOLERATIONS}")),
        "{}",
        o.stdout
    );
    for field in [
        "  tolerationSeconds\t<integer>",
        "  value\t<string>",
        "    Value is the taint value the toleration matches to. If the operator is",
    ] {
        assert!(l.contains(&field), "{field}: {}", o.stdout);
    }

    // The same schema, through the Deployment's pod template.
    let o = s.kubectl(&["explain", "deployment.spec.template.spec.tolerations"]);
    assert_eq!(
        lines(&o)[..4],
        [
            "GROUP:      apps",
            "KIND:       Deployment",
            "VERSION:    v1",
            ""
        ],
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains(&format!("VERSION:    v1\n\n{TOLERATIONS}")),
        "{}",
        o.stdout
    );

    let o = s.kubectl(&["explain", "node.spec.taints"]);
    assert_eq!(
        o.stdout,
        "KIND:       Node
VERSION:    v1

FIELD: taints <[]Taint>


DESCRIPTION:
    If specified, the node's taints.
    The node this Taint is attached to has the \"effect\" on any pod that does not
    tolerate the Taint.
    
FIELDS:
  effect\t<string> -required-
  enum: NoExecute, NoSchedule, PreferNoSchedule
    Required. The effect of the taint on pods that do not tolerate the taint.
    Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

  key\t<string> -required-
    Required. The taint key to be applied to a node.

  timeAdded\t<string>
    TimeAdded represents the time at which the taint was added.

  value\t<string>
    The taint value corresponding to the taint key.


",
        "{}",
        o.stderr
    );
}

#[test]
fn explain_follows_references_into_shared_schemas() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    // A kind's top level: its fields, metadata a reference to ObjectMeta.
    let o = s.kubectl(&["explain", "pod"]);
    let l = lines(&o);
    assert_eq!(
        l[..4],
        ["KIND:       Pod", "VERSION:    v1", "", "DESCRIPTION:"]
    );
    for field in [
        "  apiVersion\t<string>",
        "  kind\t<string>",
        "  metadata\t<ObjectMeta>",
        "  spec\t<PodSpec>",
        "  status\t<PodStatus>",
    ] {
        assert!(l.contains(&field), "{field}: {}", o.stdout);
    }
    // Into ObjectMeta (apimachinery's) and the scheduling fields.
    let o = s.kubectl(&["explain", "pod.metadata.ownerReferences"]);
    assert!(
        lines(&o).contains(&"FIELD: ownerReferences <[]OwnerReference>"),
        "{}",
        o.stdout
    );
    let o = s.kubectl(&["explain", "pod.spec.affinity.nodeAffinity"]);
    assert!(
        lines(&o).contains(&"  requiredDuringSchedulingIgnoredDuringExecution\t<NodeSelector>"),
        "{}",
        o.stdout
    );
    // Every served group has its document: a cluster-scoped kind of another group.
    let o = s.kubectl(&["explain", "priorityclass.value"]);
    assert_eq!(
        lines(&o)[..5],
        [
            "GROUP:      scheduling.k8s.io",
            "KIND:       PriorityClass",
            "VERSION:    v1",
            "",
            "FIELD: value <integer>"
        ],
        "{}",
        o.stdout
    );
    // A field that does not exist: kubectl's own error.
    let o = s.kubectl(&["explain", "pod.spec.bogus"]);
    assert_eq!(o.code, 1);
    assert_eq!(o.stderr, "error: field \"bogus\" does not exist\n");
}

#[test]
fn explain_reads_a_custom_resources_schema_from_its_crd() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let crds = s.write("crds.yaml", include_str!("data/crds.yaml"));
    let o = s.kubectl(&["apply", "-f", &crds]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // The CRD's schema, with the apiVersion, kind and metadata every object has.
    let o = s.kubectl(&["explain", "crontab"]);
    assert_eq!(
        o.stdout,
        "GROUP:      stable.example.com
KIND:       CronTab
VERSION:    v1

DESCRIPTION:
    <empty>
FIELDS:
  apiVersion\t<string>
    APIVersion defines the versioned schema of this representation of an object.
    Servers should convert recognized schemas to the latest internal value, and
    may reject unrecognized values. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources

  kind\t<string>
    Kind is a string value representing the REST resource this object
    represents. Servers may infer this from the endpoint the client submits
    requests to. Cannot be updated. In CamelCase. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds

  metadata\t<ObjectMeta>
    Standard object's metadata. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

  spec\t<Object>
    <no description>


",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["explain", "crontab.metadata.name"]);
    assert_eq!(
        lines(&o)[..5],
        [
            "GROUP:      stable.example.com",
            "KIND:       CronTab",
            "VERSION:    v1",
            "",
            "FIELD: name <string>"
        ],
        "{}",
        o.stdout
    );
}

#[test]
fn validate_strict_refuses_an_unknown_field_of_a_toleration() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let bad = s.write(
        "bad.yaml",
        "apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: nginx
  tolerations:
  - key: a
    effect: NoSchedule
    bogus: 1
",
    );
    for verb in ["apply", "create"] {
        let o = s.kubectl(&[verb, "--validate=strict", "-f", &bad]);
        assert_eq!(o.code, 1, "{verb}");
        assert_eq!(
            o.stderr,
            format!(
                "Error from server (BadRequest): error when creating \"{bad}\": Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.tolerations[0].bogus\"\n"
            ),
            "{verb}"
        );
    }
}

/// The versioned kubectl binaries installed beside the `kubectl` on the PATH (the machine
/// image's dispatcher bundles `kubectl.1.27` … `kubectl.1.33`).
fn versioned_kubectls(versions: &[&str]) -> Vec<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(dir) = std::env::split_paths(&path)
        .map(|d| d.join("kubectl"))
        .find(|k| k.is_file())
        .and_then(|k| std::fs::canonicalize(k).ok())
        .and_then(|k| k.parent().map(std::path::Path::to_path_buf))
    else {
        return Vec::new();
    };
    versions
        .iter()
        .map(|v| dir.join(format!("kubectl.{v}")))
        .filter(|k| k.is_file())
        .collect()
}

#[test]
fn explain_works_with_kubectl_1_27_and_1_33() {
    let kubectls = versioned_kubectls(&["1.27", "1.33"]);
    if kubectls.len() < 2 {
        // Both, or the test claims what it did not run.
        assert!(
            std::env::var(util::SKIP_KUBECTL).as_deref() == Ok("1"),
            "kubectl.1.27 and kubectl.1.33 are needed beside kubectl (found {kubectls:?}); set {}=1 to skip",
            util::SKIP_KUBECTL
        );
        eprintln!("kubectl.1.27 or kubectl.1.33 missing: test skipped");
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    for k in kubectls {
        let cache = tempfile::tempdir().unwrap();
        // Runs `k` with `args` and asserts its stdout has each of `wants` as a line.
        let expect = |args: &[&str], wants: &[&str]| {
            let o = std::process::Command::new(&k)
                .env("KUBECONFIG", &s.kubeconfig)
                .arg(format!("--cache-dir={}", cache.path().display()))
                .args(args)
                .output()
                .unwrap();
            let out = String::from_utf8_lossy(&o.stdout);
            let l: Vec<&str> = out.lines().collect();
            for want in wants {
                assert!(
                    l.contains(want),
                    "{}: {want}: {out}{}",
                    k.display(),
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        };
        expect(
            &["explain", "deployment.spec.template.spec.tolerations"],
            &[
                "GROUP:      apps",
                "KIND:       Deployment",
                "FIELD: tolerations <[]Toleration>",
                "    If specified, the pod's tolerations.",
                "  effect\t<string>",
                "  tolerationSeconds\t<integer>",
            ],
        );
        // And over OpenAPI v2, gnostic's protobuf.
        expect(
            &[
                "explain",
                "pod.spec.tolerations",
                "--output=plaintext-openapiv2",
            ],
            &[
                "RESOURCE: tolerations <[]Object>",
                "     If specified, the pod's tolerations.",
                "   tolerationSeconds\t<integer>",
            ],
        );
    }
}

#[test]
fn explain_reads_openapi_v2_when_asked_for_it() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    // kubectl asks /openapi/v2 in gnostic's protobuf and prints v2's template.
    let o = s.kubectl(&[
        "explain",
        "node.spec.taints",
        "--output=plaintext-openapiv2",
    ]);
    assert_eq!(
        o.stdout,
        "KIND:     Node
VERSION:  v1

RESOURCE: taints <[]Object>

DESCRIPTION:
     If specified, the node's taints.

     The node this Taint is attached to has the \"effect\" on any pod that does
     not tolerate the Taint.

FIELDS:
   effect\t<string> -required-
     Required. The effect of the taint on pods that do not tolerate the taint.
     Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

   key\t<string> -required-
     Required. The taint key to be applied to a node.

   timeAdded\t<string>
     TimeAdded represents the time at which the taint was added.

   value\t<string>
     The taint value corresponding to the taint key.

",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&[
        "explain",
        "deployment.spec.template.spec.tolerations.tolerationSeconds",
        "--output=plaintext-openapiv2",
    ]);
    let l = lines(&o);
    assert_eq!(
        l[..5],
        [
            "KIND:     Deployment",
            "VERSION:  apps/v1",
            "",
            "FIELD:    tolerationSeconds <integer>",
            ""
        ],
        "{}",
        o.stdout
    );

    // A custom resource: its CRD's schema is in v2 too.
    let crds = s.write("crds.yaml", include_str!("data/crds.yaml"));
    assert_eq!(s.kubectl(&["apply", "-f", &crds]).code, 0);
    let o = s.kubectl(&["explain", "crontab", "--output=plaintext-openapiv2"]);
    let l = lines(&o);
    assert_eq!(
        l[..2],
        ["KIND:     CronTab", "VERSION:  stable.example.com/v1"],
        "{}",
        o.stdout
    );
    assert!(l.contains(&"   metadata\t<Object>"), "{}", o.stdout);
    assert!(l.contains(&"   spec\t<Object>"), "{}", o.stdout);

    // Asked for JSON, the same document as Swagger 2.0.
    let o = s.kubectl(&["get", "--raw", "/openapi/v2"]);
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(doc["swagger"], "2.0");
    assert_eq!(
        doc["definitions"]["io.k8s.api.core.v1.PodSpec"]["properties"]["tolerations"]["items"]["$ref"],
        "#/definitions/io.k8s.api.core.v1.Toleration"
    );
    assert!(doc["definitions"]["com.example.stable.v1.CronTab"].is_object());
}

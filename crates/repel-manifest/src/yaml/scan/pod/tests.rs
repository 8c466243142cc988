//! The direct read of a pod against the value path it stands in for: for every piece it takes,
//! the same typed pod, the same document kept and the same budget as the scanner's value and
//! the reader's hook give; and a piece it declines is one the value path still answers. Inputs:
//! bound pods as a snapshot writes them, variations of every kind of node and error, random
//! damage, and every manifest the repository and the shared corpus hold.

use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;

use super::super::tests::{Rng, mutate};
use super::super::{scan, template};
use super::direct;
use crate::decode::{Decoded, Typed, decode_direct, decode_early};

/// A bound pod as `repel snapshot` writes it; `meta` and `status` are spliced into its
/// metadata and status blocks.
fn bound_pod(name: &str, node: &str, meta: &str, status: &str) -> String {
    format!(
        "---
apiVersion: v1
kind: Pod
metadata:
  labels:
    app: bench-11
    pod-template-hash: \"7b676b46db\"
  name: {name}
  namespace: default
  ownerReferences:
  - apiVersion: apps/v1
    blockOwnerDeletion: true
    controller: true
    kind: ReplicaSet
    name: bench-11-7b676b46db
    uid: ec910c85-918d-46a8-aa44-9a5152ae1a09
  uid: 58aa10ac-2e19-42cd-b03e-20ea163244e2
  creationTimestamp: 2026-12-07T16:17:24Z
{meta}spec:
  containers:
  - image: nginx
    imagePullPolicy: Always
    name: c
    resources:
      requests:
        cpu: 10m
        memory: 16Mi
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
  dnsPolicy: ClusterFirst
  nodeName: {node}
  preemptionPolicy: PreemptLowerPriority
  priority: 0
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {{}}
  terminationGracePeriodSeconds: 30
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  enableServiceLinks: true
status:
  conditions:
  - type: Ready
    status: \"True\"
    lastTransitionTime: 2026-12-07T16:17:24Z
  - type: PodScheduled
    status: \"True\"
    lastTransitionTime: 2026-12-07T16:17:24Z
  phase: Running
{status}  startTime: 2026-12-07T16:17:24Z
"
    )
}

/// What the value path answers for one piece on this thread: the scanner's value given to the
/// reader's hook ([`decode_early`]), then any stub put back; and what the scanner counted.
fn value_path(piece: &str) -> Option<(Value, Option<Decoded>, super::Counts)> {
    let (mut values, counts) = scan(piece)?;
    let mut v = values.pop()?;
    let decoded = decode_early(&mut v);
    template::settle(&mut v);
    Some((v, decoded, counts))
}

/// A clean decoding's pod and unknown fields.
fn pod_of(d: Option<Decoded>) -> Option<(Pod, Vec<String>)> {
    match d {
        Some(Ok(Ok((Typed::Pod(p), unknown)))) => Some((*p, unknown)),
        _ => None,
    }
}

/// Checks the direct read of `piece` against the value path on this thread; whether it took
/// the piece.
fn agrees(name: &str, piece: &str) -> bool {
    let direct = direct(piece);
    let want = value_path(piece);
    let Some((pod, counts)) = direct else {
        return false;
    };
    let Some((want_value, want_decoded, want_counts)) = want else {
        panic!("case: {name}: read directly, declined by the scanner: {piece:?}");
    };
    let (value, decoded) = decode_direct(pod);
    assert_eq!(value, want_value, "case: {name}: {piece:?}");
    let (got, want) = (pod_of(Some(decoded)), pod_of(want_decoded));
    assert!(got.is_some(), "case: {name}");
    assert_eq!(got, want, "case: {name}: {piece:?}");
    assert_eq!(
        format!("{counts:?}"),
        format!("{want_counts:?}"),
        "case: {name}: {piece:?}"
    );
    true
}

/// Remembers the template of [`bound_pod`] on this thread (its first pod read whole).
fn remember_template() {
    let first = bound_pod("first", "n0", "", "");
    assert!(!agrees("the first pod", &first), "a template seen once");
    assert!(direct(&first).is_some(), "remembered once decoded");
}

#[test]
fn a_bound_pod_of_a_remembered_template_reads_as_its_value_decodes() {
    remember_template();
    let cases: &[(&str, &str, &str, bool)] = &[
        ("as a snapshot writes it", "", "", true),
        (
            "annotations, quoted keys and values, comments, nulls and empties",
            "  annotations:\n    'a/b': 'it is'\n    \"c\": \"d\" # tail\n    e: ''\n  finalizers: []\n  # a comment\n  deletionGracePeriodSeconds: 30\n  generateName:\n",
            "  message: hello\n  nominatedNodeName: ~\n",
            true,
        ),
        ("an empty mapping", "  annotations: {}\n", "", true),
        ("a key repeated", "  labels: {}\n", "", false),
        (
            "a negative integer",
            "  deletionGracePeriodSeconds: -5\n",
            "",
            true,
        ),
        (
            "an unknown field in the metadata",
            "  surprise: 1\n",
            "",
            false,
        ),
        (
            "an unknown field in the status",
            "",
            "  surprise: x\n",
            false,
        ),
        (
            "a number where a string belongs",
            "  generateName: 5\n",
            "",
            false,
        ),
        (
            "a string where a number belongs",
            "  deletionGracePeriodSeconds: \"30\"\n",
            "",
            false,
        ),
        (
            "a boolean where a string belongs",
            "  generateName: true\n",
            "",
            false,
        ),
        (
            "a list where a mapping belongs",
            "  annotations: []\n",
            "",
            false,
        ),
        (
            "a bad timestamp",
            "  deletionTimestamp: yesterday\n",
            "",
            false,
        ),
        (
            "an escape in a string",
            "  generateName: \"a\\tb\"\n",
            "",
            false,
        ),
        (
            "a quote in a single-quoted string",
            "  generateName: 'it''s'\n",
            "",
            false,
        ),
        ("a block scalar", "  generateName: |\n    x\n", "", false),
        ("a flow mapping", "  annotations: {a: b}\n", "", false),
        (
            "a value over two lines",
            "  generateName: a\n    b\n",
            "",
            false,
        ),
        ("an anchor", "  generateName: &x a\n", "", false),
        ("a float", "  deletionGracePeriodSeconds: 1.5\n", "", false),
        ("a tab", "  generateName:\ta\n", "", false),
    ];
    for (name, meta, status, taken) in cases {
        let piece = bound_pod("p", "n1", meta, status);
        assert_eq!(agrees(name, &piece), *taken, "case: {name}: {piece}");
    }
}

#[test]
fn what_the_value_path_keeps_apart_is_declined() {
    remember_template();
    let base = bound_pod("p", "n1", "", "");
    let cases: &[(&str, String, bool)] = &[
        ("as written", base.clone(), true),
        (
            "no namespace",
            base.replace("  namespace: default\n", ""),
            false,
        ),
        (
            "a null namespace",
            base.replace("  namespace: default\n", "  namespace:\n"),
            false,
        ),
        ("no name", base.replace("  name: p\n", ""), false),
        (
            "an empty name",
            base.replace("  name: p\n", "  name: ''\n"),
            false,
        ),
        ("no apiVersion", base.replace("apiVersion: v1\n", ""), false),
        (
            "another apiVersion",
            base.replace("apiVersion: v1\n", "apiVersion: v2\n"),
            false,
        ),
        (
            "a kind quoted",
            base.replace("kind: Pod\n", "\"kind\": Pod\n"),
            false,
        ),
        (
            "another node",
            base.replace("nodeName: n1", "nodeName: other"),
            true,
        ),
        (
            "a node name that is a number",
            base.replace("nodeName: n1", "nodeName: 5"),
            false,
        ),
        (
            "a spec that differs",
            base.replace("image: nginx", "image: nginx:2"),
            false,
        ),
        (
            "the spec repeated",
            base.clone() + "spec:\n  nodeName: x\n",
            false,
        ),
        (
            "a key repeated",
            base.replace("  uid: 58", "  name: q\n  uid: 58"),
            false,
        ),
        (
            "the status first",
            {
                let (head, status) = base.split_at(base.find("status:").unwrap_or(0));
                let (top, rest) = head.split_at(head.find("metadata:").unwrap_or(0));
                format!("{top}{status}{rest}")
            },
            true,
        ),
        (
            "CRLF line ends",
            base.replace('\n', "\r\n"),
            false, // another spec text: read whole
        ),
        ("a Node", base.replace("kind: Pod", "kind: Node"), false),
    ];
    for (name, piece, taken) in cases {
        assert_eq!(agrees(name, piece), *taken, "case: {name}: {piece}");
    }
}

#[test]
fn the_direct_read_agrees_with_the_value_path_on_damaged_pods() {
    remember_template();
    let base = bound_pod("p", "n1", "  annotations:\n    a: 'b'\n", "  reason: x\n");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut taken, mut tried) = (0, 0);
    for i in 0..3000 {
        let piece = mutate(&mut rng, &base);
        tried += 1;
        if agrees(&format!("damage {i}"), &piece) {
            taken += 1;
        }
        // A damaged spec may have been remembered: the base's is the latest again.
        let _ = value_path(&base);
    }
    // Damage in a comment, a string or the spec's trailing spaces leaves a readable pod.
    assert!(
        taken > 100 && taken < tried,
        "{taken} of {tried} read directly"
    );
}

#[test]
fn a_file_reads_the_same_with_and_without_the_direct_read() {
    use crate::documents::{parse_documents_hooked, parse_documents_with};
    use std::sync::atomic::{AtomicUsize, Ordering};
    static DIRECT: AtomicUsize = AtomicUsize::new(0);
    let read = |text: String, direct: bool| {
        std::thread::spawn(move || {
            let counted = |pod| {
                DIRECT.fetch_add(1, Ordering::Relaxed);
                decode_direct(pod)
            };
            let docs = if direct {
                parse_documents_hooked("f.yaml", &text, &decode_early, Some(&counted))
            } else {
                parse_documents_with("f.yaml", &text, &decode_early)
            };
            docs.map(|docs| {
                docs.into_iter()
                    .map(|(doc, d)| {
                        let decoded = match d {
                            None => "none".to_string(),
                            Some(Ok(Ok((Typed::Pod(p), u)))) => format!("{p:?} {u:?}"),
                            Some(Ok(Ok(_))) => "other".to_string(),
                            Some(Ok(Err(e)) | Err(e)) => e.to_string(),
                        };
                        (doc.doc, doc.value, doc.duplicates, decoded)
                    })
                    .collect::<Vec<_>>()
            })
            .map_err(|e| e.to_string())
        })
        .join()
        .unwrap()
    };
    // Pods of two templates interleaved, some with what the direct read declines, big enough
    // to be read on several threads.
    let mut text = String::new();
    for i in 0..400 {
        let (meta, status) = match i % 7 {
            3 => ("  surprise: 1\n", ""),
            5 => ("", "  message: \"a\\tb\"\n"),
            _ => ("", ""),
        };
        let pod = bound_pod(&format!("p-{i}"), &format!("n{}", i % 13), meta, status);
        text += &if i % 3 == 0 {
            pod.replace("image: nginx", "image: redis")
        } else {
            pod
        };
    }
    let mut paths = Vec::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["../../../shared/corpus/real", "../../examples"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            paths.extend(entries.flatten().map(|e| e.path()));
        }
    }
    let generated = read(text.clone(), true);
    // Two templates on two threads, each first pod read whole, one pod in seven damaged.
    let direct = DIRECT.load(Ordering::Relaxed);
    assert!(direct > 250 && direct < 400, "{direct} pods read directly");
    assert_eq!(generated, read(text.clone(), false));
    let mut texts = vec![text];
    texts.extend(
        paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
            .filter_map(|p| std::fs::read_to_string(p).ok()),
    );
    for text in texts {
        let with = read(text.clone(), true);
        let without = read(text, false);
        assert_eq!(with, without);
    }
}

#[test]
fn a_pods_lists_are_made_at_their_size() {
    remember_template();
    let piece = bound_pod("p", "n1", "", "");
    let Some((direct, _)) = direct(&piece) else {
        panic!("not read directly");
    };
    let status = direct.pod.status.as_ref();
    let conditions = status.and_then(|s| s.conditions.as_ref());
    let owners = direct.pod.metadata.owner_references.as_ref();
    // As from a value (serde_json tells a sequence's length): no room held for more.
    assert_eq!(conditions.map(|c| (c.len(), c.capacity())), Some((2, 2)));
    assert_eq!(owners.map(|o| (o.len(), o.capacity())), Some((1, 1)));
}

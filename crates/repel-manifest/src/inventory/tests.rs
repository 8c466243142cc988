//! The inventory read against its reading in order: objects decoded early or on every core
//! come out as one at a time, and errors name the file and field in a manifest's words.

use super::*;
use crate::documents::parse_documents_with;
use crate::parse_documents;

/// The objects of `text` read one by one without [`decode_early`]: every document whole,
/// decoded in order ([`Inventory::add_with_duplicates`]).
fn read_in_order(file: &str, text: &str) -> Result<Inventory, InputError> {
    let mut inv = Inventory::with_seed(0);
    for doc in parse_documents(file, text)? {
        for_each_object(file, &doc, |source, v| {
            let duplicates = item_duplicates(&doc, source.item);
            inv.add_with_duplicates(source, v, duplicates)
        })?;
    }
    Ok(inv)
}

fn fields(inv: &Inventory) -> Vec<String> {
    vec![
        format!("{:?}", inv.nodes),
        format!("{:?}", inv.pods),
        format!("{:?}", inv.workloads),
        format!("{:?}", inv.namespaces),
        format!("{:?}", inv.pdbs),
        format!("{:?}", inv.priority_classes),
        format!("{:?}", inv.warnings),
        format!("{:?}", inv.strict),
        format!("{:?}", inv.skipped),
    ]
}

/// Documents of every kind reading treats apart: clean objects (decoded early), unknown
/// fields, a repeated key, a generated name, a legacy apiVersion, a list, a kind repel
/// does not use, a namespace other than the default.
const MIXED: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-N
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web-N
  template:
    metadata:
      labels:
        app: web-N
    spec:
      containers:
      - name: app
        image: web
        resources:
          requests:
            cpu: 100m
---
apiVersion: v1
kind: Pod
metadata:
  name: odd-N
  color: blue
spec:
  containers:
  - name: app
    image: app
---
apiVersion: v1
kind: Pod
metadata:
  name: twice-N
  name: twice-N
spec:
  containers:
  - name: app
    image: app
---
apiVersion: v1
kind: Pod
metadata:
  generateName: gen-N-
spec:
  containers:
  - name: app
    image: app
---
apiVersion: apps/v1beta1
kind: StatefulSet
metadata:
  name: old-N
spec:
  serviceName: old
  template:
    metadata:
      labels:
        app: old-N
    spec:
      containers:
      - name: app
        image: app
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: ns-N
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-N
---
apiVersion: v1
kind: Node
metadata:
  name: node-N
status:
  allocatable:
    cpu: \"4\"
    pods: \"110\"
";

#[test]
fn objects_decoded_early_read_as_objects_decoded_in_order() {
    // Small (one thread) and large enough for threads (several hundred documents).
    for copies in [1, 400] {
        let text: String = (0..copies)
            .map(|i| MIXED.replace("-N", &format!("-{i}")))
            .collect::<Vec<_>>()
            .join("---\n");
        let dir = std::env::temp_dir().join(format!("repel-early-{}-{copies}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mixed.yaml");
        std::fs::write(&path, &text).unwrap();
        let file = path.display().to_string();
        let early = Inventory::load(std::slice::from_ref(&path), false).unwrap();
        let in_order = read_in_order(&file, &text).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(early.workloads.len(), 2 * copies);
        assert_eq!(early.pods.len(), 3 * copies);
        assert!(!early.strict.is_empty() && !early.warnings.is_empty());
        assert_eq!(fields(&early), fields(&in_order), "{copies} copies");
    }
}

#[test]
fn only_clean_objects_are_decoded_early_and_kept_thin() {
    let text = MIXED.replace("-N", "-1");
    let docs = parse_documents_with("mixed.yaml", &text, &decode_early).unwrap();
    let early: Vec<(String, bool)> = docs
        .iter()
        .map(|(d, t)| (describe_value(&d.value).unwrap_or_default(), t.is_some()))
        .collect();
    let want = [
        ("Deployment web-1", true),
        ("Pod odd-1", false),
        ("Pod twice-1", false),
        ("Pod <no name>", false),
        ("StatefulSet old-1", false),
        ("List <no name>", false),
        ("ConfigMap cm-1", false),
        ("Node node-1", true),
    ];
    let want: Vec<(String, bool)> = want.iter().map(|(d, e)| (d.to_string(), *e)).collect();
    assert_eq!(early, want);
    // What is kept of an object decoded early: what reading still looks at.
    assert_eq!(
        docs[0].0.value,
        serde_json::json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web-1", "namespace": "shop"}
        })
    );
}

#[test]
fn an_object_refused_late_is_refused_as_in_order() {
    // A bad quantity is refused by the checks, and a name repeated is warned about: both
    // are named with their document, as reading in order names them.
    let good = MIXED.replace("-N", "-1");
    let bad = good.replace("cpu: 100m", "cpu: lots");
    let twice = format!("{good}---\n{good}");
    for text in [bad, twice] {
        let dir = std::env::temp_dir().join(format!("repel-late-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.yaml");
        std::fs::write(&path, &text).unwrap();
        let file = path.display().to_string();
        let early = Inventory::load(std::slice::from_ref(&path), false)
            .map(|inv| inv.warnings)
            .map_err(|e| e.to_string());
        let in_order = read_in_order(&file, &text)
            .map(|inv| inv.warnings)
            .map_err(|e| e.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(early, in_order);
        let said = match early {
            Ok(warnings) => warnings.join("\n"),
            Err(e) => e,
        };
        assert!(said.contains("bad.yaml"), "{said}");
    }
}

#[test]
fn files_read_ahead_are_taken_in_order_and_every_error_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let a = write("a.yaml", &MIXED.replace("-N", "-a"));
    let b = write("b.yaml", &MIXED.replace("-N", "-b"));
    let c = write("c.yaml", &MIXED.replace("-N", "-c"));
    // Several files (the next read on another thread) read as the files one by one.
    let all = Inventory::load(&[a.clone(), b.clone(), c.clone()], false).unwrap();
    let mut one_by_one = Inventory::with_seed(0);
    for path in [&a, &b, &c] {
        let text = std::fs::read_to_string(path).unwrap();
        let file = path.display().to_string();
        for doc in parse_documents(&file, &text).unwrap() {
            for_each_object(&file, &doc, |source, v| {
                let duplicates = item_duplicates(&doc, source.item);
                one_by_one.add_with_duplicates(source, v, duplicates)
            })
            .unwrap();
        }
    }
    assert_eq!(all.workloads.len(), 6);
    assert_eq!(fields(&all), fields(&one_by_one));
    // Every file is read: an error in the first file and a missing one after it (read
    // ahead meanwhile) are both named, in input order; a missing file after good ones is
    // named.
    let bad = write(
        "bad.yaml",
        &MIXED.replace("-N", "-x").replace("cpu: 100m", "cpu: lots"),
    );
    let missing = dir.path().join("missing.yaml");
    let err = Inventory::load(&[bad.clone(), missing.clone(), a.clone()], false)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad.yaml") && err.contains("lots"), "{err}");
    assert!(err.contains("missing.yaml"), "{err}");
    assert!(
        err.find("bad.yaml") < err.find("missing.yaml"),
        "in input order: {err}"
    );
    let err = Inventory::load(&[a, b, missing], false)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing.yaml"), "{err}");
}

/// Bound pods of one template (a ReplicaSet's, as a snapshot lists them), with a pod whose
/// spec differs in one field between them, and one whose metadata a decoder refuses after the
/// template was remembered.
fn replica_set_pods(bad: bool) -> String {
    let pod = |name: &str, node: &str, image: &str, created: &str| {
        format!(
            "apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: shop
  uid: uid-{name}
  creationTimestamp: {created}
spec:
  containers:
  - image: {image}
    name: c
    resources:
      requests:
        cpu: 10m
        memory: 16Mi
  nodeName: {node}
  priority: 0
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
status:
  phase: Running
"
        )
    };
    let mut docs: Vec<String> = (0..6)
        .map(|i| {
            pod(
                &format!("web-{i}"),
                &format!("node-{i}"),
                "nginx",
                "2026-12-07T16:16:12Z",
            )
        })
        .collect();
    docs.insert(3, pod("odd", "node-0", "nginx:2", "2026-12-07T16:16:12Z"));
    if bad {
        docs.push(pod("late", "node-1", "nginx", "yesterday"));
    }
    docs.join("---\n")
}

#[test]
fn pods_of_one_template_share_their_decoded_spec_and_read_as_decoded_whole() {
    use crate::decode::decode_pod_shared;
    let text = replica_set_pods(false);
    let docs = parse_documents("rs.yaml", &text).unwrap();
    let source = |doc: usize| Source {
        file: "rs.yaml".into(),
        doc,
        item: None,
    };
    // Each pod decoded with the templates remembered is the pod decoded whole.
    for doc in &docs {
        let mut v = doc.value.clone();
        let shared = match decode_pod_shared(&source(doc.doc), &mut v) {
            Ok(Ok((Typed::Pod(p), unknown))) => (*p, unknown),
            _ => panic!("document {} did not decode", doc.doc),
        };
        assert_eq!(v, doc.value, "document {} given back as it was", doc.doc);
        let whole: (Pod, Vec<String>) = crate::typed_strict(&source(doc.doc), &doc.value).unwrap();
        assert_eq!(shared, whole, "document {}", doc.doc);
    }
    // Two templates remembered: the pods' and the one that differs in its image; the
    // pods bound to other nodes added none.
    let remembered = crate::decode::remembered_templates();
    assert_eq!(remembered.len(), 2, "{remembered:?}");
    assert!(remembered.iter().all(|spec| spec.node_name.is_none()));
    assert_eq!(
        remembered[0].containers[0].image.as_deref(),
        Some("nginx"),
        "the latest first"
    );
}

#[test]
fn a_pod_of_a_remembered_template_is_refused_naming_its_file_document_and_field() {
    let text = replica_set_pods(true);
    let dir = std::env::temp_dir().join(format!("repel-template-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rs.yaml");
    std::fs::write(&path, &text).unwrap();
    let file = path.display().to_string();
    let early = Inventory::load(std::slice::from_ref(&path), false).map_err(|e| e.to_string());
    let in_order = read_in_order(&file, &text).map_err(|e| e.to_string());
    let good = replica_set_pods(false);
    std::fs::write(&path, &good).unwrap();
    let read = Inventory::load(std::slice::from_ref(&path), false).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    // Decoded with its template remembered, the pod is refused as when decoded whole.
    let docs = parse_documents(&file, &text).unwrap();
    let late = docs.last().unwrap();
    let at = Source {
        file: file.clone().into(),
        doc: late.doc,
        item: None,
    };
    let whole = crate::decode::decode(&at, "Pod", &late.value).and_then(|d| d.map(|_| ()));
    let shared =
        crate::decode::decode_pod_shared(&at, &mut late.value.clone()).and_then(|d| d.map(|_| ()));
    assert_eq!(
        format!("{:?}", shared.map_err(|e| e.to_string())),
        format!("{:?}", whole.map_err(|e| e.to_string()))
    );
    let err = early.unwrap_err();
    assert_eq!(Some(err.clone()), in_order.err());
    assert!(
        err.contains(&format!("{file}: document 8"))
            && err.contains("Pod late")
            && err.contains("metadata.creationTimestamp"),
        "{err}"
    );
    assert_eq!(fields(&read), fields(&read_in_order(&file, &good).unwrap()));
}

#[test]
fn a_spec_read_once_per_template_reads_as_the_text_spells_it() {
    let text = replica_set_pods(false);
    // Read on this thread: the pods' spec texts are remembered as they decode.
    let early = parse_documents_with("rs.yaml", &text, &decode_early).unwrap();
    assert!(
        early.iter().all(|(_, d)| d.is_some()),
        "every pod decoded early"
    );
    // The pods' template and the one of the pod that differs in its image.
    assert_eq!(crate::yaml::template::remembered(), 2);
    // Read again on this thread by a reader that takes no spec: each value is what the text
    // spells (the stubs are put back), as read on a thread that remembers nothing.
    let again = parse_documents("rs.yaml", &text).unwrap();
    let fresh = std::thread::spawn(move || parse_documents("rs.yaml", &replica_set_pods(false)))
        .join()
        .unwrap()
        .unwrap();
    let values = |docs: &[RawDoc]| docs.iter().map(|d| d.value.clone()).collect::<Vec<_>>();
    assert_eq!(values(&again), values(&fresh));
    assert_eq!(again[1].value["spec"]["nodeName"], "node-1");
    // Each pod decoded early is the pod decoded whole.
    for ((_, decoded), doc) in early.into_iter().zip(&fresh) {
        let Some(Ok(Ok((Typed::Pod(pod), unknown)))) = decoded else {
            panic!("document {} not decoded", doc.doc);
        };
        let source = Source {
            file: "rs.yaml".into(),
            doc: doc.doc,
            item: None,
        };
        let whole: (Pod, Vec<String>) = crate::typed_strict(&source, &doc.value).unwrap();
        assert_eq!((*pod, unknown), whole, "document {}", doc.doc);
    }
}

//! The inventory read against its reading in order: objects decoded early or on every core
//! come out as one at a time, and errors name the file and field in a manifest's words.

use super::*;
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

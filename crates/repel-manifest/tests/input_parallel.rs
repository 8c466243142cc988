//! A big file's objects are checked and decoded on every core ahead of being sorted into the
//! inventory (`repel_manifest::decode::predecode`, from 512 documents on). What comes out — objects, their
//! order, warnings, unknown-field reports, and the first error — must be what reading the
//! same documents one at a time gives.

use repel_manifest::{Inventory, for_each_object, item_duplicates, parse_documents};

/// Reads `text` one object at a time, in order, without the parallel decoding.
fn serial(file: &str, text: &str) -> Result<Inventory, String> {
    let mut inv = Inventory::with_seed(0);
    let docs = parse_documents(file, text).map_err(|e| e.to_string())?;
    for doc in &docs {
        for_each_object(file, doc, |source, v| {
            let duplicates = item_duplicates(doc, source.item);
            inv.add_with_duplicates(source, v, duplicates)
        })
        .map_err(|e| e.to_string())?;
    }
    Ok(inv)
}

/// Reads `text` from a file as `-f` does (with the parallel decoding when big enough).
fn loaded(text: &str) -> (String, Result<Inventory, String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    std::fs::write(&path, text).unwrap();
    let file = path.display().to_string();
    (
        file,
        Inventory::load(&[path], false).map_err(|e| e.to_string()),
    )
}

/// A summary of everything an inventory holds, in order.
fn summary(inv: &Inventory) -> String {
    let mut out = String::new();
    for n in &inv.nodes {
        out += &format!("node {} {} {:?}\n", n.source, n.seq, n.obj.metadata.name);
    }
    for p in &inv.pods {
        out += &format!("pod {} {} {:?}\n", p.source, p.seq, p.obj.metadata.name);
    }
    for w in &inv.workloads {
        out += &format!(
            "workload {} {} {} {}\n",
            w.source,
            w.seq,
            w.obj.kind(),
            w.obj.name()
        );
    }
    for n in &inv.namespaces {
        out += &format!("namespace {} {}\n", n.source, n.seq);
    }
    out += &format!("warnings {:?}\n", inv.warnings);
    out += &format!("skipped {:?}\n", inv.skipped);
    for s in &inv.strict {
        out += &format!("strict {s:?}\n");
    }
    out
}

fn node(i: usize) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i}\nstatus:\n  allocatable:\n    cpu: \"4\"\n    pods: \"110\"\n"
    )
}

fn deployment(i: usize, extra: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web-{i}\n  template:\n    metadata:\n      labels:\n        app: web-{i}\n    spec:\n      containers:\n      - name: c\n        image: nginx\n{extra}"
    )
}

/// 600 documents of every shape the reader treats apart: nodes, workloads, a pod with a
/// generated name, a removed apiVersion, a List, an unknown kind, unknown and repeated fields.
fn big(broken: &[(usize, String)]) -> String {
    let mut docs: Vec<String> = Vec::new();
    for i in 0..600 {
        docs.push(match i % 7 {
            0 => node(i),
            1 => deployment(i, "        unknownField: 1\n"),
            2 => format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: gen-\nspec:\n  containers:\n  - name: c\n    image: busybox\n  - name: c{i}\n    image: busybox\n"
            ),
            3 => format!(
                "apiVersion: apps/v1beta1\nkind: StatefulSet\nmetadata:\n  name: db-{i}\nspec:\n  replicas: 1\n  template:\n    metadata:\n      labels:\n        app: db-{i}\n    spec:\n      containers:\n      - name: c\n        image: postgres\n"
            ),
            4 => format!(
                "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: ns-{i}\n- apiVersion: v1\n  kind: ServiceAccount\n  metadata:\n    name: sa-{i}\n"
            ),
            5 => format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  a: b\n"
            ),
            _ => format!(
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: dup-{i}\n  name: dup-{i}\nstatus:\n  capacity:\n    cpu: \"2\"\n"
            ),
        });
    }
    for (at, doc) in broken {
        docs[*at] = doc.clone();
    }
    docs.join("---\n")
}

#[test]
fn a_big_file_reads_as_its_objects_one_at_a_time() {
    let text = big(&[]);
    let (file, parallel) = loaded(&text);
    let parallel = parallel.expect("the file reads");
    let one_by_one = serial(&file, &text).expect("the file reads");
    assert!(parallel.nodes.len() > 100 && parallel.workloads.len() > 100);
    assert!(!parallel.strict.is_empty() && !parallel.warnings.is_empty());
    assert_eq!(summary(&parallel), summary(&one_by_one));
}

#[test]
fn a_big_file_fails_at_its_first_bad_object_with_the_same_message() {
    let cases: Vec<Vec<(usize, String)>> = vec![
        // A check (negative replicas), then a typed decoding error later on.
        vec![
            (
                300,
                deployment(300, "").replace("replicas: 2", "replicas: -1"),
            ),
            (450, node(450).replace("name: node-450", "name: [1]")),
        ],
        // A type error in a field the checks do not read.
        vec![(
            500,
            deployment(500, "      terminationGracePeriodSeconds: soon\n"),
        )],
        // An object defined twice, whose second copy fails to decode: defining it again is
        // no error (kubectl apply would update it), so the second copy's error is the one
        // named, as when read in order.
        vec![
            (420, node(7).replace("cpu: \"4\"", "cpu: {}")),
            (200, node(7)),
        ],
        vec![(420, node(7).replace("cpu: \"4\"", "cpu: {}"))],
    ];
    for broken in cases {
        let text = big(&broken);
        let (file, parallel) = loaded(&text);
        let Err(parallel) = parallel else {
            panic!("{broken:?} fails the read")
        };
        let Err(one_by_one) = serial(&file, &text) else {
            panic!("{broken:?} fails the read one at a time")
        };
        assert_eq!(parallel, one_by_one);
        let at = broken[0].0 + 1;
        assert!(
            parallel.contains(&format!("document {at}")),
            "{parallel} names document {at}"
        );
    }
}

//! CustomResourceDefinitions through the real kubectl: applying one makes its resource appear
//! in discovery, its objects are created, listed with the CRD's printer columns, patched,
//! watched and deleted, namespaced or cluster-scoped, and deleting the CRD deletes them.
//! Calico's manifest (23 CRDs among 38 objects) applies whole.

use crate::util;

use crate::util::{have_kubectl, node, start, table_rows};
use serde_json::{Value, json};

const CRDS: &str = include_str!("data/crds.yaml");
const CRS: &str = include_str!("data/crs.yaml");

/// The non-empty cells of a kubectl table (cells are apart by two spaces or more; empty ones
/// vanish), joined by `|`, the last (AGE) left out.
fn cells_but_age(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| {
            let mut cells: Vec<&str> = l
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            cells.pop();
            cells.join("|")
        })
        .collect()
}

#[test]
fn a_crd_serves_its_custom_resources_to_kubectl() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let crds = s.write("crds.yaml", CRDS);
    let crs = s.write("crs.yaml", CRS);
    let o = s.kubectl(&["apply", "-f", &crds]);
    assert_eq!(
        o.stdout,
        "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\ncustomresourcedefinition.apiextensions.k8s.io/racks.infra.example.com created\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "crd"]);
    let rows: Vec<String> = o
        .stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        rows,
        [
            "NAME",
            "crontabs.stable.example.com",
            // Karpenter's two, installed in every fresh store.
            "nodeclaims.karpenter.sh",
            "nodepools.karpenter.sh",
            "racks.infra.example.com"
        ],
        "{}",
        o.stdout
    );
    assert!(o.stdout.starts_with("NAME "), "{}", o.stdout);
    assert!(o.stdout.contains(" CREATED AT\n"), "{}", o.stdout);
    let o = s.kubectl(&[
        "wait",
        "--for=condition=Established",
        "--timeout=10s",
        "crd/crontabs.stable.example.com",
    ]);
    assert_eq!(
        o.stdout,
        "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met\n",
        "{}",
        o.stderr
    );
    let crd = s
        .get(
            "customresourcedefinitions",
            "",
            "crontabs.stable.example.com",
        )
        .unwrap();
    assert_eq!(crd["status"]["acceptedNames"]["kind"], "CronTab");
    assert_eq!(crd["status"]["acceptedNames"]["listKind"], "CronTabList");
    assert_eq!(crd["status"]["conditions"][0]["type"], "NamesAccepted");
    assert_eq!(crd["status"]["storedVersions"], json!(["v1"]));

    // Discovery: the preferred version, short names, scope.
    let o = s.kubectl(&["api-resources", "--api-group=stable.example.com"]);
    assert_eq!(
        table_rows(&o.stdout, usize::MAX),
        [
            "NAME SHORTNAMES APIVERSION NAMESPACED KIND",
            "crontabs ct stable.example.com/v1 true CronTab"
        ],
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["api-resources", "--api-group=infra.example.com"]);
    assert_eq!(
        table_rows(&o.stdout, usize::MAX),
        [
            "NAME SHORTNAMES APIVERSION NAMESPACED KIND",
            "racks infra.example.com/v1alpha1 false Rack"
        ],
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["api-versions"]);
    for gv in [
        "stable.example.com/v1",
        "stable.example.com/v1beta1",
        "infra.example.com/v1alpha1",
    ] {
        assert!(o.stdout.lines().any(|l| l == gv), "{gv}: {}", o.stdout);
    }

    // The version's schema is published in OpenAPI v3: kubectl explain reads it.
    let o = s.kubectl(&["explain", "crontab.spec"]);
    assert_eq!(
        o.stdout,
        "GROUP:      stable.example.com\nKIND:       CronTab\nVERSION:    v1\n\nFIELD: spec <Object>\n\n\nDESCRIPTION:\n    <empty>\nFIELDS:\n  cronSpec\t<string>\n    <no description>\n\n  image\t<string>\n    <no description>\n\n  replicas\t<integer>\n    <no description>\n\n\n",
        "{}",
        o.stderr
    );

    let o = s.kubectl(&["apply", "-f", &crs]);
    assert_eq!(
        o.stdout,
        "crontab.stable.example.com/my-cron created\ncrontab.stable.example.com/nightly created\nrack.infra.example.com/r1 created\n",
        "{}",
        o.stderr
    );
    // The printer columns (the Image column is priority 1: wide only); a row without the
    // field has an empty cell.
    let o = s.kubectl(&["get", "ct", "-A", "-o", "wide"]);
    assert_eq!(
        cells_but_age(&o.stdout),
        [
            "NAMESPACE|NAME|SPEC|REPLICAS|READY|IMAGE",
            "default|my-cron|* * * * */5|2|my-awesome-cron-image",
            "kube-system|nightly|0 3 * * *|backup",
        ],
        "{}",
        o.stdout
    );
    // Field selectors: the metadata and the version's selectableFields.
    let o = s.kubectl(&[
        "get",
        "ct",
        "-A",
        "--field-selector",
        "spec.image=backup",
        "-o",
        "name",
    ]);
    assert_eq!(
        o.stdout, "crontab.stable.example.com/nightly\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&[
        "get",
        "ct",
        "--field-selector",
        "metadata.name=my-cron",
        "-o",
        "name",
    ]);
    assert_eq!(
        o.stdout, "crontab.stable.example.com/my-cron\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "ct", "--field-selector", "spec.cronSpec=x"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.ends_with(
            "field selector \"spec.cronSpec=x\": field label not supported: spec.cronSpec\n"
        ),
        "{}",
        o.stderr
    );

    // Short name, singular, plural.group, categories, another served version.
    for what in ["crontab", "crontabs.stable.example.com", "cron", "all"] {
        let o = s.kubectl(&["get", what, "-o", "name"]);
        assert!(
            o.stdout
                .lines()
                .any(|l| l == "crontab.stable.example.com/my-cron"),
            "{what}: {} {}",
            o.stdout,
            o.stderr
        );
    }
    let o = s.kubectl(&[
        "get",
        "crontabs.v1beta1.stable.example.com",
        "my-cron",
        "-o",
        "json",
    ]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["apiVersion"], "stable.example.com/v1beta1");
    assert_eq!(v["spec"]["replicas"], 2);
    assert_eq!(v["metadata"]["generation"], 1);

    // The status is a subresource: a patch of the object leaves it, a patch of the status
    // fills the Ready column. kubectl's default strategic merge patch is refused as upstream
    // refuses it for custom resources.
    let o = s.kubectl(&["patch", "ct", "my-cron", "-p", r#"{"spec":{"replicas":3}}"#]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "error: application/strategic-merge-patch+json is not supported by stable.example.com/v1, Kind=CronTab: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n"
    );
    let o = s.kubectl(&[
        "patch",
        "ct",
        "my-cron",
        "--type=merge",
        "-p",
        r#"{"spec":{"replicas":3},"status":{"ignored":true}}"#,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = s.kubectl(&[
        "patch",
        "ct",
        "my-cron",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"conditions":[{"type":"Ready","status":"True"}]}}"#,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = s.kubectl(&["get", "ct", "my-cron"]);
    assert_eq!(
        table_rows(&o.stdout, 8),
        [
            "NAME SPEC REPLICAS READY AGE",
            "my-cron * * * * */5 3 True AGE"
        ],
        "{}",
        o.stdout
    );
    // The scale subresource writes the CRD's specReplicasPath.
    let o = s.kubectl(&["scale", "ct", "my-cron", "--replicas=3"]);
    assert_eq!(
        o.stdout, "crontab.stable.example.com/my-cron scaled\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&[
        "get",
        "--raw",
        "/apis/stable.example.com/v1/namespaces/default/crontabs/my-cron/scale",
    ]);
    let scale: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["spec"]["replicas"], 3);
    assert_eq!(scale["status"]["replicas"], 0);
    let stored = s
        .get("crontabs.stable.example.com", "default", "my-cron")
        .unwrap();
    assert_eq!(stored["metadata"]["generation"], 2);
    assert_eq!(stored["status"]["conditions"][0]["status"], "True");
    assert!(stored["status"].get("ignored").is_none());

    // A watch sends the rows kubectl prints.
    let o = s.kubectl(&[
        "get",
        "ct",
        "-w",
        "--output-watch-events",
        "--request-timeout=2s",
    ]);
    assert!(
        o.stdout
            .lines()
            .any(|l| l.starts_with("ADDED ") && l.contains("my-cron")),
        "{} {}",
        o.stdout,
        o.stderr
    );

    // Cluster-scoped, no printer columns: NAME and AGE.
    let o = s.kubectl(&["get", "racks"]);
    assert_eq!(
        table_rows(&o.stdout, 1),
        ["NAME AGE", "r1 AGE"],
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "rack", "r1", "-n", "default", "-o", "json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(v["metadata"].get("namespace").is_none());
    assert_eq!(v["spec"]["nodes"], json!(["node1"]));

    // Delete one object, then the CRD with the rest.
    let o = s.kubectl(&["delete", "ct", "nightly", "-n", "kube-system"]);
    assert_eq!(
        o.stdout, "crontab.stable.example.com \"nightly\" deleted\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["delete", "crd", "crontabs.stable.example.com"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        s.get("crontabs.stable.example.com", "default", "my-cron")
            .is_none()
    );
    let o = s.kubectl(&["get", "ct"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "error: the server doesn't have a resource type \"ct\"\n"
    );
    let o = s.kubectl(&["get", "racks", "-o", "name"]);
    assert_eq!(o.stdout, "rack.infra.example.com/r1\n");
}

#[test]
fn an_invalid_crd_gets_upstreams_422() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![]);
    let bad = s.write(
        "bad.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: foos.example.com}\nspec:\n  group: example\n  scope: Global\n  names: {plural: foos, kind: Foo}\n  versions: [{name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}]\n",
    );
    let o = s.kubectl(&["apply", "-f", &bad]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        format!(
            "The CustomResourceDefinition \"foos.example.com\" is invalid: \n* metadata.name: Invalid value: \"foos.example.com\": must be spec.names.plural+\".\"+spec.group\n* spec.group: Invalid value: \"example\": should be a domain with at least one dot\n* spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\"\n* spec.versions: Invalid value: [{}]: must have exactly one version marked as storage version\n* status.storedVersions: Invalid value: null: must have at least one stored version\n",
            r#"{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}"#
        )
    );
}

#[test]
fn calicos_manifest_applies_whole_and_its_ippools_list() {
    if !have_kubectl() {
        return;
    }
    // The shared corpus lives beside the repository (`../shared/corpus/real`).
    let Ok(calico) = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/real/calico--calico.yaml"
    )) else {
        eprintln!("the corpus is not there: test skipped");
        return;
    };
    let s = start(vec![node("node1", json!(null)), node("node2", json!(null))]);
    let file = s.write("calico.yaml", &calico);
    let o = s.kubectl(&["apply", "-f", &file]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 38, "{}", o.stdout);
    assert!(
        o.stdout.lines().all(|l| l.ends_with(" created")),
        "{}",
        o.stdout
    );
    let o = s.kubectl(&["get", "crd", "-o", "name"]);
    // Calico's 23 and Karpenter's 2.
    assert_eq!(o.stdout.lines().count(), 25, "{}", o.stdout);

    let pool = s.write(
        "pool.yaml",
        "apiVersion: crd.projectcalico.org/v1\nkind: IPPool\nmetadata: {name: default-ipv4-ippool}\nspec: {cidr: 192.168.0.0/16, natOutgoing: true, blockSize: 26, nodeSelector: all()}\n",
    );
    let o = s.kubectl(&["apply", "-f", &pool]);
    assert_eq!(
        o.stdout, "ippool.crd.projectcalico.org/default-ipv4-ippool created\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "ippools"]);
    assert_eq!(
        table_rows(&o.stdout, 1),
        ["NAME AGE", "default-ipv4-ippool AGE"],
        "{}",
        o.stderr
    );
    // Custom resources page as built-in ones do (kubectl follows the continue tokens).
    let o = s.kubectl(&["get", "crd", "--chunk-size", "2", "-o", "name"]);
    assert_eq!(o.stdout.lines().count(), 25, "{}", o.stderr);
    let second = s.write(
        "pool2.yaml",
        "apiVersion: crd.projectcalico.org/v1\nkind: IPPool\nmetadata: {name: second}\nspec: {cidr: 10.0.0.0/16}\n",
    );
    let o = s.kubectl(&["apply", "-f", &second]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = s.kubectl(&["get", "ippools", "--chunk-size", "1", "-o", "name"]);
    assert_eq!(
        o.stdout,
        "ippool.crd.projectcalico.org/default-ipv4-ippool\nippool.crd.projectcalico.org/second\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["delete", "-f", &second]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Applying again changes nothing. kubectl still sends two patches, as against
    // kube-apiserver: the PDB's selector (its patch strategy is `replace`) and the status
    // stanza one CRD's file carries (the status is a subresource: nothing changes).
    let o = s.kubectl(&["apply", "-f", &file]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let changed: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| !l.ends_with(" unchanged"))
        .collect();
    assert_eq!(
        changed,
        [
            "poddisruptionbudget.policy/calico-kube-controllers configured",
            "customresourcedefinition.apiextensions.k8s.io/clusternetworkpolicies.policy.networking.k8s.io configured"
        ],
        "{}",
        o.stdout
    );
    // The protected group's CRD carries its approval; its printer columns list.
    let o = s.kubectl(&["get", "cnp"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Deleting the manifest deletes the 38 objects, and the IPPool with its CRD.
    let o = s.kubectl(&["delete", "-f", &file]);
    assert_eq!(o.stdout.lines().count(), 38, "{} {}", o.stdout, o.stderr);
    assert!(
        s.get("ippools.crd.projectcalico.org", "", "default-ipv4-ippool")
            .is_none()
    );
    let o = s.kubectl(&["api-resources", "--api-group=crd.projectcalico.org"]);
    assert_eq!(
        o.stdout, "NAME   SHORTNAMES   APIVERSION   NAMESPACED   KIND\n",
        "{}",
        o.stderr
    );
}

#[test]
fn a_custom_object_without_its_crd_gets_kubectls_mapping_error() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![]);
    let f = s.write(
        "pool.yaml",
        "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: general}\nspec: {}\n",
    );
    // kubectl's validation finds no schema in the OpenAPI v2 document and lets the apply
    // go on to discovery, which has no such kind: upstream's answer, byte for byte.
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        format!(
            "error: resource mapping not found for name: \"general\" namespace: \"\" from \"{f}\": no matches for kind \"EC2NodeClass\" in version \"karpenter.k8s.aws/v1\"\nensure CRDs are installed first\n"
        )
    );
}

#[test]
fn crds_and_their_objects_survive_a_restart() {
    if !have_kubectl() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let config = || repel_server::Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        data_dir: Some(data.path().to_path_buf()),
        token: None,
        time_scale: 1.0,
        seed: vec![],
        admission: repel_server::Admission::default(),
        tls: repel_server::net::TlsSource::None,
        request_timeout: repel_server::net::DEFAULT_REQUEST_TIMEOUT,
        scenario: None,
        event_ttl: repel_server::event_ttl::DEFAULT_EVENT_TTL,
    };
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    };
    {
        let s = util::start_config(config(), runtime());
        let crds = s.write("crds.yaml", CRDS);
        let crs = s.write("crs.yaml", CRS);
        assert_eq!(s.kubectl(&["apply", "-f", &crds]).code, 0);
        let o = s.kubectl(&["apply", "-f", &crs]);
        assert_eq!(o.code, 0, "{}", o.stderr);
    }
    let s = util::start_config(config(), runtime());
    let o = s.kubectl(&["get", "ct", "-A", "-o", "name"]);
    assert_eq!(
        o.stdout, "crontab.stable.example.com/my-cron\ncrontab.stable.example.com/nightly\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "racks", "-o", "name"]);
    assert_eq!(o.stdout, "rack.infra.example.com/r1\n", "{}", o.stderr);
}

#[test]
fn crds_created_at_once_are_all_served() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![]);
    let files: Vec<String> = (0..8)
        .map(|i| {
            s.write(
                &format!("crd{i}.yaml"),
                &format!(
                    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: k{i}s.parallel.example.com}}\nspec:\n  group: parallel.example.com\n  scope: Namespaced\n  names: {{plural: k{i}s, kind: K{i}}}\n  versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object}}}}}}]\n"
                ),
            )
        })
        .collect();
    std::thread::scope(|scope| {
        for f in &files {
            let s = &s;
            scope.spawn(move || {
                let o = s.kubectl(&["create", "-f", f]);
                assert_eq!(o.code, 0, "{}", o.stderr);
            });
        }
    });
    let o = s.kubectl(&[
        "api-resources",
        "--api-group=parallel.example.com",
        "-o",
        "name",
    ]);
    let mut got: Vec<&str> = o.stdout.lines().collect();
    got.sort_unstable();
    let want: Vec<String> = (0..8)
        .map(|i| format!("k{i}s.parallel.example.com"))
        .collect();
    assert_eq!(got, want, "{}", o.stderr);
}

#[test]
fn a_starting_cluster_may_hold_crds_and_their_objects() {
    if !have_kubectl() {
        return;
    }
    // The objects come in any order: CRDs are loaded first, as kubectl's users order them.
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"]},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object"}}}]}
    });
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                        "metadata": {"name": "w1", "namespace": "default"}});
    let s = start(vec![widget, crd]);
    let o = s.kubectl(&["get", "wd", "-o", "name"]);
    assert_eq!(o.stdout, "widget.example.com/w1\n", "{}", o.stderr);
}

/// Karpenter's kinds are served: a NodePool applied with kubectl gets the pending pod a node —
/// a NodeClaim, then a Node with the pool's taints and labels — as the engine's Karpenter
/// controller decides, and `kubectl get nodepools,nodeclaims` lists them.
#[test]
fn a_nodepool_applied_with_kubectl_launches_a_node() {
    if !have_kubectl() {
        return;
    }
    let s = util::start_with(
        vec![node(
            "node1",
            json!([{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]),
        )],
        60.0,
    );
    let f = s.write(
        "np.yaml",
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}]\n      taints: [{key: nvidia.com/gpu, effect: NoSchedule}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: trainer}\nspec:\n  tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n  containers: [{name: t, image: trainer}]\n",
    );
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(
        o.stdout, "nodepool.karpenter.sh/gpu created\npod/trainer created\n",
        "{}",
        o.stderr
    );
    // 30 s of cluster time at 60x: half a second; wait up to 10 s.
    let mut node_name = String::new();
    for _ in 0..100 {
        let o = s.kubectl(&["get", "pod", "trainer", "-o", "jsonpath={.spec.nodeName}"]);
        if !o.stdout.is_empty() {
            node_name = o.stdout.clone();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(node_name.starts_with("gpu-"), "{node_name:?}");
    let o = s.kubectl(&["get", "nodeclaims", "-o", "name"]);
    assert_eq!(
        o.stdout,
        format!("nodeclaim.karpenter.sh/{node_name}\n"),
        "{}",
        o.stderr
    );
    let o = s.kubectl(&[
        "get",
        "nodeclaim",
        &node_name,
        "-o",
        "jsonpath={.status.nodeName} {.metadata.labels.node\\.kubernetes\\.io/instance-type}",
    ]);
    assert_eq!(o.stdout, format!("{node_name} g5.xlarge"), "{}", o.stderr);
    let o = s.kubectl(&[
        "get",
        "node",
        &node_name,
        "-o",
        "jsonpath={.spec.taints[*].key} {.metadata.labels.karpenter\\.sh/nodepool}",
    ]);
    assert_eq!(o.stdout, "nvidia.com/gpu gpu", "{}", o.stderr);
    let o = s.kubectl(&["get", "nodeclaims"]);
    assert!(o.stdout.starts_with("NAME"), "{}", o.stdout);
    assert!(o.stdout.contains("g5.xlarge"), "{}", o.stdout);
    let o = s.kubectl(&[
        "get",
        "events",
        "--field-selector",
        "involvedObject.name=trainer",
        "-o",
        "jsonpath={range .items[*]}{.reason}:{.source.component}{\"\\n\"}{end}",
    ]);
    assert!(o.stdout.contains("Nominated:karpenter\n"), "{}", o.stdout);
}

//! `repel pools` on Karpenter NodePools: the template's taints, startup taints and labels, the
//! pool's nodes, which workloads tolerate it as Karpenter decides, Karpenter's taint
//! validation, v1beta1 read with a warning.

use serde_json::{Value, json};

use crate::util::{self, repel, text};

fn run(args: &[&str], files: &[(&str, Value)]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = repel();
    cmd.args(args);
    for (name, v) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_string(v).unwrap()).unwrap();
        cmd.arg("-f").arg(&path);
    }
    text(&cmd.output().unwrap())
}

fn pool(api: &str, taints: Value) -> Value {
    json!({"apiVersion": api, "kind": "NodePool", "metadata": {"name": "gpu"},
           "spec": {"weight": 10, "template": {
               "metadata": {"labels": {"team": "ml"}},
               "spec": {"taints": taints,
                        "startupTaints": [{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}],
                        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                        "requirements": []}}}})
}

fn workload(kind: &str, name: &str, tolerations: Value) -> Value {
    let api = if kind == "DaemonSet" || kind == "Deployment" {
        "apps/v1"
    } else {
        "batch/v1"
    };
    json!({"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}},
                                 "spec": {"tolerations": tolerations,
                                          "containers": [{"name": "c", "image": "i"}]}}}})
}

#[test]
fn a_pool_its_nodes_and_who_tolerates_it() {
    let gpu = json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
                     {"key": "soft", "effect": "PreferNoSchedule"}]);
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "gpu-1", "labels": {"karpenter.sh/nodepool": "gpu"}}});
    let objects = json!({"apiVersion": "v1", "kind": "List", "items": [
        pool("karpenter.sh/v1", gpu),
        node,
        workload("Deployment", "trainer", json!([{"key": "nvidia.com/gpu", "operator": "Exists"},
                                                  {"key": "soft", "operator": "Exists"}])),
        // The device plugin tolerates the GPU taint; as a daemon it tolerates PreferNoSchedule.
        workload("DaemonSet", "plugin", json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])),
        // Tolerates the GPU taint only: Karpenter holds PreferNoSchedule hard.
        workload("Deployment", "web", json!([{"key": "nvidia.com/gpu", "operator": "Exists"}])),
    ]});
    let (code, out, err) = run(&["pools", "-o", "json"], &[("c.json", objects.clone())]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let p = &v["pools"][0];
    assert_eq!(p["name"], "gpu");
    assert_eq!(p["provider"], "karpenter");
    assert_eq!(p["weight"], 10);
    assert_eq!(
        p["taints"],
        json!(["nvidia.com/gpu=true:NoSchedule", "soft:PreferNoSchedule"])
    );
    assert_eq!(
        p["startupTaints"],
        json!(["node.cilium.io/agent-not-ready=true:NoExecute"])
    );
    assert_eq!(p["labels"], json!({"team": "ml"}));
    assert_eq!(p["nodes"], json!(["gpu-1"]));
    assert_eq!(p["errors"], json!([]));
    assert_eq!(
        p["toleratedBy"],
        json!(["Deployment/default/trainer", "DaemonSet/default/plugin"])
    );
    assert_eq!(
        p["notToleratedBy"],
        json!([{"workload": "Deployment/default/web", "taint": "soft:PreferNoSchedule"}])
    );
    let (_, out, _) = run(&["pools"], &[("c.json", objects)]);
    assert!(
        out.contains("Deployment/default/web does not tolerate soft:PreferNoSchedule"),
        "{out}"
    );
}

#[test]
fn invalid_taints_in_karpenters_words_and_v1beta1_with_a_warning() {
    let bad = json!([{"key": "dup", "effect": "NoSchedule"}, {"key": "dup", "effect": "NoSchedule"},
                     {"key": "x", "effect": "Sometimes"}]);
    let (code, out, err) = run(
        &["pools", "-o", "json"],
        &[("p.json", pool("karpenter.sh/v1beta1", bad))],
    );
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("apiVersion karpenter.sh/v1beta1 is no longer served by Karpenter v1; read as karpenter.sh/v1"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["pools"][0]["errors"],
        json!([
            "duplicate taint Key/Effect pair dup=NoSchedule",
            "invalid value: \"Sometimes\" in taints"
        ])
    );
    // No pool at all.
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}});
    let (code, _, err) = run(&["pools"], &[("n.json", node)]);
    assert_eq!(code, 2);
    assert!(err.contains("no node pools in the input"), "{err}");
}

#[test]
fn consolidate_as_karpenter_reads_the_pools() {
    let mut p = pool("karpenter.sh/v1", json!([]));
    p["spec"]["disruption"] =
        json!({"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"});
    let node = |name: &str, pool: Option<&str>| {
        let mut n = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}});
        if let Some(p) = pool {
            n["metadata"]["labels"]["karpenter.sh/nodepool"] = json!(p);
        }
        n
    };
    let objects = json!({"apiVersion": "v1", "kind": "List", "items": [
        p, node("gpu-1", Some("gpu")), node("gpu-2", Some("gpu")), node("static", None)]});
    let (code, out, err) = run(
        &["consolidate", "--as", "karpenter", "-o", "json"],
        &[("c.json", objects)],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["as"], "karpenter");
    let removed: Vec<&str> = util::strs(&v["removable"], "/node");
    assert_eq!(removed, ["gpu-1", "gpu-2"], "{v}");
    assert_eq!(
        v["kept"],
        json!([{"node": "static", "reason": "NotManaged", "message": "node isn't managed by karpenter"}])
    );
}

#[test]
fn eksctl_node_groups_from_the_corpus_are_pools_judged_by_kube_scheduler() {
    // eksctl's own examples/34-taints.yaml, as the corpus holds it, with a node of each kind of
    // group and two workloads.
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/real/eksctl--34-taints.yaml");
    let node = |name: &str, label: &str, group: &str| {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {label: group}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    };
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().join("extra.json");
    let items = json!({"apiVersion": "v1", "kind": "List", "items": [
        node("n1", "alpha.eksctl.io/nodegroup-name", "ng1-public"),
        node("n2", "eks.amazonaws.com/nodegroup", "mng1-public"),
        workload("Deployment", "db", json!([
            {"key": "your.domain.com/db", "operator": "Exists"},
            {"key": "your.domain.com/production", "operator": "Exists"}])),
        workload("Deployment", "web", json!([]))]});
    std::fs::write(&extra, serde_json::to_string(&items).unwrap()).unwrap();
    let out = repel()
        .args(["pools", "-o", "json", "-f"])
        .arg(&corpus)
        .arg("-f")
        .arg(&extra)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pools = r["pools"].as_array().unwrap();
    let names: Vec<&str> = pools.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["ng1-public", "ng2-private", "ng3-public", "mng1-public"]
    );
    assert_eq!(pools[0]["provider"], "eksctl");
    assert_eq!(pools[3]["provider"], "eks");
    assert_eq!(pools[0]["nodes"], json!(["n1"]));
    assert_eq!(pools[3]["nodes"], json!(["n2"]));
    assert_eq!(
        pools[0]["taints"],
        json!([
            "your.domain.com/db=true:NoSchedule",
            "your.domain.com/production=true:NoExecute"
        ])
    );
    assert_eq!(pools[0]["toleratedBy"], json!(["Deployment/default/db"]));
    assert_eq!(
        pools[0]["notToleratedBy"],
        json!([{"workload": "Deployment/default/web", "taint": "your.domain.com/db=true:NoSchedule"}])
    );
    // The managed group's PreferNoSchedule taint keeps nobody off; its NoExecute one does.
    assert_eq!(
        pools[3]["notToleratedBy"],
        json!([
            {"workload": "Deployment/default/db", "taint": "your.domain.com/needs-auth=true:NoExecute"},
            {"workload": "Deployment/default/web", "taint": "your.domain.com/needs-auth=true:NoExecute"}
        ])
    );
}

#[test]
fn an_invalid_node_group_taint_in_eksctls_words() {
    let cc = json!({"apiVersion": "eksctl.io/v1alpha5", "kind": "ClusterConfig",
                    "metadata": {"name": "c", "region": "eu-west-1"},
                    "nodeGroups": [{"name": "ng", "taints": {"gpu": "true:NoEffect"}}]});
    let (code, out, err) = run(&["pools"], &[("cc.json", cc)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("nodegroup ng: invalid taint effect: NoEffect, unsupported taint effect. Valid taint effects are: NoSchedule, NoExecute and PreferNoSchedule"),
        "{out}"
    );
    let bad = json!({"apiVersion": "eksctl.io/v1alpha5", "kind": "ClusterConfig",
                     "metadata": {"name": "c"}, "nodeGroups": [{"name": "ng", "taints": 3}]});
    let (code, _, err) = run(&["pools"], &[("cc.json", bad)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("ClusterConfig c") && err.contains("nodeGroups[0].taints: taints must be a {string: string} or a [{key, value, effect}]"),
        "{err}"
    );
}

/// `az aks nodepool show` for a Spot pool, as Microsoft's Spot node pool page prints it
/// (crates/repel-core/testdata/az/SOURCES.md).
const AZ_NODEPOOL_SHOW_SPOT: &str =
    include_str!("../../repel-core/testdata/az/nodepool-show-spot.json");

/// The real `az aks nodepool show` output with some fields set as another pool would have them.
fn az_pool(changes: Value) -> Value {
    let mut v: Value = serde_json::from_str(AZ_NODEPOOL_SHOW_SPOT).unwrap();
    for (k, x) in changes.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

#[test]
fn aks_agent_pool_as_az_aks_nodepool_show_prints_it() {
    // The page's output, unchanged: read as one pool, not refused for want of a kind.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spot.json");
    std::fs::write(&path, AZ_NODEPOOL_SHOW_SPOT).unwrap();
    let out = repel()
        .args(["pools", "-o", "json", "-f"])
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["pools"][0]["name"], "xxxxxxxxxxxx");
    assert_eq!(r["pools"][0]["provider"], "aks");
    assert_eq!(
        r["pools"][0]["taints"],
        json!(["kubernetes.azure.com/scalesetpriority=spot:NoSchedule"])
    );
}

#[test]
fn aks_agent_pools_as_az_aks_nodepool_list_prints_them() {
    // `az aks nodepool list` prints an array of what `show` prints.
    let list = json!([
        az_pool(
            json!({"name": "nodepool1", "mode": "System", "scaleSetPriority": null,
                       "spotMaxPrice": null, "scaleSetEvictionPolicy": null,
                       "nodeLabels": null, "nodeTaints": ["sku=gpu:NoSchedule"]})
        ),
        az_pool(json!({"name": "spotnodepool"})),
    ]);
    let node = json!({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": "aks-spot-1", "labels": {"kubernetes.azure.com/agentpool": "spotnodepool"}},
                      "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let batch = workload(
        "Job",
        "batch",
        json!([{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal",
                "value": "spot", "effect": "NoSchedule"}]),
    );
    let (code, out, err) = run(
        &["pools", "-o", "json"],
        &[
            ("pools.json", list.clone()),
            ("node.json", node),
            ("job.json", batch),
        ],
    );
    assert_eq!(code, 1, "the system pool's taint is refused: {err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let pools = r["pools"].as_array().unwrap();
    assert_eq!(pools.len(), 2);
    assert_eq!(pools[0]["provider"], "aks");
    assert_eq!(
        pools[0]["errors"],
        json!([
            "(SystemPoolHasRestrictedTaint) Placing custom taints on system pool is not supported(except 'CriticalAddonsOnly' taint or taint effect is 'PreferNoSchedule'). Please refer to https://aka.ms/aks/system-taints for detail"
        ])
    );
    assert_eq!(pools[1]["nodes"], json!(["aks-spot-1"]));
    assert_eq!(pools[1]["errors"], json!([]));
    assert_eq!(pools[1]["toleratedBy"], json!(["Job/default/batch"]));
    assert_eq!(pools[1]["labels"]["kubernetes.azure.com/mode"], "user");
    // One pool as `az aks nodepool show` prints it, with a taint azure-cli refuses.
    let one = az_pool(json!({"name": "gpu", "scaleSetPriority": null,
                             "nodeLabels": null, "nodeTaints": ["sku:NoSchedule"]}));
    let (code, out, _) = run(&["pools"], &[("gpu.json", one)]);
    assert_eq!(code, 1);
    assert!(
        out.contains("agent pool gpu: Invalid node taint: sku:NoSchedule"),
        "{out}"
    );
}

#[test]
fn an_eks_managed_node_group_as_aws_eks_describe_nodegroup_prints_it() {
    let out = json!({"nodegroup": {"nodegroupName": "gpu", "clusterName": "c",
        "capacityType": "ON_DEMAND", "status": "ACTIVE",
        "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]}});
    let node = json!({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": "ip-10-0-0-1", "labels": {"eks.amazonaws.com/nodegroup": "gpu"}},
                      "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let plugin = workload(
        "DaemonSet",
        "nvidia-device-plugin",
        json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]),
    );
    let web = workload("Deployment", "web", json!([]));
    let (code, stdout, err) = run(
        &["pools", "-o", "json"],
        &[
            ("ng.json", out),
            ("node.json", node),
            ("plugin.json", plugin),
            ("web.json", web),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    let p = &r["pools"][0];
    assert_eq!(p["name"], "gpu");
    assert_eq!(p["provider"], "eks");
    assert_eq!(p["taints"], json!(["nvidia.com/gpu=true:NoSchedule"]));
    assert_eq!(p["nodes"], json!(["ip-10-0-0-1"]));
    assert_eq!(
        p["toleratedBy"],
        json!(["DaemonSet/default/nvidia-device-plugin"])
    );
    assert_eq!(
        p["notToleratedBy"],
        json!([{"workload": "Deployment/default/web", "taint": "nvidia.com/gpu=true:NoSchedule"}])
    );
}

#[test]
fn instance_types_of_every_provider_with_their_capacity() {
    let karpenter = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "gpu"},
        "spec": {"template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": [
                {"key": "node.kubernetes.io/instance-type", "operator": "In",
                 "values": ["g4dn.xlarge", "x9.huge"]},
                // Only In lists are read.
                {"key": "node.kubernetes.io/instance-type", "operator": "NotIn", "values": ["m5.large"]}]}}}});
    let aks = json!({"name": "sys", "type": "VirtualMachineScaleSets", "mode": "User",
                     "vmSize": "Standard_D4s_v3", "maxPods": 30});
    let eks = json!({"nodegroup": {"nodegroupName": "ng", "clusterName": "c",
                     "instanceTypes": ["m5.large"]}});
    let (code, out, err) = run(
        &[
            "pools",
            "-o",
            "json",
            "--instance-type",
            "x9.huge=cpu=64,memory=256Gi,pods=110,nvidia.com/gpu=4",
        ],
        &[("np.json", karpenter), ("aks.json", aks), ("eks.json", eks)],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("catalogue"), "every type known: {err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    // Karpenter on AWS: 7.5 % VM overhead off the memory (rounded up to a MiB), then the
    // EKS AMI's kube-reserved (cpu brackets, 11 × pods + 255 MiB) and 100Mi eviction; the
    // override is a capacity like the catalogue's.
    assert_eq!(
        r["pools"][0]["instanceTypes"],
        json!([
            {"name": "g4dn.xlarge",
             "capacity": {"cpu": "4", "memory": "15155Mi", "nvidia.com/gpu": "1", "pods": "29"},
             "allocatable": {"cpu": "3920m", "memory": "14481Mi", "nvidia.com/gpu": "1", "pods": "29"}},
            {"name": "x9.huge",
             "capacity": {"cpu": "64", "memory": "242483Mi", "nvidia.com/gpu": "4", "pods": "110"},
             "allocatable": {"cpu": "63770m", "memory": "240918Mi", "nvidia.com/gpu": "4", "pods": "110"}}
        ])
    );
    // AKS: the pool's maxPods; 140m of 4 cores, min(20 × 30 + 50, 25 %) = 650Mi, 100Mi.
    assert_eq!(
        r["pools"][1]["instanceTypes"][0]["capacity"],
        json!({"cpu": "4", "memory": "16384Mi", "pods": "30"})
    );
    assert_eq!(
        r["pools"][1]["instanceTypes"][0]["allocatable"],
        json!({"cpu": "3860m", "memory": "15634Mi", "pods": "30"})
    );
    // EKS: the AMI's 70m, 11 × 29 + 255 = 574Mi, 100Mi.
    assert_eq!(
        r["pools"][2]["instanceTypes"][0]["capacity"],
        json!({"cpu": "2", "memory": "8192Mi", "pods": "29"})
    );
    assert_eq!(
        r["pools"][2]["instanceTypes"][0]["allocatable"],
        json!({"cpu": "1930m", "memory": "7518Mi", "pods": "29"})
    );

    // The corpus's eksctl GPU spot config: every type known; a type that is not is a warning
    // naming it and the override, its capacity null.
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/real/eksctl--23-kubeflow-spot-instance.yaml");
    let out = repel().args(["pools", "-f"]).arg(&corpus).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("catalogue"), "{stderr}");
    assert!(
        stdout.contains(
            "4-gpu-spot-p3-8xlarge: instance types p3.8xlarge (cpu 32, memory 249856Mi, nvidia.com/gpu 4, pods 234; allocatable cpu 31850m, memory 246927Mi, nvidia.com/gpu 4, pods 234)"
        ),
        "{stdout}"
    );
    let unknown = json!({"name": "odd", "type": "VirtualMachineScaleSets", "mode": "User",
                         "vmSize": "Standard_Z1"});
    let (code, out, err) = run(&["pools", "-o", "json"], &[("odd.json", unknown)]);
    assert_eq!(code, 0);
    assert!(
        err.contains("warning: instance type Standard_Z1 is not in repel's catalogue: its nodes' capacity is unknown; give it with --instance-type Standard_Z1=cpu=N,memory=Q,pods=N"),
        "{err}"
    );
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["pools"][0]["instanceTypes"][0]["capacity"], Value::Null);
    assert_eq!(
        r["pools"][0]["instanceTypes"][0]["allocatable"],
        Value::Null
    );
    // A bad override is a usage error naming it.
    let (code, _, err) = run(
        &["pools", "--instance-type", "x=cpu=1"],
        &[(
            "odd.json",
            json!({"name": "odd", "type": "VirtualMachineScaleSets"}),
        )],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("instance type override x: memory is missing"),
        "{err}"
    );
}

/// `repel explain` of a pod no node fits names the NodePool Karpenter would launch a node from,
/// and every other pool's reason in Karpenter's words; `-o json` carries them as `nodePools`.
#[test]
fn explain_names_the_pool_that_would_provision() {
    let gpu = pool(
        "karpenter.sh/v1",
        json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]),
    );
    let general = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "general"},
        "spec": {"template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}}}});
    let web = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                 "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}});
    let (code, out, err) = run(
        &["explain", "pod/web"],
        &[
            ("gpu.json", gpu.clone()),
            ("general.json", general.clone()),
            ("web.json", web),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Karpenter would launch a node for it from NodePool general (c5.large)."),
        "{out}"
    );
    assert!(
        out.contains("  NodePool gpu: did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)\n"),
        "{out}"
    );
    let arm = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "arm"},
        "spec": {"nodeSelector": {"kubernetes.io/arch": "arm64"},
                 "containers": [{"name": "c", "image": "nginx"}]}});
    let (code, out, err) = run(
        &["explain", "pod/arm", "-o", "json"],
        &[
            ("gpu.json", gpu),
            ("general.json", general),
            ("arm.json", arm),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["nodePools"],
        json!([
            {"pool": "gpu", "reason": "did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)"},
            {"pool": "general", "reason": "incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]"}
        ])
    );
}

/// `repel pools` lists, for each NodePool, the pending pods it would launch nodes for (it is
/// the first pool Karpenter tries that takes them) and those it refuses, with the reason.
#[test]
fn pools_name_the_pending_pods_each_nodepool_would_provision_for() {
    let gpu = pool(
        "karpenter.sh/v1",
        json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]),
    );
    let trainer = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer"},
        "spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                 "containers": [{"name": "c", "image": "t"}]}});
    let web = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    // A node that takes web but not the trainer: web is not pending.
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoExecute"}]},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let (code, out, err) = run(
        &["pools", "-o", "json"],
        &[
            ("gpu.json", gpu.clone()),
            ("t.json", trainer.clone()),
            ("w.json", web.clone()),
            ("n.json", node),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["pools"][0]["provisions"],
        json!([]),
        "the trainer fits n1, web does not tolerate NoExecute"
    );
    assert_eq!(
        v["pools"][0]["refuses"],
        json!([{"pod": "default/web", "reason": "did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)"}])
    );
    let (code, out, _) = run(
        &["pools", "-o", "json"],
        &[("gpu.json", gpu), ("t.json", trainer), ("w.json", web)],
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pools"][0]["provisions"], json!(["default/trainer"]));
}

/// The corpus's Azure Karpenter NodePool (D-family SKUs only) and its GPU sample Job: no D SKU
/// has a GPU, so Karpenter would launch nothing, and says why in its words.
#[test]
fn the_corpus_general_purpose_pool_refuses_the_gpu_sample() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/real");
    let out = repel()
        .args(["explain", "job/samples-tf-mnist-demo", "-o", "json", "-f"])
        .arg(dir.join("karpenter-provider-azure--v1-general-purpose.yaml"))
        .arg("-f")
        .arg(dir.join("karpenter-provider-azure--samples-mnist.yaml"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pools = v["nodePools"].as_array().unwrap();
    assert_eq!(pools.len(), 1);
    let reason = pools[0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("no instance type which had enough resources and the required offering met the scheduling requirements, requirements=karpenter.azure.com/sku-family In [D], "),
        "{reason}"
    );
    assert!(
        reason.ends_with(r#"resources={"nvidia.com/gpu":"1","pods":"1"}"#),
        "{reason}"
    );
}

/// `repel check` validates node pools with their providers' rules and texts, beside the
/// Kubernetes objects: an AKS system pool's custom taint, a NodePool's bad effect, eksctl's
/// texts; exit 1, and `-o json` names the pool, the field and where it was read.
#[test]
fn check_validates_pools_with_their_providers_texts() {
    let system = json!({"name": "system", "type": "VirtualMachineScaleSets", "mode": "System",
        "count": 1, "nodeTaints": ["sku=gpu:NoSchedule"]});
    let (code, out, err) = run(&["check"], &[("system.json", system.clone())]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        "agent pool system: (SystemPoolHasRestrictedTaint) Placing custom taints on system pool is not supported(except 'CriticalAddonsOnly' taint or taint effect is 'PreferNoSchedule'). Please refer to https://aka.ms/aks/system-taints for detail\n1 object(s) checked: 1 invalid\n"
    );
    let bad = pool(
        "karpenter.sh/v1",
        json!([{"key": "k", "effect": "Sometimes"}]),
    );
    let (code, out, _) = run(&["check", "-o", "json"], &[("np.json", bad)]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["errors"][0]["object"], "NodePool/gpu");
    assert_eq!(v["errors"][0]["field"], "spec.template.spec.taints");
    assert_eq!(
        v["errors"][0]["message"],
        "invalid value: \"Sometimes\" in taints"
    );
    assert!(
        v["errors"][0]["source"]
            .as_str()
            .unwrap()
            .ends_with("np.json: document 1"),
        "{v}"
    );
    let good = json!({"name": "user", "type": "VirtualMachineScaleSets", "mode": "User",
        "count": 1, "nodeTaints": ["sku=gpu:NoSchedule"]});
    let (code, out, _) = run(&["check"], &[("user.json", good)]);
    assert_eq!(
        (code, out.as_str()),
        (0, "1 object(s) checked: all valid\n")
    );
}

/// A NodeClaim is read (not skipped) and its taints validated as Karpenter validates them.
#[test]
fn check_validates_a_nodeclaims_taints() {
    let claim = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
        "metadata": {"name": "default-x"},
        "spec": {"taints": [{"key": "bad key", "effect": "NoSchedule"}],
                 "startupTaints": [{"key": "ok", "effect": "NoSchedule"}]}});
    let (code, out, err) = run(&["check"], &[("nc.json", claim)]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        "NodeClaim default-x: invalid value: bad key in taints\n1 object(s) checked: 1 invalid\n"
    );
    assert!(!err.contains("skipping"), "{err}");
}

/// A pod that only a PreferNoSchedule-tainted NodePool can take: Karpenter relaxes it last with
/// a toleration for PreferNoSchedule taints (`toleratePreferNoScheduleTaints`) and launches a
/// node from that pool. `repel explain` and `repel pools` say so alike.
#[test]
fn a_pod_only_a_prefer_no_schedule_pool_takes_is_provisioned_there() {
    let soft = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "soft"},
        "spec": {"template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "taints": [{"key": "foo", "value": "bar", "effect": "PreferNoSchedule"}],
            "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}}}});
    let web = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                 "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}});
    let files = [("soft.json", soft), ("web.json", web)];
    let (code, out, err) = run(&["explain", "pod/web"], &files);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Karpenter would launch a node for it from NodePool soft (c5.large), once it relaxes the pod (adding: toleration for PreferNoSchedule taints)."),
        "{out}"
    );
    let (code, out, err) = run(&["explain", "pod/web", "-o", "json"], &files);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["nodePools"],
        json!([{"pool": "soft", "instanceType": "c5.large",
                "relaxed": "adding: toleration for PreferNoSchedule taints"}])
    );
    let (code, out, err) = run(&["pools", "-o", "json"], &files);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pools"][0]["provisions"], json!(["default/web"]));
    assert_eq!(v["pools"][0]["refuses"], json!([]));
}

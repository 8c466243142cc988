//! kube-apiserver's defaulting of the kinds stored without behaviour (`SetDefaults_Service`,
//! `_Secret`, `_PersistentVolumeClaim`, `_StorageClass`, v1.32), of the workloads' own fields
//! (`SetDefaults_Deployment`, …: [`workload`]), and the Service registry's address and
//! node-port allocation — what `kubectl get` shows of them.
//!
//! Decision: a Service's cluster IP is the lowest free address of 10.96.0.0/12 from 10.96.0.10
//! (kubeadm's range; kube-apiserver picks one at random), a node port the lowest free one of
//! 30000–32767 (also random upstream), so the same applies give the same addresses.

use std::collections::HashSet;
use std::net::Ipv4Addr;

use base64::Engine;
use repel_api::status;
use serde_json::{Value, json};

use crate::request::ApiError;
use crate::store::Store;

/// The first address handed out (below: the `kubernetes` and DNS Services' by convention).
const FIRST_CLUSTER_IP: u32 = u32::from_be_bytes([10, 96, 0, 10]);
/// The end (exclusive) of 10.96.0.0/12.
const CLUSTER_IP_END: u32 = u32::from_be_bytes([10, 112, 0, 0]);
/// `--service-node-port-range`'s default.
const NODE_PORTS: std::ops::RangeInclusive<i64> = 30000..=32767;

fn used_ips_and_ports(store: &Store) -> (HashSet<String>, HashSet<i64>) {
    let (services, _) = store.list("services", None);
    let mut ips = HashSet::new();
    let mut ports = HashSet::new();
    for s in &services {
        for ip in s["spec"]["clusterIPs"].as_array().into_iter().flatten() {
            if let Some(ip) = ip.as_str() {
                ips.insert(ip.to_string());
            }
        }
        for p in s["spec"]["ports"].as_array().into_iter().flatten() {
            if let Some(n) = p["nodePort"].as_i64() {
                ports.insert(n);
            }
        }
    }
    (ips, ports)
}

/// `SetDefaults_Service`, then the registry's `normalizeClusterIPs`, IP families and
/// allocation of the cluster IP and node ports.
pub fn service(store: &Store, svc: &mut Value) -> Result<(), ApiError> {
    let spec = &mut svc["spec"];
    if !spec.is_object() {
        *spec = json!({});
    }
    if spec["sessionAffinity"].as_str().unwrap_or("").is_empty() {
        spec["sessionAffinity"] = json!("None");
    }
    if spec["sessionAffinity"] == "None"
        && let Some(m) = spec.as_object_mut()
    {
        m.remove("sessionAffinityConfig");
    }
    if spec["sessionAffinity"] == "ClientIP"
        && spec["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"].is_null()
    {
        spec["sessionAffinityConfig"] = json!({"clientIP": {"timeoutSeconds": 10800}});
    }
    if spec["type"].as_str().unwrap_or("").is_empty() {
        spec["type"] = json!("ClusterIP");
    }
    let ty = spec["type"].as_str().unwrap_or("ClusterIP").to_string();
    for p in spec["ports"].as_array_mut().into_iter().flatten() {
        if p["protocol"].as_str().unwrap_or("").is_empty() {
            p["protocol"] = json!("TCP");
        }
        let unset = match &p["targetPort"] {
            Value::Null => true,
            Value::Number(n) => n.as_i64() == Some(0),
            Value::String(s) => s.is_empty(),
            _ => false,
        };
        if unset {
            p["targetPort"] = p["port"].clone();
        }
    }
    let has_external = spec["externalIPs"]
        .as_array()
        .is_some_and(|a| !a.is_empty());
    let externally_accessible =
        ty == "LoadBalancer" || ty == "NodePort" || (ty == "ClusterIP" && has_external);
    if externally_accessible
        && spec["externalTrafficPolicy"]
            .as_str()
            .unwrap_or("")
            .is_empty()
    {
        spec["externalTrafficPolicy"] = json!("Cluster");
    }
    if spec["internalTrafficPolicy"].is_null() && ty != "ExternalName" {
        spec["internalTrafficPolicy"] = json!("Cluster");
    }
    if ty == "LoadBalancer" && spec["allocateLoadBalancerNodePorts"].is_null() {
        spec["allocateLoadBalancerNodePorts"] = json!(true);
    }
    if ty == "ExternalName" {
        return Ok(());
    }
    let given = spec["clusterIP"].as_str().unwrap_or("").to_string();
    if !given.is_empty() && spec["clusterIPs"].as_array().is_none_or(Vec::is_empty) {
        spec["clusterIPs"] = json!([given]);
    }
    let headless = given == "None";
    let selectorless = spec["selector"].as_object().is_none_or(|m| m.is_empty());
    if spec["ipFamilyPolicy"].is_null() {
        spec["ipFamilyPolicy"] = json!(if headless && selectorless {
            "RequireDualStack"
        } else {
            "SingleStack"
        });
    }
    if spec["ipFamilies"].as_array().is_none_or(Vec::is_empty) {
        spec["ipFamilies"] = json!(["IPv4"]);
    }
    let (used_ips, mut used_ports) = used_ips_and_ports(store);
    if !headless {
        if given.is_empty() {
            let ip = (FIRST_CLUSTER_IP..CLUSTER_IP_END)
                .map(|n| Ipv4Addr::from(n).to_string())
                .find(|ip| !used_ips.contains(ip))
                .ok_or_else(|| {
                    ApiError::from(status::internal_error(
                        "failed to allocate a serviceIP: range is full",
                    ))
                })?;
            spec["clusterIP"] = json!(ip);
            spec["clusterIPs"] = json!([ip]);
        } else if used_ips.contains(&given) {
            return Err(status::internal_error(&format!(
                "failed to allocate IP {given}: provided IP is already allocated"
            ))
            .into());
        }
    }
    let wants_node_ports =
        ty == "NodePort" || (ty == "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] == true);
    if wants_node_ports {
        for p in spec["ports"].as_array_mut().into_iter().flatten() {
            if p["nodePort"].as_i64().unwrap_or(0) == 0 {
                let port = NODE_PORTS
                    .clone()
                    .find(|n| !used_ports.contains(n))
                    .ok_or_else(|| {
                        ApiError::from(status::internal_error(
                            "failed to allocate a nodePort: range is full",
                        ))
                    })?;
                used_ports.insert(port);
                p["nodePort"] = json!(port);
            }
        }
    }
    Ok(())
}

/// `SetDefaults_Secret` (type `Opaque`) and the conversion that merges `stringData` into
/// `data` (base64), which is not stored.
pub fn secret(obj: &mut Value) {
    if obj["type"].as_str().unwrap_or("").is_empty() {
        obj["type"] = json!("Opaque");
    }
    let Some(string_data) = obj.as_object_mut().and_then(|m| m.remove("stringData")) else {
        return;
    };
    let Some(entries) = string_data.as_object() else {
        return;
    };
    if !obj["data"].is_object() {
        obj["data"] = json!({});
    }
    for (k, v) in entries {
        let text = v.as_str().unwrap_or("");
        obj["data"][k] = json!(base64::engine::general_purpose::STANDARD.encode(text));
    }
}

/// `SetDefaults_PersistentVolumeClaim` and `_PersistentVolumeClaimSpec`.
pub fn pvc(obj: &mut Value) {
    if obj["status"]["phase"].as_str().unwrap_or("").is_empty() {
        obj["status"]["phase"] = json!("Pending");
    }
    if obj["spec"]["volumeMode"].is_null() {
        obj["spec"]["volumeMode"] = json!("Filesystem");
    }
}

/// `SetDefaults_StorageClass`.
pub fn storage_class(obj: &mut Value) {
    if obj["reclaimPolicy"].is_null() {
        obj["reclaimPolicy"] = json!("Delete");
    }
    if obj["volumeBindingMode"].is_null() {
        obj["volumeBindingMode"] = json!("Immediate");
    }
}

/// `SetDefaults_HorizontalPodAutoscaler` (autoscaling/v2): `minReplicas` 1, and without
/// metrics one: CPU at 80 % average utilization.
pub fn hpa(obj: &mut Value) {
    if obj["spec"]["minReplicas"].is_null() {
        obj["spec"]["minReplicas"] = json!(1);
    }
    if obj["spec"]["metrics"].as_array().is_none_or(Vec::is_empty) {
        obj["spec"]["metrics"] = json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 80}}}]);
    }
}

fn default(obj: &mut Value, path: &[&str], v: Value) {
    let mut at = &mut *obj;
    for p in &path[..path.len() - 1] {
        if !at[*p].is_object() {
            at[*p] = json!({});
        }
        at = &mut at[*p];
    }
    let last = path[path.len() - 1];
    if at[last].is_null() {
        at[last] = v;
    }
}

/// apps/v1, batch/v1 and core/v1 `SetDefaults_Deployment`, `_ReplicaSet`, `_ReplicationController`, `_StatefulSet`,
/// `_DaemonSet`, `_Job` and `_CronJob` (v1.32), the workload fields `kubectl get -o yaml` and kubectl's
/// own checks read (`kubectl rollout status daemonset` needs `updateStrategy.type`), and the
/// pod template's ([`pod_spec`]), so the pods made from it carry them too.
pub fn workload(kind: &str, obj: &mut Value) {
    if !obj["spec"].is_object() {
        return;
    }
    if let Some(t) = template_spec(kind, obj) {
        pod_spec(t, false);
    }
    if kind == "ReplicationController" {
        // Core v1 `SetDefaults_ReplicationController`: the selector and the object's labels
        // are the template's labels when unset or empty.
        let labels = obj["spec"]["template"]["metadata"]["labels"].clone();
        if labels.is_object() {
            if obj["spec"]["selector"]
                .as_object()
                .is_none_or(|m| m.is_empty())
            {
                obj["spec"]["selector"] = labels.clone();
            }
            if obj["metadata"].is_object()
                && obj["metadata"]["labels"]
                    .as_object()
                    .is_none_or(|m| m.is_empty())
            {
                obj["metadata"]["labels"] = labels;
            }
        }
    }
    let spec = &mut obj["spec"];
    match kind {
        "ReplicationController" => default(spec, &["replicas"], json!(1)),
        "Deployment" => {
            default(spec, &["replicas"], json!(1));
            default(spec, &["strategy", "type"], json!("RollingUpdate"));
            if spec["strategy"]["type"] == "RollingUpdate" {
                default(
                    spec,
                    &["strategy", "rollingUpdate", "maxUnavailable"],
                    json!("25%"),
                );
                default(
                    spec,
                    &["strategy", "rollingUpdate", "maxSurge"],
                    json!("25%"),
                );
            }
            default(spec, &["revisionHistoryLimit"], json!(10));
            default(spec, &["progressDeadlineSeconds"], json!(600));
        }
        "ReplicaSet" => default(spec, &["replicas"], json!(1)),
        "StatefulSet" => {
            default(spec, &["replicas"], json!(1));
            default(spec, &["podManagementPolicy"], json!("OrderedReady"));
            default(spec, &["updateStrategy", "type"], json!("RollingUpdate"));
            if spec["updateStrategy"]["type"] == "RollingUpdate" {
                default(
                    spec,
                    &["updateStrategy", "rollingUpdate", "partition"],
                    json!(0),
                );
            }
            default(spec, &["revisionHistoryLimit"], json!(10));
            default(
                spec,
                &["persistentVolumeClaimRetentionPolicy", "whenDeleted"],
                json!("Retain"),
            );
            default(
                spec,
                &["persistentVolumeClaimRetentionPolicy", "whenScaled"],
                json!("Retain"),
            );
        }
        "DaemonSet" => {
            default(spec, &["updateStrategy", "type"], json!("RollingUpdate"));
            if spec["updateStrategy"]["type"] == "RollingUpdate" {
                default(
                    spec,
                    &["updateStrategy", "rollingUpdate", "maxUnavailable"],
                    json!(1),
                );
                default(
                    spec,
                    &["updateStrategy", "rollingUpdate", "maxSurge"],
                    json!(0),
                );
            }
            default(spec, &["revisionHistoryLimit"], json!(10));
        }
        "Job" => {
            if spec["completions"].is_null() && spec["parallelism"].is_null() {
                spec["completions"] = json!(1);
                spec["parallelism"] = json!(1);
            }
            default(spec, &["parallelism"], json!(1));
            if spec["backoffLimitPerIndex"].is_null() {
                default(spec, &["backoffLimit"], json!(6));
            }
            default(spec, &["completionMode"], json!("NonIndexed"));
            default(spec, &["suspend"], json!(false));
            let replacement = if spec["podFailurePolicy"].is_null() {
                "TerminatingOrFailed"
            } else {
                "Failed"
            };
            default(spec, &["podReplacementPolicy"], json!(replacement));
        }
        "CronJob" => {
            default(spec, &["concurrencyPolicy"], json!("Allow"));
            default(spec, &["suspend"], json!(false));
            default(spec, &["successfulJobsHistoryLimit"], json!(3));
            default(spec, &["failedJobsHistoryLimit"], json!(1));
        }
        _ => {}
    }
}

/// core/v1's defaults of a pod spec (v1.32 `SetDefaults_PodSpec`, `_Container`,
/// `_ContainerPort`, `_Probe`, `_HTTPGetAction`, `_Volume` and its sources,
/// `_ObjectFieldSelector`), what `kubectl get -o yaml` shows of a pod or a workload's template
/// on a real cluster. `pod`: a Pod's own spec, which also gets `SetDefaults_Pod`'s
/// `enableServiceLinks` (a template does not). A value given is kept; nothing absent is
/// created besides the defaults.
pub fn pod_spec(spec: &mut Value, pod: bool) {
    if !spec.is_object() {
        return;
    }
    for (field, v) in [
        ("dnsPolicy", "ClusterFirst"),
        ("restartPolicy", "Always"),
        ("schedulerName", "default-scheduler"),
    ] {
        default_str(spec, field, v);
    }
    default(spec, &["terminationGracePeriodSeconds"], json!(30));
    default(spec, &["securityContext"], json!({}));
    if pod {
        default(spec, &["enableServiceLinks"], json!(true));
    }
    let host_network = spec.get("hostNetwork").and_then(Value::as_bool) == Some(true);
    for list in ["containers", "initContainers"] {
        for c in each(spec, list) {
            container(c, host_network);
        }
    }
    for v in each(spec, "volumes") {
        volume(v);
    }
}

/// The objects of the list at `key` of `v` (none when absent), without creating it.
fn each<'a>(v: &'a mut Value, key: &str) -> impl Iterator<Item = &'a mut Value> {
    v.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter(|x| x.is_object())
}

/// Sets string field `field` of object `v` to `d` when it is absent or empty.
fn default_str(v: &mut Value, field: &str, d: &str) {
    let Some(m) = v.as_object_mut() else {
        return;
    };
    if m.get(field)
        .is_none_or(|x| x.is_null() || x.as_str() == Some(""))
    {
        m.insert(field.into(), json!(d));
    }
}

/// The template of a workload `kind`'s pods, where it has one.
fn template_spec<'a>(kind: &str, obj: &'a mut Value) -> Option<&'a mut Value> {
    let path = match kind {
        "Deployment"
        | "ReplicaSet"
        | "ReplicationController"
        | "StatefulSet"
        | "DaemonSet"
        | "Job" => "/spec/template/spec",
        "CronJob" => "/spec/jobTemplate/spec/template/spec",
        _ => return None,
    };
    obj.pointer_mut(path).filter(|s| s.is_object())
}

fn container(c: &mut Value, host_network: bool) {
    default_str(c, "terminationMessagePath", "/dev/termination-log");
    default_str(c, "terminationMessagePolicy", "File");
    let policy = if image_tag(c.get("image").and_then(Value::as_str).unwrap_or("")) == "latest" {
        "Always"
    } else {
        "IfNotPresent"
    };
    default_str(c, "imagePullPolicy", policy);
    default(c, &["resources"], json!({}));
    for p in each(c, "ports") {
        default_str(p, "protocol", "TCP");
        // SetDefaults_PodSpec: on the host's network a port is the host's.
        if host_network
            && p.get("hostPort").is_none_or(Value::is_null)
            && let Some(cp) = p.get("containerPort").cloned()
        {
            p["hostPort"] = cp;
        }
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        let Some(p) = c.get_mut(probe).filter(|p| p.is_object()) else {
            continue;
        };
        default(p, &["timeoutSeconds"], json!(1));
        default(p, &["periodSeconds"], json!(10));
        default(p, &["successThreshold"], json!(1));
        default(p, &["failureThreshold"], json!(3));
        if let Some(h) = p.get_mut("httpGet") {
            http_get(h);
        }
    }
    for hook in ["/lifecycle/postStart/httpGet", "/lifecycle/preStop/httpGet"] {
        if let Some(h) = c.pointer_mut(hook) {
            http_get(h);
        }
    }
    for e in each(c, "env") {
        if let Some(f) = e.pointer_mut("/valueFrom/fieldRef") {
            default_str(f, "apiVersion", "v1");
        }
    }
}

fn http_get(h: &mut Value) {
    default_str(h, "path", "/");
    default_str(h, "scheme", "HTTP");
}

/// The tag `parsers.ParseImageName` reads from an image reference: `latest` when it has
/// neither a tag nor a digest.
fn image_tag(image: &str) -> &str {
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let last = name.rsplit('/').next().unwrap_or(name);
    match last.rsplit_once(':') {
        Some((_, tag)) => tag,
        None if digest.is_some() => "",
        None => "latest",
    }
}

/// The volume sources `SetDefaults_Volume` knows: a volume naming none is an `emptyDir`.
const VOLUME_SOURCES: &[&str] = &[
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
];

fn volume(v: &mut Value) {
    if VOLUME_SOURCES
        .iter()
        .all(|s| v.get(*s).is_none_or(Value::is_null))
    {
        v["emptyDir"] = json!({});
        return;
    }
    for source in ["configMap", "secret", "downwardAPI", "projected"] {
        if let Some(s) = v.get_mut(source).filter(|s| s.is_object()) {
            default(s, &["defaultMode"], json!(420));
        }
    }
    if let Some(h) = v.get_mut("hostPath").filter(|h| h.is_object()) {
        default(h, &["type"], json!(""));
    }
    if let Some(d) = v.get_mut("downwardAPI") {
        for i in each(d, "items") {
            if let Some(f) = i.get_mut("fieldRef") {
                default_str(f, "apiVersion", "v1");
            }
        }
    }
    if let Some(p) = v.get_mut("projected") {
        for s in each(p, "sources") {
            if let Some(t) = s.get_mut("serviceAccountToken").filter(|t| t.is_object()) {
                default(t, &["expirationSeconds"], json!(3600));
            }
            if let Some(d) = s.get_mut("downwardAPI") {
                for i in each(d, "items") {
                    if let Some(f) = i.get_mut("fieldRef") {
                        default_str(f, "apiVersion", "v1");
                    }
                }
            }
        }
    }
}

/// The Job strategy's `generateSelector` (batch, v1.32 `PrepareForCreate`), unless
/// `spec.manualSelector` is true: the template gets the labels `job-name`,
/// `batch.kubernetes.io/job-name` (the Job's name), `controller-uid` and
/// `batch.kubernetes.io/controller-uid` (its uid) where unset, and the selector matches
/// `batch.kubernetes.io/controller-uid`. Then `SetDefaults_Job`'s labels, as every read of
/// the Job shows them: a Job without labels has its template's.
pub fn job_selector(obj: &mut Value) {
    if obj["spec"]["manualSelector"].as_bool() == Some(true) || !obj["spec"]["template"].is_object()
    {
        return;
    }
    let name = obj["metadata"]["name"].as_str().unwrap_or("").to_string();
    let uid = obj["metadata"]["uid"].as_str().unwrap_or("").to_string();
    let template = &mut obj["spec"]["template"];
    if !template["metadata"].is_object() {
        template["metadata"] = json!({});
    }
    if !template["metadata"]["labels"].is_object() {
        template["metadata"]["labels"] = json!({});
    }
    if let Some(labels) = template["metadata"]["labels"].as_object_mut() {
        for (k, v) in [
            ("job-name", &name),
            ("batch.kubernetes.io/job-name", &name),
            ("controller-uid", &uid),
            ("batch.kubernetes.io/controller-uid", &uid),
        ] {
            labels.entry(k).or_insert_with(|| json!(v));
        }
    }
    let spec = &mut obj["spec"];
    if !spec["selector"].is_object() {
        spec["selector"] = json!({});
    }
    if !spec["selector"]["matchLabels"].is_object() {
        spec["selector"]["matchLabels"] = json!({});
    }
    if let Some(m) = spec["selector"]["matchLabels"].as_object_mut() {
        m.entry("batch.kubernetes.io/controller-uid")
            .or_insert_with(|| json!(uid));
    }
    let labels = obj["spec"]["template"]["metadata"]["labels"].clone();
    if obj["metadata"]["labels"]
        .as_object()
        .is_none_or(|l| l.is_empty())
    {
        obj["metadata"]["labels"] = labels;
    }
}

/// core/v1 `SetDefaults_Namespace` (v1.32): the label `kubernetes.io/metadata.name` is the
/// namespace's name, set on every write (a namespace selector can name it).
pub fn namespace(obj: &mut Value) {
    let Some(name) = obj["metadata"]["name"].as_str().map(str::to_string) else {
        return;
    };
    if !obj["metadata"]["labels"].is_object() {
        obj["metadata"]["labels"] = json!({});
    }
    obj["metadata"]["labels"]["kubernetes.io/metadata.name"] = json!(name);
}

/// core/v1 `SetDefaults_LimitRangeItem` (v1.32), for each `Container` limit: the default
/// limit is `max` where unset, the default request the default limit, else `min`.
pub fn limit_range(obj: &mut Value) {
    let Some(limits) = obj["spec"]["limits"].as_array_mut() else {
        return;
    };
    for item in limits.iter_mut().filter(|i| i["type"] == "Container") {
        for (from, to) in [
            ("max", "default"),
            ("default", "defaultRequest"),
            ("min", "defaultRequest"),
        ] {
            let Some(source) = item[from].as_object().cloned() else {
                continue;
            };
            if !item[to].is_object() {
                item[to] = json!({});
            }
            for (k, v) in source {
                if item[to][k.as_str()].is_null() {
                    item[to][k.as_str()] = v;
                }
            }
        }
    }
}

/// scheduling/v1 `SetDefaults_PriorityClass` (v1.32): `preemptionPolicy` is
/// `PreemptLowerPriority` when unset (`kubectl describe priorityclass` reads it).
pub fn priority_class(obj: &mut Value) {
    if obj.is_object() && obj["preemptionPolicy"].is_null() {
        obj["preemptionPolicy"] = json!("PreemptLowerPriority");
    }
}

#[cfg(test)]
mod workload_tests {
    use super::*;

    /// Upstream's `TestSetDefaultImagePullPolicy` cases (pkg/apis/core/v1/defaults_test.go).
    #[test]
    fn image_pull_policy_follows_the_tag() {
        for (image, want) in [
            ("nginx", "Always"),
            ("nginx:latest", "Always"),
            ("nginx:1.25", "IfNotPresent"),
            ("nginx@sha256:abc", "IfNotPresent"),
            ("nginx:latest@sha256:abc", "Always"),
            ("localhost:5000/nginx", "Always"),
            ("localhost:5000/nginx:v1", "IfNotPresent"),
        ] {
            let mut spec = json!({"containers": [{"name": "c", "image": image}]});
            pod_spec(&mut spec, false);
            assert_eq!(spec["containers"][0]["imagePullPolicy"], want, "{image}");
        }
        let mut spec =
            json!({"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Never"}]});
        pod_spec(&mut spec, false);
        assert_eq!(spec["containers"][0]["imagePullPolicy"], "Never");
    }

    #[test]
    fn a_pod_spec_gets_what_kube_apiserver_stores() {
        let mut spec = json!({
            "containers": [{"name": "c", "image": "nginx:1", "ports": [{"containerPort": 80}],
                "readinessProbe": {"httpGet": {"port": 80}},
                "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}, {"name": "A", "value": "b"}]}],
            "volumes": [{"name": "v"}, {"name": "cm", "configMap": {"name": "x"}}, {"name": "h", "hostPath": {"path": "/x"}}]
        });
        pod_spec(&mut spec, true);
        assert_eq!(
            spec,
            json!({
                "containers": [{"name": "c", "image": "nginx:1", "imagePullPolicy": "IfNotPresent",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "readinessProbe": {"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
                        "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
                    "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName", "apiVersion": "v1"}}}, {"name": "A", "value": "b"}],
                    "resources": {},
                    "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
                "volumes": [{"name": "v", "emptyDir": {}}, {"name": "cm", "configMap": {"name": "x", "defaultMode": 420}},
                            {"name": "h", "hostPath": {"path": "/x", "type": ""}}],
                "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler",
                "terminationGracePeriodSeconds": 30, "securityContext": {}, "enableServiceLinks": true
            })
        );
        // A template: no enableServiceLinks; the host's network makes ports the host's.
        let mut d = json!({"spec": {"template": {"spec": {"hostNetwork": true, "restartPolicy": "OnFailure",
            "containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 53, "protocol": "UDP"}]}]}}}});
        workload("DaemonSet", &mut d);
        let t = &d["spec"]["template"]["spec"];
        assert!(t.get("enableServiceLinks").is_none());
        assert_eq!(t["restartPolicy"], "OnFailure");
        assert_eq!(
            t["containers"][0]["ports"][0],
            json!({"containerPort": 53, "protocol": "UDP", "hostPort": 53})
        );
        let mut cj = json!({"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}}}});
        workload("CronJob", &mut cj);
        assert_eq!(
            cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]["dnsPolicy"],
            "ClusterFirst"
        );
    }

    #[test]
    fn workloads_get_upstreams_defaults_and_keep_what_is_given() {
        let mut d = json!({"spec": {"strategy": {"rollingUpdate": {"maxSurge": 2}}}});
        workload("Deployment", &mut d);
        assert_eq!(
            d["spec"],
            json!({"replicas": 1, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
                   "strategy": {"type": "RollingUpdate",
                                "rollingUpdate": {"maxSurge": 2, "maxUnavailable": "25%"}}})
        );
        let mut d = json!({"spec": {"strategy": {"type": "Recreate"}}});
        workload("Deployment", &mut d);
        assert!(d["spec"]["strategy"].get("rollingUpdate").is_none());
        let mut ds =
            json!({"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": "10%"}}}});
        workload("DaemonSet", &mut ds);
        assert_eq!(
            ds["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "10%", "maxSurge": 0}})
        );
        let mut ds = json!({"spec": {"updateStrategy": {"type": "OnDelete"}}});
        workload("DaemonSet", &mut ds);
        assert!(ds["spec"]["updateStrategy"].get("rollingUpdate").is_none());
        let mut sts = json!({"spec": {}});
        workload("StatefulSet", &mut sts);
        assert_eq!(
            sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"],
            0
        );
        assert_eq!(sts["spec"]["podManagementPolicy"], "OrderedReady");
        let mut job = json!({"spec": {"completions": 5}});
        workload("Job", &mut job);
        assert_eq!(
            (
                &job["spec"]["completions"],
                &job["spec"]["parallelism"],
                &job["spec"]["backoffLimit"]
            ),
            (&json!(5), &json!(1), &json!(6))
        );
        let mut job = json!({"spec": {}});
        workload("Job", &mut job);
        assert_eq!(job["spec"]["completions"], 1);
        assert_eq!(job["spec"]["podReplacementPolicy"], "TerminatingOrFailed");
        let mut cj = json!({"spec": {"schedule": "* * * * *", "failedJobsHistoryLimit": 0}});
        workload("CronJob", &mut cj);
        assert_eq!(
            cj["spec"],
            json!({"schedule": "* * * * *", "failedJobsHistoryLimit": 0, "concurrencyPolicy": "Allow",
                   "suspend": false, "successfulJobsHistoryLimit": 3})
        );
        let mut ns =
            json!({"metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "x"}}});
        namespace(&mut ns);
        assert_eq!(
            ns["metadata"]["labels"],
            json!({"kubernetes.io/metadata.name": "team-a"})
        );
        let mut lr = json!({"spec": {"limits": [
            {"type": "Container", "max": {"cpu": "2", "memory": "1Gi"}, "default": {"cpu": "1"},
             "min": {"memory": "100Mi"}},
            {"type": "Pod", "max": {"cpu": "4"}}]}});
        limit_range(&mut lr);
        assert_eq!(
            lr["spec"]["limits"],
            json!([{"type": "Container", "max": {"cpu": "2", "memory": "1Gi"},
                    "default": {"cpu": "1", "memory": "1Gi"}, "min": {"memory": "100Mi"},
                    "defaultRequest": {"cpu": "1", "memory": "1Gi"}},
                   {"type": "Pod", "max": {"cpu": "4"}}])
        );
        let mut pc = json!({"value": 1000});
        priority_class(&mut pc);
        assert_eq!(pc["preemptionPolicy"], "PreemptLowerPriority");
        let mut pc = json!({"value": 1000, "preemptionPolicy": "Never"});
        priority_class(&mut pc);
        assert_eq!(pc["preemptionPolicy"], "Never");
    }
}

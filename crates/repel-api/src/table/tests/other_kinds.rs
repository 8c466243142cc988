//! The other kinds' columns, and `includeObject` values as `kubectl` reads them.

use super::*;

#[test]
fn other_kinds() {
    let created = ago(120);
    let cases = [
        (
            "Namespace",
            json!({"metadata": {"name": "default", "creationTimestamp": created}, "status": {"phase": "Active"}}),
            json!(["default", "Active", "2m"]),
        ),
        (
            "Deployment",
            json!({"metadata": {"name": "web", "creationTimestamp": created},
                   "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}, {"name": "side", "image": "busybox"}]}}},
                   "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}}),
            json!([
                "web",
                "2/3",
                3,
                2,
                "2m",
                "nginx,side",
                "nginx:1.27,busybox",
                "app=web"
            ]),
        ),
        (
            "ReplicaSet",
            json!({"metadata": {"name": "web-1", "creationTimestamp": created},
                   "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
                            "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}},
                   "status": {"replicas": 1}}),
            json!(["web-1", 1, 1, 0, "2m", "nginx", "nginx", "app in (web)"]),
        ),
        (
            "DaemonSet",
            json!({"metadata": {"name": "proxy", "creationTimestamp": created},
                   "spec": {"selector": {"matchLabels": {"app": "proxy"}},
                            "template": {"spec": {"nodeSelector": {"kubernetes.io/os": "linux"}, "containers": [{"name": "p", "image": "proxy:1"}]}}},
                   "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2, "updatedNumberScheduled": 3, "numberAvailable": 2}}),
            json!([
                "proxy",
                3,
                3,
                2,
                3,
                2,
                "kubernetes.io/os=linux",
                "2m",
                "p",
                "proxy:1",
                "app=proxy"
            ]),
        ),
        (
            "StatefulSet",
            json!({"metadata": {"name": "db", "creationTimestamp": created},
                   "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "pg", "image": "postgres"}]}}},
                   "status": {"readyReplicas": 1}}),
            json!(["db", "1/2", "2m", "pg", "postgres"]),
        ),
        (
            "Job",
            json!({"metadata": {"name": "pi", "creationTimestamp": created},
                   "spec": {"completions": 1, "selector": {"matchLabels": {"job": "pi"}}, "template": {"spec": {"containers": [{"name": "pi", "image": "perl"}]}}},
                   "status": {"succeeded": 1, "startTime": ago(100), "completionTime": ago(40),
                              "conditions": [{"type": "Complete", "status": "True"}]}}),
            json!(["pi", "Complete", "1/1", "60s", "2m", "pi", "perl", "job=pi"]),
        ),
        (
            "PodDisruptionBudget",
            json!({"metadata": {"name": "web-pdb", "creationTimestamp": created},
                   "spec": {"minAvailable": "50%"}, "status": {"disruptionsAllowed": 0}}),
            json!(["web-pdb", "50%", "N/A", 0, "2m"]),
        ),
        (
            "Lease",
            json!({"metadata": {"name": "node1", "creationTimestamp": created}, "spec": {"holderIdentity": "node1"}}),
            json!(["node1", "node1", "2m"]),
        ),
        (
            "ResourceQuota",
            json!({"metadata": {"name": "q", "creationTimestamp": created},
                   "status": {"hard": {"pods": "10", "limits.cpu": "2", "requests.cpu": "1"},
                              "used": {"pods": "3", "requests.cpu": "500m"}}}),
            json!([
                "q",
                "2m",
                "pods: 3/10, requests.cpu: 500m/1",
                "limits.cpu: 0/2"
            ]),
        ),
        (
            "ControllerRevision",
            json!({"metadata": {"name": "ds-6d4cf56db6", "creationTimestamp": created,
                   "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "uid": "u", "controller": true}]},
                   "revision": 2}),
            json!(["ds-6d4cf56db6", "daemonset.apps/ds", 2, "2m"]),
        ),
        (
            "Event",
            json!({"metadata": {"name": "node1.abc"}, "type": "Normal", "reason": "NodeNotReady",
                   "involvedObject": {"kind": "Node", "name": "node1"}, "source": {"component": "node-controller"},
                   "message": "Node node1 status is now: NodeNotReady ", "firstTimestamp": ago(600), "lastTimestamp": ago(60), "count": 2}),
            json!([
                "60s",
                "Normal",
                "NodeNotReady",
                "node/node1",
                "",
                "node-controller",
                "Node node1 status is now: NodeNotReady",
                "10m",
                2,
                "node1.abc"
            ]),
        ),
        (
            "ConfigMap",
            json!({"metadata": {"name": "cm", "creationTimestamp": created}, "data": {"a": "1"}, "binaryData": {"b": "AA=="}}),
            json!(["cm", 2, "2m"]),
        ),
        (
            "Widget",
            json!({"metadata": {"name": "w", "creationTimestamp": created}}),
            json!(["w", "2m"]),
        ),
        (
            "Service",
            json!({"metadata": {"name": "lb", "creationTimestamp": created},
                   "spec": {"type": "LoadBalancer", "clusterIPs": ["10.96.0.12"], "externalIPs": ["1.2.3.4"],
                            "ports": [{"port": 80, "nodePort": 30001, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
                            "selector": {"b": "2", "a": "1"}},
                   "status": {"loadBalancer": {"ingress": [{"hostname": "lb.example"}, {"ip": "9.9.9.9"}]}}}),
            json!([
                "lb",
                "LoadBalancer",
                "10.96.0.12",
                "9.9.9.9,lb.example,1.2.3.4",
                "80:30001/TCP,53/UDP",
                "2m",
                "a=1,b=2"
            ]),
        ),
        (
            "Service",
            json!({"metadata": {"name": "ext", "creationTimestamp": created},
                   "spec": {"type": "ExternalName", "externalName": "db.example"}}),
            json!([
                "ext",
                "ExternalName",
                "<none>",
                "db.example",
                "<none>",
                "2m",
                "<none>"
            ]),
        ),
        (
            "Secret",
            json!({"metadata": {"name": "s", "creationTimestamp": created}, "type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}}),
            json!(["s", "kubernetes.io/tls", 2, "2m"]),
        ),
        (
            "PersistentVolumeClaim",
            json!({"metadata": {"name": "data", "creationTimestamp": created},
                   "spec": {"volumeName": "pv-1", "storageClassName": "fast", "volumeMode": "Block"},
                   "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce"]}}),
            json!([
                "data", "Bound", "pv-1", "10Gi", "RWO,RWX", "fast", "<unset>", "2m", "Block"
            ]),
        ),
        (
            "StorageClass",
            json!({"metadata": {"name": "gp3", "creationTimestamp": created,
                   "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                   "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": true}),
            json!([
                "gp3 (default)",
                "ebs.csi.aws.com",
                "Delete",
                "WaitForFirstConsumer",
                true,
                "2m"
            ]),
        ),
        (
            "Ingress",
            json!({"metadata": {"name": "i", "creationTimestamp": created},
                   "spec": {"ingressClassName": "nginx", "tls": [{}],
                            "rules": [{"host": "a"}, {"host": "b"}, {}, {"host": "c"}, {"host": "d"}]},
                   "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.2"}, {"ip": "10.0.0.1"}]}}}),
            json!([
                "i",
                "nginx",
                "a,b,c + 2 more...",
                "10.0.0.1,10.0.0.2",
                "80, 443",
                "2m"
            ]),
        ),
        (
            "RoleBinding",
            json!({"metadata": {"name": "rb", "creationTimestamp": created},
                   "roleRef": {"kind": "ClusterRole", "name": "view"},
                   "subjects": [{"kind": "User", "name": "a"}, {"kind": "User", "name": "b"},
                                {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}]}),
            json!(["rb", "ClusterRole/view", "2m", "a, b", "", "ns/sa"]),
        ),
        (
            "ClusterRole",
            json!({"metadata": {"name": "view", "creationTimestamp": "2026-01-02T03:04:05Z"}}),
            json!(["view", "2026-01-02T03:04:05Z"]),
        ),
        (
            "HorizontalPodAutoscaler",
            json!({"metadata": {"name": "h", "creationTimestamp": created},
                   "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 10,
                            "metrics": [
                                {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
                                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
                                {"type": "Pods", "pods": {"target": {"averageValue": "1k"}}}]},
                   "status": {"currentReplicas": 3, "currentMetrics": [{}, {"resource": {"current": {"averageUtilization": 42}}}]}}),
            json!([
                "h",
                "Deployment/web",
                "memory: <unknown>/500Mi, cpu: 42%/60% + 1 more...",
                "<unset>",
                10,
                3,
                "2m"
            ]),
        ),
    ];
    for (kind, obj, want) in cases {
        let cells = row_cells(kind, &obj, now());
        assert_eq!(Value::Array(cells.clone()), want, "{kind}");
        assert_eq!(
            columns(kind).len(),
            cells.len(),
            "{kind}: one column per cell"
        );
    }
    let t = generic_table(&[], now(), "");
    assert_eq!(t["metadata"], json!({}), "no resourceVersion given");
    assert_eq!(t["rows"], json!([]));
    let include = IncludeObject::from_query("Object");
    let obj = json!({"metadata": {"name": "x"}, "spec": {}});
    assert_eq!(
        table("Lease", &[&obj], now(), "1", include)["rows"][0]["object"],
        obj
    );
    assert!(
        table("Lease", &[&obj], now(), "1", IncludeObject::None)["rows"][0]
            .get("object")
            .is_none()
    );
}

#[test]
fn include_object_values_as_upstreams_as_table_reads_them() {
    assert_eq!(IncludeObject::parse(""), Ok(IncludeObject::Metadata));
    assert_eq!(
        IncludeObject::parse("Metadata"),
        Ok(IncludeObject::Metadata)
    );
    assert_eq!(IncludeObject::parse("Object"), Ok(IncludeObject::Object));
    assert_eq!(IncludeObject::parse("None"), Ok(IncludeObject::None));
    assert_eq!(
        IncludeObject::parse("object"),
        Err("unrecognized includeObject value: \"object\"".to_string())
    );
}

//! The codec against the k8s-pb crate's prost types: what prost writes, we read as upstream's
//! JSON; what we write, prost reads back field for field.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use k8s_pb::api::apps::v1 as apps;
use k8s_pb::api::core::v1 as core;
use k8s_pb::apimachinery::pkg::api::resource::Quantity;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
use prost::Message as _;
use serde_json::json;

use super::*;

/// A body as client-go writes it: magic, `runtime.Unknown{typeMeta, raw}`.
fn body(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
    let unknown = k8s_pb::apimachinery::pkg::runtime::Unknown {
        type_meta: Some(k8s_pb::apimachinery::pkg::runtime::TypeMeta {
            api_version: Some(api_version.into()),
            kind: Some(kind.into()),
        }),
        raw: Some(raw),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut b = MAGIC.to_vec();
    b.extend(unknown.encode_to_vec());
    b
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

/// The Deployment `kubectl create deployment web --image=nginx --replicas=0` sends: Go's
/// protobuf writes every non-pointer field, zero or not.
fn kubectl_deployment() -> apps::Deployment {
    let labels: std::collections::BTreeMap<String, String> =
        [("app".to_string(), "web".to_string())].into();
    apps::Deployment {
        metadata: Some(meta::ObjectMeta {
            name: s("web"),
            generate_name: s(""),
            namespace: s(""),
            uid: s(""),
            resource_version: s(""),
            generation: Some(0),
            creation_timestamp: Some(meta::Time {
                seconds: Some(0),
                nanos: Some(0),
            }),
            labels: labels.clone(),
            ..Default::default()
        }),
        spec: Some(apps::DeploymentSpec {
            replicas: Some(0),
            selector: Some(meta::LabelSelector {
                match_labels: labels.clone(),
                ..Default::default()
            }),
            template: Some(core::PodTemplateSpec {
                metadata: Some(meta::ObjectMeta {
                    labels,
                    creation_timestamp: Some(meta::Time::default()),
                    ..Default::default()
                }),
                spec: Some(core::PodSpec {
                    containers: vec![core::Container {
                        name: s("nginx"),
                        image: s("nginx"),
                        resources: Some(core::ResourceRequirements {
                            requests: [("cpu".to_string(), Quantity { string: s("100m") })].into(),
                            ..Default::default()
                        }),
                        ports: vec![core::ContainerPort {
                            container_port: Some(80),
                            host_port: Some(0),
                            protocol: s(""),
                            ..Default::default()
                        }],
                        termination_message_path: s(""),
                        ..Default::default()
                    }],
                    host_network: Some(false),
                    tolerations: vec![core::Toleration {
                        key: s("dedicated"),
                        operator: s("Equal"),
                        value: s("gpu"),
                        effect: s("NoExecute"),
                        toleration_seconds: Some(0),
                    }],
                    ..Default::default()
                }),
            }),
            strategy: Some(apps::DeploymentStrategy::default()),
            min_ready_seconds: Some(0),
            paused: Some(false),
            ..Default::default()
        }),
        status: Some(apps::DeploymentStatus::default()),
    }
}

#[test]
fn a_kubectl_deployment_reads_as_its_json() {
    let b = body(
        "apps/v1",
        "Deployment",
        kubectl_deployment().encode_to_vec(),
    );
    let v = decode(&b).unwrap();
    assert_eq!(
        v,
        json!({
            "kind": "Deployment",
            "apiVersion": "apps/v1",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {
                        "containers": [{
                            "name": "nginx",
                            "image": "nginx",
                            "resources": {"requests": {"cpu": "100m"}},
                            "ports": [{"containerPort": 80}]
                        }],
                        "tolerations": [{
                            "key": "dedicated", "operator": "Equal", "value": "gpu",
                            "effect": "NoExecute", "tolerationSeconds": 0
                        }]
                    }
                },
                "strategy": {}
            },
            "status": {}
        })
    );
    // Key order is JSON's, by tag: kind and apiVersion first.
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["kind", "apiVersion", "metadata", "spec", "status"]);
}

#[test]
fn what_we_write_prost_reads_back() {
    let obj = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p", "namespace": "default", "resourceVersion": "7",
            "creationTimestamp": "2026-12-03T14:00:05Z",
            "annotations": {"a": "b"}
        },
        "spec": {
            "nodeName": "n1",
            "containers": [{"name": "c", "image": "i",
                "resources": {"limits": {"memory": "1Gi"}},
                "livenessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 3}}],
            "volumes": [{"name": "v", "emptyDir": {"sizeLimit": "1Gi"}}],
            "tolerations": [{"operator": "Exists"}],
            "securityContext": {"supplementalGroups": [1, 2]}
        },
        "status": {"phase": "Running", "startTime": "2026-12-03T14:00:06Z",
            "conditions": [{"type": "Ready", "status": "True",
                "lastTransitionTime": "2026-12-03T14:00:07Z"}]}
    });
    let b = encode(&obj).unwrap();
    let unknown = k8s_pb::apimachinery::pkg::runtime::Unknown::decode(&b[4..]).expect("an Unknown");
    let tm = unknown.type_meta.unwrap();
    assert_eq!(tm.api_version.as_deref(), Some("v1"));
    assert_eq!(tm.kind.as_deref(), Some("Pod"));
    let pod = core::Pod::decode(unknown.raw.unwrap().as_slice()).unwrap();
    let md = pod.metadata.clone().unwrap();
    assert_eq!(md.name.as_deref(), Some("p"));
    assert_eq!(md.creation_timestamp.unwrap().seconds, Some(1_796_306_405));
    assert_eq!(md.annotations.get("a").map(String::as_str), Some("b"));
    let spec = pod.spec.clone().unwrap();
    let c = &spec.containers[0];
    assert_eq!(
        c.resources.as_ref().unwrap().limits["memory"]
            .string
            .as_deref(),
        Some("1Gi")
    );
    let probe = c.liveness_probe.as_ref().unwrap();
    let get = probe.handler.as_ref().unwrap().http_get.as_ref().unwrap();
    assert_eq!(
        get.port,
        Some(IntOrString {
            r#type: Some(1),
            int_val: Some(0),
            str_val: s("http")
        })
    );
    assert_eq!(probe.period_seconds, Some(3));
    let vol = &spec.volumes[0];
    let empty = vol
        .volume_source
        .as_ref()
        .unwrap()
        .empty_dir
        .as_ref()
        .unwrap();
    assert_eq!(
        empty.size_limit.as_ref().unwrap().string.as_deref(),
        Some("1Gi")
    );
    assert_eq!(
        spec.security_context.unwrap().supplemental_groups,
        vec![1, 2]
    );
    // And back: prost's bytes read as the same JSON.
    let again = decode(&body("v1", "Pod", pod.encode_to_vec())).unwrap();
    assert_eq!(again, obj);
}

#[test]
fn special_messages_take_their_json_form() {
    for (name, v) in [
        ("IntOrString", json!(8080)),
        ("IntOrString", json!("25%")),
        ("IntOrString", json!(-3)),
        ("Quantity", json!("1500m")),
        ("Time", json!("2026-12-03T14:00:05Z")),
        ("MicroTime", json!("2026-12-03T14:00:05.123456Z")),
        ("Duration", json!("1h2m3.5s")),
        ("Duration", json!("300ms")),
        ("RawExtension", json!({"a": [1, "x"]})),
    ] {
        let idx = u16::try_from(
            schema::MESSAGES
                .iter()
                .position(|m| m.name.ends_with(&format!(".{name}")))
                .unwrap(),
        )
        .unwrap();
        let b = message_bytes(idx, &v, 0).unwrap();
        assert_eq!(
            message_value(idx, &b, 0).unwrap(),
            Some(v.clone()),
            "{name}"
        );
    }
    assert_eq!(go_duration(90_000_000_000), "1m30s");
    assert_eq!(go_duration(1_500), "1.5µs");
    assert_eq!(parse_go_duration("1m30s"), Some(90_000_000_000));
}

#[test]
fn secret_bytes_are_base64_and_maps_of_messages_keep_their_keys() {
    let secret = core::Secret {
        metadata: Some(meta::ObjectMeta {
            name: s("s"),
            ..Default::default()
        }),
        data: [("k".to_string(), b"\x00\xffhi".to_vec())].into(),
        r#type: s("Opaque"),
        ..Default::default()
    };
    let v = decode(&body("v1", "Secret", secret.encode_to_vec())).unwrap();
    assert_eq!(v["data"], json!({"k": "AP9oaQ=="}));
    assert_eq!(v["type"], "Opaque");
    let b = encode(&v).unwrap();
    assert_eq!(decode(&b).unwrap(), v);
}

#[test]
fn every_example_and_corpus_object_of_a_served_kind_round_trips() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs = vec![root.join("examples")];
    let corpus = root.join("../shared/corpus/real");
    if corpus.is_dir() {
        dirs.push(corpus);
    }
    let mut seen = 0;
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            })
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for doc in serde_saphyr::from_multiple::<serde_json::Value>(&text).unwrap_or_default() {
                let (Some(av), Some(kind)) = (doc["apiVersion"].as_str(), doc["kind"].as_str())
                else {
                    continue;
                };
                if !has_kind(av, kind) {
                    continue;
                }
                // What Go's JSON would keep: zero values of omitempty fields are not
                // compared (a manifest may spell `hostNetwork: false`).
                let b = encode(&doc).unwrap_or_else(|e| panic!("{}: {kind}: {e}", f.display()));
                let back = decode(&b).unwrap();
                let again = encode(&back).unwrap();
                assert_eq!(decode(&again).unwrap(), back, "{}: {kind}", f.display());
                seen += 1;
            }
        }
    }
    assert!(seen > 50, "only {seen} objects");
}

#[test]
fn bad_bodies_are_errors_not_panics() {
    assert!(decode(b"{}").is_err());
    assert!(decode(b"k8s\0\x0a\xff").is_err());
    let mut b = body("apps/v1", "Deployment", vec![0x0a, 0x05, 0x01]);
    assert!(decode(&b).is_err());
    b = body("nope/v1", "Thing", vec![]);
    assert_eq!(
        decode(&b).unwrap_err().0,
        "no kind \"Thing\" is registered for version \"nope/v1\""
    );
    // Deep nesting is refused, not recursed without bound.
    let mut deep = Vec::new();
    for _ in 0..200 {
        let mut outer = vec![0x0a];
        put_varint(&mut outer, deep.len() as u64);
        outer.extend(deep);
        deep = outer;
    }
    let _ = decode(&body("v1", "Pod", deep));
    assert!(preferred(
        "application/vnd.kubernetes.protobuf,application/json"
    ));
    assert!(!preferred(
        "application/json, application/vnd.kubernetes.protobuf"
    ));
}

//! ExtendedResourceToleration over real HTTP: off by default, as upstream; when the server is
//! started with it enabled (`repel serve --enable-admission-plugins ExtendedResourceToleration`),
//! a pod asking for an extended resource is stored with the matching toleration.

use repel_core::admission::AdmissionConfig;
use repel_server::{Admission, Config};
use serde_json::{Value, json};

use crate::util;

fn gpu_pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "cuda", "image": "cuda",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})
}

fn tolerations_of(admission: AdmissionConfig) -> Vec<Value> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let running = rt
        .block_on(repel_server::start(Config {
            admission: Admission {
                config: admission,
                ..Default::default()
            },
            ..util::plain_config("127.0.0.1:0", None)
        }))
        .unwrap();
    let (code, body) = util::request(
        running.addr,
        "POST",
        "/api/v1/namespaces/default/pods",
        &[("Content-Type", "application/json")],
        &gpu_pod("trainer").to_string(),
    );
    assert_eq!(code, 201, "{body}");
    body["spec"]["tolerations"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn extended_resource_toleration_over_http() {
    let gpu = json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"});
    let off = tolerations_of(AdmissionConfig::default());
    assert!(!off.contains(&gpu), "off by default, as upstream: {off:?}");
    let on = tolerations_of(AdmissionConfig {
        extended_resource_toleration: true,
        ..Default::default()
    });
    assert_eq!(
        on.last(),
        Some(&gpu),
        "enabled: the GPU toleration is stored, after DefaultTolerationSeconds' and PodTolerationRestriction's: {on:?}"
    );
}

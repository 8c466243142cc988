//! `/version`, legacy and aggregated discovery (kubectl-wire.md §1, §5); OpenAPI is in
//! [`crate::openapi`].

use serde_json::{Value, json};

use std::sync::Arc;

use crate::registry::{ApiResource, Registry, VERBS};

/// The content type of an aggregated discovery reply.
pub const AGGREGATED_CONTENT_TYPE: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// `GET /version`. Minor 32: the dispatcher `kubectl` picks its bundled v1.32 from it.
pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "32",
        "gitVersion": "v1.32.0-repel",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.23.0",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// Whether the request's `Accept` asks for aggregated discovery at v2, the one version served.
/// A client asking for v2beta1 only (client-go 1.27–1.29: `…;v=v2beta1;as=APIGroupDiscoveryList,
/// application/json`) gets legacy discovery, which its `application/json` accepts: answered v2,
/// it would find no resources (`the server doesn't have a resource type "pod"`).
pub fn wants_aggregated(accept: &str) -> bool {
    accept.split(',').any(|media| {
        let params: Vec<&str> = media.split(';').map(str::trim).collect();
        params.contains(&"g=apidiscovery.k8s.io")
            && params.contains(&"v=v2")
            && params.contains(&"as=APIGroupDiscoveryList")
    })
}

/// `(subresource, group, version, kind, verbs)` of a resource's subresources.
fn subresources(r: &ApiResource) -> Vec<(String, String, String, String, Vec<&'static str>)> {
    let own = |s: &str| {
        (
            s.to_string(),
            r.group.clone(),
            r.version.clone(),
            r.kind.clone(),
            vec!["get", "patch", "update"],
        )
    };
    let other = |s: &str, g: &str, k: &str, verbs: Vec<&'static str>| {
        (
            s.to_string(),
            g.to_string(),
            "v1".to_string(),
            k.to_string(),
            verbs,
        )
    };
    r.subresources
        .iter()
        .map(|s| match s.as_str() {
            "eviction" => other(s, "policy", "Eviction", vec!["create"]),
            "binding" => other(s, "", "Binding", vec!["create"]),
            "scale" => other(s, "autoscaling", "Scale", vec!["get", "patch", "update"]),
            _ => own(s),
        })
        .collect()
}

/// `GET /api` (legacy).
pub fn api_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]
    })
}

/// One group's `APIGroup` body: its versions, preferred first.
fn group_entry(group: &str, versions: &[String]) -> Value {
    let gvs: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    let preferred = gvs.first().cloned().unwrap_or_else(|| json!({}));
    json!({"name": group, "versions": gvs, "preferredVersion": preferred})
}

/// `GET /apis` (legacy).
pub fn api_group_list(reg: &Registry) -> Value {
    let groups: Vec<Value> = reg
        .groups()
        .iter()
        .map(|(g, vs)| group_entry(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `GET /apis/<group>` (legacy). `None` for a group not served.
pub fn api_group(reg: &Registry, group: &str) -> Option<Value> {
    let versions = reg.versions(group);
    if group.is_empty() || versions.is_empty() {
        return None;
    }
    let mut g = group_entry(group, &versions);
    if let Some(m) = g.as_object_mut() {
        let mut out = serde_json::Map::new();
        out.insert("kind".into(), json!("APIGroup"));
        out.insert("apiVersion".into(), json!("v1"));
        out.append(m);
        return Some(Value::Object(out));
    }
    None
}

/// `GET /api/v1` or `GET /apis/<group>/<version>` (legacy). `None` for a group version not
/// served.
pub fn resource_list(reg: &Registry, group: &str, version: &str) -> Option<Value> {
    if !reg.serves(group, version) {
        return None;
    }
    let mut resources = Vec::new();
    for r in reg.in_group_version(group, version) {
        let mut e = json!({
            "name": r.name,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": VERBS,
        });
        if !r.short_names.is_empty() {
            e["shortNames"] = json!(r.short_names);
        }
        if !r.categories.is_empty() {
            e["categories"] = json!(r.categories);
        }
        resources.push(e);
        for (sub, g, v, kind, verbs) in subresources(&r) {
            let mut s = json!({
                "name": format!("{}/{sub}", r.name),
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": kind,
                "verbs": verbs,
            });
            if g != r.group {
                s["group"] = json!(g);
                s["version"] = json!(v);
            }
            resources.push(s);
        }
    }
    let gv = if group.is_empty() {
        "v1".to_string()
    } else {
        format!("{group}/{version}")
    };
    Some(
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}),
    )
}

fn aggregated_resource(r: &Arc<ApiResource>) -> Value {
    let mut e = json!({
        "resource": r.name,
        "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": r.singular,
        "verbs": VERBS,
    });
    if !r.short_names.is_empty() {
        e["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        e["categories"] = json!(r.categories);
    }
    let subs: Vec<Value> = subresources(r)
        .into_iter()
        .map(|(sub, g, v, kind, verbs)| {
            json!({"subresource": sub, "responseKind": {"group": g, "version": v, "kind": kind}, "verbs": verbs})
        })
        .collect();
    if !subs.is_empty() {
        e["subresources"] = json!(subs);
    }
    e
}

fn aggregated_group(reg: &Registry, group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| {
            let resources: Vec<Value> = reg
                .in_group_version(group, v)
                .iter()
                .map(aggregated_resource)
                .collect();
            json!({"version": v, "resources": resources, "freshness": "Current"})
        })
        .collect();
    let mut metadata = json!({"creationTimestamp": null});
    if !group.is_empty() {
        metadata["name"] = json!(group);
    }
    json!({"metadata": metadata, "versions": versions})
}

/// Aggregated discovery (`apidiscovery.k8s.io/v2`) for `/api` (`core == true`) or `/apis`.
pub fn aggregated(reg: &Registry, core: bool) -> Value {
    let items: Vec<Value> = if core {
        vec![aggregated_group(reg, "", &["v1".to_string()])]
    } else {
        reg.groups()
            .iter()
            .map(|(g, vs)| aggregated_group(reg, g, vs))
            .collect()
    };
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eviction_is_listed_as_policy_v1_under_pods() {
        let l = resource_list(&Registry::default(), "", "v1").unwrap();
        let ev = l["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "pods/eviction")
            .unwrap();
        assert_eq!(ev["group"], "policy");
        assert_eq!(ev["version"], "v1");
        assert_eq!(ev["kind"], "Eviction");
    }

    #[test]
    fn aggregated_discovery_is_served_to_a_client_asking_for_v2() {
        let cases = [
            (
                "kubectl 1.32 asks for v2, then v2beta1, then legacy",
                "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json",
                true,
            ),
            (
                "kubectl 1.27 asks for v2beta1, then legacy",
                "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json",
                false,
            ),
            ("a plain client asks for legacy", "application/json", false),
            ("no Accept", "", false),
        ];
        for (name, accept, want) in cases {
            assert_eq!(wants_aggregated(accept), want, "{name}");
        }
    }

    #[test]
    fn unknown_groups_have_no_discovery() {
        let reg = Registry::default();
        assert!(resource_list(&reg, "nope", "v1").is_none());
        assert!(resource_list(&reg, "apps", "v1").is_some());
        assert!(resource_list(&reg, "apps", "v2").is_none());
    }
}

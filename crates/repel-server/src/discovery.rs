//! `/version`, legacy and aggregated discovery, and the minimal OpenAPI v3 that kubectl's
//! create/apply field-validation probe needs (kubectl-wire.md §1, §5, §6).

use serde_json::{Value, json};

use crate::resources::{GROUPS, RESOURCES, Resource, VERBS, group_version};

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

/// Whether the request's `Accept` asks for aggregated discovery (v2 or v2beta1).
pub fn wants_aggregated(accept: &str) -> bool {
    accept.contains("as=APIGroupDiscoveryList")
}

fn in_group(group: &str) -> impl Iterator<Item = &'static Resource> + '_ {
    RESOURCES.iter().filter(move |r| r.group == group)
}

/// `(subresource, group, version, kind, verbs)` of a resource's subresources.
fn subresources(
    r: &Resource,
) -> Vec<(
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Vec<&'static str>,
)> {
    r.subresources
        .iter()
        .map(|&s| match s {
            "eviction" => (s, "policy", "v1", "Eviction", vec!["create"]),
            "binding" => (s, "", "v1", "Binding", vec!["create"]),
            "scale" => (
                s,
                "autoscaling",
                "v1",
                "Scale",
                vec!["get", "patch", "update"],
            ),
            _ => (
                s,
                r.group,
                r.version,
                r.kind,
                vec!["get", "patch", "update"],
            ),
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

/// `GET /apis` (legacy).
pub fn api_group_list() -> Value {
    let groups: Vec<Value> = GROUPS
        .iter()
        .map(|(g, v)| {
            let gv = json!({"groupVersion": format!("{g}/{v}"), "version": v});
            json!({"name": g, "versions": [gv.clone()], "preferredVersion": gv})
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `GET /api/v1` or `GET /apis/<group>/<version>` (legacy). `None` for an unknown group.
pub fn resource_list(group: &str) -> Option<Value> {
    let version = group_version(group)?;
    let mut resources = Vec::new();
    for r in in_group(group) {
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
        if r.in_all {
            e["categories"] = json!(["all"]);
        }
        resources.push(e);
        for (sub, g, v, kind, verbs) in subresources(r) {
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

fn aggregated_group(group: &str) -> Value {
    let resources: Vec<Value> = in_group(group)
        .map(|r| {
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
            if r.in_all {
                e["categories"] = json!(["all"]);
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
        })
        .collect();
    let mut metadata = json!({"creationTimestamp": null});
    if !group.is_empty() {
        metadata["name"] = json!(group);
    }
    let version = group_version(group).unwrap_or("v1");
    json!({
        "metadata": metadata,
        "versions": [{"version": version, "resources": resources, "freshness": "Current"}]
    })
}

/// Aggregated discovery (`apidiscovery.k8s.io/v2`) for `/api` (`core == true`) or `/apis`.
pub fn aggregated(core: bool) -> Value {
    let items: Vec<Value> = if core {
        vec![aggregated_group("")]
    } else {
        GROUPS.iter().map(|(g, _)| aggregated_group(g)).collect()
    };
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items
    })
}

/// `GET /openapi/v3`: one entry per group version.
pub fn openapi_index() -> Value {
    let mut paths = serde_json::Map::new();
    paths.insert(
        "api/v1".into(),
        json!({"serverRelativeURL": "/openapi/v3/api/v1?hash=0001"}),
    );
    for (g, v) in GROUPS {
        paths.insert(
            format!("apis/{g}/{v}"),
            json!({"serverRelativeURL": format!("/openapi/v3/apis/{g}/{v}?hash=0001")}),
        );
    }
    json!({"paths": paths})
}

/// `GET /openapi/v3/api/v1` or `/openapi/v3/apis/<group>/v1`: a `patch` operation per kind,
/// carrying its GVK and the `fieldValidation` parameter. No schemas: the server validates.
pub fn openapi_group(group: &str) -> Option<Value> {
    let version = group_version(group)?;
    let prefix = if group.is_empty() {
        "/api/v1".to_string()
    } else {
        format!("/apis/{group}/{version}")
    };
    let mut paths = serde_json::Map::new();
    for r in in_group(group) {
        let path = if r.namespaced {
            format!("{prefix}/namespaces/{{namespace}}/{}/{{name}}", r.name)
        } else {
            format!("{prefix}/{}/{{name}}", r.name)
        };
        let op = |action: &str| {
            json!({
                "operationId": format!("{action}{}", r.kind),
                "x-kubernetes-action": action,
                "x-kubernetes-group-version-kind": {"group": r.group, "version": r.version, "kind": r.kind},
                "parameters": [
                    {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
                    {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
                    {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": true}}
                ],
                "responses": {"200": {"description": "OK"}}
            })
        };
        paths.insert(path, json!({"patch": op("patch"), "put": op("put")}));
        let coll = if r.namespaced {
            format!("{prefix}/namespaces/{{namespace}}/{}", r.name)
        } else {
            format!("{prefix}/{}", r.name)
        };
        paths.insert(coll, json!({"post": op("post")}));
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": {}}
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eviction_is_listed_as_policy_v1_under_pods() {
        let l = resource_list("").unwrap();
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
    fn unknown_groups_have_no_discovery() {
        assert!(resource_list("nope").is_none());
        assert!(openapi_group("nope").is_none());
        assert!(resource_list("apps").is_some());
    }

    #[test]
    fn the_openapi_pod_path_carries_gvk_and_field_validation() {
        let d = openapi_group("").unwrap();
        let p = &d["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
        assert_eq!(p["x-kubernetes-group-version-kind"]["kind"], "Pod");
        assert_eq!(p["parameters"][0]["name"], "fieldValidation");
    }
}

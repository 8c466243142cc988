//! `/version`, legacy and aggregated discovery, and the minimal OpenAPI v3 that kubectl's
//! create/apply field-validation probe needs (kubectl-wire.md §1, §5, §6).

use serde_json::{Value, json};

use std::sync::Arc;

use crate::resources::{Registry, Resource, VERBS};

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

/// `(subresource, group, version, kind, verbs)` of a resource's subresources.
fn subresources(r: &Resource) -> Vec<(String, String, String, String, Vec<&'static str>)> {
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

fn aggregated_resource(r: &Arc<Resource>) -> Value {
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

/// `GET /openapi/v3`: one entry per group version.
pub fn openapi_index(reg: &Registry) -> Value {
    let mut paths = serde_json::Map::new();
    paths.insert(
        "api/v1".into(),
        json!({"serverRelativeURL": "/openapi/v3/api/v1?hash=0001"}),
    );
    for (g, vs) in reg.groups() {
        for v in vs {
            paths.insert(
                format!("apis/{g}/{v}"),
                json!({"serverRelativeURL": format!("/openapi/v3/apis/{g}/{v}?hash=0001")}),
            );
        }
    }
    json!({"paths": paths})
}

/// The content type of OpenAPI v2 in protobuf, what kubectl asks for.
pub const OPENAPI_V2_PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// `GET /openapi/v2`: a document without definitions (an empty protobuf message when kubectl
/// asks for protobuf). kubectl reads it only for a group version the v3 index lacks (a kind
/// not served, `kind: List`), finds no schema, and skips its client-side validation, so the
/// apply goes on to upstream's answer (`no matches for kind … ensure CRDs are installed
/// first`).
pub fn openapi_v2(accept: &str) -> axum::response::Response {
    if accept.contains("protobuf") {
        return crate::request::bytes_reply(200, Vec::new(), OPENAPI_V2_PROTOBUF);
    }
    crate::request::json_reply(
        200,
        &json!({"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.32.0"}, "paths": {}, "definitions": {}}),
    )
}

/// `GET /openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>`: a `patch` operation per
/// kind, carrying its GVK and the `fieldValidation` parameter. No schemas: the server
/// validates.
pub fn openapi_group(reg: &Registry, group: &str, version: &str) -> Option<Value> {
    if !reg.serves(group, version) {
        return None;
    }
    let prefix = if group.is_empty() {
        "/api/v1".to_string()
    } else {
        format!("/apis/{group}/{version}")
    };
    let mut paths = serde_json::Map::new();
    let mut schemas = serde_json::Map::new();
    for r in reg.in_group_version(group, version) {
        if let Some(c) = r.custom.as_ref().filter(|c| c.schema.is_object()) {
            // Named as kube-apiserver names a CRD's schema: the group reversed, the version,
            // the kind (`com.example.stable.v1.CronTab`).
            let reversed: Vec<&str> = r.group.split('.').rev().collect();
            let mut schema = c.schema.clone();
            schema["x-kubernetes-group-version-kind"] =
                json!([{"group": r.group, "version": r.version, "kind": r.kind}]);
            schemas.insert(
                format!("{}.{}.{}", reversed.join("."), r.version, r.kind),
                schema,
            );
        }
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
        "components": {"schemas": schemas}
    }))
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
    fn unknown_groups_have_no_discovery() {
        let reg = Registry::default();
        assert!(resource_list(&reg, "nope", "v1").is_none());
        assert!(openapi_group(&reg, "nope", "v1").is_none());
        assert!(resource_list(&reg, "apps", "v1").is_some());
        assert!(resource_list(&reg, "apps", "v2").is_none());
    }

    #[test]
    fn the_openapi_pod_path_carries_gvk_and_field_validation() {
        let d = openapi_group(&Registry::default(), "", "v1").unwrap();
        let p = &d["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
        assert_eq!(p["x-kubernetes-group-version-kind"]["kind"], "Pod");
        assert_eq!(p["parameters"][0]["name"], "fieldValidation");
    }
}

//! OpenAPI: the v3 index, one v3 document per group version with the real schema of every
//! served kind, and the same schemas as one v2 document (kubectl-wire.md §6).
//!
//! What kubectl 1.27–1.33 reads, and so what is served:
//! 1. `kubectl explain` reads `/openapi/v3`, then the document of the kind's group version,
//!    finds the schema whose `x-kubernetes-group-version-kind` names the kind, and follows its
//!    `$ref`s within `components.schemas`. The built-in kinds' schemas come from k8s-openapi
//!    ([`schemas`]), whose descriptions are upstream's field documentation; a custom resource's
//!    is its CRD's `openAPIV3Schema` with the `apiVersion`, `kind` and `metadata` properties
//!    kube-apiserver adds.
//! 2. `kubectl create`/`apply` look for the kind's `patch` operation and its `fieldValidation`
//!    parameter: found, they send `fieldValidation=Strict` (`--validate=strict`, the default)
//!    and the server validates. So the operations stay as they were. The `patch` operation
//!    carries no request body, so kubectl's client-side apply does not take its strategic
//!    merge patch metadata from these schemas but from its compiled-in types, as before.
//! 3. OpenAPI v2 carries the same schemas in Swagger 2.0's shape ([`v2`]); kubectl reads it
//!    for `kubectl explain --output=plaintext-openapiv2` and when a group version is missing
//!    from the v3 index (a kind not served, `kind: List`).

mod extensions;
pub mod schemas;
pub mod v2;

use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::registry::{ApiResource, GROUPS, Registry, builtins};

/// The content type of OpenAPI v2 in protobuf, what kubectl asks for.
pub const OPENAPI_V2_PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// `GET /openapi/v2`: every served kind's definition, in gnostic's protobuf when kubectl asks
/// for it (its `Accept` names protobuf), else as JSON. See [`v2`].
pub fn v2_reply(reg: &Registry, accept: &str) -> Response {
    if accept.contains("protobuf") {
        return crate::request::bytes_reply(200, v2::document_protobuf(reg), OPENAPI_V2_PROTOBUF);
    }
    crate::request::json_reply(200, &v2::document(reg))
}

/// `GET /openapi/v3`: one entry per group version, its URL carrying a hash of its document
/// (as kube-apiserver's does, so that a client caching by URL sees a CRD's schema change).
pub fn index(reg: &Registry) -> Value {
    let mut paths = Map::new();
    let mut gvs = vec![(String::new(), "v1".to_string())];
    for (g, vs) in reg.groups() {
        gvs.extend(vs.into_iter().map(|v| (g.clone(), v)));
    }
    for (g, v) in gvs {
        let (key, url) = if g.is_empty() {
            ("api/v1".to_string(), "/openapi/v3/api/v1".to_string())
        } else {
            (format!("apis/{g}/{v}"), format!("/openapi/v3/apis/{g}/{v}"))
        };
        let hash = document_bytes(reg, &g, &v).map_or(0, |b| {
            let mut h = std::hash::DefaultHasher::new();
            b.hash(&mut h);
            h.finish()
        });
        paths.insert(
            key,
            json!({"serverRelativeURL": format!("{url}?hash={hash:016X}")}),
        );
    }
    json!({"paths": paths})
}

/// `GET /openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>`, given the path's
/// segments. `None` for another path or a group version not served.
pub fn serve_path(reg: &Registry, segs: &[&str]) -> Option<Response> {
    match segs {
        ["openapi", "v3", "api", "v1"] => group_version(reg, "", "v1"),
        ["openapi", "v3", "apis", g, v] => group_version(reg, g, v),
        _ => None,
    }
}

/// The document of a group version as a reply. `None` for a group version not served.
pub fn group_version(reg: &Registry, group: &str, version: &str) -> Option<Response> {
    let body = document_bytes(reg, group, version)?;
    let mut r = Body::from(body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Some(r)
}

/// The document of a group version, serialized: built once for a group version of built-in
/// kinds only, built per request for one with custom resources (their CRDs change).
fn document_bytes(reg: &Registry, group: &str, version: &str) -> Option<Bytes> {
    let resources = reg.in_group_version(group, version);
    if resources.is_empty() && !(group.is_empty() && version == "v1") {
        return None;
    }
    if resources.iter().all(|r| r.custom.is_none())
        && let Some(b) = builtin_bytes(group, version)
    {
        return Some(b);
    }
    Some(Bytes::from(
        document(&resources, group, version).to_string(),
    ))
}

/// The group versions of the built-in kinds: core's, then the other groups'.
fn builtin_group_versions() -> impl Iterator<Item = (&'static str, &'static str)> {
    std::iter::once(("", "v1")).chain(GROUPS.iter().copied())
}

/// The serialized document of a built-in group version, built on first use and kept (about
/// 1.1 MB for all of them). `None` for another group version.
fn builtin_bytes(group: &str, version: &str) -> Option<Bytes> {
    static CACHE: [OnceLock<Bytes>; GROUPS.len() + 1] =
        [const { OnceLock::new() }; GROUPS.len() + 1];
    let i = builtin_group_versions().position(|(g, v)| g == group && v == version)?;
    let b = CACHE.get(i)?.get_or_init(|| {
        let resources: Vec<Arc<ApiResource>> = builtins()
            .iter()
            .filter(|r| r.group == group && r.version == version)
            .cloned()
            .collect();
        Bytes::from(document(&resources, group, version).to_string())
    });
    Some(b.clone())
}

/// The v3 document of one group version: a `patch`, `put` and `post` operation per kind, each
/// carrying its GVK and the `fieldValidation` parameter, and every kind's schema.
pub fn document(resources: &[Arc<ApiResource>], group: &str, version: &str) -> Value {
    let prefix = if group.is_empty() {
        "/api/v1".to_string()
    } else {
        format!("/apis/{group}/{version}")
    };
    let mut paths = Map::new();
    let mut schemas = schemas::builtin(group, version);
    for r in resources {
        if let Some(c) = r.custom.as_ref().filter(|c| c.schema.is_object()) {
            if !schemas.contains_key(schemas::OBJECT_META) {
                for (name, s) in schemas::object_meta() {
                    schemas.insert(name.clone(), s.clone());
                }
            }
            schemas.insert(custom_schema_name(r), custom_schema(r, &c.schema));
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
    schemas.sort_keys();
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": schemas}
    })
}

/// A CRD's schema's name as kube-apiserver gives it: the group reversed, the version, the kind
/// (`com.example.stable.v1.CronTab`).
fn custom_schema_name(r: &ApiResource) -> String {
    let reversed: Vec<&str> = r.group.split('.').rev().collect();
    format!("{}.{}.{}", reversed.join("."), r.version, r.kind)
}

/// A version's `openAPIV3Schema` as kube-apiserver publishes it: with its GVK, and with the
/// `apiVersion`, `kind` and `metadata` properties every object has, where the CRD leaves them
/// out.
fn custom_schema(r: &ApiResource, schema: &Value) -> Value {
    let mut s = schema.clone();
    if let Some(o) = s.as_object_mut() {
        let props = o
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut();
        if let Some(props) = props {
            for (name, p) in schemas::object_properties() {
                if !props.contains_key(*name) {
                    props.insert(name.to_string(), p.clone());
                }
            }
            props.sort_keys();
        }
        o.insert(
            "x-kubernetes-group-version-kind".into(),
            json!([{"group": r.group, "kind": r.kind, "version": r.version}]),
        );
    }
    s
}

#[cfg(test)]
mod tests;

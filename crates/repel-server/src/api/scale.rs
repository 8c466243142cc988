//! The scale subresource (`autoscaling/v1` Scale) of Deployments, ReplicaSets, StatefulSets,
//! ReplicationControllers and custom resources with a scale subresource.

use axum::response::Response;
use repel_api::patch::PatchType;
use repel_api::status;
use serde_json::{Value, json};

use super::body::{content_type, parse_body};
use super::{Call, WriteError, write_error};
use crate::registry::ApiResource;
use crate::request::ApiError;

/// The object's Scale.
pub fn get(c: &Call, name: &str) -> Result<Response, ApiError> {
    let (app, r) = (c.app, c.r);
    let ns = c.ns();
    let obj = app
        .store
        .get(r.key(), ns.unwrap_or(""), name)
        .ok_or_else(|| ApiError::from(status::not_found(&r.qualified(), name)))?;
    Ok(c.reply(200, &scale_for(r, &obj)))
}

/// Writes the object's replicas from a Scale (`put`) or a patch of it.
pub fn write(c: &Call, name: &str, put: bool) -> Result<Response, ApiError> {
    let (app, r, headers, body) = (c.app, c.r, c.headers, c.body);
    let ns = c.ns();
    let opts = if put {
        c.write_opts("UpdateOptions", None)?
    } else {
        c.write_opts("PatchOptions", Some(false))?
    };
    let ns = ns.unwrap_or("");
    let stored = app
        .store
        .modify_or_preview(r.key(), ns, name, opts.dry_run, |cur| {
            let scale = scale_for(r, cur);
            let new_scale = if put {
                parse_body(body)?
            } else {
                let pt = PatchType::from_content_type(content_type(headers))
                    .filter(|p| *p != PatchType::Apply)
                    .ok_or_else(|| {
                        ApiError::from(status::unsupported_media_type(
                            &repel_api::patch::PATCH_MEDIA_TYPES,
                        ))
                    })?;
                // A Scale has no lists: a strategic merge patch is a merge patch.
                let pt = if pt == PatchType::Strategic {
                    PatchType::Merge
                } else {
                    pt
                };
                repel_api::patch::apply("Scale", pt, &scale, body)
                    .map_err(|e| ApiError::from(e.status()))?
            };
            let Some(replicas) = new_scale["spec"]["replicas"].as_i64() else {
                return Err(WriteError::Api(
                    status::bad_request("spec.replicas is required").into(),
                ));
            };
            let mut new = cur.clone();
            if scale["spec"]["replicas"] != json!(replicas) {
                let generation = cur["metadata"]["generation"].as_i64().unwrap_or(1);
                new["metadata"]["generation"] = json!(generation + 1);
            }
            set_replicas(r, &mut new, replicas);
            if let Some(rv) = new_scale["metadata"]["resourceVersion"].as_str() {
                new["metadata"]["resourceVersion"] = json!(rv);
            }
            Ok(Some(new))
        })
        .map_err(|e| write_error(r, name, e))?;
    app.poke();
    Ok(c.reply(200, &scale_for(r, &stored)))
}

/// The Scale of an object of `r`: a custom resource's from its CRD's scale paths (upstream
/// `scaleFromCustomResource`: a missing replicas field is 0), else [`scale_of`].
pub fn scale_for(r: &ApiResource, obj: &Value) -> Value {
    let Some(paths) = r.custom.as_ref().and_then(|c| c.scale.as_ref()) else {
        return scale_of(obj);
    };
    let int = |p: &[String]| {
        crate::registry::value_at(obj, p)
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    let mut scale = scale_of(obj);
    scale["spec"]["replicas"] = json!(int(&paths.spec));
    scale["status"]["replicas"] = json!(int(&paths.status));
    scale["status"]["selector"] = json!(
        paths
            .selector
            .as_ref()
            .and_then(|p| crate::registry::value_at(obj, p))
            .and_then(Value::as_str)
            .unwrap_or("")
    );
    scale
}

/// Sets the replicas a Scale writes: `spec.replicas`, or a custom resource's
/// `specReplicasPath`.
pub(crate) fn set_replicas(r: &ApiResource, obj: &mut Value, replicas: i64) {
    let path: Vec<String> = match r.custom.as_ref().and_then(|c| c.scale.as_ref()) {
        Some(p) => p.spec.clone(),
        None => vec!["spec".to_string(), "replicas".to_string()],
    };
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = obj;
    for k in parents {
        if !cur[k.as_str()].is_object() {
            cur[k.as_str()] = json!({});
        }
        cur = &mut cur[k.as_str()];
    }
    cur[last.as_str()] = json!(replicas);
}

/// The `autoscaling/v1` Scale of a Deployment, ReplicaSet or StatefulSet, or of a
/// ReplicationController, whose selector is a plain label map (upstream `scaleFromRC`).
pub fn scale_of(obj: &Value) -> Value {
    let m = &obj["metadata"];
    let labels = if obj["kind"] == "ReplicationController" {
        &obj["spec"]["selector"]
    } else {
        &obj["spec"]["selector"]["matchLabels"]
    };
    let selector: Vec<String> = labels
        .as_object()
        .map(|ls| {
            ls.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": m["name"], "namespace": m["namespace"], "uid": m["uid"],
            "resourceVersion": m["resourceVersion"], "creationTimestamp": m["creationTimestamp"]
        },
        "spec": {"replicas": obj["spec"]["replicas"].as_i64().unwrap_or(1)},
        "status": {"replicas": obj["status"]["replicas"].as_i64().unwrap_or(0), "selector": selector.join(",")}
    })
}

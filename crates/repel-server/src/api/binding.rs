//! The pod subresources the scheduler and `kubectl drain` write: binding and eviction.

use axum::response::Response;
use repel_api::status;
use serde_json::{Value, json};

use super::body::parse_body;
use super::{Call, WriteError, write_error};
use crate::App;
use crate::request::{ApiError, json_reply, status_error};

/// An Eviction of the pod ([`crate::eviction`]).
pub fn evict(c: &Call, name: &str) -> Result<Response, ApiError> {
    let (app, body) = (c.app, c.body);
    let ns = c.ns().unwrap_or("");
    let opts = c.write_opts("CreateOptions", None)?;
    crate::eviction::evict(app, ns, name, body, opts.dry_run)?;
    app.poke();
    Ok(json_reply(201, &status::success(201).1))
}

/// A Binding of the pod to a node.
pub fn binding(c: &Call, name: &str) -> Result<Response, ApiError> {
    let (app, body) = (c.app, c.body);
    let ns = c.ns().unwrap_or("");
    let opts = c.write_opts("CreateOptions", None)?;
    let b = parse_body(body)?;
    let node = b["target"]["name"].as_str().unwrap_or("").to_string();
    if !opts.dry_run {
        bind(app, ns, name, &node)?;
    }
    app.poke();
    Ok(json_reply(201, &status::success(201).1))
}

/// The binding subresource: sets `spec.nodeName` of an unbound pod.
pub fn bind(app: &App, ns: &str, name: &str, node: &str) -> Result<Value, ApiError> {
    let pods = crate::registry::find("", "pods")
        .ok_or_else(|| status_error(500, "InternalError", "no pods"))?;
    app.store
        .modify(pods.key(), ns, name, |cur| {
            if let Some(n) = cur["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
                return Err(WriteError::Api(status_error(
                    409,
                    "Conflict",
                    &format!("Operation cannot be fulfilled on pods/binding \"{name}\": pod {name} is already assigned to node \"{n}\""),
                )));
            }
            let mut p = cur.clone();
            p["spec"]["nodeName"] = json!(node);
            Ok(Some(p))
        })
        .map_err(|e| write_error(&pods, name, e))
}

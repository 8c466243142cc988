//! Server-side apply (`PATCH` with `application/apply-patch+yaml`; upstream's
//! `fieldmanager`, here [`repel_api::managed`]).

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::response::Response;
use repel_api::status;
use serde_json::json;

use super::body::{apply_body, object_reply};
use super::{
    WriteError, at_version, check_name, for_storage, policy_gate, store_error,
    validating_admission, write_error,
};
use crate::App;
use crate::registry::ApiResource;
use crate::request::ApiError;
use crate::time;

/// `PATCH` with `application/apply-patch+yaml`: server-side apply ([`repel_api::managed`]).
/// The object is created when it does not exist; a conflict with another manager is upstream's
/// 409 unless `force=true`.
#[allow(clippy::too_many_arguments)]
pub fn server_side_apply(
    app: &Arc<App>,
    r: &ApiResource,
    ns: Option<&str>,
    name: &str,
    sub: Option<&str>,
    raw: &[(String, String)],
    query: &HashMap<String, String>,
    body: &Bytes,
    pb: bool,
    warnings: &mut Vec<String>,
) -> Result<Response, ApiError> {
    let opts = crate::query::write_options("PatchOptions", raw, query, Some(true))?;
    let gate = policy_gate(app, r, ns.unwrap_or(""));
    let manager = query.get("fieldManager").cloned().unwrap_or_default();
    let force = query
        .get("force")
        .is_some_and(|f| f == "true" || f == "1" || f.is_empty());
    let applied = apply_body(body)?;
    let nsv = ns.unwrap_or("");
    check_name(&applied, name, nsv)?;
    let api_version = r.api_version();
    let time = time::now_rfc3339();
    let w = repel_api::managed::Writer {
        manager: &manager,
        apply: true,
        api_version: &api_version,
        subresource: sub.unwrap_or(""),
        time: &time,
    };
    let conflict = |c: repel_api::managed::Conflicts| {
        let st = c.status(&r.qualified(), name);
        ApiError::from((409, st))
    };
    let mut lenient = query.clone();
    lenient.remove("fieldValidation");
    if app.store.get(r.key(), nsv, name).is_none() {
        if sub.is_some() {
            return Err(status::not_found(&r.qualified(), name).into());
        }
        let mut obj = applied.clone();
        if obj["metadata"]["namespace"].is_null() && r.namespaced {
            obj["metadata"]["namespace"] = json!(nsv);
        }
        let obj = repel_api::managed::apply(&r.kind, r.is_custom(), None, &obj, &w, force)
            .map_err(conflict)?;
        let managed = obj["metadata"]["managedFields"].clone();
        let mut obj = app.admission.create(&app.store, r, ns, obj, &lenient)?;
        obj["metadata"]["managedFields"] = managed;
        validating_admission(
            gate.as_ref(),
            r,
            "CREATE",
            None,
            nsv,
            Some(&obj),
            None,
            opts.dry_run,
            warnings,
        )?;
        if opts.dry_run {
            return Ok(object_reply(pb, 201, &obj));
        }
        let stored = app
            .store
            .create(r.key(), for_storage(r, obj))
            .map_err(|e| store_error(r, name, e))?;
        app.poke();
        return Ok(object_reply(pb, 201, &at_version(r, stored)));
    }
    let stored = app
        .store
        .modify_or_preview(r.key(), nsv, name, opts.dry_run, |cur| {
            let cur = &at_version(r, cur.clone());
            let merged =
                repel_api::managed::apply(&r.kind, r.is_custom(), Some(cur), &applied, &w, force)
                    .map_err(conflict)?;
            let managed = merged["metadata"]["managedFields"].clone();
            let mut admitted = app.admission.update(r, cur, merged, sub, &lenient)?;
            admitted["metadata"]["managedFields"] = managed;
            validating_admission(
                gate.as_ref(),
                r,
                "UPDATE",
                sub,
                nsv,
                Some(&admitted),
                Some(cur),
                opts.dry_run,
                warnings,
            )?;
            Ok::<_, WriteError>(Some(for_storage(r, admitted)))
        })
        .map_err(|e| write_error(r, name, e))?;
    app.poke();
    Ok(object_reply(pb, 200, &at_version(r, stored)))
}

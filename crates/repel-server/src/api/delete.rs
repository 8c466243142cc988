//! `DELETE` (`handlers/delete.go`): one object, or every object of a collection a selector
//! picks; a pod gracefully, other kinds through the garbage collector's finalizers.

use axum::response::Response;
use repel_api::status;
use serde_json::{Value, json};

use super::{Call, Selectors, at_version, policy_gate, store_error, validating_admission};
use crate::App;
use crate::registry::ApiResource;
use crate::request::{ApiError, json_reply, status_error};
use crate::store::ns_name;

/// Deletes one object.
pub fn delete_one(c: &Call, name: &str, warnings: &mut Vec<String>) -> Result<Response, ApiError> {
    let (app, r, query, body) = (c.app, c.r, c.query, c.body);
    let ns = c.ns().unwrap_or("");
    let opts = crate::query::delete_options(body, c.raw, query)?;
    if opts.dry_run {
        let obj = app
            .store
            .get(r.key(), ns, name)
            .ok_or_else(|| ApiError::from(status::not_found(&r.qualified(), name)))?;
        return Ok(c.reply(200, &at_version(r, obj)));
    }
    if let Some(cur) = app.store.get(r.key(), ns, name) {
        validating_admission(
            policy_gate(app, r, ns).as_ref(),
            r,
            "DELETE",
            None,
            ns,
            None,
            Some(&at_version(r, cur)),
            false,
            warnings,
        )?;
    }
    let gone = delete(app, r, ns, name, &opts)?;
    app.poke();
    Ok(c.reply(200, &at_version(r, gone)))
}

/// Deletes every object of the collection the selectors pick (`deletecollection`).
pub fn delete_collection(c: &Call) -> Result<Response, ApiError> {
    let (app, r, query, body) = (c.app, c.r, c.query, c.body);
    let ns = c.ns();
    let opts = crate::query::delete_options(body, c.raw, query)?;
    crate::query::list_options(c.raw, query)?;
    let sel = Selectors::parse(r, query)?;
    let (items, _) = app.store.list(r.key(), ns);
    let mut deleted = Vec::new();
    for o in items.iter().filter(|o| sel.matches(o)) {
        if opts.dry_run {
            deleted.push(at_version(r, o.clone()));
            continue;
        }
        let (ons, oname) = ns_name(o);
        if let Ok(g) = delete(app, r, &ons, &oname, &opts) {
            deleted.push(at_version(r, g));
        }
    }
    app.poke();
    let rv = app.store.resource_version().to_string();
    Ok(json_reply(
        200,
        &json!({"kind": r.list_kind(), "apiVersion": r.api_version(), "metadata": {"resourceVersion": rv}, "items": deleted}),
    ))
}

/// Deletes one object (a namespace with everything in it; a pod gracefully, see
/// [`crate::kubelet::delete_pod`]).
pub fn delete(
    app: &App,
    r: &ApiResource,
    ns: &str,
    name: &str,
    opts: &crate::query::DeleteOptions,
) -> Result<Value, ApiError> {
    if r.key() == "pods" {
        return crate::kubelet::delete_pod(&app.store, ns, name, opts.grace_period_seconds)
            .map_err(|e| store_error(r, name, e));
    }
    if r.key() == "customresourcedefinitions" {
        // Upstream's CRD finalizer deletes every custom object before the CRD goes.
        let (items, _) = app.store.list(name, None);
        for o in items {
            let (ons, oname) = ns_name(&o);
            let _ = app.store.delete(name, &ons, &oname);
        }
    }
    if r.key() == "namespaces" {
        if ["default", "kube-system", "kube-public", "kube-node-lease"].contains(&name) {
            return Err(status_error(
                403,
                "Forbidden",
                &format!("namespaces \"{name}\" is forbidden: this namespace may not be deleted"),
            ));
        }
        for res in app.registry.stored().iter().filter(|x| x.namespaced) {
            let (items, _) = app.store.list(res.key(), Some(name));
            for o in items {
                let (ons, oname) = ns_name(&o);
                let _ = app.store.delete(res.key(), &ons, &oname);
            }
        }
    }
    if matches!(r.key(), "namespaces" | "customresourcedefinitions") {
        return app
            .store
            .delete(r.key(), ns, name)
            .map_err(|e| store_error(r, name, e));
    }
    // Every other kind: with the garbage collector's finalizers (the collector, in
    // repel-engine, then orphans or deletes the dependents).
    let policy = crate::finalizers::Propagation::of(opts);
    crate::finalizers::delete(&app.store, r.key(), ns, name, policy, None)
        .map_err(|e| store_error(r, name, e))
}

//! `POST` on a collection: create (`handlers/create.go`): admission, then the
//! ValidatingAdmissionPolicies, then the store.

use axum::response::Response;

use super::body::{check_body_type, decode_body};
use super::{
    Call, at_version, for_storage, manager_of, policy_gate, store_error, track_update,
    validating_admission,
};
use crate::request::ApiError;
use crate::store::ns_name;

/// Creates the body's object.
pub fn create(c: &Call, warnings: &mut Vec<String>) -> Result<Response, ApiError> {
    let (app, r, query, headers, body) = (c.app, c.r, c.query, c.headers, c.body);
    let ns = c.ns();
    check_body_type(r, headers)?;
    let opts = c.write_opts("CreateOptions", None)?;
    let obj = decode_body(r, headers, body, query)?;
    let mut obj = app.admission.create(&app.store, r, ns, obj, query)?;
    track_update(r, None, &mut obj, &manager_of(query, headers), None);
    let ns_s = obj["metadata"]["namespace"]
        .as_str()
        .unwrap_or("")
        .to_string();
    validating_admission(
        policy_gate(app, r, &ns_s).as_ref(),
        r,
        "CREATE",
        None,
        &ns_s,
        Some(&obj),
        None,
        opts.dry_run,
        warnings,
    )?;
    if opts.dry_run {
        return Ok(c.reply(201, &obj));
    }
    let (_, name) = ns_name(&obj);
    let stored = app
        .store
        .create(r.key(), for_storage(r, obj))
        .map_err(|e| store_error(r, &name, e))?;
    app.poke();
    Ok(c.reply(201, &at_version(r, stored)))
}

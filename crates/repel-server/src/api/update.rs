//! `PUT` on an object or its status: update (`handlers/update.go`), under the store's lock.

use axum::response::Response;

use super::body::{check_body_type, decode_body};
use super::{
    Call, WriteError, at_version, check_name, for_storage, manager_of, policy_gate, track_update,
    validating_admission, write_error,
};
use crate::request::ApiError;

/// Replaces the object (or its status) with the body's.
pub fn update(c: &Call, name: &str, warnings: &mut Vec<String>) -> Result<Response, ApiError> {
    let (app, r, query, headers, body) = (c.app, c.r, c.query, c.headers, c.body);
    let ns = c.ns();
    check_body_type(r, headers)?;
    let opts = c.write_opts("UpdateOptions", None)?;
    let new = decode_body(r, headers, body, query)?;
    let manager = manager_of(query, headers);
    let sub = c.t.sub.as_deref();
    let ns = ns.unwrap_or("");
    check_name(&new, name, ns)?;
    let gate = policy_gate(app, r, ns);
    let stored = app
        .store
        .modify_or_preview(r.key(), ns, name, opts.dry_run, |cur| {
            let cur = &at_version(r, cur.clone());
            let mut admitted = app.admission.update(r, cur, new, sub, query)?;
            track_update(r, Some(cur), &mut admitted, &manager, sub);
            validating_admission(
                gate.as_ref(),
                r,
                "UPDATE",
                sub,
                ns,
                Some(&admitted),
                Some(cur),
                opts.dry_run,
                warnings,
            )?;
            Ok::<_, WriteError>(Some(for_storage(r, admitted)))
        })
        .map_err(|e| write_error(r, name, e))?;
    app.poke();
    Ok(c.reply(200, &at_version(r, stored)))
}

//! `PUT` on an object or its status: update (`handlers/update.go`), under the store's lock.

use axum::response::Response;

use super::body::{check_body_type, decode_body};
use super::{
    Call, WriteError, admit_update, at_version, check_name, manager_of, policy_gate, write_error,
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
    let ns = ns.unwrap_or("");
    check_name(&new, name, ns)?;
    let gate = policy_gate(app, r, ns);
    let stored = app
        .store
        .modify_or_preview(r.key(), ns, name, opts.dry_run, |cur| {
            let cur = &at_version(r, cur.clone());
            let stored = admit_update(
                c,
                gate.as_ref(),
                cur,
                new,
                query,
                &manager,
                opts.dry_run,
                warnings,
            )?;
            Ok::<_, WriteError>(Some(stored))
        })
        .map_err(|e| write_error(r, name, e))?;
    app.poke();
    Ok(c.reply(200, &at_version(r, stored)))
}

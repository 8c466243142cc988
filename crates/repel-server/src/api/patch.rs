//! `PATCH` on an object or its status (`handlers/patch.go`): JSON, merge and strategic merge
//! patches here; an apply patch is server-side apply ([`super::apply`]).

use axum::response::Response;
use repel_api::patch::PatchType;
use repel_api::status;

use super::apply::server_side_apply;
use super::body::{CUSTOM_PATCH_MEDIA_TYPES, content_type};
use super::{
    Call, WriteError, admit_update, at_version, check_name, manager_of, policy_gate, write_error,
};
use crate::request::ApiError;
use serde_json::Value;

/// Patches the object (or its status).
pub fn patch(c: &Call, name: &str, warnings: &mut Vec<String>) -> Result<Response, ApiError> {
    let (app, r, query, headers, body) = (c.app, c.r, c.query, c.headers, c.body);
    let ns = c.ns();
    let ct = content_type(headers);
    let pt = match PatchType::from_content_type(ct) {
        Some(PatchType::Strategic) | None if r.is_custom() => {
            return Err(status::unsupported_media_type(&CUSTOM_PATCH_MEDIA_TYPES).into());
        }
        None => {
            return Err(
                status::unsupported_media_type(&repel_api::patch::PATCH_MEDIA_TYPES).into(),
            );
        }
        Some(PatchType::Apply) => {
            return server_side_apply(
                app,
                r,
                ns,
                name,
                c.t.sub.as_deref(),
                c.raw,
                query,
                body,
                c.pb,
                warnings,
            );
        }
        Some(pt) => pt,
    };
    let manager = manager_of(query, headers);
    let opts = c.write_opts("PatchOptions", Some(false))?;
    let ns = ns.unwrap_or("");
    let gate = policy_gate(app, r, ns);
    let stored = app
        .store
        .modify_or_preview(r.key(), ns, name, opts.dry_run, |cur| {
            let cur = &at_version(r, cur.clone());
            let patched = repel_api::patch::apply(&r.kind, pt, cur, body)
                .map_err(|e| ApiError::from(e.status()))?;
            check_name(&patched, name, ns)?;
            if crate::admission::strict(query) && !r.is_custom() {
                let unknown = repel_api::strict::unknown_fields(&r.kind, &patched);
                if !unknown.is_empty() {
                    let bad = match pt {
                        PatchType::Strategic => serde_json::from_slice::<Value>(body)
                            .map(|p| repel_api::gofmt::go_value(&p))
                            .unwrap_or_default(),
                        _ => patched.to_string(),
                    };
                    return Err(ApiError::from(status::strict_patch_invalid(&bad, &unknown)).into());
                }
            }
            let mut lenient = query.clone();
            lenient.remove("fieldValidation");
            let stored = admit_update(
                c,
                gate.as_ref(),
                cur,
                patched,
                &lenient,
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

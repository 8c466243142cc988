//! `GET`: one object (`handlers/get.go`), a list (paged: [`crate::paging`]), or a watch
//! ([`crate::watch`]).

use std::collections::HashMap;

use axum::response::Response;
use repel_api::status;
use serde_json::Value;

use super::body::accept;
use super::{Call, Selectors, at_version, include_object, table};
use crate::App;
use crate::registry::ApiResource;
use crate::request::{ApiError, json_reply, wants_table};

/// A list, or a watch when the query asks for one.
pub fn list_or_watch(c: &Call) -> Result<Response, ApiError> {
    let (app, r, query, headers) = (c.app, c.r, c.query, c.headers);
    let ns = c.ns();
    let pb = c.pb;
    let opts = crate::query::list_options(c.raw, query)?;
    if opts.watch {
        return crate::watch::watch(
            app.clone(),
            c.t.resource.clone(),
            ns.map(str::to_string),
            query,
            &opts,
            wants_table(accept(headers)),
        );
    }
    list(app, r, ns, query, &opts, accept(headers), pb)
}

/// One object (its status too: the same object).
pub fn get(c: &Call, name: &str) -> Result<Response, ApiError> {
    let (app, r, query, headers) = (c.app, c.r, c.query, c.headers);
    let ns = c.ns();
    let obj = app
        .store
        .get(r.key(), ns.unwrap_or(""), name)
        .ok_or_else(|| ApiError::from(status::not_found(&r.qualified(), name)))?;
    let obj = at_version(r, obj);
    if wants_table(accept(headers)) {
        let include = include_object(query)?;
        let rv = obj["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or("")
            .to_string();
        return Ok(json_reply(200, &table(r, &[&obj], &rv, include)));
    }
    Ok(c.reply(200, &obj))
}

/// Lists `r` (JSON list or Table) honouring the selectors; paged when the client asks (`limit`, `continue`: see [`crate::paging`]).
fn list(
    app: &App,
    r: &ApiResource,
    ns: Option<&str>,
    query: &HashMap<String, String>,
    opts: &crate::query::ListOptions,
    accept: &str,
    protobuf: bool,
) -> Result<Response, ApiError> {
    let sel = Selectors::parse(r, query)?;
    let page = app.pages.list(
        &app.store,
        r.key(),
        r.namespaced,
        ns,
        opts.limit,
        opts.continue_token.as_ref(),
        !sel.is_empty(),
        |o| sel.matches(o),
    )?;
    let metadata = page.metadata();
    let plain = !wants_table(accept) && !protobuf && !r.is_custom();
    if plain {
        return Ok(crate::request::bytes_reply(
            200,
            page.json(&r.list_kind(), &r.api_version()),
            "application/json",
        ));
    }
    // Decoded for a Table or protobuf; a custom object is shown at the request's version.
    let decoded: Vec<Value> = page
        .items
        .iter()
        .map(|v| {
            let v = v.decode();
            if r.is_custom() { at_version(r, v) } else { v }
        })
        .collect();
    let refs: Vec<&Value> = decoded.iter().collect();
    if wants_table(accept) {
        let mut t = table(r, &refs, &page.rv.to_string(), include_object(query)?);
        t["metadata"] = metadata;
        return Ok(json_reply(200, &t));
    }
    if protobuf
        && let Ok(b) = crate::proto::encode_list(&r.api_version(), &r.list_kind(), &metadata, &refs)
    {
        return Ok(crate::request::bytes_reply(
            200,
            b,
            crate::proto::MEDIA_TYPE,
        ));
    }
    #[derive(serde::Serialize)]
    struct List<'a> {
        kind: String,
        #[serde(rename = "apiVersion")]
        api_version: String,
        metadata: Value,
        items: Vec<&'a Value>,
    }
    let list = List {
        kind: r.list_kind(),
        api_version: r.api_version(),
        metadata,
        items: refs,
    };
    match serde_json::to_vec(&list) {
        Ok(body) => Ok(crate::request::bytes_reply(200, body, "application/json")),
        Err(e) => Err(status::internal_error(&e.to_string()).into()),
    }
}

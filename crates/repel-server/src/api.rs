//! The REST verbs over the served resources: get, list, create, update, patch, delete, and
//! the pod subresources (binding, eviction, status). Each handler reads the request, runs the
//! write through admission under the store's lock, and answers with the stored object or an
//! upstream `Status`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, header};
use axum::response::Response;
use repel_api::patch::PatchType;
use repel_api::selector::{FieldSelector, LabelSelector};
use repel_api::status;
use serde_json::{Value, json};

use crate::App;
use crate::request::{ApiError, Target, json_reply, status_error, wants_table};
use crate::resources::Resource;
use crate::store::{StoreError, ns_name};
use crate::time;
use repel_api::table::IncludeObject;

/// The error a write closure returns: the store's, or an API error already built.
#[derive(Debug)]
pub enum WriteError {
    /// From the store (needs the resource and name to become a Status).
    Store(StoreError),
    /// A Status already.
    Api(ApiError),
}

impl From<StoreError> for WriteError {
    fn from(e: StoreError) -> Self {
        WriteError::Store(e)
    }
}

impl From<ApiError> for WriteError {
    fn from(e: ApiError) -> Self {
        WriteError::Api(e)
    }
}

/// The Status of a store error on `r`'s object `name`.
pub fn store_error(r: &Resource, name: &str, e: StoreError) -> ApiError {
    match e {
        StoreError::NotFound => status::not_found(&r.qualified(), name).into(),
        StoreError::AlreadyExists => status::already_exists(&r.qualified(), name).into(),
        StoreError::Conflict => status::conflict(&r.qualified(), name).into(),
        StoreError::Storage(m) => status::internal_error(&m).into(),
    }
}

fn write_error(r: &Resource, name: &str, e: WriteError) -> ApiError {
    match e {
        WriteError::Store(s) => store_error(r, name, s),
        WriteError::Api(a) => a,
    }
}

/// The selectors of a list or watch request.
pub struct Selectors {
    field: Option<FieldSelector>,
    label: Option<LabelSelector>,
}

impl Selectors {
    /// Parses `fieldSelector` and `labelSelector` (400 with upstream's text when malformed).
    pub fn parse(r: &Resource, query: &HashMap<String, String>) -> Result<Selectors, ApiError> {
        let field = match query.get("fieldSelector").filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(
                field_selector(r, s)
                    .map_err(|e| ApiError::from(status::bad_request(&e.to_string())))?,
            ),
        };
        let label = match query.get("labelSelector").filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(
                LabelSelector::parse(s)
                    .map_err(|e| ApiError::from(status::bad_request(&e.to_string())))?,
            ),
        };
        Ok(Selectors { field, label })
    }

    /// Whether no selector was given (upstream's `pred.Empty()`).
    pub fn is_empty(&self) -> bool {
        self.field.is_none() && self.label.is_none()
    }

    /// Whether `obj` passes both selectors.
    pub fn matches(&self, obj: &Value) -> bool {
        self.field.as_ref().is_none_or(|f| f.matches(obj))
            && self.label.as_ref().is_none_or(|l| l.matches(obj))
    }
}

/// A field selector on `r`: a custom resource selects by `metadata.name`,
/// `metadata.namespace` and its version's `selectableFields`; a built-in one by its kind's
/// fields.
fn field_selector(
    r: &Resource,
    s: &str,
) -> Result<repel_api::selector::FieldSelector, repel_api::selector::SelectorError> {
    use repel_api::selector::{FieldSelector, SelectorError};
    let Some(c) = &r.custom else {
        return repel_api::selector::parse_field_selector(&r.kind, s);
    };
    let parsed = FieldSelector::parse(s)?;
    for f in parsed.fields() {
        let known = ["metadata.name", "metadata.namespace"].contains(&f)
            || c.selectable.iter().any(|x| x == f);
        if !known {
            return Err(SelectorError::UnsupportedField(f.to_string()));
        }
    }
    Ok(parsed)
}

/// A Table of `objs` for `r`, as the list's or watch event's body (a custom resource's with
/// its CRD's printer columns), each row's `object` as `include` asks (kubectl's `--sort-by`
/// asks for whole objects).
pub fn table(r: &Resource, objs: &[&Value], rv: &str, include: IncludeObject) -> Value {
    match &r.custom {
        Some(c) => repel_api::table::custom_table(&c.columns, objs, time::now(), rv, include),
        None => repel_api::table::table(&r.kind, objs, time::now(), rv, include),
    }
}

/// The request's `includeObject` (upstream `asTable`: 400 for a value it does not know).
pub fn include_object(query: &HashMap<String, String>) -> Result<IncludeObject, ApiError> {
    IncludeObject::parse(query.get("includeObject").map_or("", String::as_str))
        .map_err(|m| ApiError::from(status::bad_request(&m)))
}

/// A custom object as `r`'s version shows it: the CRD's conversion is `None`, which changes
/// only the `apiVersion` (a built-in object is returned as it is).
pub fn at_version(r: &Resource, mut obj: Value) -> Value {
    if r.is_custom() && obj.is_object() {
        obj["apiVersion"] = json!(r.api_version());
    }
    obj
}

/// A custom object as it is stored: at the CRD's storage version.
fn for_storage(r: &Resource, mut obj: Value) -> Value {
    if let Some(c) = &r.custom
        && obj.is_object()
    {
        obj["apiVersion"] = json!(format!("{}/{}", r.group, c.storage_version));
    }
    obj
}

/// Who a write is recorded under in `managedFields`: `fieldManager`, else the user agent's
/// product (upstream `prefixFromUserAgent`).
fn manager_of(query: &HashMap<String, String>, headers: &HeaderMap) -> String {
    match query.get("fieldManager").filter(|m| !m.is_empty()) {
        Some(m) => m.clone(),
        None => repel_api::managed::manager_from_user_agent(
            headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or(""),
        ),
    }
}

/// Sets `obj`'s managedFields after a non-apply write from `old` (none: a create).
fn track_update(
    r: &Resource,
    old: Option<&Value>,
    obj: &mut Value,
    manager: &str,
    sub: Option<&str>,
) {
    let api_version = r.api_version();
    let time = time::now_rfc3339();
    let w = repel_api::managed::Writer {
        manager,
        apply: false,
        api_version: &api_version,
        subresource: sub.unwrap_or(""),
        time: &time,
    };
    let mf = repel_api::managed::after_update(&r.kind, r.is_custom(), old, obj, &w);
    if obj.is_object() {
        if mf.is_empty() {
            if let Some(m) = obj["metadata"].as_object_mut() {
                m.shift_remove("managedFields");
            }
        } else {
            obj["metadata"]["managedFields"] = Value::Array(mf);
        }
    }
}

/// The body of an apply patch: YAML (or JSON, which is YAML), one object.
fn apply_body(body: &Bytes) -> Result<Value, ApiError> {
    let bad = |e: String| ApiError::from(status::bad_request(&format!("error decoding YAML: {e}")));
    let text = std::str::from_utf8(body).map_err(|e| bad(e.to_string()))?;
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => serde_saphyr::from_str(text).map_err(|e| bad(e.to_string()))?,
    };
    if !v.is_object() {
        return Err(bad("the apply patch is not an object".into()));
    }
    Ok(v)
}

/// The media types a custom resource takes in a `PATCH` (no strategic merge patch, as
/// upstream: a custom object has no patch strategy).
const CUSTOM_PATCH_MEDIA_TYPES: [&str; 3] = [
    repel_api::patch::JSON_PATCH,
    repel_api::patch::MERGE_PATCH,
    repel_api::patch::APPLY_PATCH,
];

fn accept(headers: &HeaderMap) -> &str {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

fn content_type(headers: &HeaderMap) -> &str {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// Whether a create/update body is protobuf (what kubectl's typed clients send for
/// `kubectl create deployment` and the like).
fn is_protobuf(headers: &HeaderMap) -> bool {
    let media = content_type(headers).split(';').next().unwrap_or("").trim();
    media == crate::proto::MEDIA_TYPE
}

/// A create/update body must be JSON or, for a built-in kind, protobuf; anything else gets
/// upstream's 415.
fn check_body_type(r: &Resource, headers: &HeaderMap) -> Result<(), ApiError> {
    let ct = content_type(headers);
    let media = ct.split(';').next().unwrap_or("").trim();
    if media.is_empty() || media == "application/json" || media == "*/*" {
        return Ok(());
    }
    if media == crate::proto::MEDIA_TYPE && !r.is_custom() {
        return Ok(());
    }
    let mut accepted = vec!["application/json"];
    if !r.is_custom() {
        accepted.push(crate::proto::MEDIA_TYPE);
    }
    Err(status::unsupported_media_type(&accepted).into())
}

/// A create/update body, decoded as upstream does: under `fieldValidation=Strict`, unknown and
/// duplicate fields are a 400 listing them in document order (repel-api `check_body`). A
/// protobuf body becomes the JSON object it stands for (see [`crate::proto`]); it has no
/// unknown or duplicate fields to report.
fn decode_body(
    r: &Resource,
    headers: &HeaderMap,
    body: &Bytes,
    query: &HashMap<String, String>,
) -> Result<Value, ApiError> {
    if is_protobuf(headers) {
        return crate::proto::decode(body).map_err(|e| {
            ApiError::from(status::bad_request(&format!(
                "error decoding request body: {e}"
            )))
        });
    }
    if !crate::admission::strict(query) || r.is_custom() {
        return parse_body(body);
    }
    let (obj, errors) = repel_api::strict::check_body(&r.kind, body).map_err(|e| {
        ApiError::from(status::bad_request(&format!(
            "error decoding request body: {e}"
        )))
    })?;
    if !errors.is_empty() {
        return Err(status::strict_body_errors(&r.kind, &errors).into());
    }
    Ok(obj)
}

/// An object in reply: protobuf when the client asks for it first and the kind has a
/// message, else JSON.
fn object_reply(protobuf: bool, code: u16, obj: &Value) -> Response {
    if protobuf && let Ok(b) = crate::proto::encode(obj) {
        return crate::request::bytes_reply(code, b, crate::proto::MEDIA_TYPE);
    }
    json_reply(code, obj)
}

fn parse_body(body: &Bytes) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::from(status::bad_request(&format!(
            "error decoding request body: {e}"
        )))
    })
}

/// Dispatches a request on a resource path. A write to CustomResourceDefinitions changes
/// what is served at once.
pub async fn handle(
    app: Arc<App>,
    method: Method,
    t: Target,
    query: (HashMap<String, String>, Vec<(String, String)>),
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let crds = t.resource.key() == "customresourcedefinitions" && method != Method::GET;
    let mut warnings = Vec::new();
    let reply = handle_resource(app.clone(), method, t, query, headers, body, &mut warnings).await;
    if crds {
        app.sync_crds();
    }
    // Warnings go with the reply, a success or a failure, as upstream's warning recorder sends
    // them.
    let mut reply = match reply {
        Ok(r) => r,
        Err(e) => axum::response::IntoResponse::into_response(e),
    };
    for w in &warnings {
        if let Ok(v) = header::HeaderValue::from_str(&warning_header(w)) {
            reply.headers_mut().append(header::WARNING, v);
        }
    }
    Ok(reply)
}

/// A `Warning` header's value as kube-apiserver writes one: code 299, agent `-`, the text
/// quoted with `"` and `\` escaped.
pub fn warning_header(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("299 - \"{escaped}\"")
}

/// Runs the ValidatingAdmissionPolicies bound to something on one write ([`crate::policy`]):
/// `Err` is the denial; the warnings of `Warn` bindings join `warnings`.
#[allow(clippy::too_many_arguments)]
fn validating_admission(
    gate: Option<&crate::policy::Gate>,
    r: &Resource,
    operation: &str,
    sub: Option<&str>,
    ns: &str,
    object: Option<&Value>,
    old: Option<&Value>,
    dry_run: bool,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    let Some(gate) = gate else {
        return Ok(());
    };
    let name = object
        .or(old)
        .and_then(|o| o["metadata"]["name"].as_str())
        .unwrap_or("");
    let a = crate::policy::Attributes {
        operation,
        resource: r,
        subresource: sub.unwrap_or(""),
        namespace: if r.namespaced { ns } else { "" },
        name,
        object,
        old,
        namespace_object: &gate.namespace,
        dry_run,
    };
    gate.admit_into(&a, warnings)
}

/// The policies a write to `r` in `ns` meets (none for admission configuration itself).
fn policy_gate(app: &App, r: &Resource, ns: &str) -> Option<crate::policy::Gate> {
    if crate::policy::exempt(r) {
        return None;
    }
    crate::policy::Gate::load(&app.store, if r.namespaced { ns } else { "" })
}

async fn handle_resource(
    app: Arc<App>,
    method: Method,
    t: Target,
    (query, raw): (HashMap<String, String>, Vec<(String, String)>),
    headers: HeaderMap,
    body: Bytes,
    warnings: &mut Vec<String>,
) -> Result<Response, ApiError> {
    let r = t.resource.clone();
    let r = &*r;
    let ns = t.namespace.clone();
    let pb = crate::proto::preferred(accept(&headers)) && !r.is_custom();
    let reply = |code: u16, v: &Value| object_reply(pb, code, v);
    let write_opts =
        |kind: &str, apply: Option<bool>| crate::query::write_options(kind, &raw, &query, apply);
    match (&method, t.name.as_deref(), t.sub.as_deref()) {
        (&Method::GET, None, None) => {
            let opts = crate::query::list_options(&raw, &query)?;
            if opts.watch {
                return crate::watch::watch(
                    app,
                    t.resource.clone(),
                    ns,
                    &query,
                    &opts,
                    wants_table(accept(&headers)),
                );
            }
            list(&app, r, ns.as_deref(), &query, &opts, accept(&headers), pb)
        }
        (&Method::GET, Some(name), None | Some("status")) => {
            let obj = app
                .store
                .get(r.key(), ns.as_deref().unwrap_or(""), name)
                .ok_or_else(|| ApiError::from(status::not_found(&r.qualified(), name)))?;
            let obj = at_version(r, obj);
            if wants_table(accept(&headers)) {
                let include = include_object(&query)?;
                let rv = obj["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                return Ok(json_reply(200, &table(r, &[&obj], &rv, include)));
            }
            Ok(reply(200, &obj))
        }
        (&Method::POST, None, None) => {
            check_body_type(r, &headers)?;
            let opts = write_opts("CreateOptions", None)?;
            let obj = decode_body(r, &headers, &body, &query)?;
            let mut obj = app
                .admission
                .create(&app.store, r, ns.as_deref(), obj, &query)?;
            track_update(r, None, &mut obj, &manager_of(&query, &headers), None);
            let ns_s = obj["metadata"]["namespace"]
                .as_str()
                .unwrap_or("")
                .to_string();
            validating_admission(
                policy_gate(&app, r, &ns_s).as_ref(),
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
                return Ok(reply(201, &obj));
            }
            let (_, name) = ns_name(&obj);
            let stored = app
                .store
                .create(r.key(), for_storage(r, obj))
                .map_err(|e| store_error(r, &name, e))?;
            app.poke();
            Ok(reply(201, &at_version(r, stored)))
        }
        (&Method::PUT, Some(name), None | Some("status")) => {
            check_body_type(r, &headers)?;
            let opts = write_opts("UpdateOptions", None)?;
            let new = decode_body(r, &headers, &body, &query)?;
            let manager = manager_of(&query, &headers);
            let sub = t.sub.as_deref();
            let ns = ns.as_deref().unwrap_or("");
            check_name(&new, name, ns)?;
            let gate = policy_gate(&app, r, ns);
            let stored = app
                .store
                .modify_or_preview(r.key(), ns, name, opts.dry_run, |cur| {
                    let cur = &at_version(r, cur.clone());
                    let mut admitted = app.admission.update(r, cur, new, sub, &query)?;
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
            Ok(reply(200, &at_version(r, stored)))
        }
        (&Method::PATCH, Some(name), None | Some("status")) => {
            let ct = content_type(&headers);
            let pt = match PatchType::from_content_type(ct) {
                Some(PatchType::Strategic) | None if r.is_custom() => {
                    return Err(status::unsupported_media_type(&CUSTOM_PATCH_MEDIA_TYPES).into());
                }
                None => {
                    return Err(status::unsupported_media_type(
                        &repel_api::patch::PATCH_MEDIA_TYPES,
                    )
                    .into());
                }
                Some(PatchType::Apply) => {
                    return server_side_apply(
                        &app,
                        r,
                        ns.as_deref(),
                        name,
                        t.sub.as_deref(),
                        &raw,
                        &query,
                        &body,
                        pb,
                        warnings,
                    );
                }
                Some(pt) => pt,
            };
            let manager = manager_of(&query, &headers);
            let opts = write_opts("PatchOptions", Some(false))?;
            let sub = t.sub.as_deref();
            let ns = ns.as_deref().unwrap_or("");
            let gate = policy_gate(&app, r, ns);
            let stored = app
                .store
                .modify_or_preview(r.key(), ns, name, opts.dry_run, |cur| {
                    let cur = &at_version(r, cur.clone());
                    let patched = repel_api::patch::apply(&r.kind, pt, cur, &body)
                        .map_err(|e| ApiError::from(e.status()))?;
                    check_name(&patched, name, ns)?;
                    if crate::admission::strict(&query) && !r.is_custom() {
                        let unknown = repel_api::strict::unknown_fields(&r.kind, &patched);
                        if !unknown.is_empty() {
                            let bad = match pt {
                                PatchType::Strategic => serde_json::from_slice::<Value>(&body)
                                    .map(|p| repel_api::gofmt::go_value(&p))
                                    .unwrap_or_default(),
                                _ => patched.to_string(),
                            };
                            return Err(ApiError::from(status::strict_patch_invalid(
                                &bad, &unknown,
                            ))
                            .into());
                        }
                    }
                    let mut lenient = query.clone();
                    lenient.remove("fieldValidation");
                    let mut admitted = app.admission.update(r, cur, patched, sub, &lenient)?;
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
            Ok(reply(200, &at_version(r, stored)))
        }
        (&Method::GET, Some(name), Some("scale")) => {
            let obj = app
                .store
                .get(r.key(), ns.as_deref().unwrap_or(""), name)
                .ok_or_else(|| ApiError::from(status::not_found(&r.qualified(), name)))?;
            Ok(reply(200, &scale_for(r, &obj)))
        }
        (&Method::PATCH | &Method::PUT, Some(name), Some("scale")) => {
            let put = method == Method::PUT;
            let opts = if put {
                write_opts("UpdateOptions", None)?
            } else {
                write_opts("PatchOptions", Some(false))?
            };
            let ns = ns.as_deref().unwrap_or("");
            let stored = app
                .store
                .modify_or_preview(r.key(), ns, name, opts.dry_run, |cur| {
                    let scale = scale_for(r, cur);
                    let new_scale = if put {
                        parse_body(&body)?
                    } else {
                        let pt = PatchType::from_content_type(content_type(&headers))
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
                        repel_api::patch::apply("Scale", pt, &scale, &body)
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
            Ok(reply(200, &scale_for(r, &stored)))
        }
        (&Method::DELETE, Some(name), None) => {
            let ns = ns.as_deref().unwrap_or("");
            let opts = crate::query::delete_options(&body, &raw, &query)?;
            if opts.dry_run {
                let obj = app
                    .store
                    .get(r.key(), ns, name)
                    .ok_or_else(|| ApiError::from(status::not_found(&r.qualified(), name)))?;
                return Ok(reply(200, &at_version(r, obj)));
            }
            if let Some(cur) = app.store.get(r.key(), ns, name) {
                validating_admission(
                    policy_gate(&app, r, ns).as_ref(),
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
            let gone = delete(&app, r, ns, name, &opts)?;
            app.poke();
            Ok(reply(200, &at_version(r, gone)))
        }
        (&Method::DELETE, None, None) => {
            let opts = crate::query::delete_options(&body, &raw, &query)?;
            crate::query::list_options(&raw, &query)?;
            let sel = Selectors::parse(r, &query)?;
            let (items, _) = app.store.list(r.key(), ns.as_deref());
            let mut deleted = Vec::new();
            for o in items.iter().filter(|o| sel.matches(o)) {
                if opts.dry_run {
                    deleted.push(at_version(r, o.clone()));
                    continue;
                }
                let (ons, oname) = ns_name(o);
                if let Ok(g) = delete(&app, r, &ons, &oname, &opts) {
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
        (&Method::POST, Some(name), Some("eviction")) => {
            let ns = ns.as_deref().unwrap_or("");
            let opts = write_opts("CreateOptions", None)?;
            crate::eviction::evict(&app, ns, name, &body, opts.dry_run)?;
            app.poke();
            Ok(json_reply(201, &status::success(201).1))
        }
        (&Method::POST, Some(name), Some("binding")) => {
            let ns = ns.as_deref().unwrap_or("");
            let opts = write_opts("CreateOptions", None)?;
            let b = parse_body(&body)?;
            let node = b["target"]["name"].as_str().unwrap_or("").to_string();
            if !opts.dry_run {
                bind(&app, ns, name, &node)?;
            }
            app.poke();
            Ok(json_reply(201, &status::success(201).1))
        }
        _ => Err(status::method_not_allowed().into()),
    }
}

/// `PATCH` with `application/apply-patch+yaml`: server-side apply ([`repel_api::managed`]).
/// The object is created when it does not exist; a conflict with another manager is upstream's
/// 409 unless `force=true`.
#[allow(clippy::too_many_arguments)]
fn server_side_apply(
    app: &Arc<App>,
    r: &Resource,
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

/// Upstream `checkName` on an update or a patch: the object is not renamed or moved by it —
/// 400 `the name of the object (a) does not match the name on the URL (b)`.
fn check_name(obj: &Value, name: &str, ns: &str) -> Result<(), ApiError> {
    let obj_name = obj["metadata"]["name"].as_str().unwrap_or("");
    if obj_name != name {
        return Err(status::bad_request(&format!(
            "the name of the object ({obj_name}) does not match the name on the URL ({name})"
        ))
        .into());
    }
    let obj_ns = obj["metadata"]["namespace"].as_str().unwrap_or("");
    if !ns.is_empty() && !obj_ns.is_empty() && obj_ns != ns {
        return Err(status::bad_request(&format!(
            "the namespace of the object ({obj_ns}) does not match the namespace on the URL ({ns})"
        ))
        .into());
    }
    Ok(())
}

/// Lists `r` (JSON list or Table) honouring the selectors; paged when the client asks (`limit`, `continue`: see [`crate::paging`]).
fn list(
    app: &App,
    r: &Resource,
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

/// Deletes one object (a namespace with everything in it; a pod gracefully, see
/// [`crate::kubelet::delete_pod`]).
pub fn delete(
    app: &App,
    r: &Resource,
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
        for res in app.resources.stored().iter().filter(|x| x.namespaced) {
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

/// The binding subresource: sets `spec.nodeName` of an unbound pod.
pub fn bind(app: &App, ns: &str, name: &str, node: &str) -> Result<Value, ApiError> {
    let pods = crate::resources::find("", "pods")
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

/// The Scale of an object of `r`: a custom resource's from its CRD's scale paths (upstream
/// `scaleFromCustomResource`: a missing replicas field is 0), else [`scale_of`].
pub fn scale_for(r: &Resource, obj: &Value) -> Value {
    let Some(paths) = r.custom.as_ref().and_then(|c| c.scale.as_ref()) else {
        return scale_of(obj);
    };
    let int = |p: &[String]| {
        crate::resources::value_at(obj, p)
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
            .and_then(|p| crate::resources::value_at(obj, p))
            .and_then(Value::as_str)
            .unwrap_or("")
    );
    scale
}

/// Sets the replicas a Scale writes: `spec.replicas`, or a custom resource's
/// `specReplicasPath`.
fn set_replicas(r: &Resource, obj: &mut Value, replicas: i64) {
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

//! repel-server: a kubectl-compatible Kubernetes API server over repel's engine.
//!
//! Start with [`start`] (bind, seed, serve) and [`App`] (the shared state every request sees).
//! A request goes [`dispatch`] → discovery, or [`api::handle`] for a resource path → admission
//! ([`admission`]) → the store ([`store`]), whose every write is published to watches
//! ([`watch`]). What it answers is what kubectl (v1.32, and v1.27–v1.33) sends and needs back,
//! as the tests drive it with the real kubectl.
//!
//! # Layout
//! - [`store`]: objects as their JSON text, resourceVersion, watch history, redb durability.
//! - [`registry`]: the served resources (kinds, groups, scopes, short names), built in and
//!   defined by CustomResourceDefinitions.
//! - [`crd`]: CustomResourceDefinitions: defaults, validation, naming, what each one serves.
//! - [`defaults`]: defaulting and allocation of the kinds stored without behaviour.
//! - [`discovery`]: `/version`, legacy and aggregated discovery.
//! - [`openapi`]: OpenAPI v3 and v2 with every kind's schema.
//! - [`proto`]: protobuf request and response bodies.
//! - [`request`]: path and query parsing, the `Status` error type.
//! - [`query`]: query parameters decoded and validated per verb, as kube-apiserver does.
//! - [`api`]: the REST verbs and the binding subresource.
//! - [`eviction`]: the eviction subresource with PodDisruptionBudgets.
//! - [`admission`]: strict fields, decoding, admission plugins and validation on writes.
//! - [`policy`]: ValidatingAdmissionPolicies and their bindings enforced on writes (CEL).
//! - [`watch`]: chunked watch streams.
//! - [`driver`]: the one control plane (repel-engine's, as `repel simulate` runs it) live, on
//!   a scaled wall clock: [`view`] keeps its view of the store, [`writer`] writes its actions.
//! - [`kubelet`]: what a simulated node reports (status, Ready, Leases) and a pod's running
//!   status, rendered.
//! - [`net`]: connections: TLS, HTTP/1.1 and HTTP/2, body limit, timeouts, bearer tokens.
//! - [`time`]: timestamps as the API server writes them.
//! - [`workloads`]: apps/v1 and batch/v1 validation (selector, template, replicas, strategy).
//! - [`event_ttl`]: `--event-ttl`: Events expire.
//! - [`finalizers`]: deletion with finalizers and the garbage collector's owner references.
//! - [`karpenter`]: Karpenter's NodePool and NodeClaim CustomResourceDefinitions, installed.
//! - [`paging`]: paged lists (`limit`, `continue`).
//! - [`scenario`]: `repel serve --scenario FILE`: a scenario played live.
//! - [`ui`]: `/ui/`, `repel report`'s page of the cluster held, kept current.

pub mod admission;
pub mod api;
pub mod crd;
pub mod defaults;
pub mod discovery;
pub mod driver;
pub mod event_ttl;
pub mod eviction;
pub mod finalizers;
pub mod karpenter;
pub mod kubelet;
pub mod net;
pub mod openapi;
pub mod paging;
pub mod policy;
pub mod proto;
pub mod query;
pub mod registry;
pub mod request;
pub mod scenario;
pub mod store;
pub mod time;
pub mod ui;
pub mod view;
pub mod watch;
pub mod workloads;
pub mod writer;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, Uri, header};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use repel_api::status;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::Notify;

pub use admission::Admission;
pub use store::Store;

use request::{json_reply, json_reply_as, parse_path, status_error};

/// How `repel serve` was asked to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on (`127.0.0.1:6443`; port 0 picks one).
    pub listen: SocketAddr,
    /// Where the redb file lives; `None` keeps everything in memory.
    pub data_dir: Option<PathBuf>,
    /// The bearer token every request must carry, if any.
    pub token: Option<String>,
    /// Cluster seconds per wall-clock second for the controllers.
    pub time_scale: f64,
    /// The objects a fresh store starts with (manifests, generated or demo cluster).
    pub seed: Vec<Value>,
    /// The admission chain's configuration.
    pub admission: Admission,
    /// Where the serving certificate comes from (none: plain HTTP, loopback only).
    pub tls: net::TlsSource,
    /// How long a request may take before its 504 (kube-apiserver's `--request-timeout`).
    pub request_timeout: Duration,
    /// A scenario to play live (`--scenario`): its cluster is the seed, and its simulation
    /// drives the cluster until its end ([`scenario`]).
    pub scenario: Option<scenario::ScenarioSetup>,
    /// How long an Event lives after its last write, in cluster time (kube-apiserver's
    /// `--event-ttl`, 1 h by default; [`event_ttl`]).
    pub event_ttl: Duration,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Listening on a non-loopback address needs a token.
    #[error(
        "refusing to listen on {0} without --token: only loopback addresses may be served without authentication"
    )]
    NeedsToken(SocketAddr),
    /// Listening on a non-loopback address needs TLS.
    #[error(
        "refusing to listen on {0} without TLS: only loopback addresses may be served over plain HTTP"
    )]
    NeedsTls(SocketAddr),
    /// An empty token would authenticate nothing.
    #[error("--token must not be empty")]
    EmptyToken,
    /// The TLS configuration could not be built.
    #[error("{0}")]
    Tls(#[from] net::TlsError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        source: std::io::Error,
    },
    /// The data directory could not be opened.
    #[error("cannot open the data directory: {0}")]
    Store(#[from] store::StoreError),
    /// A seed object was refused.
    #[error("cannot load {object}: {message}")]
    Seed {
        /// `Kind/namespace/name`.
        object: String,
        /// The API server's message.
        message: String,
    },
}

/// The state every request shares.
pub struct App {
    /// The object store.
    pub store: Arc<Store>,
    /// Admission and validation.
    pub admission: Admission,
    /// The bearer token required, if any.
    pub token: Option<String>,
    /// The address clients reach the server at (for discovery's serverAddress).
    pub address: String,
    /// Woken after every API write so the control plane reacts at once.
    pub wake: Notify,
    /// Serialises evictions: a budget's check and the deletion happen as one step.
    pub evictions: std::sync::Mutex<()>,
    /// How long a request may take before its 504.
    pub request_timeout: Duration,
    /// The snapshots of paged lists in progress.
    pub pages: paging::Pages,
    /// The resources CustomResourceDefinitions define.
    pub registry: registry::Registry,
    /// Whether a `--scenario` is still playing.
    pub scenario_playing: std::sync::atomic::AtomicBool,
    /// The store's resourceVersion when the `--scenario` ended (0 before): what the scenario
    /// left, before the server's own driver went on.
    pub scenario_end_rv: std::sync::atomic::AtomicU64,
    /// What a `--scenario` has played so far, as the report's timeline (`/ui/` draws it).
    pub scenario_timeline: std::sync::Mutex<Option<Arc<scenario::PlayedTimeline>>>,
    /// `/ui/`'s last model, with the store and timeline versions it was computed at.
    pub ui_model: std::sync::Mutex<Option<ui::Cached>>,
}

impl App {
    /// Tells the control plane that something changed.
    pub fn poke(&self) {
        self.wake.notify_one();
    }

    /// Serves what the stored CustomResourceDefinitions define (after every CRD write, and
    /// at start), once the naming and establishing controllers wrote their status
    /// ([`crd::name_and_establish`]).
    pub fn sync_crds(&self) {
        let key = "customresourcedefinitions";
        let _one_at_a_time = self.registry.syncing();
        let (crds, _) = self.store.list(key, None);
        let now = time::now_rfc3339();
        for (i, crd) in crds.iter().enumerate() {
            let others: Vec<&serde_json::Value> = crds
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, c)| c)
                .collect();
            let mut named = crd.clone();
            crd::name_and_establish(&mut named, &others, &now);
            if named["status"] != crd["status"] {
                let (_, name) = store::ns_name(crd);
                let _ = self.store.modify(key, "", &name, |cur| {
                    let mut next = cur.clone();
                    next["status"] = named["status"].clone();
                    Ok::<_, store::StoreError>(Some(next))
                });
            }
        }
        let (crds, _) = self.store.list(key, None);
        self.registry.set_crds(&crds);
    }
}

/// A running server.
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// The shared state.
    pub app: Arc<App>,
    /// The serving task.
    pub task: tokio::task::JoinHandle<()>,
    /// The control plane's task (the driver, or a scenario's then the driver); it ends only
    /// when the control plane could not start.
    pub control: tokio::task::JoinHandle<()>,
    /// Objects of the starting cluster the API server refused (`Kind/ns/name: message`).
    pub warnings: Vec<String>,
    /// Whether it serves HTTPS.
    pub https: bool,
    /// The CA certificate (PEM) of a generated serving certificate.
    pub ca_pem: Option<String>,
}

impl Running {
    /// The URL clients reach it at.
    pub fn url(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }
}

/// Binds, opens the store, seeds a fresh store, and serves in a background task.
pub async fn start(cfg: Config) -> Result<Running, ServerError> {
    if cfg.token.as_deref() == Some("") {
        return Err(ServerError::EmptyToken);
    }
    if !net::is_loopback(cfg.listen.ip()) {
        if cfg.token.is_none() {
            return Err(ServerError::NeedsToken(cfg.listen));
        }
        if cfg.tls == net::TlsSource::None {
            return Err(ServerError::NeedsTls(cfg.listen));
        }
    }
    let ttl = event_ttl::wall_ttl(cfg.event_ttl, cfg.time_scale);
    let store = match &cfg.data_dir {
        Some(d) => {
            let s = Store::open(d)?;
            s.purge_expired_events(time::now(), ttl)?;
            s
        }
        None => Store::in_memory(),
    };
    let listener = TcpListener::bind(cfg.listen)
        .await
        .map_err(|source| ServerError::Bind {
            addr: cfg.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| ServerError::Bind {
        addr: cfg.listen,
        source,
    })?;
    let app = Arc::new(App {
        store: Arc::new(store),
        admission: cfg.admission.clone(),
        token: cfg.token.clone(),
        address: addr.to_string(),
        wake: Notify::new(),
        evictions: std::sync::Mutex::new(()),
        request_timeout: cfg.request_timeout,
        pages: paging::Pages::default(),
        registry: registry::Registry::default(),
        scenario_playing: std::sync::atomic::AtomicBool::new(false),
        scenario_end_rv: std::sync::atomic::AtomicU64::new(0),
        scenario_timeline: std::sync::Mutex::new(None),
        ui_model: std::sync::Mutex::new(None),
    });
    app.sync_crds();
    let tls = net::tls(&cfg.tls, addr)?;
    let seed = match &cfg.scenario {
        Some(s) => scenario::seed_objects(&s.input),
        None => cfg.seed.clone(),
    };
    let warnings = if app.store.is_empty() {
        karpenter::install(&app);
        kubelet::seed(&app, &seed)?
    } else {
        Vec::new()
    };
    let control = match cfg.scenario.clone() {
        Some(s) => {
            let d = scenario::ScenarioDriver::new(app.clone(), cfg.time_scale, s);
            tokio::spawn(d.run())
        }
        None => {
            // The view is built on the blocking pool after the API is up: a restart on a large
            // store answers as soon as the store is open, while the control plane reads it.
            let (app, scale) = (app.clone(), cfg.time_scale);
            tokio::spawn(async move {
                match tokio::task::spawn_blocking(move || driver::Driver::new(app, scale)).await {
                    Ok(d) => d.run().await,
                    // A build that panicked (a bug): the task ends, and `repel serve` with it.
                    Err(e) => eprintln!("repel serve: the control plane could not start: {e}"),
                }
            })
        }
    };
    tokio::spawn(event_ttl::run(app.store.clone(), ttl));
    let router = router(app.clone());
    let https = tls.is_some();
    let ca_pem = tls.as_ref().and_then(|t| t.ca_pem.clone());
    let acceptor = tls.map(|t| t.acceptor);
    let task = tokio::spawn(net::serve(listener, router, acceptor));
    Ok(Running {
        control,
        addr,
        app,
        task,
        warnings,
        https,
        ca_pem,
    })
}

/// The HTTP router: everything goes through [`dispatch`].
pub fn router(app: Arc<App>) -> Router {
    Router::new().fallback(dispatch).with_state(app)
}

fn authorized(app: &App, headers: &HeaderMap) -> bool {
    let Some(token) = &app.token else {
        return true;
    };
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(net::bearer_token)
        .is_some_and(|given| constant_time_eq(given.as_bytes(), token.as_bytes()))
}

/// Compares without stopping at the first difference (the time taken says nothing about how
/// much of a guessed token was right).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Reads a request body up to [`net::MAX_REQUEST_BODY_BYTES`]: a declared or actual size over
/// it is upstream's 413 (`limitedReadBody`).
async fn read_body(headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    let limit = net::MAX_REQUEST_BODY_BYTES;
    let too_large = || {
        let (code, body) = status::request_entity_too_large(limit);
        json_reply(code, &body)
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match http_body_util::Limited::new(body, limit).collect().await {
        Ok(c) => Ok(c.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(e) => {
            let (code, body) = status::bad_request(&format!("error reading request body: {e}"));
            Err(json_reply(code, &body))
        }
    }
}

/// Every request: authentication, the body (bounded), then [`route`] — all within the request
/// timeout, whose expiry is upstream's 504. A watch's stream is returned before that and is
/// not bounded by it.
pub async fn dispatch(State(app): State<Arc<App>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    if !authorized(&app, &parts.headers) {
        let (code, body) = status::unauthorized();
        let mut reply = json_reply(code, &body);
        let extra_space = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .is_some_and(net::extra_space_before_token);
        if extra_space
            && let Ok(v) = header::HeaderValue::from_str(&format!(
                "299 - \"{}\"",
                net::INVALID_TOKEN_WITH_SPACE_WARNING
            ))
        {
            reply.headers_mut().insert(header::WARNING, v);
        }
        return reply;
    }
    let timeout = app.request_timeout;
    let work = async move {
        let body = match read_body(&parts.headers, body).await {
            Ok(b) => b,
            Err(r) => return r,
        };
        route(app, parts.method, parts.uri, parts.headers, body).await
    };
    match tokio::time::timeout(timeout, work).await {
        Ok(r) => r,
        Err(_) => {
            let (code, body) = status::request_timeout();
            json_reply(code, &body)
        }
    }
}

/// Discovery, OpenAPI, or a resource path.
pub async fn route(
    app: Arc<App>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().trim_end_matches('/');
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let get = method == Method::GET;
    match path {
        "/version" if get => return json_reply(200, &discovery::version()),
        "/healthz" | "/livez" | "/readyz" if get => return "ok".into_response(),
        "/ui" if get => return ui::page(app).await,
        "/ui/model.json" if get => return ui::model_json(app).await,
        "/api" if get => {
            if discovery::wants_aggregated(accept) {
                return json_reply_as(
                    200,
                    &discovery::aggregated(&app.registry, true),
                    discovery::AGGREGATED_CONTENT_TYPE,
                );
            }
            return json_reply(200, &discovery::api_versions(&app.address));
        }
        "/apis" if get => {
            if discovery::wants_aggregated(accept) {
                return json_reply_as(
                    200,
                    &discovery::aggregated(&app.registry, false),
                    discovery::AGGREGATED_CONTENT_TYPE,
                );
            }
            return json_reply(200, &discovery::api_group_list(&app.registry));
        }
        "/openapi/v3" if get => return json_reply(200, &openapi::index(&app.registry)),
        "/openapi/v2" if get => return openapi::v2_reply(&app.registry, accept),
        _ => {}
    }
    let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if get {
        let reg = &app.registry;
        if let Some(r) = openapi::serve_path(reg, &segs) {
            return r;
        }
        let found = match segs.as_slice() {
            ["api", "v1"] => discovery::resource_list(reg, "", "v1"),
            ["apis", g] => discovery::api_group(reg, g),
            ["apis", g, v] => discovery::resource_list(reg, g, v),
            _ => None,
        };
        if let Some(v) = found {
            return json_reply(200, &v);
        }
    }
    let not_found = || {
        status_error(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
        .into_response()
    };
    let Some(target) = parse_path(&app.registry, path) else {
        return not_found();
    };
    let raw = request::parse_query_pairs(uri.query());
    let query = raw.iter().cloned().collect();
    match api::handle(app, method, target, (query, raw), headers, body).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

/// A kubeconfig for a client of this server: one cluster, context and user named `repel`,
/// namespace `default`, the token when there is one.
pub fn kubeconfig(url: &str, token: Option<&str>, ca_pem: Option<&str>) -> String {
    use base64::Engine;
    let user = match token {
        Some(t) => format!("{{token: {}}}", serde_json::Value::String(t.to_string())),
        None => "{}".to_string(),
    };
    let ca = ca_pem
        .map(|p| {
            format!(
                "    certificate-authority-data: {}\n",
                base64::engine::general_purpose::STANDARD.encode(p)
            )
        })
        .unwrap_or_default();
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: repel\n  cluster:\n{ca}    server: {url}\ncontexts:\n- name: repel\n  context:\n    cluster: repel\n    user: repel\n    namespace: default\ncurrent-context: repel\nusers:\n- name: repel\n  user: {user}\npreferences: {{}}\n"
    )
}

#[cfg(test)]
mod layout_tests {
    #[test]
    fn every_public_module_is_in_the_crate_layout() {
        assert_eq!(
            repel_core::doc_layout::unlisted_modules(include_str!("lib.rs")),
            Vec::<String>::new()
        );
    }
}

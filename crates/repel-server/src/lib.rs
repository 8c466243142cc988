//! repel-server: a kubectl-compatible Kubernetes API server over repel's engine.
//!
//! Start with [`start`] (bind, seed, serve) and [`App`] (the shared state every request sees).
//! A request goes [`dispatch`] → discovery, or [`api::handle`] for a resource path → admission
//! ([`admission`]) → the store ([`store`]), whose every write is published to watches
//! ([`watch`]). `../shared/reference/kubectl-wire.md` is the spec: what kubectl v1.32 sends and
//! what it needs back.
//!
//! # Layout
//! - [`store`]: objects as JSON, resourceVersion, watch history, redb durability.
//! - [`resources`]: the served resources (kinds, groups, scopes, short names).
//! - [`discovery`]: `/version`, legacy and aggregated discovery, OpenAPI v3.
//! - [`request`]: path and query parsing, the `Status` error type.
//! - [`api`]: the REST verbs and the binding subresource.
//! - [`eviction`]: the eviction subresource with PodDisruptionBudgets.
//! - [`admission`]: strict fields, decoding, admission plugins and validation on writes.
//! - [`watch`]: chunked watch streams.
//! - [`engine`]: the control plane live: kubelets, node lifecycle, workloads, scheduler,
//!   taint eviction, on a scaled wall clock.
//! - [`kubelet`]: what a simulated node reports (status, Ready).
//! - [`time`]: timestamps as the API server writes them.

pub mod admission;
pub mod api;
pub mod discovery;
pub mod engine;
pub mod eviction;
pub mod kubelet;
pub mod request;
pub mod resources;
pub mod store;
pub mod time;
pub mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri, header};
use axum::response::{IntoResponse, Response};
use repel_api::status;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::Notify;

pub use admission::Admission;
pub use store::Store;

use request::{json_reply, json_reply_as, parse_path, parse_query, status_error};

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
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Listening on a non-loopback address needs a token.
    #[error(
        "refusing to listen on {0} without --token: only loopback addresses may be served without authentication"
    )]
    NeedsToken(SocketAddr),
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
    /// Woken after every API write so the engine reacts at once.
    pub wake: Notify,
    /// Serialises evictions: a budget's check and the deletion happen as one step.
    pub evictions: std::sync::Mutex<()>,
}

impl App {
    /// Tells the engine that something changed.
    pub fn poke(&self) {
        self.wake.notify_one();
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
    /// Objects of the starting cluster the API server refused (`Kind/ns/name: message`).
    pub warnings: Vec<String>,
}

/// Binds, opens the store, seeds a fresh store, and serves in a background task.
pub async fn start(cfg: Config) -> Result<Running, ServerError> {
    if !cfg.listen.ip().is_loopback() && cfg.token.is_none() {
        return Err(ServerError::NeedsToken(cfg.listen));
    }
    let store = match &cfg.data_dir {
        Some(d) => Store::open(d)?,
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
    });
    let warnings = if app.store.is_empty() {
        kubelet::seed(&app, &cfg.seed)?
    } else {
        Vec::new()
    };
    tokio::spawn(engine::Engine::new(app.clone(), cfg.time_scale).run());
    let router = router(app.clone());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Ok(Running {
        addr,
        app,
        task,
        warnings,
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
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| given.trim() == token)
}

/// Every request: authentication, then discovery, OpenAPI, or a resource path.
pub async fn dispatch(
    State(app): State<Arc<App>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !authorized(&app, &headers) {
        let (code, body) = status::unauthorized();
        return json_reply(code, &body);
    }
    let path = uri.path().trim_end_matches('/');
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let get = method == Method::GET;
    match path {
        "/version" if get => return json_reply(200, &discovery::version()),
        "/healthz" | "/livez" | "/readyz" if get => return "ok".into_response(),
        "/api" if get => {
            if discovery::wants_aggregated(accept) {
                return json_reply_as(
                    200,
                    &discovery::aggregated(true),
                    discovery::AGGREGATED_CONTENT_TYPE,
                );
            }
            return json_reply(200, &discovery::api_versions(&app.address));
        }
        "/apis" if get => {
            if discovery::wants_aggregated(accept) {
                return json_reply_as(
                    200,
                    &discovery::aggregated(false),
                    discovery::AGGREGATED_CONTENT_TYPE,
                );
            }
            return json_reply(200, &discovery::api_group_list());
        }
        "/openapi/v3" if get => return json_reply(200, &discovery::openapi_index()),
        _ => {}
    }
    let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if get {
        let found = match segs.as_slice() {
            ["api", "v1"] => discovery::resource_list(""),
            ["apis", g, "v1"] => discovery::resource_list(g),
            ["openapi", "v3", "api", "v1"] => discovery::openapi_group(""),
            ["openapi", "v3", "apis", g, "v1"] => discovery::openapi_group(g),
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
    let Some(target) = parse_path(path) else {
        return not_found();
    };
    let query = parse_query(uri.query());
    match api::handle(app, method, target, query, headers, body).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

/// A kubeconfig for a client of this server: one cluster, context and user named `repel`,
/// namespace `default`, the token when there is one.
pub fn kubeconfig(addr: SocketAddr, token: Option<&str>) -> String {
    let user = match token {
        Some(t) => format!("{{token: {}}}", serde_json::Value::String(t.to_string())),
        None => "{}".to_string(),
    };
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: repel\n  cluster:\n    server: http://{addr}\ncontexts:\n- name: repel\n  context:\n    cluster: repel\n    user: repel\n    namespace: default\ncurrent-context: repel\nusers:\n- name: repel\n  user: {user}\npreferences: {{}}\n"
    )
}

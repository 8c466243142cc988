//! A live cluster, read once and read-only, through a kubeconfig (kube-rs): the objects repel
//! uses, as the manifests `repel snapshot` writes and every read-only command reads.
//!
//! # Which kubeconfig, which context
//! kubectl's precedence: `--kubeconfig FILE`, else `$KUBECONFIG` (its files merged, the first
//! file's value winning), else `~/.kube/config`; `--context NAME`, else the file's
//! `current-context`. Authentication is kube-rs's: tokens, client certificates, exec plugins
//! (`aws eks get-token`, `gke-gcloud-auth-plugin`, …), over TLS (rustls) or plain HTTP.
//! Decision: a command reads a cluster only when `--kubeconfig` or `--context` is given, so a
//! `KUBECONFIG` in the environment never turns a read of files into a read of a cluster.
//!
//! # What is read
//! [`KINDS`], in that order, concurrently: namespaces, PriorityClasses, nodes,
//! PodDisruptionBudgets, the workload kinds, pods, and Karpenter's NodePools and NodeClaims
//! when the API serves them. Lists are paged as kubectl pages them (client-go's pager: `limit`
//! 500 and `continue`; a continue token the server reports expired (410) is answered by one
//! list without `limit`, as the pager's `FullListIfExpired`). A kind the user may not list
//! (403) or the server does not serve (404) is a warning naming the kind, the verb and what
//! cannot be judged without it (Karpenter's kinds: silently absent when not served).
//!
//! # What is kept
//! [`strip`]: the objects as they would be written by hand, plus what repel reads of their
//! status. Metadata loses `managedFields`, `resourceVersion`, `generation`, `selfLink` and
//! kubectl's `last-applied-configuration` annotation (it keeps `uid`, owner references,
//! creation and deletion timestamps). A node's status loses its volumes, `daemonEndpoints`
//! and `nodeInfo` (its `images` stay: the scheduler's ImageLocality reads them); a pod's
//! status keeps `phase`, `conditions`, `reason`, `message`, `nominatedNodeName`, `qosClass`
//! and `startTime`. Every command reads exactly
//! these stripped objects, whether from the cluster or from its snapshot, in the same order,
//! so both give the same answer.

use std::collections::HashSet;
use std::fmt;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use http_body_util::BodyExt;
use kube::Client;
use kube::config::KubeConfigOptions;
use kube::core::Status;
use kube::core::params::ListParams;
use serde::Deserialize;
use serde_json::Value;

use std::borrow::Cow;

use crate::input::tree::Tree;
use crate::input::{Inventory, Loaded, Source};

/// Objects per page, as kubectl's (client-go's pager's default page size).
pub const PAGE_SIZE: u32 = 500;

/// A kind repel reads from a cluster.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// The resource and its group, as RBAC and kubectl name it (`poddisruptionbudgets.policy`).
    pub resource: &'static str,
    /// The list's path.
    pub path: &'static str,
    /// The items' `apiVersion` (lists leave it out of their items).
    pub api_version: &'static str,
    /// The items' `kind`.
    pub kind: &'static str,
    /// The snapshot's file for it.
    pub file: &'static str,
    /// Karpenter's: absent without a word when the API does not serve it.
    pub optional: bool,
    /// What cannot be judged without it, for the warning when it cannot be read.
    pub without: &'static str,
}

/// The kinds read, in the order their objects are added (and the snapshot's files are named).
pub const KINDS: &[Kind] = &[
    Kind {
        resource: "namespaces",
        path: "/api/v1/namespaces",
        api_version: "v1",
        kind: "Namespace",
        file: "01-namespaces.yaml",
        optional: false,
        without: "namespace labels (namespace selectors of affinity and spread) are taken as empty",
    },
    Kind {
        resource: "priorityclasses.scheduling.k8s.io",
        path: "/apis/scheduling.k8s.io/v1/priorityclasses",
        api_version: "scheduling.k8s.io/v1",
        kind: "PriorityClass",
        file: "02-priorityclasses.yaml",
        optional: false,
        without: "pods' priorities come only from their spec.priority",
    },
    Kind {
        resource: "nodes",
        path: "/api/v1/nodes",
        api_version: "v1",
        kind: "Node",
        file: "03-nodes.yaml",
        optional: false,
        without: "no node can be judged",
    },
    Kind {
        resource: "poddisruptionbudgets.policy",
        path: "/apis/policy/v1/poddisruptionbudgets",
        api_version: "policy/v1",
        kind: "PodDisruptionBudget",
        file: "04-poddisruptionbudgets.yaml",
        optional: false,
        without: "evictions and drains are judged as if no PodDisruptionBudget existed",
    },
    Kind {
        resource: "deployments.apps",
        path: "/apis/apps/v1/deployments",
        api_version: "apps/v1",
        kind: "Deployment",
        file: "05-deployments.yaml",
        optional: false,
        without: "pods owned by Deployments are judged without them (not replicated, not recreated)",
    },
    Kind {
        resource: "replicasets.apps",
        path: "/apis/apps/v1/replicasets",
        api_version: "apps/v1",
        kind: "ReplicaSet",
        file: "06-replicasets.yaml",
        optional: false,
        without: "pods owned by ReplicaSets are judged without them (not replicated, not recreated)",
    },
    Kind {
        resource: "statefulsets.apps",
        path: "/apis/apps/v1/statefulsets",
        api_version: "apps/v1",
        kind: "StatefulSet",
        file: "07-statefulsets.yaml",
        optional: false,
        without: "pods owned by StatefulSets are judged without them (not replicated, not recreated)",
    },
    Kind {
        resource: "daemonsets.apps",
        path: "/apis/apps/v1/daemonsets",
        api_version: "apps/v1",
        kind: "DaemonSet",
        file: "08-daemonsets.yaml",
        optional: false,
        without: "DaemonSet pods are judged without their DaemonSet (drains do not skip them; new nodes get none)",
    },
    Kind {
        resource: "jobs.batch",
        path: "/apis/batch/v1/jobs",
        api_version: "batch/v1",
        kind: "Job",
        file: "09-jobs.yaml",
        optional: false,
        without: "pods owned by Jobs are judged without them",
    },
    Kind {
        resource: "cronjobs.batch",
        path: "/apis/batch/v1/cronjobs",
        api_version: "batch/v1",
        kind: "CronJob",
        file: "10-cronjobs.yaml",
        optional: false,
        without: "CronJobs' next runs are not judged",
    },
    Kind {
        resource: "replicationcontrollers",
        path: "/api/v1/replicationcontrollers",
        api_version: "v1",
        kind: "ReplicationController",
        file: "11-replicationcontrollers.yaml",
        optional: false,
        without: "pods owned by ReplicationControllers are judged without them (not replicated, not recreated)",
    },
    Kind {
        resource: "pods",
        path: "/api/v1/pods",
        api_version: "v1",
        kind: "Pod",
        file: "12-pods.yaml",
        optional: false,
        without: "no pod can be judged: workloads stand for the pods they would create",
    },
    Kind {
        resource: "nodepools.karpenter.sh",
        path: "/apis/karpenter.sh/v1/nodepools",
        api_version: "karpenter.sh/v1",
        kind: "NodePool",
        file: "13-nodepools.yaml",
        optional: true,
        without: "Karpenter's NodePools are not judged",
    },
    Kind {
        resource: "nodeclaims.karpenter.sh",
        path: "/apis/karpenter.sh/v1/nodeclaims",
        api_version: "karpenter.sh/v1",
        kind: "NodeClaim",
        file: "14-nodeclaims.yaml",
        optional: true,
        without: "Karpenter's NodeClaims are not judged",
    },
];

/// Where to read a cluster: `--kubeconfig` and `--context`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// `--kubeconfig FILE` (else `$KUBECONFIG`, else `~/.kube/config`).
    pub kubeconfig: Option<PathBuf>,
    /// `--context NAME` (else the kubeconfig's current context).
    pub context: Option<String>,
    /// `--in-cluster`: the pod's service account ([`crate::kubeconfig::in_cluster`]).
    pub in_cluster: bool,
}

/// A cluster that could not be read. The messages are kubectl's where kubectl has one, each
/// line whole (kubectl's `error: ` prefix included where kubectl prints it).
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The kubeconfig file is missing (`error: stat FILE: no such file or directory`).
    #[error("error: stat {0}: no such file or directory")]
    NoKubeconfig(String),
    /// `--context` names no context of the kubeconfig.
    #[error("Error in configuration: context was not found for specified context: {0}")]
    NoContext(String),
    /// The kubeconfig could not be used (kube-rs's words).
    #[error("error: {0}")]
    Config(String),
    /// The server refused the connection.
    #[error(
        "The connection to the server {0} was refused - did you specify the right host or port?"
    )]
    Refused(String),
    /// Any other failure to reach the server.
    #[error("Unable to connect to the server: {0}")]
    Connect(String),
    /// The credentials were refused (401).
    #[error("error: You must be logged in to the server (Unauthorized)")]
    Unauthorized,
    /// The server answered a list with an error that is not about the kind (5xx, …).
    #[error("Error from server ({reason}): {message}")]
    Server {
        /// Its `Status` reason.
        reason: String,
        /// Its `Status` message.
        message: String,
    },
    /// A list's body was not a list.
    #[error("error: {resource}: the server's list could not be read: {message}")]
    Decode {
        /// The resource.
        resource: &'static str,
        /// serde_json's words.
        message: String,
    },
    /// The async runtime could not start.
    #[error("error: cannot start the client: {0}")]
    Runtime(String),
}

/// A cluster read: its objects by kind ([`KINDS`]' order), stripped, and what could not be read.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// The context read (for [`Source`]s and messages).
    pub context: String,
    /// The server's address.
    pub server: String,
    /// Each kind's objects, with `apiVersion` and `kind` set, stripped; by index in [`KINDS`].
    /// Held as compact JSON text, each decoded when it is added ([`add_to`]): 150,000 pods
    /// held decoded as JSON values took ten times their text (3.3 GB at the peak of a drain
    /// what-if on a live cluster, against 1.5 GB for the same cluster read from files).
    pub objects: Vec<Vec<Box<str>>>,
    /// Warnings: kinds that could not be read, and why, and what that leaves unjudged.
    pub warnings: Vec<String>,
}

impl Snapshot {
    /// How many objects it holds.
    pub fn len(&self) -> usize {
        self.objects.iter().map(Vec::len).sum()
    }

    /// Whether it holds no object.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where a live object came from: `cluster CONTEXT: pods: document N`.
    pub fn source(&self, kind: &Kind, i: usize) -> Source {
        Source {
            file: format!("cluster {}: {}", self.context, kind.resource).into(),
            doc: i + 1,
            item: None,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.resource)
    }
}

/// Reads the cluster `target` names: every kind of [`KINDS`], concurrently, paged; a progress
/// line on stderr when it is a terminal.
pub fn read(target: &Target) -> Result<Snapshot, LiveError> {
    let listing = read_pages(target, decode_text)?;
    Ok(Snapshot {
        context: listing.context,
        server: listing.server,
        objects: listing
            .kinds
            .into_iter()
            .map(|pages| pages.into_iter().flatten().collect())
            .collect(),
        warnings: listing.warnings,
    })
}

/// Reads the cluster as [`read`] does, each page written as YAML documents as soon as it
/// arrives (`repel snapshot`: no object is held longer than its page).
pub fn read_yaml(target: &Target) -> Result<Listing<YamlPage>, LiveError> {
    read_pages(target, decode_yaml)
}

/// What a page becomes once read (on a blocking thread), and how many objects it held.
type Decode<T> = fn(&'static Kind, &[u8]) -> Result<(usize, T), ListError>;

/// A cluster read page by page: each kind's pages in order, by index in [`KINDS`].
#[derive(Debug, Default)]
pub struct Listing<T> {
    /// The context read.
    pub context: String,
    /// The server's address.
    pub server: String,
    /// Each kind's pages, decoded.
    pub kinds: Vec<Vec<T>>,
    /// Kinds that could not be read, and why, and what that leaves unjudged.
    pub warnings: Vec<String>,
}

fn read_pages<T: Send + 'static>(
    target: &Target,
    decode: Decode<T>,
) -> Result<Listing<T>, LiveError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| LiveError::Runtime(e.to_string()))?;
    runtime.block_on(read_async(target, decode))
}

async fn read_async<T: Send + 'static>(
    target: &Target,
    decode: Decode<T>,
) -> Result<Listing<T>, LiveError> {
    let (kc, context) = crate::kubeconfig::resolve(target)?;
    let options = KubeConfigOptions {
        context: Some(context.clone()).filter(|c| !c.is_empty()),
        cluster: None,
        user: None,
    };
    let config = kube::Config::from_custom_kubeconfig(kc, &options)
        .await
        .map_err(|e| LiveError::Config(e.to_string()))?;
    let server = config.cluster_url.to_string();
    let host = config
        .cluster_url
        .authority()
        .map_or_else(|| server.clone(), ToString::to_string);
    let client = Client::try_from(config).map_err(|e| LiveError::Config(e.to_string()))?;
    let progress = Progress::new(&context);
    let mut tasks = tokio::task::JoinSet::new();
    for (i, kind) in KINDS.iter().enumerate() {
        let client = client.clone();
        let progress = progress.clone();
        tasks.spawn(async move { (i, list_all(&client, kind, &progress, decode).await) });
    }
    let mut results: Vec<Option<Result<Vec<T>, ListError>>> =
        (0..KINDS.len()).map(|_| None).collect();
    while let Some(joined) = tasks.join_next().await {
        let (i, result) = joined.map_err(|e| LiveError::Runtime(e.to_string()))?;
        if let Some(slot) = results.get_mut(i) {
            *slot = Some(result);
        }
    }
    progress.finish();
    let mut snapshot = Listing {
        context,
        server,
        kinds: Vec::new(),
        warnings: Vec::new(),
    };
    for (kind, result) in KINDS.iter().zip(results) {
        let objects = match result {
            Some(Ok(items)) => items,
            Some(Err(ListError::Api(status))) => {
                let code = status.code;
                match code {
                    401 => return Err(LiveError::Unauthorized),
                    403 => snapshot.warnings.push(format!(
                        "cannot list {kind}: {}; {}",
                        status.message, kind.without
                    )),
                    404 if kind.optional => {}
                    404 => snapshot.warnings.push(format!(
                        "cannot list {kind}: the server does not serve it ({} is not found); {}",
                        kind.path, kind.without
                    )),
                    _ => {
                        return Err(LiveError::Server {
                            reason: status.reason.clone(),
                            message: status.message.clone(),
                        });
                    }
                }
                Vec::new()
            }
            Some(Err(ListError::Transport(e))) => return Err(connect_error(&host, &e)),
            Some(Err(ListError::Decode(message))) => {
                return Err(LiveError::Decode {
                    resource: kind.resource,
                    message,
                });
            }
            None => Vec::new(),
        };
        snapshot.kinds.push(objects);
    }
    Ok(snapshot)
}

/// kubectl's words for a connection that failed.
fn connect_error(host: &str, e: &kube::Error) -> LiveError {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    if text.contains("Connection refused") || text.contains("connection refused") {
        LiveError::Refused(host.to_string())
    } else {
        LiveError::Connect(text)
    }
}

/// Why one kind's list failed.
#[derive(Debug)]
enum ListError {
    /// The server answered with a `Status`.
    Api(Box<Status>),
    /// The server could not be reached.
    Transport(kube::Error),
    /// The body was not a list.
    Decode(String),
}

/// A list page's items.
#[derive(Deserialize)]
struct Page<'a> {
    #[serde(default, borrow)]
    items: Vec<Tree<'a>>,
}

/// A list page's metadata alone (its items skipped unread).
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    metadata: PageMeta,
}

#[derive(Deserialize, Default)]
struct PageMeta {
    #[serde(default, rename = "continue")]
    continue_token: Option<String>,
}

/// Every page of `kind`'s list, each decoded by `decode` on a blocking thread while the next
/// page is fetched (only its continue token is read before the next request).
async fn list_all<T: Send + 'static>(
    client: &Client,
    kind: &'static Kind,
    progress: &Progress,
    decode: Decode<T>,
) -> Result<Vec<T>, ListError> {
    let mut pages = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut params = ListParams::default().limit(PAGE_SIZE);
        if let Some(t) = &token {
            params = params.continue_token(t);
        }
        let body = match get_body(client, kind, &params).await {
            Ok(body) => body,
            // client-go's pager: a continue token that expired (410) while the list was read
            // falls back to one full list.
            Err(ListError::Api(s)) if s.code == 410 && token.is_some() => {
                let body = get_body(client, kind, &ListParams::default()).await?;
                let (n, page) = decode(kind, &body)?;
                progress.add(n);
                return Ok(vec![page]);
            }
            Err(e) => return Err(e),
        };
        let next = serde_json::from_slice::<Head>(&body)
            .map_err(|e| ListError::Decode(e.to_string()))?
            .metadata
            .continue_token
            .filter(|t| !t.is_empty());
        let progress = progress.clone();
        pages.push(tokio::task::spawn_blocking(move || {
            let page = decode(kind, &body);
            if let Ok((n, _)) = &page {
                progress.add(*n);
            }
            page
        }));
        match next {
            // A server that hands back the token it was given would be read forever.
            Some(t) if token.as_deref() == Some(t.as_str()) => {
                return Err(ListError::Decode(format!(
                    "the server answered continue={t:?} with the same continue token"
                )));
            }
            Some(t) => token = Some(t),
            None => break,
        }
    }
    let mut out = Vec::with_capacity(pages.len());
    for page in pages {
        let (_, page) = page.await.map_err(|e| ListError::Decode(e.to_string()))??;
        out.push(page);
    }
    Ok(out)
}

/// A page's items ([`finish_item`]ed) as compact JSON text, for the commands.
fn decode_text(kind: &'static Kind, body: &[u8]) -> Result<(usize, Vec<Box<str>>), ListError> {
    let items = page_items(kind, body)?;
    let texts = items
        .iter()
        .map(|t| {
            serde_json::to_string(t)
                .map(String::into_boxed_str)
                .map_err(|e| ListError::Decode(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((texts.len(), texts))
}

/// A page's items ([`finish_item`]ed) as YAML documents, for `repel snapshot`.
fn decode_yaml(kind: &'static Kind, body: &[u8]) -> Result<(usize, YamlPage), ListError> {
    let items = page_items(kind, body)?;
    Ok((items.len(), YamlPage::of(&items)))
}

fn page_items<'a>(kind: &Kind, body: &'a [u8]) -> Result<Vec<Tree<'a>>, ListError> {
    let page =
        serde_json::from_slice::<Page>(body).map_err(|e| ListError::Decode(e.to_string()))?;
    Ok(page
        .items
        .into_iter()
        .map(|item| finish_item(kind, item))
        .collect())
}

/// An item of a list as a manifest: `apiVersion` and `kind` first (lists leave them out of
/// their items), then [`strip`]ped.
fn finish_item<'a>(kind: &Kind, mut item: Tree<'a>) -> Tree<'a> {
    if let Some(m) = item.entries_mut() {
        m.retain(|(k, _)| k != "apiVersion" && k != "kind");
        m.splice(
            0..0,
            [
                (
                    Cow::Borrowed("apiVersion"),
                    Tree::Str(Cow::Borrowed(kind.api_version)),
                ),
                (Cow::Borrowed("kind"), Tree::Str(Cow::Borrowed(kind.kind))),
            ],
        );
    }
    strip(kind.kind, &mut item);
    item
}

/// A page's objects as YAML documents (each `---` and the object), and where each starts.
#[derive(Debug, Default)]
pub struct YamlPage {
    /// The documents, one after another.
    pub text: String,
    /// The byte offset of each document's `---`.
    pub starts: Vec<usize>,
}

impl YamlPage {
    /// `objects` written as documents ([`crate::input::yaml::emit`]).
    pub fn of(objects: &[Tree]) -> YamlPage {
        let mut page = YamlPage {
            text: String::with_capacity(objects.len() * 1024),
            starts: Vec::with_capacity(objects.len()),
        };
        for o in objects {
            page.starts.push(page.text.len());
            page.text.push_str("---\n");
            crate::input::yaml::emit::document(o, &mut page.text);
        }
        page
    }

    /// The text of documents `from..to`.
    fn documents(&self, from: usize, to: usize) -> &str {
        let start = self.starts.get(from).copied().unwrap_or(self.text.len());
        let end = self.starts.get(to).copied().unwrap_or(self.text.len());
        self.text.get(start..end).unwrap_or("")
    }
}

/// One page of a list, its body as sent.
async fn get_body(
    client: &Client,
    kind: &Kind,
    params: &ListParams,
) -> Result<bytes::Bytes, ListError> {
    let request = kube::core::Request::new(kind.path)
        .list(params)
        .map_err(|e| ListError::Decode(e.to_string()))?;
    let response = client
        .send(request.map(kube::client::Body::from))
        .await
        .map_err(ListError::Transport)?;
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(ListError::Transport)?
        .to_bytes();
    if status.is_client_error() || status.is_server_error() {
        let parsed = serde_json::from_slice::<Status>(&body).ok();
        let mut s = parsed.unwrap_or_else(|| Status {
            message: String::from_utf8_lossy(&body).trim().to_string(),
            ..Status::default()
        });
        s.code = status.as_u16();
        if s.reason.is_empty() {
            s.reason = status.canonical_reason().unwrap_or_default().to_string();
        }
        return Err(ListError::Api(Box::new(s)));
    }
    Ok(body)
}

/// Metadata noise: what the API server adds and no manifest holds.
const METADATA_NOISE: &[&str] = &["managedFields", "resourceVersion", "generation", "selfLink"];

/// kubectl's record of the last applied manifest: a copy of the object, noise here.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// A node's status fields repel does not read (large and changing). Its `images` are read
/// (ImageLocality scores the nodes holding a pod's images) and kept.
const NODE_STATUS_NOISE: &[&str] = &[
    "volumesInUse",
    "volumesAttached",
    "daemonEndpoints",
    "nodeInfo",
    "config",
    "runtimeHandlers",
    "features",
];

/// A pod's status fields repel reads; the rest (container statuses, IPs) is dropped.
const POD_STATUS_KEPT: &[&str] = &[
    "phase",
    "conditions",
    "reason",
    "message",
    "nominatedNodeName",
    "qosClass",
    "startTime",
];

/// Drops what the API server adds and repel does not read (see the module's docs).
pub fn strip(kind: &str, obj: &mut Tree) {
    if let Some(meta) = obj.get_mut("metadata") {
        if let Some(m) = meta.entries_mut() {
            m.retain(|(k, _)| !METADATA_NOISE.contains(&k.as_ref()));
        }
        let empty = match meta.get_mut("annotations") {
            Some(a) => {
                a.remove(LAST_APPLIED);
                matches!(a, Tree::Map(m) if m.is_empty())
            }
            None => false,
        };
        if empty {
            meta.remove("annotations");
        }
    }
    let status = obj.get_mut("status").and_then(Tree::entries_mut);
    match (kind, status) {
        ("Node", Some(status)) => status.retain(|(k, _)| !NODE_STATUS_NOISE.contains(&k.as_ref())),
        ("Pod", Some(status)) => status.retain(|(k, _)| POD_STATUS_KEPT.contains(&k.as_ref())),
        _ => {}
    }
}

/// The live objects added to `inv` in [`KINDS`]' order, except those `files` defines (the
/// files are a what-if on top of the cluster: their version replaces the cluster's).
pub fn add_to(
    snapshot: &Snapshot,
    inv: &mut Inventory,
    files: &HashSet<String>,
) -> Result<(), crate::input::InputError> {
    for (kind, objects) in KINDS.iter().zip(&snapshot.objects) {
        for (i, text) in objects.iter().enumerate() {
            // Text this process wrote from a decoded page: it decodes.
            let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            if !files.is_empty() && files.contains(&object_id(&v)) {
                continue;
            }
            inv.add(snapshot.source(kind, i), &v)?;
        }
    }
    Ok(())
}

/// `files` on top of `live`: the files' objects after the cluster's (their `seq` shifted),
/// their warnings and strict reports kept (`files` must be [`Inventory::finish`]ed).
pub fn layer(mut live: Inventory, mut files: Inventory) -> Inventory {
    let offset = live.nodes.len()
        + live.pods.len()
        + live.workloads.len()
        + live.namespaces.len()
        + live.pdbs.len()
        + live.priority_classes.len();
    fn shift<T>(to: &mut Vec<Loaded<T>>, from: &mut Vec<Loaded<T>>, offset: usize) {
        for l in from.iter_mut() {
            l.seq += offset;
        }
        to.append(from);
    }
    shift(&mut live.nodes, &mut files.nodes, offset);
    shift(&mut live.pods, &mut files.pods, offset);
    shift(&mut live.workloads, &mut files.workloads, offset);
    shift(&mut live.namespaces, &mut files.namespaces, offset);
    shift(&mut live.pdbs, &mut files.pdbs, offset);
    shift(
        &mut live.priority_classes,
        &mut files.priority_classes,
        offset,
    );
    shift(&mut live.node_pools, &mut files.node_pools, offset);
    shift(&mut live.node_claims, &mut files.node_claims, offset);
    live.warnings.append(&mut files.warnings);
    live.strict.append(&mut files.strict);
    live
}

/// The [`object_id`]s of the objects read from files (nodes, pods, namespaces, budgets,
/// PriorityClasses, workloads; node pools and NodeClaims by name).
pub fn file_ids(inv: &Inventory) -> HashSet<String> {
    use repel_core::workload::namespace_of;
    let mut ids = HashSet::new();
    let name = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
        m.name.clone().unwrap_or_default()
    };
    for n in &inv.nodes {
        ids.insert(format!("Node {}", name(&n.obj.metadata)));
    }
    for n in &inv.namespaces {
        ids.insert(format!("Namespace {}", name(&n.obj.metadata)));
    }
    for c in &inv.priority_classes {
        ids.insert(format!("PriorityClass {}", name(&c.obj.metadata)));
    }
    for p in &inv.pods {
        let m = &p.obj.metadata;
        ids.insert(format!("Pod {}/{}", namespace_of(m), name(m)));
    }
    for b in &inv.pdbs {
        let m = &b.obj.metadata;
        ids.insert(format!(
            "PodDisruptionBudget {}/{}",
            namespace_of(m),
            name(m)
        ));
    }
    for w in &inv.workloads {
        ids.insert(format!(
            "{} {}/{}",
            w.obj.kind(),
            w.obj.namespace(),
            w.obj.name()
        ));
    }
    for p in inv.node_pools.iter().chain(&inv.node_claims) {
        ids.insert(object_id(&p.obj));
    }
    ids
}

/// `Kind namespace/name` (`Kind name` when cluster-scoped) of a raw object.
pub fn object_id(v: &Value) -> String {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default();
    let name = v
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match v.pointer("/metadata/namespace").and_then(Value::as_str) {
        Some(ns) if !ns.is_empty() && !cluster_scoped(kind) => format!("{kind} {ns}/{name}"),
        _ if cluster_scoped(kind) => format!("{kind} {name}"),
        _ => format!("{kind} default/{name}"),
    }
}

fn cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "Node" | "Namespace" | "PriorityClass" | "NodePool" | "NodeClaim"
    )
}

/// Objects per snapshot file: a kind with more is written in parts (`12-pods-0001.yaml`, …),
/// each well under the most repel reads of one file ([`crate::input::MAX_INPUT_BYTES`]) even
/// for pods ten times the size of a typical one.
pub const OBJECTS_PER_FILE: usize = 10_000;

/// The snapshot written as manifests into `dir`: one multi-document YAML file per kind read,
/// in parts of [`OBJECTS_PER_FILE`], named so that a directory read takes them in [`KINDS`]'
/// order; returns the files written and their objects. Files of an earlier snapshot for these
/// kinds are removed first, so none is read with this one.
pub fn write_snapshot(
    listing: &Listing<YamlPage>,
    dir: &Path,
) -> Result<Vec<(PathBuf, usize)>, String> {
    use std::io::Write as _;
    let io = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let path = entry.map_err(|e| io(dir, e))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if KINDS.iter().any(|k| snapshot_file_of(k, name))
            || FORMER_FILES.iter().any(|f| file_or_part(f, name))
        {
            std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
        }
    }
    let mut written = Vec::new();
    for (kind, pages) in KINDS.iter().zip(&listing.kinds) {
        let total: usize = pages.iter().map(|p| p.starts.len()).sum();
        let parts = total.div_ceil(OBJECTS_PER_FILE);
        let path_of = |n: usize| {
            if parts == 1 {
                dir.join(kind.file)
            } else {
                let stem = kind.file.trim_end_matches(".yaml");
                dir.join(format!("{stem}-{n:04}.yaml"))
            }
        };
        // The pages' documents in order, cut into files of OBJECTS_PER_FILE.
        let mut file: Option<(PathBuf, std::fs::File, usize)> = None;
        let mut part = 0;
        for page in pages {
            let mut at = 0;
            while at < page.starts.len() {
                let (path, f, n) = match &mut file {
                    Some(open) => open,
                    None => {
                        part += 1;
                        let path = path_of(part);
                        let f = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
                        file.insert((path, f, 0))
                    }
                };
                let take = (OBJECTS_PER_FILE - *n).min(page.starts.len() - at);
                f.write_all(page.documents(at, at + take).as_bytes())
                    .map_err(|e| io(path, e))?;
                *n += take;
                at += take;
                if *n == OBJECTS_PER_FILE
                    && let Some((path, _, n)) = file.take()
                {
                    written.push((path, n));
                }
            }
        }
        if let Some((path, _, n)) = file.take() {
            written.push((path, n));
        }
    }
    Ok(written)
}

/// Whether `name` is a file [`write_snapshot`] writes for `kind`.
fn snapshot_file_of(kind: &Kind, name: &str) -> bool {
    file_or_part(kind.file, name)
}

/// The files earlier repel versions wrote before ReplicationControllers were read (pods were
/// `11-`, pools `12-` and `13-`): removed too, so a snapshot taken again over an old one does
/// not read its pods twice.
const FORMER_FILES: &[&str] = &["11-pods.yaml", "12-nodepools.yaml", "13-nodeclaims.yaml"];

/// Whether `name` is `file` or one of its parts (`STEM-0001.yaml`).
fn file_or_part(file: &str, name: &str) -> bool {
    let stem = file.trim_end_matches(".yaml");
    name == file
        || name
            .strip_prefix(stem)
            .and_then(|r| r.strip_prefix('-'))
            .and_then(|r| r.strip_suffix(".yaml"))
            .is_some_and(|n| n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The progress line: objects read so far, on stderr when it is a terminal.
#[derive(Clone)]
struct Progress(indicatif::ProgressBar);

impl Progress {
    fn new(context: &str) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_message(format!("reading cluster {context}"));
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{spinner} {msg}: {pos} objects ({elapsed})",
            ) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        } else {
            indicatif::ProgressBar::hidden()
        };
        Progress(bar)
    }

    fn add(&self, n: usize) {
        self.0.inc(n as u64);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strip_drops_server_noise_and_keeps_what_repel_reads() {
        let mut pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "a", "uid": "u1", "resourceVersion": "7",
                "generation": 2, "managedFields": [{"manager": "kubectl"}],
                "annotations": {LAST_APPLIED: "{}"},
                "ownerReferences": [{"kind": "ReplicaSet", "name": "r", "uid": "u0", "controller": true, "apiVersion": "apps/v1"}]},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Pending", "podIP": "10.0.0.1", "containerStatuses": [],
                "conditions": [{"type": "PodScheduled", "status": "False", "message": "0/1 nodes are available"}]}
        });
        let strip = |kind: &str, v: &mut Value| {
            let mut t = Tree::from_value(v);
            strip(kind, &mut t);
            *v = t.into_value();
        };
        strip("Pod", &mut pod);
        assert_eq!(
            pod,
            json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p", "namespace": "a", "uid": "u1",
                    "ownerReferences": [{"kind": "ReplicaSet", "name": "r", "uid": "u0", "controller": true, "apiVersion": "apps/v1"}]},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
                "status": {"phase": "Pending",
                    "conditions": [{"type": "PodScheduled", "status": "False", "message": "0/1 nodes are available"}]}
            })
        );
        let mut node = json!({"kind": "Node", "metadata": {"name": "n", "annotations": {"a": "b"}},
            "status": {"images": [{"names": ["x"], "sizeBytes": 5}], "allocatable": {"cpu": "4"},
                "nodeInfo": {}, "volumesInUse": ["v"]}});
        strip("Node", &mut node);
        assert_eq!(
            node,
            json!({"kind": "Node", "metadata": {"name": "n", "annotations": {"a": "b"}},
                "status": {"images": [{"names": ["x"], "sizeBytes": 5}], "allocatable": {"cpu": "4"}}}),
            "a node's images are kept: ImageLocality reads them"
        );
    }

    #[test]
    fn object_ids_name_kind_namespace_and_name() {
        assert_eq!(
            object_id(&json!({"kind": "Pod", "metadata": {"name": "p"}})),
            "Pod default/p"
        );
        assert_eq!(
            object_id(&json!({"kind": "Deployment", "metadata": {"name": "d", "namespace": "x"}})),
            "Deployment x/d"
        );
        assert_eq!(
            object_id(&json!({"kind": "Node", "metadata": {"name": "n", "namespace": "x"}})),
            "Node n"
        );
    }

    #[test]
    fn a_large_kind_is_written_in_parts_and_stale_files_go() {
        let dir = tempfile::tempdir().unwrap();
        for stale in [
            "12-pods.yaml",
            "12-pods-0009.yaml",
            "03-nodes.yaml",
            "11-pods.yaml",
            "12-pods-0002.yaml",
            "13-nodeclaims.yaml",
        ] {
            std::fs::write(dir.path().join(stale), "---\n").unwrap();
        }
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let pods: Vec<Value> = (0..OBJECTS_PER_FILE * 2 + 1)
            .map(|i| json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("p{i}")}}))
            .collect();
        let trees: Vec<Tree> = pods.iter().map(Tree::from_value).collect();
        let mut kinds: Vec<Vec<YamlPage>> = KINDS.iter().map(|_| Vec::new()).collect();
        let pods_at = KINDS.iter().position(|k| k.kind == "Pod").unwrap();
        // Pages of 7 objects: files are cut inside pages.
        kinds[pods_at] = trees.chunks(7).map(YamlPage::of).collect();
        let nodes_at = KINDS.iter().position(|k| k.kind == "Node").unwrap();
        let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}});
        kinds[nodes_at] = vec![YamlPage::of(&[Tree::from_value(&node)])];
        let snapshot = Listing {
            kinds,
            ..Listing::default()
        };
        let written = write_snapshot(&snapshot, dir.path()).unwrap();
        let names: Vec<(String, usize)> = written
            .iter()
            .map(|(p, n)| (p.file_name().unwrap().to_string_lossy().to_string(), *n))
            .collect();
        assert_eq!(
            names,
            [
                ("03-nodes.yaml".to_string(), 1),
                ("12-pods-0001.yaml".to_string(), OBJECTS_PER_FILE),
                ("12-pods-0002.yaml".to_string(), OBJECTS_PER_FILE),
                ("12-pods-0003.yaml".to_string(), 1)
            ]
        );
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "03-nodes.yaml",
                "12-pods-0001.yaml",
                "12-pods-0002.yaml",
                "12-pods-0003.yaml",
                "notes.txt"
            ]
        );
        // Every pod once, in order, across the parts.
        let mut names = Vec::new();
        for part in 1..=3 {
            let text = std::fs::read_to_string(dir.path().join(format!("12-pods-{part:04}.yaml")))
                .unwrap();
            names.extend(
                text.lines()
                    .filter_map(|l| l.strip_prefix("  name: "))
                    .map(str::to_string),
            );
        }
        let want: Vec<String> = (0..OBJECTS_PER_FILE * 2 + 1)
            .map(|i| format!("p{i}"))
            .collect();
        assert_eq!(names, want);
        let last = std::fs::read_to_string(dir.path().join("12-pods-0003.yaml")).unwrap();
        assert_eq!(
            last,
            format!(
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{}\n",
                OBJECTS_PER_FILE * 2
            )
        );
    }

    #[test]
    fn kinds_are_read_in_the_order_of_their_files() {
        let files: Vec<&str> = KINDS.iter().map(|k| k.file).collect();
        let mut sorted = files.clone();
        sorted.sort_unstable();
        assert_eq!(files, sorted);
    }
}

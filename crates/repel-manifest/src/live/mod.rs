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

mod kinds;
mod layer;
mod list;
mod snapshot;
mod strip;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::PathBuf;

use crate::Source;

pub use kinds::{KINDS, Kind, PAGE_SIZE};
pub use layer::{add_to, file_ids, layer, object_id};
pub use list::{Listing, YamlPage, read, read_yaml};
pub use snapshot::{OBJECTS_PER_FILE, write_snapshot};
pub use strip::strip;

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
        resource: String,
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
            file: format!("cluster {}: {}", self.context, kind.resource()).into(),
            doc: i + 1,
            item: None,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.resource())
    }
}

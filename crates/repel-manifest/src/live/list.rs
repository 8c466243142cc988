//! A cluster's lists read page by page, every kind at once: client-go's pager
//! (`k8s.io/client-go/tools/pager/pager.go`: `limit` and `continue`, one full list when a
//! continue token expires), over kube-rs's client with the kubeconfig kubectl would pick; each
//! page decoded on a blocking thread while the next is fetched.

use std::borrow::Cow;
use std::io::IsTerminal;
use std::time::Duration;

use http_body_util::BodyExt;
use kube::Client;
use kube::config::KubeConfigOptions;
use kube::core::Status;
use kube::core::params::ListParams;
use serde::Deserialize;

use super::{KINDS, Kind, LiveError, PAGE_SIZE, Snapshot, Target, strip};
use crate::tree::Tree;

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
                        kind.path(),
                        kind.without
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
                    resource: kind.resource(),
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
                    Tree::Str(Cow::Borrowed(kind.api_version())),
                ),
                (Cow::Borrowed("kind"), Tree::Str(Cow::Borrowed(kind.kind()))),
            ],
        );
    }
    strip(kind.kind(), &mut item);
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
    /// `objects` written as documents ([`crate::yaml::emit`]).
    pub fn of(objects: &[Tree]) -> YamlPage {
        let mut page = YamlPage {
            text: String::with_capacity(objects.len() * 1024),
            starts: Vec::with_capacity(objects.len()),
        };
        for o in objects {
            page.starts.push(page.text.len());
            page.text.push_str("---\n");
            crate::yaml::emit::document(o, &mut page.text);
        }
        page
    }

    /// The text of documents `from..to`.
    pub(super) fn documents(&self, from: usize, to: usize) -> &str {
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
    let request = kube::core::Request::new(kind.path())
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

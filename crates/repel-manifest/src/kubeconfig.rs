//! Which cluster a live read reaches, chosen as client-go chooses it (kubectl's order).
//!
//! # The kubeconfig (client-go `tools/clientcmd/loader.go`, `ClientConfigLoadingRules`)
//! 1. `--kubeconfig FILE`: that file alone; it must exist (`error: stat FILE: no such file or
//!    directory`) and nothing is merged into it (`Example_noMergingOnExplicitPaths`).
//! 2. else `$KUBECONFIG`: its files (`:`-separated, repeated ones dropped, `deduplicate`) merged
//!    in order, the first file to set a value or a map key winning (`current-context`
//!    included); a listed file that does not exist is skipped (`TestToleratingMissingFiles`),
//!    one that cannot be read or parsed is an error naming it.
//! 3. else `~/.kube/config`, when it exists.
//!
//! Relative paths in a file (certificate authorities, client certificates and keys, token
//! files, exec commands with a separator) are resolved against that file's directory, by
//! kube-rs's reader.
//!
//! # In a pod (`--in-cluster`; client-go `rest/config.go`, `InClusterConfig`)
//! The API server is `https://KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT` (an IPv6 host in
//! brackets, as Go's `net.JoinHostPort`); without both variables the read fails with
//! client-go's `ErrNotInCluster`. The bearer token is the service account's `token` file (read
//! again as kube-rs refreshes it: projected tokens rotate) and the CA its `ca.crt`, from
//! `/var/run/secrets/kubernetes.io/serviceaccount`, or from the directory
//! `REPEL_SERVICEACCOUNT_DIR` names (repel's own variable, for tests and for tokens mounted
//! elsewhere). As client-go, a missing token is an error and a CA that cannot be read is a
//! warning (`Expected to load root CA config from …`), the connection then verified against
//! the system's roots.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use kube::config::Kubeconfig;

use crate::live::{LiveError, Target};

/// Where a pod's service account is mounted (client-go's `tokenFile` and `rootCAFile`
/// directory).
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// The variable that names another service-account directory (repel's, not client-go's).
pub const SERVICE_ACCOUNT_DIR_ENV: &str = "REPEL_SERVICEACCOUNT_DIR";

/// client-go's `rest.ErrNotInCluster`, byte for byte.
pub const ERR_NOT_IN_CLUSTER: &str = "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined";

/// The name of the cluster, user and context of the in-cluster configuration.
pub const IN_CLUSTER_CONTEXT: &str = "in-cluster";

/// The files to read, in client-go's precedence (`GetLoadingPrecedence`): the explicit file
/// alone, else `KUBECONFIG`'s files without repeats, else `HOME/.kube/config`.
pub fn loading_precedence(
    explicit: Option<&Path>,
    kubeconfig_env: Option<&OsStr>,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    if let Some(p) = explicit {
        return vec![p.to_path_buf()];
    }
    if let Some(env) = kubeconfig_env.filter(|e| !e.is_empty()) {
        return deduplicate(std::env::split_paths(env).collect());
    }
    home.map(|h| vec![h.join(".kube").join("config")])
        .unwrap_or_default()
}

/// client-go's `deduplicate`: the first of each path, in order.
pub fn deduplicate(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    paths
        .into_iter()
        .filter(|p| seen.insert(p.clone()))
        .collect()
}

/// The merged kubeconfig of `ClientConfigLoadingRules.Load`: each existing file of
/// [`loading_precedence`] in order, the first to set a value winning (kube-rs's
/// [`Kubeconfig::merge`] follows the same rule); an explicit file must exist; empty names and
/// missing files of the list are skipped.
pub fn load(
    explicit: Option<&Path>,
    kubeconfig_env: Option<&OsStr>,
    home: Option<&Path>,
) -> Result<Kubeconfig, LiveError> {
    if let Some(p) = explicit
        && !p.exists()
    {
        return Err(LiveError::NoKubeconfig(p.display().to_string()));
    }
    let mut merged = Kubeconfig::default();
    for path in loading_precedence(explicit, kubeconfig_env, home) {
        if path.as_os_str().is_empty() || !path.exists() {
            continue;
        }
        // client-go's words: `error loading config file "PATH": …`.
        let loaded = |e: kube::config::KubeconfigError| {
            LiveError::Config(format!(
                "error loading config file \"{}\": {e}",
                path.display()
            ))
        };
        let kc = Kubeconfig::read_from(&path).map_err(loaded)?;
        merged = merged.merge(kc).map_err(loaded)?;
    }
    Ok(merged)
}

/// The in-cluster kubeconfig of client-go's `InClusterConfig`, from the service-account
/// directory `dir`, for the API server at `host` and `port` (the two variables' values; a
/// missing or empty one is [`ERR_NOT_IN_CLUSTER`]). Returns the kubeconfig and the warning
/// for a CA that cannot be read, if any.
pub fn in_cluster(
    host: Option<&str>,
    port: Option<&str>,
    dir: &Path,
) -> Result<(Kubeconfig, Option<String>), LiveError> {
    let (Some(host), Some(port)) = (
        host.filter(|h| !h.is_empty()),
        port.filter(|p| !p.is_empty()),
    ) else {
        return Err(LiveError::Config(ERR_NOT_IN_CLUSTER.to_string()));
    };
    let token = dir.join("token");
    if let Err(e) = std::fs::read(&token) {
        return Err(LiveError::Config(go_open_error(&token, &e)));
    }
    // Go's net.JoinHostPort: a host with a colon (IPv6) goes in brackets.
    let server = if host.contains(':') {
        format!("https://[{host}]:{port}")
    } else {
        format!("https://{host}:{port}")
    };
    let ca = dir.join("ca.crt");
    let (ca_line, warning) = match std::fs::read_to_string(&ca) {
        Ok(pem) if pem.contains("-----BEGIN CERTIFICATE-----") => (
            format!("    certificate-authority: {}\n", quoted(&ca)),
            None,
        ),
        Ok(_) => (
            String::new(),
            Some(format!(
                "Expected to load root CA config from {}, but got err: data does not contain any valid RSA or ECDSA certificates",
                ca.display()
            )),
        ),
        Err(e) => (
            String::new(),
            Some(format!(
                "Expected to load root CA config from {}, but got err: {}",
                ca.display(),
                go_open_error(&ca, &e)
            )),
        ),
    };
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: {IN_CLUSTER_CONTEXT}\n  cluster:\n{ca_line}    server: {}\ncontexts:\n- name: {IN_CLUSTER_CONTEXT}\n  context: {{cluster: {IN_CLUSTER_CONTEXT}, user: {IN_CLUSTER_CONTEXT}}}\ncurrent-context: {IN_CLUSTER_CONTEXT}\nusers:\n- name: {IN_CLUSTER_CONTEXT}\n  user:\n    tokenFile: {}\n",
        quoted(Path::new(&server)),
        quoted(&token),
    );
    let kc = Kubeconfig::from_yaml(&text).map_err(|e| LiveError::Config(e.to_string()))?;
    Ok((kc, warning))
}

/// The kubeconfig and context of a live read: `--in-cluster` from the environment (its CA
/// warning printed on stderr), else [`load`] with the process's `KUBECONFIG` and home; the
/// context is `--context` (which must exist), else the kubeconfig's current context.
pub fn resolve(target: &Target) -> Result<(Kubeconfig, String), LiveError> {
    if target.in_cluster {
        let dir = std::env::var_os(SERVICE_ACCOUNT_DIR_ENV)
            .filter(|d| !d.is_empty())
            .map_or_else(|| PathBuf::from(SERVICE_ACCOUNT_DIR), PathBuf::from);
        let host = std::env::var("KUBERNETES_SERVICE_HOST").ok();
        let port = std::env::var("KUBERNETES_SERVICE_PORT").ok();
        let (kc, warning) = in_cluster(host.as_deref(), port.as_deref(), &dir)?;
        if let Some(w) = warning {
            eprintln!("warning: {w}");
        }
        return Ok((kc, IN_CLUSTER_CONTEXT.to_string()));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let kc = load(
        target.kubeconfig.as_deref(),
        std::env::var_os("KUBECONFIG").as_deref(),
        home.as_deref(),
    )?;
    let context = match &target.context {
        Some(c) => {
            if !kc.contexts.iter().any(|n| &n.name == c) {
                return Err(LiveError::NoContext(c.clone()));
            }
            c.clone()
        }
        None => kc.current_context.clone().unwrap_or_default(),
    };
    Ok((kc, context))
}

/// A path as a YAML double-quoted scalar (JSON's escaping).
fn quoted(p: &Path) -> String {
    serde_json::Value::String(p.display().to_string()).to_string()
}

/// Go's `*PathError` text for a failed open: `open PATH: no such file or directory`.
fn go_open_error(path: &Path, e: &std::io::Error) -> String {
    let reason = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    };
    format!("open {}: {reason}", path.display())
}

#[cfg(test)]
mod tests;

//! The connection layer: plain HTTP or TLS (rustls), HTTP/1.1 and HTTP/2 (hyper-util's `auto`
//! builder), the limits kube-apiserver puts on clients, and the bearer-token authenticator.
//!
//! - **TLS**: certificate and key from PEM files (`--tls-cert-file`, `--tls-private-key-file`,
//!   as kube-apiserver names them), or generated at start: a CA and a serving certificate it
//!   signs, for `localhost`, the loopback addresses, the listen address and any extra names;
//!   the CA's PEM goes into the kubeconfig that `--kubeconfig-out` writes.
//! - **Limits**: a request body over [`MAX_REQUEST_BODY_BYTES`] (kube-apiserver's 3 MiB) is a
//!   413 — refused from its `Content-Length` before a byte is read, or as soon as the limit is
//!   passed; a request that does not complete within the request timeout (kube-apiserver's
//!   `--request-timeout`, 60 s) is a 504, so a client that declares a body it never sends
//!   gets its answer and its connection closed; a client that never finishes its headers is
//!   dropped after [`HEADER_READ_TIMEOUT`], as Go's `ReadHeaderTimeout` does. Watches are long
//!   running: their stream is not bounded by the request timeout (their `timeoutSeconds` is).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// kube-apiserver's `MaxRequestBodyBytes`: 3 MiB.
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;
/// kube-apiserver's default `--request-timeout`.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a client may take to send its request headers (kube-apiserver's http.Server sets
/// `ReadHeaderTimeout: 32s`).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(32);
/// How long a TLS handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the serving certificate comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TlsSource {
    /// Plain HTTP (loopback only).
    #[default]
    None,
    /// PEM files: the certificate chain and its private key.
    Files {
        /// `--tls-cert-file`.
        cert: PathBuf,
        /// `--tls-private-key-file`.
        key: PathBuf,
    },
    /// A CA and serving certificate generated at start; `extra_names` are added to the
    /// serving certificate's subject alternative names (DNS names or IP addresses).
    Generate {
        /// Names beyond `localhost`, the loopback addresses and the listen address.
        extra_names: Vec<String>,
    },
}

/// A serving TLS configuration and, when generated, its CA for clients.
pub struct Tls {
    /// The acceptor connections go through.
    pub acceptor: TlsAcceptor,
    /// The CA certificate (PEM) clients should trust, when repel generated it.
    pub ca_pem: Option<String>,
}

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A PEM file could not be read.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// rustls refused the certificate or key, or generation failed.
    #[error("TLS: {0}")]
    Config(String),
}

/// The names a generated serving certificate carries for `listen`.
pub fn generated_names(listen: SocketAddr, extra: &[String]) -> Vec<String> {
    let mut names = vec![
        "localhost".to_string(),
        Ipv4Addr::LOCALHOST.to_string(),
        Ipv6Addr::LOCALHOST.to_string(),
    ];
    let ip = listen.ip();
    if !ip.is_unspecified() && !ip.is_loopback() {
        names.push(ip.to_string());
    }
    for n in extra {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    names
}

fn generate(
    names: Vec<String>,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>, String), TlsError> {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
        IsCa, KeyPair, KeyUsagePurpose,
    };
    let err = |e: rcgen::Error| TlsError::Config(e.to_string());
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca.distinguished_name.push(DnType::CommonName, "repel-ca");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().map_err(err)?).map_err(err)?;
    let mut leaf = CertificateParams::new(names).map_err(err)?;
    leaf.distinguished_name
        .push(DnType::CommonName, "repel-serve");
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    leaf.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    let key = KeyPair::generate().map_err(err)?;
    let cert = leaf.signed_by(&key, &ca).map_err(err)?;
    let key = PrivateKeyDer::try_from(key.serialize_der())
        .map_err(|e| TlsError::Config(e.to_string()))?;
    Ok((vec![cert.der().clone(), ca.der().clone()], key, ca.pem()))
}

fn read_files(
    cert: &PathBuf,
    key: &PathBuf,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), TlsError> {
    let file_err = |p: &PathBuf, m: String| TlsError::File {
        path: p.display().to_string(),
        message: m,
    };
    let certs = CertificateDer::pem_file_iter(cert)
        .map_err(|e| file_err(cert, e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_err(cert, e.to_string()))?;
    if certs.is_empty() {
        return Err(file_err(cert, "no CERTIFICATE block".to_string()));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| file_err(key, e.to_string()))?;
    Ok((certs, key))
}

/// Builds the serving TLS configuration (HTTP/2 and HTTP/1.1 by ALPN).
pub fn tls(source: &TlsSource, listen: SocketAddr) -> Result<Option<Tls>, TlsError> {
    let (certs, key, ca_pem) = match source {
        TlsSource::None => return Ok(None),
        TlsSource::Files { cert, key } => {
            let (c, k) = read_files(cert, key)?;
            (c, k, None)
        }
        TlsSource::Generate { extra_names } => {
            let (c, k, ca) = generate(generated_names(listen, extra_names))?;
            (c, k, Some(ca))
        }
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| TlsError::Config(e.to_string()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Some(Tls {
        acceptor: TlsAcceptor::from(Arc::new(config)),
        ca_pem,
    }))
}

/// Whether `ip` is served without TLS and a token.
pub fn is_loopback(ip: IpAddr) -> bool {
    ip.is_loopback()
}

/// Accepts connections for ever, each served on its own task.
pub async fn serve(listener: TcpListener, router: Router, tls: Option<TlsAcceptor>) {
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(_) => {
                // Out of file descriptors and the like: wait rather than spin.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            match tls {
                None => connection(stream, router).await,
                Some(acceptor) => {
                    if let Ok(Ok(s)) =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await
                    {
                        connection(s, router).await;
                    }
                }
            }
        });
    }
}

async fn connection<S>(stream: S, router: Router)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = TowerToHyperService::new(router);
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let _ = builder
        .serve_connection_with_upgrades(TokioIo::new(stream), service)
        .await;
}

/// kube-apiserver's bearer-token authenticator (`bearertoken.AuthenticateRequest`): the
/// header is trimmed and split on single spaces into at most three parts; the scheme is
/// `bearer` in any case; the token is the second part and must not be empty — so
/// `Bearer  t` (two spaces) is no token at all. Returns the token.
pub fn bearer_token(header: &str) -> Option<&str> {
    let auth = header.trim();
    let mut parts = auth.splitn(3, ' ');
    let scheme = parts.next()?;
    let token = parts.next()?;
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return None;
    }
    Some(token)
}

/// kube-apiserver's warning when [`bearer_token`] found an extra space before the token.
pub const INVALID_TOKEN_WITH_SPACE_WARNING: &str = "the provided Authorization header contains extra space before the bearer token, and is ignored";

/// Whether the header is `Bearer  token` (a space too many: no token, and upstream warns).
pub fn extra_space_before_token(header: &str) -> bool {
    let parts: Vec<&str> = header.trim().splitn(3, ' ').collect();
    parts.len() == 3 && parts[0].eq_ignore_ascii_case("bearer") && parts[1].is_empty()
}

#[cfg(test)]
mod tests;

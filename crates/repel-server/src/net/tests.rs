//! Unit tests of `crate::net`.

use super::*;

#[test]
fn bearer_tokens_are_parsed_as_kube_apiserver_parses_them() {
    // Upstream's bearertoken_test.go cases.
    let cases: &[(&str, Option<&str>)] = &[
        ("Bearer token", Some("token")),
        ("bearer token", Some("token")),
        ("BEARER token", Some("token")),
        ("  Bearer token  ", Some("token")),
        ("Bearer token extra", Some("token")),
        ("Bearer  token", None),
        ("Bearer ", None),
        ("Bearer", None),
        ("Basic dXNlcjpwYXNz", None),
        ("", None),
        ("Bearertoken", None),
    ];
    for (header, want) in cases {
        assert_eq!(bearer_token(header), *want, "{header:?}");
    }
    assert!(extra_space_before_token("Bearer  token"));
    assert!(!extra_space_before_token("Bearer token"));
    assert!(!extra_space_before_token("Bearer "));
}

#[test]
fn a_generated_certificate_names_localhost_loopback_and_the_listen_address() {
    let names = generated_names("10.1.2.3:6443".parse().unwrap(), &["api.example".into()]);
    assert_eq!(
        names,
        ["localhost", "127.0.0.1", "::1", "10.1.2.3", "api.example"]
    );
    let names = generated_names("0.0.0.0:6443".parse().unwrap(), &[]);
    assert_eq!(names, ["localhost", "127.0.0.1", "::1"]);
    let t = tls(
        &TlsSource::Generate {
            extra_names: vec![],
        },
        "127.0.0.1:0".parse().unwrap(),
    )
    .unwrap()
    .unwrap();
    assert!(t.ca_pem.unwrap().starts_with("-----BEGIN CERTIFICATE-----"));
}

#[test]
fn missing_or_empty_pem_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("c.pem");
    let key = dir.path().join("k.pem");
    std::fs::write(&cert, "not a pem").unwrap();
    let e = tls(
        &TlsSource::Files {
            cert: cert.clone(),
            key: key.clone(),
        },
        "127.0.0.1:0".parse().unwrap(),
    )
    .err()
    .unwrap();
    assert_eq!(
        e.to_string(),
        format!("{}: no CERTIFICATE block", cert.display())
    );
}

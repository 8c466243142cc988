//! client-go's loading-rule tests (`tools/clientcmd/loader_test.go`), under their names and
//! with their configurations, and `InClusterConfig`'s cases (`rest/config.go`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use super::*;

/// A kubeconfig text with `(user, token)`, `(cluster, server)`, `(context, cluster, user,
/// namespace)` entries and a current context.
fn config(
    users: &[(&str, &str)],
    clusters: &[(&str, &str)],
    contexts: &[(&str, &str, &str, &str)],
    current: Option<&str>,
) -> String {
    let mut s = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
    for (name, server) in clusters {
        s.push_str(&format!(
            "- name: {name}\n  cluster: {{server: \"{server}\"}}\n"
        ));
    }
    s.push_str("contexts:\n");
    for (name, cluster, user, ns) in contexts {
        s.push_str(&format!(
            "- name: {name}\n  context: {{cluster: {cluster}, user: {user}, namespace: {ns}}}\n"
        ));
    }
    s.push_str("users:\n");
    for (name, token) in users {
        s.push_str(&format!("- name: {name}\n  user: {{token: {token}}}\n"));
    }
    if let Some(c) = current {
        s.push_str(&format!("current-context: {c}\n"));
    }
    s
}

fn alfa() -> String {
    config(
        &[("red-user", "red-token")],
        &[("cow-cluster", "http://cow.org:8080")],
        &[("federal-context", "cow-cluster", "red-user", "hammer-ns")],
        None,
    )
}
fn bravo() -> String {
    config(
        &[("black-user", "black-token")],
        &[("pig-cluster", "http://pig.org:8080")],
        &[("queen-anne-context", "pig-cluster", "black-user", "saw-ns")],
        None,
    )
}
fn charlie() -> String {
    config(
        &[("green-user", "green-token")],
        &[("horse-cluster", "http://horse.org:8080")],
        &[("shaker-context", "horse-cluster", "green-user", "chisel-ns")],
        None,
    )
}
fn delta() -> String {
    config(
        &[("blue-user", "blue-token")],
        &[("chicken-cluster", "http://chicken.org:8080")],
        &[("gothic-context", "chicken-cluster", "blue-user", "plane-ns")],
        None,
    )
}
fn conflict_alfa() -> String {
    config(
        &[
            ("red-user", "a-different-red-token"),
            ("yellow-user", "yellow-token"),
        ],
        &[
            ("cow-cluster", "http://a-different-cow.org:8080"),
            ("donkey-cluster", "http://donkey.org:8080"),
        ],
        &[],
        Some("federal-context"),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn env_of(paths: &[&Path]) -> std::ffi::OsString {
    std::env::join_paths(paths).unwrap()
}

fn servers(kc: &Kubeconfig) -> Vec<(String, String)> {
    kc.clusters
        .iter()
        .map(|c| {
            let server = c.cluster.as_ref().and_then(|c| c.server.clone());
            (c.name.clone(), server.unwrap_or_default())
        })
        .collect()
}

fn tokens(kc: &Kubeconfig) -> Vec<(String, String)> {
    // kube-rs keeps tokens as secrets; its serialisation writes them out.
    let v = serde_json::to_value(kc).unwrap();
    v["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let name = u["name"].as_str().unwrap().to_string();
            (
                name,
                u["user"]["token"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn names<T>(items: &[T], name: fn(&T) -> &String) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|i| name(i).clone()).collect();
    v.sort();
    v
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn test_loading_get_loading_precedence() {
    let home = Path::new("/home/u");
    // (name, explicit path, KUBECONFIG, precedence)
    type Case<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Vec<&'a str>);
    let cases: [Case; 4] = [
        ("default", None, None, vec!["/home/u/.kube/config"]),
        (
            "explicit",
            Some("/explicit/kubeconfig"),
            None,
            vec!["/explicit/kubeconfig"],
        ),
        (
            "envvar-single",
            None,
            Some("/env/kubeconfig"),
            vec!["/env/kubeconfig"],
        ),
        (
            "envvar-multiple",
            None,
            Some("/env/kubeconfig:/other/kubeconfig"),
            vec!["/env/kubeconfig", "/other/kubeconfig"],
        ),
    ];
    for (name, explicit, env, want) in cases {
        let got = loading_precedence(
            explicit.map(Path::new),
            env.map(std::ffi::OsStr::new),
            Some(home),
        );
        let want: Vec<PathBuf> = want.into_iter().map(PathBuf::from).collect();
        assert_eq!(got, want, "{name}");
    }
    // An empty KUBECONFIG is no KUBECONFIG (client-go tests `len(envVarFiles) != 0`).
    assert_eq!(
        loading_precedence(None, Some(std::ffi::OsStr::new("")), Some(home)),
        [PathBuf::from("/home/u/.kube/config")]
    );
}

#[test]
fn test_deduplicate() {
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["a", "b", "c", "d", "e", "f"],
            &["a", "b", "c", "d", "e", "f"],
        ),
        (&["a", "b", "c", "b", "e", "f"], &["a", "b", "c", "e", "f"]),
        (&["a", "a", "b", "b", "c", "b"], &["a", "b", "c"]),
    ];
    for (src, expect) in cases {
        let got = deduplicate(src.iter().map(PathBuf::from).collect());
        let expect: Vec<PathBuf> = expect.iter().map(PathBuf::from).collect();
        assert_eq!(got, expect, "{src:?}");
    }
}

#[test]
fn test_non_existent_command_line_file() {
    let e = load(Some(Path::new("bogus_file")), None, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "error: stat bogus_file: no such file or directory"
    );
}

#[test]
fn test_tolerating_missing_files() {
    let env = env_of(&[
        Path::new("bogus1"),
        Path::new("bogus2"),
        Path::new("bogus3"),
    ]);
    let kc = load(None, Some(&env), None).unwrap();
    assert!(kc.clusters.is_empty() && kc.current_context.is_none());
}

#[test]
fn test_error_reading_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "bogus", "bogus value");
    let e = load(Some(&f), None, None).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "error: error loading config file \"{}\": ",
            f.display()
        )),
        "{e}"
    );
}

#[test]
fn test_error_reading_non_file() {
    let dir = tempfile::tempdir().unwrap();
    let e = load(Some(dir.path()), None, None).unwrap_err().to_string();
    assert!(e.contains(&dir.path().display().to_string()), "{e}");
}

#[test]
fn test_conflicting_current_context() {
    let dir = tempfile::tempdir().unwrap();
    let command_line = write(
        dir.path(),
        "cmd",
        "apiVersion: v1\nkind: Config\ncurrent-context: any-context-value\n",
    );
    let env_var = write(
        dir.path(),
        "env",
        "apiVersion: v1\nkind: Config\ncurrent-context: a-different-context\n",
    );
    let kc = load(Some(&command_line), Some(env_var.as_os_str()), None).unwrap();
    assert_eq!(kc.current_context.as_deref(), Some("any-context-value"));
}

#[test]
fn example_no_merging_on_explicit_paths() {
    let dir = tempfile::tempdir().unwrap();
    let command_line = write(dir.path(), "cmd", &alfa());
    let env_var = write(dir.path(), "env", &conflict_alfa());
    let kc = load(Some(&command_line), Some(env_var.as_os_str()), None).unwrap();
    assert_eq!(
        servers(&kc),
        owned(&[("cow-cluster", "http://cow.org:8080")])
    );
    assert_eq!(tokens(&kc), owned(&[("red-user", "red-token")]));
    assert_eq!(kc.current_context, None);
}

#[test]
fn example_merging_some_with_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let command_line = write(dir.path(), "cmd", &alfa());
    let env_var = write(dir.path(), "env", &conflict_alfa());
    let env = env_of(&[&command_line, &env_var]);
    let kc = load(None, Some(&env), None).unwrap();
    let mut s = servers(&kc);
    s.sort();
    assert_eq!(
        s,
        owned(&[
            ("cow-cluster", "http://cow.org:8080"),
            ("donkey-cluster", "http://donkey.org:8080")
        ])
    );
    let mut t = tokens(&kc);
    t.sort();
    assert_eq!(
        t,
        owned(&[("red-user", "red-token"), ("yellow-user", "yellow-token")])
    );
    assert_eq!(kc.current_context.as_deref(), Some("federal-context"));
}

#[test]
fn example_merging_everything_no_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        write(dir.path(), "cmd", &alfa()),
        write(dir.path(), "env", &bravo()),
        write(dir.path(), "cur", &charlie()),
        write(dir.path(), "home", &delta()),
    ];
    let env = env_of(&files.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    let kc = load(None, Some(&env), None).unwrap();
    assert_eq!(
        names(&kc.clusters, |c| &c.name),
        [
            "chicken-cluster",
            "cow-cluster",
            "horse-cluster",
            "pig-cluster"
        ]
    );
    assert_eq!(
        names(&kc.contexts, |c| &c.name),
        [
            "federal-context",
            "gothic-context",
            "queen-anne-context",
            "shaker-context"
        ]
    );
    assert_eq!(
        names(&kc.auth_infos, |a| &a.name),
        ["black-user", "blue-user", "green-user", "red-user"]
    );
    assert_eq!(kc.current_context, None);
}

#[test]
fn test_resolve_relative_paths() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("d1");
    std::fs::create_dir(&sub).unwrap();
    let f = write(
        &sub,
        ".kubeconfig",
        "apiVersion: v1\nkind: Config\nclusters:\n- name: relative-server-1\n  cluster: {server: \"https://x\", certificate-authority: ../relative/ca}\n- name: absolute-server-1\n  cluster: {server: \"https://x\", certificate-authority: /absolute/ca}\nusers:\n- name: relative-user-1\n  user: {client-certificate: relative/client/cert, client-key: ../relative/client/key}\n",
    );
    let kc = load(None, Some(f.as_os_str()), None).unwrap();
    let ca = |name: &str| {
        kc.clusters
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.cluster.as_ref()?.certificate_authority.clone())
            .unwrap()
    };
    assert_eq!(
        Path::new(&ca("relative-server-1")),
        sub.join("../relative/ca")
    );
    assert_eq!(ca("absolute-server-1"), "/absolute/ca");
    let user = kc.auth_infos[0].auth_info.as_ref().unwrap();
    assert_eq!(
        Path::new(user.client_certificate.as_deref().unwrap()),
        sub.join("relative/client/cert")
    );
}

#[test]
fn kubeconfig_env_wins_over_home_and_home_is_the_last_resort() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".kube")).unwrap();
    write(&dir.path().join(".kube"), "config", &delta());
    let env_file = write(dir.path(), "env", &alfa());
    let kc = load(None, Some(env_file.as_os_str()), Some(dir.path())).unwrap();
    assert_eq!(names(&kc.clusters, |c| &c.name), ["cow-cluster"]);
    let kc = load(None, None, Some(dir.path())).unwrap();
    assert_eq!(names(&kc.clusters, |c| &c.name), ["chicken-cluster"]);
    // No file anywhere: an empty configuration, as client-go's (the context check then fails).
    let kc = load(None, None, Some(&dir.path().join("nowhere"))).unwrap();
    assert!(kc.contexts.is_empty());
}

#[test]
fn in_cluster_needs_both_service_variables() {
    let dir = tempfile::tempdir().unwrap();
    for (host, port) in [
        (None, Some("443")),
        (Some("10.0.0.1"), None),
        (Some(""), Some("443")),
    ] {
        let e = in_cluster(host, port, dir.path()).unwrap_err();
        assert_eq!(e.to_string(), format!("error: {ERR_NOT_IN_CLUSTER}"));
    }
}

#[test]
fn in_cluster_without_a_token_is_gos_open_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = in_cluster(Some("10.0.0.1"), Some("443"), dir.path()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "error: open {}: no such file or directory",
            dir.path().join("token").display()
        )
    );
}

#[test]
fn in_cluster_reads_the_service_account_directory() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "token", "abc");
    write(
        dir.path(),
        "ca.crt",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    );
    let (kc, warning) = in_cluster(Some("10.96.0.1"), Some("443"), dir.path()).unwrap();
    assert_eq!(warning, None);
    assert_eq!(kc.current_context.as_deref(), Some(IN_CLUSTER_CONTEXT));
    let cluster = kc.clusters[0].cluster.as_ref().unwrap();
    assert_eq!(cluster.server.as_deref(), Some("https://10.96.0.1:443"));
    assert_eq!(
        cluster.certificate_authority.as_deref().map(Path::new),
        Some(dir.path().join("ca.crt").as_path())
    );
    let user = kc.auth_infos[0].auth_info.as_ref().unwrap();
    assert_eq!(
        user.token_file.as_deref().map(Path::new),
        Some(dir.path().join("token").as_path())
    );
    // net.JoinHostPort brackets an IPv6 host.
    let (kc, _) = in_cluster(Some("fd00::1"), Some("6443"), dir.path()).unwrap();
    let server = kc.clusters[0].cluster.as_ref().unwrap().server.clone();
    assert_eq!(server.as_deref(), Some("https://[fd00::1]:6443"));
}

#[test]
fn in_cluster_without_a_ca_warns_as_client_go_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "token", "abc");
    let (kc, warning) = in_cluster(Some("10.96.0.1"), Some("443"), dir.path()).unwrap();
    let ca = dir.path().join("ca.crt");
    assert_eq!(
        warning.unwrap(),
        format!(
            "Expected to load root CA config from {}, but got err: open {}: no such file or directory",
            ca.display(),
            ca.display()
        )
    );
    assert_eq!(
        kc.clusters[0]
            .cluster
            .as_ref()
            .unwrap()
            .certificate_authority,
        None
    );
}

//! Unit tests of `crate::request`.

use super::*;

#[test]
fn paths_name_collections_items_and_subresources() {
    let t = parse_path(&Registry::default(), "/api/v1/nodes").unwrap();
    assert_eq!(
        (t.resource.name.as_str(), t.namespace, t.name),
        ("nodes", None, None)
    );
    let t = parse_path(
        &Registry::default(),
        "/api/v1/namespaces/default/pods/web-1/eviction",
    )
    .unwrap();
    assert_eq!(t.resource.name, "pods");
    assert_eq!(t.namespace.as_deref(), Some("default"));
    assert_eq!(t.name.as_deref(), Some("web-1"));
    assert_eq!(t.sub.as_deref(), Some("eviction"));
    let t = parse_path(&Registry::default(), "/api/v1/namespaces/kube-system").unwrap();
    assert_eq!(
        (t.resource.name.as_str(), t.name.as_deref()),
        ("namespaces", Some("kube-system"))
    );
    let t = parse_path(
        &Registry::default(),
        "/apis/apps/v1/namespaces/kube-system/daemonsets/proxy",
    )
    .unwrap();
    assert_eq!(t.resource.kind, "DaemonSet");
    let t = parse_path(
        &Registry::default(),
        "/api/v1/namespaces/%24%7BNS%7D/pods/a+b%20c",
    )
    .unwrap();
    assert_eq!(
        t.namespace.as_deref(),
        Some("${NS}"),
        "path segments are unescaped"
    );
    assert_eq!(t.name.as_deref(), Some("a+b c"));
    assert!(parse_path(&Registry::default(), "/api/v1/pods/x").is_none());
    assert!(parse_path(&Registry::default(), "/api/v1/namespaces/default/nodes").is_none());
    assert!(parse_path(&Registry::default(), "/apis/apps/v2/deployments").is_none());
    assert!(parse_path(&Registry::default(), "/api/v1/nodes/n/eviction").is_none());
}

#[test]
fn queries_are_percent_decoded() {
    let q = parse_query(Some(
        "fieldSelector=spec.nodeName%3Dnode1%2Cstatus.phase%21%3DFailed&limit=500",
    ));
    assert_eq!(
        q["fieldSelector"],
        "spec.nodeName=node1,status.phase!=Failed"
    );
    assert_eq!(q["limit"], "500");
    assert_eq!(percent_decode("a%2"), "a%2");
}

#[test]
fn the_table_accept_header_is_recognised() {
    assert!(wants_table(
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
    ));
    assert!(!wants_table("application/json, */*"));
}

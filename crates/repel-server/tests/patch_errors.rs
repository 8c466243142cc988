//! Strategic merge patches that are wrong get a 4xx with upstream's text over real HTTP, never
//! a 500, and leave the object as it was: an unknown `$patch`, a `$setElementOrder/…` that is
//! not a list, a merging list element without its merge key, and the other malformed patches.

use crate::util;

use std::net::SocketAddr;

use serde_json::{Value, json};

const SMP: &str = "application/strategic-merge-patch+json";

fn patch(addr: SocketAddr, path: &str, content_type: &str, body: &str) -> (u16, Value) {
    util::request(addr, "PATCH", path, &[("Content-Type", content_type)], body)
}

#[test]
fn malformed_strategic_merge_patches_are_4xx_not_500() {
    let server = util::start(vec![
        util::node("node1", json!([])),
        util::pod("default", "web", Some("node1")),
    ]);
    let node_path = "/api/v1/nodes/node1";
    let pod_path = "/api/v1/namespaces/default/pods/web";
    let cases = [
        (
            "an unknown $patch in a map",
            node_path,
            r#"{"metadata":{"labels":{"$patch":"bogus"}}}"#,
            400,
            "unknown patch type: bogus in map: map[$patch:bogus]",
        ),
        (
            "an unknown $patch that is a number",
            node_path,
            r#"{"spec":{"$patch":7}}"#,
            400,
            "unknown patch type: %!s(int64=7) in map: map[$patch:7]",
        ),
        (
            "an unknown $patch in a merging list's element",
            pod_path,
            r#"{"spec":{"containers":[{"name":"app","$patch":"bogus"}]}}"#,
            400,
            "unknown patch type: bogus in map: map[$patch:bogus name:app]",
        ),
        (
            "a $setElementOrder that is not a list",
            pod_path,
            r#"{"spec":{"$setElementOrder/containers":"app"}}"#,
            400,
            "expected a []interface {}, but received a string",
        ),
        (
            "a $setElementOrder that is a map",
            pod_path,
            r#"{"spec":{"$setElementOrder/containers":{"name":"app"}}}"#,
            400,
            "expected a []interface {}, but received a map[string]interface {}",
        ),
        (
            "a merging list element without its merge key",
            pod_path,
            r#"{"spec":{"containers":[{"image":"busybox"}]}}"#,
            400,
            "map: map[image:busybox] does not contain declared merge key: name",
        ),
        (
            "a node condition without its type",
            "/api/v1/nodes/node1/status",
            r#"{"status":{"conditions":[{"status":"False"}]}}"#,
            400,
            "map: map[status:False] does not contain declared merge key: type",
        ),
        (
            "a $patch: delete element without its merge key",
            pod_path,
            r#"{"spec":{"containers":[{"$patch":"delete"}]}}"#,
            400,
            "map: map[$patch:delete] does not contain declared merge key: name",
        ),
        (
            "elements of two types in one list",
            pod_path,
            r#"{"spec":{"containers":["app"]}}"#,
            400,
            // The stored container, with the defaults kube-apiserver gave it.
            "list element types are not identical: [[map[image:nginx imagePullPolicy:Always name:app resources:map[] terminationMessagePath:/dev/termination-log terminationMessagePolicy:File]] [app]]",
        ),
        (
            "$patch: merge in a list",
            pod_path,
            r#"{"spec":{"containers":[{"name":"app","$patch":"merge"}]}}"#,
            400,
            "merging lists cannot yet be specified in the patch",
        ),
        (
            "a $setElementOrder key without a list name",
            pod_path,
            r#"{"spec":{"$setElementOrder":[]}}"#,
            400,
            "invalid patch format of setElementOrder list",
        ),
        (
            "a patch that is a list",
            node_path,
            r#"[]"#,
            400,
            "json: cannot unmarshal array into Go value of type map[string]interface {}",
        ),
    ];
    for (name, path, body, code, message) in cases {
        let (ns, obj) = if path.starts_with("/api/v1/nodes") {
            ("", "node1")
        } else {
            ("default", "web")
        };
        let resource = if ns.is_empty() { "nodes" } else { "pods" };
        let before = server.get(resource, ns, obj).unwrap();
        let (got, status) = patch(server.addr, path, SMP, body);
        assert_eq!(got, code, "{name}: {status}");
        assert_eq!(status["kind"], json!("Status"), "{name}");
        assert_eq!(status["code"], json!(code), "{name}");
        assert_eq!(status["reason"], json!("BadRequest"), "{name}");
        assert_eq!(status["message"], json!(message), "{name}");
        let after = server.get(resource, ns, obj).unwrap();
        assert_eq!(
            after["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"],
            "{name}: nothing is written"
        );
    }

    // A well-formed patch still works on the same objects.
    let (got, node) = patch(
        server.addr,
        node_path,
        SMP,
        r#"{"metadata":{"labels":{"ok":"yes"}}}"#,
    );
    assert_eq!(got, 200, "{node}");
    assert_eq!(node["metadata"]["labels"]["ok"], json!("yes"));
}

#[test]
fn kubectl_reports_the_bad_request() {
    if !util::have_kubectl() {
        return;
    }
    let server = util::start(vec![util::node("node1", json!([]))]);
    let out = server.kubectl(&["patch", "node", "node1", "-p", r#"{"$patch":"bogus"}"#]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stderr.trim_end(),
        "Error from server (BadRequest): unknown patch type: bogus in map: map[$patch:bogus]"
    );
}

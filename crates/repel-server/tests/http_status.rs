//! Raw HTTP: the Status errors kubectl's common commands do not reach (401 without the token,
//! 409 Conflict on a stale resourceVersion, 415 for an unknown patch type, 410 for a watch from
//! a compacted resourceVersion) and the refusal to serve a non-loopback address without a token.

use repel_server::ServerError;
use serde_json::json;

use crate::util;

#[test]
fn status_errors_over_http() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let running = rt
        .block_on(repel_server::start(util::plain_config(
            "127.0.0.1:0",
            Some("s3cret"),
        )))
        .unwrap();
    let addr = running.addr;
    let auth = ("Authorization", "Bearer s3cret");

    let (code, body) = util::request(addr, "GET", "/api/v1/nodes", &[], "");
    assert_eq!((code, body["reason"].as_str()), (401, Some("Unauthorized")));
    let (code, body) = util::request(
        addr,
        "GET",
        "/api/v1/nodes",
        &[("Authorization", "Bearer nope")],
        "",
    );
    assert_eq!(
        (code, body["message"].as_str()),
        (401, Some("Unauthorized"))
    );
    let (code, _) = util::request(addr, "GET", "/version", &[auth], "");
    assert_eq!(code, 200);

    let (code, node) = util::request(addr, "GET", "/api/v1/nodes/node1", &[auth], "");
    assert_eq!(code, 200);
    let mut stale = node.clone();
    stale["metadata"]["resourceVersion"] = json!("1");
    stale["metadata"]["labels"]["x"] = json!("y");
    let (code, body) = util::request(
        addr,
        "PUT",
        "/api/v1/nodes/node1",
        &[auth, ("Content-Type", "application/json")],
        &stale.to_string(),
    );
    assert_eq!(code, 409, "{body}");
    assert_eq!(body["reason"], "Conflict");
    assert_eq!(
        body["message"],
        "Operation cannot be fulfilled on nodes \"node1\": the object has been modified; please apply your changes to the latest version and try again"
    );
    let mut fresh = node.clone();
    fresh["metadata"]["labels"]["x"] = json!("y");
    let (code, body) = util::request(
        addr,
        "PUT",
        "/api/v1/nodes/node1",
        &[auth, ("Content-Type", "application/json")],
        &fresh.to_string(),
    );
    assert_eq!(
        (code, &body["metadata"]["labels"]["x"]),
        (200, &json!("y")),
        "{body}"
    );

    let dup =
        r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"a","name":"node2","bogus":1}}"#;
    let json_ct = ("Content-Type", "application/json");
    let (code, body) = util::request(
        addr,
        "POST",
        "/api/v1/nodes?fieldValidation=Strict",
        &[auth, json_ct],
        dup,
    );
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        body["message"],
        "Node in version \"v1\" cannot be handled as a Node: strict decoding error: duplicate field \"metadata.name\", unknown field \"metadata.bogus\""
    );
    let (code, body) = util::request(
        addr,
        "POST",
        "/api/v1/nodes?fieldValidation=Ignore",
        &[auth, json_ct],
        dup,
    );
    assert_eq!(
        (code, &body["metadata"]["name"]),
        (201, &json!("node2")),
        "the last name wins: {body}"
    );
    let (code, body) = util::request(
        addr,
        "PATCH",
        "/api/v1/nodes/node1",
        &[auth, ("Content-Type", "text/plain")],
        "{}",
    );
    assert_eq!(code, 415, "{body}");
    assert_eq!(body["reason"], "UnsupportedMediaType");

    let (code, body) = util::request(addr, "GET", "/api/v1/widgets", &[auth], "");
    assert_eq!((code, body["reason"].as_str()), (404, Some("NotFound")));

    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}"#;
    let (code, body) = util::request(
        addr,
        "POST",
        "/api/v1/namespaces/default/pods",
        &[auth, json_ct],
        pod,
    );
    assert_eq!(code, 201, "{body}");
    let evict = "/api/v1/namespaces/default/pods/p/eviction";
    let (code, body) = util::request(addr, "POST", evict, &[auth, json_ct], "garbage");
    assert_eq!(code, 400, "{body}");
    let other = r#"{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"q","namespace":"default"}}"#;
    let (code, body) = util::request(addr, "POST", evict, &[auth, json_ct], other);
    assert_eq!(
        (code, body["message"].as_str()),
        (
            400,
            Some("name in URL does not match name in Eviction object")
        )
    );
    let (code, body) = util::request(
        addr,
        "POST",
        evict,
        &[auth, json_ct],
        &other.replace("\"q\"", "\"p\""),
    );
    assert_eq!((code, &body["status"]), (201, &json!("Success")), "{body}");
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        util::request(
            addr,
            "GET",
            "/api/v1/namespaces/default/pods/p",
            &[auth],
            "",
        )
        .0 == 404
    });
    assert!(gone, "the evicted pod is deleted");

    for i in 0..repel_server::store::HISTORY + 10 {
        running
            .app
            .store
            .create(
                "events",
                json!({"metadata": {"name": format!("e{i}"), "namespace": "default"}}),
            )
            .unwrap();
    }
    let (code, body) = util::request(
        addr,
        "GET",
        "/api/v1/nodes?watch=true&resourceVersion=2",
        &[auth],
        "",
    );
    assert_eq!(code, 410, "{body}");
    assert_eq!(body["reason"], "Expired");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("too old resource version: 2 ("),
        "{body}"
    );
}

#[test]
fn a_non_loopback_address_needs_a_token() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    match rt.block_on(repel_server::start(util::plain_config("0.0.0.0:0", None))) {
        Err(e @ ServerError::NeedsToken(_)) => assert_eq!(
            e.to_string(),
            "refusing to listen on 0.0.0.0:0 without --token: only loopback addresses may be served without authentication"
        ),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("served 0.0.0.0 without a token"),
    }
}

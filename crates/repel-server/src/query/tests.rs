//! Unit tests of `crate::query`.

use super::*;

fn raw(q: &str) -> (Vec<(String, String)>, HashMap<String, String>) {
    let raw = crate::request::parse_query_pairs(Some(q));
    let map = raw.iter().cloned().collect();
    (raw, map)
}

fn message(e: ApiError) -> (u16, String) {
    (e.0, e.1["message"].as_str().unwrap_or("").to_string())
}

#[test]
fn write_options_are_validated_as_upstream() {
    let cases: &[(&str, Option<(u16, &str)>)] = &[
        ("dryRun=All", None),
        (
            "fieldValidation=Strict&fieldManager=kubectl-client-side-apply",
            None,
        ),
        (
            "dryRun=bogus",
            Some((
                422,
                "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"bogus\"]: supported values: \"All\"",
            )),
        ),
        (
            "dryRun=",
            Some((
                422,
                "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"\"]: supported values: \"All\"",
            )),
        ),
        (
            "fieldValidation=bogus",
            Some((
                422,
                "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"bogus\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"",
            )),
        ),
        (
            "fieldManager=a%01b",
            Some((
                422,
                "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid value: \"a\\x01b\": invalid character U+0001 (at position 1)",
            )),
        ),
    ];
    for (q, want) in cases {
        let (r, m) = raw(q);
        let got = write_options("CreateOptions", &r, &m, None).map_err(message);
        match want {
            None => assert!(got.is_ok(), "{q}: {got:?}"),
            Some((code, msg)) => assert_eq!(got, Err((*code, msg.to_string())), "{q}"),
        }
    }
    let long = "m".repeat(129);
    let (r, m) = raw(&format!("fieldManager={long}"));
    assert_eq!(
        write_options("UpdateOptions", &r, &m, None).map_err(message),
        Err((422, "UpdateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes".into()))
    );
    let (r, m) = raw("force=true");
    assert_eq!(
        write_options("PatchOptions", &r, &m, Some(false)).map_err(message),
        Err((422, "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch".into()))
    );
}

#[test]
fn list_options_are_decoded_and_validated_as_upstream() {
    let cases: &[(&str, Option<(u16, &str)>)] = &[
        (
            "limit=500&resourceVersion=12&timeoutSeconds=30&watch=true",
            None,
        ),
        ("limit=-1", None),
        ("timeoutSeconds=-1&watch=1", None),
        (
            "timeoutSeconds=abc",
            Some((400, "strconv.ParseInt: parsing \"abc\": invalid syntax")),
        ),
        (
            "timeoutSeconds=99999999999999999999&watch=true",
            Some((
                400,
                "strconv.ParseInt: parsing \"99999999999999999999\": value out of range",
            )),
        ),
        (
            "limit=abc&timeoutSeconds=x",
            Some((400, "strconv.ParseInt: parsing \"x\": invalid syntax")),
        ),
        (
            "resourceVersion=abc",
            Some((
                400,
                "invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax",
            )),
        ),
        (
            "resourceVersionMatch=Exact",
            Some((
                422,
                "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
            )),
        ),
        (
            "resourceVersionMatch=bogus&resourceVersion=1",
            Some((
                422,
                "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \"bogus\": supported values: \"Exact\", \"NotOlderThan\", \"\"",
            )),
        ),
        (
            "continue=garbage",
            Some((
                400,
                "invalid continue token: continue key is not valid: invalid character '\\u0081' looking for beginning of value",
            )),
        ),
        (
            "continue=a!",
            Some((
                400,
                "invalid continue token: continue key is not valid: illegal base64 data at input byte 1",
            )),
        ),
        (
            "continue=x&resourceVersion=5",
            Some((
                400,
                "specifying resource version is not allowed when using continue",
            )),
        ),
    ];
    for (q, want) in cases {
        let (r, m) = raw(q);
        let got = list_options(&r, &m).map_err(message);
        match want {
            None => assert!(got.is_ok(), "{q}: {got:?}"),
            Some((code, msg)) => assert_eq!(got, Err((*code, msg.to_string())), "{q}"),
        }
    }
    // A token of upstream's shape decodes to its start and resourceVersion.
    let token = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiJkZWZhdWx0L3dlYlx1MDAwMCJ9";
    let (r, m) = raw(&format!("continue={token}&limit=500"));
    assert_eq!(
        list_options(&r, &m).unwrap().continue_token,
        Some(ContinueToken {
            rv: 5,
            start: "default/web\0".into()
        })
    );
    assert_eq!(
        encode_continue("default/web\0", 5),
        token,
        "upstream's bytes"
    );
    // rv -1 (continue at the latest) is valid; 0 is not; a key that path cleaning would
    // change is refused (upstream's guard against reaching above the list's prefix).
    let at = |start: &str, rv: i64| {
        decode_continue(&encode_continue(start, rv)).map_err(|e| message(e).1)
    };
    assert_eq!(at("a\0", -1).map(|t| t.rv), Ok(-1));
    assert_eq!(at("/a\0", 3).map(|t| t.start), Ok("a\0".to_string()));
    assert_eq!(
        at("a\0", 0),
        Err("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into())
    );
    for bad in ["../x", "a/../b", "a//b", "a/", "./a"] {
        assert_eq!(
            at(bad, 3),
            Err(format!(
                "invalid continue token: continue key is not valid: {bad}"
            )),
            "{bad}"
        );
    }
    assert!(query_bool("") && query_bool("yes") && !query_bool("F") && !query_bool("false"));
}

#[test]
fn delete_options_come_from_the_body_or_else_the_query() {
    let (r, m) = raw("propagationPolicy=bogus");
    assert_eq!(
        delete_options(b"", &r, &m).map_err(message),
        Err((422, "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"bogus\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"".into()))
    );
    assert!(
        delete_options(b"{}", &r, &m).is_ok(),
        "a body: the query is ignored"
    );
    let (r, m) = raw("gracePeriodSeconds=abc");
    assert_eq!(
        delete_options(b"", &r, &m).map_err(message),
        Err((
            400,
            "strconv.ParseInt: parsing \"abc\": invalid syntax".into()
        ))
    );
    let (r, m) = raw("gracePeriodSeconds=-5&dryRun=All");
    let o = delete_options(b"", &r, &m).unwrap();
    assert_eq!((o.grace_period_seconds, o.dry_run), (Some(1), true));
    let o = delete_options(br#"{"propagationPolicy":"Orphan"}"#, &[], &HashMap::new()).unwrap();
    assert!(o.orphan);
}

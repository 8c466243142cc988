//! CRD defaulting, validation and status, with upstream's field errors byte for byte (cases
//! after apiextensions-apiserver's `validation_test.go`, `TestValidateCustomResourceDefinition`,
//! the ones on the fields repel checks).

use super::*;
use repel_core::names::is_dns1035_label;

const DNS1035: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/// A valid CRD (`foos.example.com`), before defaulting.
fn crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "foos", "kind": "Foo"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]
        }
    })
}

/// `base` with the value at `pointer` set (its parent must exist).
fn with(mut base: Value, pointer: &str, v: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match base.pointer_mut(parent) {
        Some(Value::Object(m)) => {
            m.insert(key.to_string(), v);
        }
        Some(Value::Array(a)) => a[key.parse::<usize>().unwrap()] = v,
        _ => panic!("no {parent}"),
    }
    base
}

fn errors_of(mut c: Value) -> Vec<String> {
    set_defaults(&mut c);
    validate_create(&c)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_dns_1035_message_is_upstreams() {
    assert_eq!(is_dns1035_label("Foos"), [DNS1035]);
}

#[test]
fn creates_are_refused_with_upstreams_field_errors() {
    let v1 = |storage: bool| json!({"name": "v1", "served": true, "storage": storage, "schema": {"openAPIV3Schema": {"type": "object"}}});
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        ("a valid CRD has no errors", crd(), vec![]),
        (
            "the name must be plural.group",
            with(crd(), "/metadata/name", json!("bars.example.com")),
            vec![r#"metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group"#.into()],
        ),
        (
            "missing group, scope, plural and kind are required",
            with(
                with(crd(), "/spec", json!({"versions": [v1(true)], "names": {}})),
                "/metadata/name",
                json!("."),
            ),
            vec![
                // the name "." is no DNS-1123 subdomain, and not plural+"."+group either
                // (which is "." too: so only the subdomain error)
                "metadata.name: Invalid value: \".\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into(),
                "spec.group: Required value".into(),
                "spec.scope: Required value".into(),
                "spec.names.plural: Required value".into(),
                "spec.names.singular: Required value".into(),
                "spec.names.kind: Required value".into(),
                "spec.names.listKind: Required value".into(),
            ],
        ),
        (
            "a group needs a dot",
            with(
                with(crd(), "/spec/group", json!("example")),
                "/metadata/name",
                json!("foos.example"),
            ),
            vec![r#"spec.group: Invalid value: "example": should be a domain with at least one dot"#.into()],
        ),
        (
            "the scope is Cluster or Namespaced",
            with(crd(), "/spec/scope", json!("Global")),
            vec![r#"spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced""#.into()],
        ),
        (
            "names must be DNS-1035 labels, kinds in any case",
            with(
                crd(),
                "/spec/names",
                json!({"plural": "foos", "singular": "a.b", "kind": "Foo_", "shortNames": ["f", "F"], "categories": ["all", "9"]}),
            ),
            vec![
                format!(r#"spec.names.singular: Invalid value: "a.b": {DNS1035}"#),
                format!(r#"spec.names.kind: Invalid value: "Foo_": may have mixed case, but should otherwise match: {DNS1035}"#),
                format!(r#"spec.names.listKind: Invalid value: "Foo_List": may have mixed case, but should otherwise match: {DNS1035}"#),
                format!(r#"spec.names.shortNames[1]: Invalid value: "F": {DNS1035}"#),
                format!(r#"spec.names.categories[1]: Invalid value: "9": {DNS1035}"#),
            ],
        ),
        (
            "kind and listKind differ",
            with(crd(), "/spec/names/listKind", json!("Foo")),
            vec![r#"spec.names.listKind: Invalid value: "Foo": kind and listKind may not be the same"#.into()],
        ),
        (
            "no storage version",
            with(crd(), "/spec/versions", json!([v1(false)])),
            vec![
                r#"spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version"#.into(),
                "status.storedVersions: Invalid value: null: must have at least one stored version".into(),
            ],
        ),
        (
            "two storage versions",
            with(
                crd(),
                "/spec/versions",
                json!([v1(true), {"name": "v2", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}]),
            ),
            vec![r#"spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version"#.into()],
        ),
        (
            "no versions at all",
            with(crd(), "/spec/versions", json!(null)),
            vec![
                "spec.versions: Invalid value: null: must have exactly one version marked as storage version".into(),
                "status.storedVersions: Invalid value: null: must have at least one stored version".into(),
            ],
        ),
        (
            "duplicate and badly named versions",
            with(
                crd(),
                "/spec/versions",
                json!([{"name": "V1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}},
                       {"name": "V1", "served": false, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}}]),
            ),
            vec![
                format!(r#"spec.versions[0].name: Invalid value: "V1": {DNS1035}"#),
                format!(r#"spec.versions[1].name: Invalid value: "V1": {DNS1035}"#),
                r#"spec.versions: Invalid value: [{"Name":"V1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"V1","Served":false,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must contain unique version names"#.into(),
                format!(r#"spec.version: Invalid value: "V1": {DNS1035}"#),
            ],
        ),
        (
            "every version needs a schema",
            with(crd(), "/spec/versions/0/schema", json!(null)),
            vec!["spec.versions[0].schema.openAPIV3Schema: Required value".into()],
        ),
        (
            "a protected group needs the approval annotation",
            with(
                with(crd(), "/spec/group", json!("sigs.k8s.io")),
                "/metadata/name",
                json!("foos.sigs.k8s.io"),
            ),
            vec![r#"metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111"#.into()],
        ),
        (
            "the approval annotation is a URL or says unapproved",
            with(
                with(
                    with(crd(), "/spec/group", json!("sigs.k8s.io")),
                    "/metadata/name",
                    json!("foos.sigs.k8s.io"),
                ),
                "/metadata/annotations",
                json!({"api-approved.kubernetes.io": "invalid"}),
            ),
            vec![r#"metadata.annotations[api-approved.kubernetes.io]: Invalid value: "invalid": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111"#.into()],
        ),
        (
            "an approval URL or unapproved reason is accepted",
            with(
                with(
                    with(crd(), "/spec/group", json!("sigs.k8s.io")),
                    "/metadata/name",
                    json!("foos.sigs.k8s.io"),
                ),
                "/metadata/annotations",
                json!({"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/78458"}),
            ),
            vec![],
        ),
    ];
    for (name, c, want) in cases {
        assert_eq!(errors_of(c), want, "{name}");
    }
}

#[test]
fn updates_keep_the_group_and_the_names_that_make_the_storage() {
    let mut old = crd();
    set_defaults(&mut old);
    prepare(&mut old, true);
    name_and_establish(&mut old, &[], "2026-01-01T00:00:00Z");
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "new short names are fine",
            with(old.clone(), "/spec/names/shortNames", json!(["f"])),
            vec![],
        ),
        (
            "the scope and kind of an established CRD are immutable",
            with(
                with(old.clone(), "/spec/scope", json!("Cluster")),
                "/spec/names/kind",
                json!("Bar"),
            ),
            vec![
                r#"spec.scope: Invalid value: "Cluster": field is immutable"#,
                r#"spec.names.kind: Invalid value: "Bar": field is immutable"#,
            ],
        ),
        (
            "the group is immutable",
            with(old.clone(), "/spec/group", json!("example.org")),
            vec![r#"spec.group: Invalid value: "example.org": field is immutable"#],
        ),
    ];
    for (name, new, want) in cases {
        let got: Vec<String> = validate_update(&new, &old)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn a_created_crd_is_defaulted_accepted_and_serves_its_versions() {
    let mut c = with(
        crd(),
        "/spec/versions",
        json!([
            {"name": "v1beta1", "served": true, "storage": false, "subresources": {"status": {}}},
            {"name": "v1", "served": true, "storage": true,
             "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}]},
            {"name": "v1alpha1", "served": false, "storage": false}
        ]),
    );
    set_defaults(&mut c);
    assert_eq!(c["spec"]["names"]["singular"], "foo");
    assert_eq!(c["spec"]["names"]["listKind"], "FooList");
    assert_eq!(c["spec"]["conversion"], json!({"strategy": "None"}));
    prepare(&mut c, true);
    assert_eq!(c["status"], json!({"storedVersions": ["v1"]}));
    assert!(
        served_resources(&c).is_empty(),
        "not served before it is established"
    );
    name_and_establish(&mut c, &[], "2026-01-01T00:00:00Z");
    assert_eq!(
        c["status"],
        json!({
            "acceptedNames": {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
                 "reason": "NoConflicts", "message": "no conflicts found"},
                {"type": "Established", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
                 "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"}
            ],
            "storedVersions": ["v1"]
        })
    );
    let served = served_resources(&c);
    let versions: Vec<&str> = served.iter().map(|r| r.version.as_str()).collect();
    assert_eq!(versions, ["v1beta1", "v1"]);
    assert!(served[0].has_sub("status"));
    assert!(!served[1].has_sub("status"));
    assert!(
        served
            .iter()
            .all(|r| r.key() == "foos.example.com" && r.namespaced)
    );
    let custom = served[1].custom.as_ref().map(|c| c.columns.len());
    assert_eq!(custom, Some(1));
    // Accepting again keeps the transition times.
    name_and_establish(&mut c, &[], "2026-02-02T00:00:00Z");
    assert_eq!(
        c["status"]["conditions"][1]["lastTransitionTime"],
        "2026-01-01T00:00:00Z"
    );
}

#[test]
fn versions_are_ordered_as_kube_aware_versions() {
    let mut v = vec![
        "v1alpha1", "foo", "v1", "v2beta1", "v1beta2", "v2", "v1beta1", "v10",
    ];
    v.sort_by(|a, b| crate::registry::compare_versions(a, b));
    assert_eq!(
        v,
        [
            "v10", "v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1", "foo"
        ]
    );
}

#[test]
fn names_another_crd_of_the_group_holds_are_not_accepted() {
    let established = |c: Value| {
        let mut c = c;
        set_defaults(&mut c);
        prepare(&mut c, true);
        name_and_establish(&mut c, &[], "2026-01-01T00:00:00Z");
        c
    };
    let foos = established(with(crd(), "/spec/names/shortNames", json!(["f", "fo"])));
    let bars = |names: Value| {
        with(
            with(crd(), "/metadata/name", json!("bars.example.com")),
            "/spec/names",
            names,
        )
    };
    let cases: Vec<(&str, Value, Value)> = vec![
        (
            "a kind in use",
            bars(json!({"plural": "bars", "kind": "Foo", "listKind": "BarList"})),
            json!(["KindConflict", "\"Foo\" is already in use"]),
        ),
        (
            "a kind in use and its defaulted listKind: the last conflict is the reason",
            bars(json!({"plural": "bars", "kind": "Foo"})),
            json!(["ListKindConflict", "\"FooList\" is already in use"]),
        ),
        (
            "short names in use, all of them listed",
            bars(json!({"plural": "bars", "kind": "Bar", "shortNames": ["fo", "b", "f"]})),
            json!([
                "ShortNamesConflict",
                "[\"fo\" is already in use, \"f\" is already in use]"
            ]),
        ),
        (
            "a singular that is another's plural",
            bars(json!({"plural": "bars", "singular": "foos", "kind": "Bar"})),
            json!(["SingularConflict", "\"foos\" is already in use"]),
        ),
        (
            "the same names in another group",
            with(
                with(crd(), "/metadata/name", json!("foos.example.org")),
                "/spec/group",
                json!("example.org"),
            ),
            json!(["NoConflicts", "no conflicts found"]),
        ),
    ];
    for (name, c, want) in cases {
        let mut c = c;
        set_defaults(&mut c);
        prepare(&mut c, true);
        name_and_establish(&mut c, &[&foos], "2026-01-01T00:00:00Z");
        let got = &c["status"]["conditions"][0];
        assert_eq!(json!([got["reason"], got["message"]]), want, "{name}");
        let conflicted = want[0] != "NoConflicts";
        assert_eq!(
            served_resources(&c).is_empty(),
            conflicted,
            "{name}: served only when established"
        );
        if conflicted {
            assert_eq!(
                c["status"]["conditions"][1]["reason"], "NotAccepted",
                "{name}"
            );
        }
    }
}

#[test]
fn a_crd_may_add_a_version_to_a_built_in_group() {
    let mut c = with(
        with(
            with(crd(), "/metadata/name", json!("foos.storage.k8s.io")),
            "/spec/group",
            json!("storage.k8s.io"),
        ),
        "/metadata/annotations",
        json!({"api-approved.kubernetes.io": "unapproved, testing"}),
    );
    c["spec"]["versions"][0]["name"] = json!("v1alpha1");
    set_defaults(&mut c);
    assert!(validate_create(&c).is_empty());
    prepare(&mut c, true);
    name_and_establish(&mut c, &[], "2026-01-01T00:00:00Z");
    let reg = crate::registry::Registry::default();
    reg.set_crds(&[c]);
    let groups = reg.groups();
    let storage: Vec<&(String, Vec<String>)> = groups
        .iter()
        .filter(|(g, _)| g == "storage.k8s.io")
        .collect();
    assert_eq!(
        storage,
        [&(
            "storage.k8s.io".to_string(),
            vec!["v1".to_string(), "v1alpha1".to_string()]
        )],
        "one entry for the group, the built-in version preferred"
    );
    assert!(reg.find("storage.k8s.io", "v1alpha1", "foos").is_some());
    assert!(reg.find("storage.k8s.io", "v1", "storageclasses").is_some());
}

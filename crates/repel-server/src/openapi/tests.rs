use super::*;

fn doc_in(reg: &Registry, group: &str, version: &str) -> Value {
    let b = document_bytes(reg, group, version).unwrap();
    serde_json::from_slice(&b).unwrap()
}

fn doc(group: &str, version: &str) -> Value {
    doc_in(&Registry::default(), group, version)
}

/// Every `$ref` under `v`.
fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r.clone());
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

#[test]
fn unknown_group_versions_have_no_document() {
    let reg = Registry::default();
    assert!(document_bytes(&reg, "nope", "v1").is_none());
    assert!(document_bytes(&reg, "apps", "v2").is_none());
    assert!(serve_path(&reg, &["openapi", "v3", "apis", "nope", "v1"]).is_none());
    assert!(serve_path(&reg, &["openapi", "v3", "apis", "apps", "v1"]).is_some());
}

#[test]
fn the_openapi_pod_path_carries_gvk_and_field_validation() {
    let d = doc("", "v1");
    let p = &d["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
    assert_eq!(p["x-kubernetes-group-version-kind"]["kind"], "Pod");
    assert_eq!(p["parameters"][0]["name"], "fieldValidation");
}

#[test]
fn the_pod_schema_is_upstreams_shape() {
    let d = doc("", "v1");
    let s = &d["components"]["schemas"];
    let pod = &s["io.k8s.api.core.v1.Pod"];
    assert_eq!(
        pod["x-kubernetes-group-version-kind"],
        json!([{"group": "", "kind": "Pod", "version": "v1"}])
    );
    assert!(
        pod.get("required").is_none(),
        "upstream requires no metadata"
    );
    assert_eq!(
        pod["properties"]["metadata"],
        json!({
            "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],
            "description": "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
        })
    );
    let tolerations = &s["io.k8s.api.core.v1.PodSpec"]["properties"]["tolerations"];
    assert_eq!(
        tolerations["description"],
        "If specified, the pod's tolerations."
    );
    assert_eq!(tolerations["x-kubernetes-list-type"], "atomic");
    assert_eq!(
        tolerations["items"]["$ref"],
        "#/components/schemas/io.k8s.api.core.v1.Toleration"
    );
    let containers = &s["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
    assert_eq!(containers["x-kubernetes-list-type"], "map");
    assert_eq!(containers["x-kubernetes-list-map-keys"], json!(["name"]));
    assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
    assert_eq!(containers["x-kubernetes-patch-strategy"], "merge");
    assert_eq!(
        s["io.k8s.api.core.v1.Toleration"]["properties"]["effect"]["type"],
        "string"
    );
    assert_eq!(
        s["io.k8s.api.core.v1.NodeSpec"]["properties"]["taints"]["x-kubernetes-list-type"],
        "atomic"
    );
}

#[test]
fn every_served_kind_has_its_schema_and_every_ref_resolves() {
    let reg = Registry::default();
    let mut gvs = vec![(String::new(), "v1".to_string())];
    for (g, vs) in reg.groups() {
        gvs.extend(vs.into_iter().map(|v| (g.clone(), v)));
    }
    for (g, v) in gvs {
        let d = doc_in(&reg, &g, &v);
        let schemas = d["components"]["schemas"].as_object().unwrap();
        for r in reg.in_group_version(&g, &v) {
            let gvk = json!([{"group": r.group, "kind": r.kind, "version": r.version}]);
            assert!(
                schemas
                    .values()
                    .any(|s| s["x-kubernetes-group-version-kind"] == gvk),
                "{g}/{v} {}: no schema",
                r.kind
            );
        }
        let mut all = Vec::new();
        refs(&d["components"], &mut all);
        for r in all {
            let name = r.strip_prefix("#/components/schemas/").unwrap_or(&r);
            assert!(schemas.contains_key(name), "{g}/{v}: {r} does not resolve");
        }
        let mut names: Vec<&String> = schemas.keys().collect();
        names.sort();
        assert!(
            names.iter().copied().eq(schemas.keys()),
            "{g}/{v}: sorted by name"
        );
    }
}

#[test]
fn documents_are_deterministic() {
    let reg = Registry::default();
    for (g, v) in [("", "v1"), ("apps", "v1")] {
        let resources = reg.in_group_version(g, v);
        let once = document(&resources, g, v).to_string();
        assert_eq!(
            once.as_bytes(),
            &document_bytes(&reg, g, v).unwrap()[..],
            "{g}/{v}"
        );
        assert_eq!(
            serde_json::to_string(&schemas::builtin(g, v)).unwrap(),
            serde_json::to_string(&schemas::builtin(g, v)).unwrap(),
            "{g}/{v}: generated twice, the same"
        );
    }
}

/// A registry serving one CRD, `foos.example.com`, whose schema has a `spec`.
fn with_crd() -> Registry {
    let mut c = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "foos", "kind": "Foo"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "description": "The foo's spec."}
                }}}}]
        }
    });
    crate::crd::set_defaults(&mut c);
    crate::crd::prepare(&mut c, true);
    crate::crd::name_and_establish(&mut c, &[], "2026-01-01T00:00:00Z");
    let reg = Registry::default();
    reg.set_crds(&[c]);
    reg
}

#[test]
fn a_custom_resources_schema_is_its_crds_with_the_object_fields() {
    let reg = with_crd();
    let d = doc_in(&reg, "example.com", "v1");
    let s = &d["components"]["schemas"]["com.example.v1.Foo"];
    assert_eq!(
        s["x-kubernetes-group-version-kind"],
        json!([{"group": "example.com", "kind": "Foo", "version": "v1"}])
    );
    assert_eq!(
        s["properties"]["metadata"]["allOf"][0]["$ref"],
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    assert!(d["components"]["schemas"][schemas::OBJECT_META].is_object());
    assert_eq!(s["properties"]["apiVersion"]["type"], "string");
    assert_eq!(s["properties"]["spec"]["description"], "The foo's spec.");
    let i = index(&reg);
    assert!(
        i["paths"]["apis/example.com/v1"]["serverRelativeURL"]
            .as_str()
            .unwrap()
            .starts_with("/openapi/v3/apis/example.com/v1?hash=")
    );
}

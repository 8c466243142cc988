use super::*;
use crate::registry::Registry;

/// gnostic's `openapi.v2` messages, as far as kubectl reads them (field numbers from
/// OpenAPIv2.proto), decoded with prost as an independent reference of the encoding.
mod gnostic {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Document {
        #[prost(string, tag = "1")]
        pub swagger: String,
        #[prost(message, optional, tag = "2")]
        pub info: Option<Info>,
        #[prost(message, optional, tag = "9")]
        pub definitions: Option<Definitions>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Info {
        #[prost(string, tag = "1")]
        pub title: String,
        #[prost(string, tag = "2")]
        pub version: String,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Definitions {
        #[prost(message, repeated, tag = "1")]
        pub additional_properties: Vec<NamedSchema>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NamedSchema {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(message, optional, tag = "2")]
        pub value: Option<Schema>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Any {
        #[prost(string, tag = "2")]
        pub yaml: String,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NamedAny {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(message, optional, tag = "2")]
        pub value: Option<Any>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TypeItem {
        #[prost(string, repeated, tag = "1")]
        pub value: Vec<String>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ItemsItem {
        #[prost(message, repeated, tag = "1")]
        pub schema: Vec<Schema>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Properties {
        #[prost(message, repeated, tag = "1")]
        pub additional_properties: Vec<NamedSchema>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct AdditionalPropertiesItem {
        #[prost(message, optional, tag = "1")]
        pub schema: Option<Box<Schema>>,
        #[prost(bool, tag = "2")]
        pub boolean: bool,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Schema {
        #[prost(string, tag = "1")]
        pub xref: String,
        #[prost(string, tag = "2")]
        pub format: String,
        #[prost(string, tag = "4")]
        pub description: String,
        #[prost(message, optional, tag = "5")]
        pub default: Option<Any>,
        #[prost(double, tag = "9")]
        pub minimum: f64,
        #[prost(int64, tag = "15")]
        pub min_items: i64,
        #[prost(string, repeated, tag = "19")]
        pub required: Vec<String>,
        #[prost(message, repeated, tag = "20")]
        pub r#enum: Vec<Any>,
        #[prost(message, optional, boxed, tag = "21")]
        pub additional_properties: Option<Box<AdditionalPropertiesItem>>,
        #[prost(message, optional, tag = "22")]
        pub r#type: Option<TypeItem>,
        #[prost(message, optional, tag = "23")]
        pub items: Option<ItemsItem>,
        #[prost(message, optional, tag = "25")]
        pub properties: Option<Properties>,
        #[prost(message, repeated, tag = "31")]
        pub vendor_extension: Vec<NamedAny>,
    }
}

use prost::Message as _;

fn decoded(reg: &Registry) -> gnostic::Document {
    gnostic::Document::decode(document_protobuf(reg).as_slice()).unwrap()
}

fn find<'a>(d: &'a gnostic::Document, name: &str) -> &'a gnostic::Schema {
    d.definitions
        .as_ref()
        .unwrap()
        .additional_properties
        .iter()
        .find(|n| n.name == name)
        .and_then(|n| n.value.as_ref())
        .unwrap_or_else(|| panic!("no definition {name}"))
}

fn property<'a>(s: &'a gnostic::Schema, name: &str) -> &'a gnostic::Schema {
    s.properties
        .as_ref()
        .unwrap()
        .additional_properties
        .iter()
        .find(|n| n.name == name)
        .and_then(|n| n.value.as_ref())
        .unwrap_or_else(|| panic!("no property {name}"))
}

fn extension<'a>(s: &'a gnostic::Schema, name: &str) -> Option<&'a str> {
    s.vendor_extension
        .iter()
        .find(|e| e.name == name)
        .and_then(|e| e.value.as_ref())
        .map(|a| a.yaml.as_str())
}

#[test]
fn the_protobuf_document_carries_the_pods_schema_as_kubectl_reads_it() {
    let d = decoded(&Registry::default());
    assert_eq!(d.swagger, "2.0");
    assert_eq!(d.info.as_ref().unwrap().title, "Kubernetes");
    let pod = find(&d, "io.k8s.api.core.v1.Pod");
    let gvk: Value =
        serde_json::from_str(extension(pod, "x-kubernetes-group-version-kind").unwrap()).unwrap();
    assert_eq!(gvk, json!([{"group": "", "kind": "Pod", "version": "v1"}]));
    let spec = property(pod, "spec");
    assert_eq!(spec.xref, "#/definitions/io.k8s.api.core.v1.PodSpec");
    assert!(
        spec.description
            .starts_with("Specification of the desired behavior of the pod.")
    );
    assert!(spec.r#type.is_none(), "a reference has no type");

    let tolerations = property(find(&d, "io.k8s.api.core.v1.PodSpec"), "tolerations");
    assert_eq!(tolerations.r#type.as_ref().unwrap().value, ["array"]);
    assert_eq!(
        tolerations.description,
        "If specified, the pod's tolerations."
    );
    let item = &tolerations.items.as_ref().unwrap().schema;
    assert_eq!(item.len(), 1);
    assert_eq!(item[0].xref, "#/definitions/io.k8s.api.core.v1.Toleration");
    assert_eq!(
        extension(tolerations, "x-kubernetes-list-type"),
        Some("\"atomic\"")
    );

    let effect = property(find(&d, "io.k8s.api.core.v1.Taint"), "effect");
    let effects: Vec<&str> = effect.r#enum.iter().map(|a| a.yaml.as_str()).collect();
    assert_eq!(
        effects,
        ["\"NoExecute\"", "\"NoSchedule\"", "\"PreferNoSchedule\""]
    );
    let seconds = property(
        find(&d, "io.k8s.api.core.v1.Toleration"),
        "tolerationSeconds",
    );
    assert_eq!(seconds.r#type.as_ref().unwrap().value, ["integer"]);
    assert_eq!(seconds.format, "int64");

    let labels = property(find(&d, schemas::OBJECT_META), "labels");
    assert_eq!(labels.r#type.as_ref().unwrap().value, ["object"]);
    let sub = labels.additional_properties.as_ref().unwrap();
    let sub = sub.schema.as_ref().unwrap();
    assert_eq!(sub.r#type.as_ref().unwrap().value, ["string"]);
}

#[test]
fn int_or_string_and_quantity_are_spelled_as_kube_apiservers_v2() {
    let d = decoded(&Registry::default());
    let ios = find(&d, "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
    assert_eq!(ios.r#type.as_ref().unwrap().value, ["string"]);
    assert_eq!(ios.format, "int-or-string");
    assert!(ios.vendor_extension.is_empty());
    let q = find(&d, "io.k8s.apimachinery.pkg.api.resource.Quantity");
    assert_eq!(q.r#type.as_ref().unwrap().value, ["string"]);
    assert_eq!(q.format, "");
    assert!(
        q.description
            .starts_with("Quantity is a fixed-point representation")
    );
}

/// Checks what kube-openapi's `proto.NewOpenAPIData` refuses: a dangling or non-definition
/// reference, a reference with a type or properties, an array without exactly one item
/// schema, more than one type.
fn check_parsable(s: &gnostic::Schema, names: &[&str], path: &str) {
    if !s.xref.is_empty() {
        let name = s
            .xref
            .strip_prefix("#/definitions/")
            .unwrap_or_else(|| panic!("{path}: {}", s.xref));
        assert!(
            names.contains(&name),
            "{path}: unknown model in reference {name}"
        );
        assert!(s.r#type.is_none() && s.properties.is_none(), "{path}");
        return;
    }
    let types = s.r#type.as_ref().map_or(&[][..], |t| t.value.as_slice());
    assert!(types.len() <= 1, "{path}: {types:?}");
    if types == ["array"] {
        let items = s.items.as_ref().map_or(0, |i| i.schema.len());
        assert_eq!(items, 1, "{path}: array should have exactly one sub-item");
    }
    for i in s.items.iter().flat_map(|i| &i.schema) {
        check_parsable(i, names, &format!("{path}[]"));
    }
    for p in s.properties.iter().flat_map(|p| &p.additional_properties) {
        if let Some(v) = &p.value {
            check_parsable(v, names, &format!("{path}.{}", p.name));
        }
    }
    if let Some(a) = s
        .additional_properties
        .as_ref()
        .and_then(|a| a.schema.as_ref())
    {
        check_parsable(a, names, &format!("{path}{{}}"));
    }
}

#[test]
fn every_definition_is_one_kubectl_can_parse() {
    let d = decoded(&Registry::default());
    let defs = &d.definitions.as_ref().unwrap().additional_properties;
    let names: Vec<&str> = defs.iter().map(|n| n.name.as_str()).collect();
    assert!(names.len() > 200, "{}", names.len());
    for n in defs {
        check_parsable(n.value.as_ref().unwrap(), &names, &n.name);
    }
    // Every served kind has its definition, found by its GVK.
    for k in schemas::KINDS {
        let found = defs.iter().any(|n| {
            n.value
                .as_ref()
                .and_then(|s| extension(s, "x-kubernetes-group-version-kind"))
                .is_some_and(|g| {
                    let g: Value = serde_json::from_str(g).unwrap();
                    g[0] == json!({"group": k.group, "kind": k.kind, "version": k.version})
                })
        });
        assert!(found, "{} {}", k.group, k.kind);
    }
}

#[test]
fn the_json_document_is_the_same_definitions() {
    let reg = Registry::default();
    let j = document(&reg);
    assert_eq!(j["swagger"], "2.0");
    let defs = j["definitions"].as_object().unwrap();
    let d = decoded(&reg);
    assert_eq!(
        defs.len(),
        d.definitions.unwrap().additional_properties.len()
    );
    assert_eq!(
        j["definitions"]["io.k8s.api.core.v1.Pod"]["properties"]["metadata"]["$ref"],
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    assert!(!j.to_string().contains("#/components/"));
}

#[test]
fn a_custom_resource_gets_its_crds_schema() {
    let mut crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "description": "The crontab.", "properties": {
                        "cronSpec": {"type": "string", "description": "When it runs."},
                        "replicas": {"type": "integer", "minimum": 1, "default": 1},
                        "tags": {"type": "array"},
                        "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
                    }}
                }}}
            }]
        }
    });
    crate::crd::name_and_establish(&mut crd, &[], "2026-01-01T00:00:00Z");
    let reg = Registry::default();
    reg.set_crds(&[crd]);
    let d = decoded(&reg);
    let defs = &d.definitions.as_ref().unwrap().additional_properties;
    let names: Vec<&str> = defs.iter().map(|n| n.name.as_str()).collect();
    let ct = find(&d, "com.example.stable.v1.CronTab");
    check_parsable(ct, &names, "CronTab");
    let gvk: Value =
        serde_json::from_str(extension(ct, "x-kubernetes-group-version-kind").unwrap()).unwrap();
    assert_eq!(
        gvk,
        json!([{"group": "stable.example.com", "kind": "CronTab", "version": "v1"}])
    );
    assert_eq!(
        property(ct, "metadata").xref,
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    let spec = property(ct, "spec");
    assert_eq!(property(spec, "cronSpec").description, "When it runs.");
    let replicas = property(spec, "replicas");
    assert_eq!(replicas.minimum, 1.0);
    assert_eq!(replicas.default.as_ref().unwrap().yaml, "1");
    assert!(
        property(spec, "tags").r#type.is_none(),
        "an array without items is arbitrary"
    );
    assert_eq!(property(spec, "port").format, "int-or-string");
    assert_eq!(
        extension(
            property(spec, "extra"),
            "x-kubernetes-preserve-unknown-fields"
        ),
        Some("true")
    );
}

//! What kube-apiserver's naming and establishing controllers write in a CRD's status.

use serde_json::{Value, json};

use super::{str_at, strings_at};

/// Upstream `equalToAcceptedOrFresh`: a name already accepted for this CRD, or one no other
/// CRD of the group holds.
fn fresh(requested: &str, accepted: &str, used: &[String]) -> Result<(), String> {
    if requested == accepted || !used.iter().any(|u| u == requested) {
        return Ok(());
    }
    Err(format!("{} is already in use", json!(requested)))
}

/// What kube-apiserver's naming controller (`calculateNamesAndConditions`, v1.32) and
/// establishing controller write in a CRD's status, given the other CRDs: (kube-apiserver does
/// it within a second of the write; here it is done before the reply)
/// 1. each requested name (plural, singular, short names, kind, listKind) is accepted unless
///    another CRD of the group has it among its accepted names; then `NamesAccepted` is False
///    with `PluralConflict`, `SingularConflict`, `ShortNamesConflict`, `KindConflict` or
///    `ListKindConflict` and `"x" is already in use`, and the name accepted before stays;
/// 2. otherwise `NamesAccepted` is True (`NoConflicts`, `no conflicts found`);
/// 3. once names are accepted the CRD is `Established` (`InitialNamesAccepted`, `the initial
///    names have been accepted`) for good; before, `Established` is False (`NotAccepted`,
///    `not all names are accepted`);
/// 4. a condition whose status does not change keeps its `lastTransitionTime`.
pub fn name_and_establish(crd: &mut Value, others: &[&Value], now: &str) {
    let group = str_at(crd, "/spec/group").to_string();
    let mut resources: Vec<String> = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    for o in others.iter().filter(|o| str_at(o, "/spec/group") == group) {
        let a = &o["status"]["acceptedNames"];
        for k in ["/plural", "/singular"] {
            resources.push(str_at(a, k).to_string());
        }
        resources.extend(strings_at(a, "shortNames"));
        for k in ["/kind", "/listKind"] {
            kinds.push(str_at(a, k).to_string());
        }
    }
    let requested = crd["spec"]["names"].clone();
    let accepted = crd["status"]["acceptedNames"].clone();
    let mut names = NamesOut::default();
    let mut conflict: Option<(&str, String)> = None;
    let pick = |key: &str,
                reason: &'static str,
                used: &[String],
                conflict: &mut Option<(&str, String)>|
     -> String {
        let (want, had) = (
            str_at(&requested, &format!("/{key}")),
            str_at(&accepted, &format!("/{key}")),
        );
        match fresh(want, had, used) {
            Ok(()) => want.to_string(),
            Err(e) => {
                *conflict = Some((reason, e));
                had.to_string()
            }
        }
    };
    names.plural = pick("plural", "PluralConflict", &resources, &mut conflict);
    names.singular = pick("singular", "SingularConflict", &resources, &mut conflict);
    let want_short = strings_at(&requested, "shortNames");
    let had_short = strings_at(&accepted, "shortNames");
    names.short_names = had_short.clone();
    if want_short != had_short {
        let errs: Vec<String> = want_short
            .iter()
            .filter(|s| !had_short.contains(s))
            .filter_map(|s| fresh(s, "", &resources).err())
            .collect();
        match errs.as_slice() {
            [] => names.short_names = want_short,
            [one] => conflict = Some(("ShortNamesConflict", one.clone())),
            many => conflict = Some(("ShortNamesConflict", format!("[{}]", many.join(", ")))),
        }
    }
    names.kind = pick("kind", "KindConflict", &kinds, &mut conflict);
    names.list_kind = pick("listKind", "ListKindConflict", &kinds, &mut conflict);
    names.categories = strings_at(&requested, "categories");

    let old: Vec<Value> = crd
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let condition = |ty: &str, status: &str, reason: &str, message: &str| {
        let since = old
            .iter()
            .find(|c| c["type"] == ty && c["status"] == status)
            .and_then(|c| c.get("lastTransitionTime").cloned())
            .unwrap_or_else(|| json!(now));
        json!({"type": ty, "status": status, "lastTransitionTime": since, "reason": reason, "message": message})
    };
    let names_accepted = match &conflict {
        Some((reason, message)) => condition("NamesAccepted", "False", reason, message),
        None => condition("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
    };
    let was_established = old
        .iter()
        .any(|c| c["type"] == "Established" && c["status"] == "True");
    let established = if conflict.is_none() || was_established {
        condition(
            "Established",
            "True",
            "InitialNamesAccepted",
            "the initial names have been accepted",
        )
    } else {
        condition(
            "Established",
            "False",
            "NotAccepted",
            "not all names are accepted",
        )
    };
    if !crd["status"].is_object() {
        crd["status"] = json!({});
    }
    let stored = crd["status"]
        .get("storedVersions")
        .cloned()
        .unwrap_or_else(|| json!([]));
    crd["status"] = json!({
        "acceptedNames": names.to_json(),
        "conditions": [names_accepted, established],
        "storedVersions": stored,
    });
}

/// The accepted names, in the order and with the omissions of Go's JSON of
/// `CustomResourceDefinitionNames`.
#[derive(Default)]
struct NamesOut {
    plural: String,
    singular: String,
    short_names: Vec<String>,
    kind: String,
    list_kind: String,
    categories: Vec<String>,
}

impl NamesOut {
    fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("plural".into(), json!(self.plural));
        if !self.singular.is_empty() {
            m.insert("singular".into(), json!(self.singular));
        }
        if !self.short_names.is_empty() {
            m.insert("shortNames".into(), json!(self.short_names));
        }
        m.insert("kind".into(), json!(self.kind));
        if !self.list_kind.is_empty() {
            m.insert("listKind".into(), json!(self.list_kind));
        }
        if !self.categories.is_empty() {
            m.insert("categories".into(), json!(self.categories));
        }
        Value::Object(m)
    }
}
